package load

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ontology"
)

// stage is one load's staging area: tables named prefix + …
//
//	params          one row: the load's _version and the replace scope
//	raw<i>          file i as the engine read it: _row, then every column as Nullable(String)
//	bad<i>          the invalid rows of file i: _row, column, reason, value
//	typed<i>        the valid rows of file i, typed like the graph table
//	k_<table>       keys of every valid row for a graph table (unchanged ones too)
//	d_<table>       the delta for a graph table: only rows that change the graph
//	manifest        written last; its presence means the deltas are complete
type stage struct {
	e      Engine
	ont    *ontology.Ontology
	opts   Options
	prefix string
	deltas map[string]bool // graph tables with a delta
	order  []string        // the same, in creation order
}

func (s *stage) exec(ctx context.Context, what, sql string) error {
	if err := s.e.Exec(ctx, sql); err != nil {
		return fmt.Errorf("load: %s: %w", what, err)
	}
	return nil
}

func (s *stage) params(ctx context.Context, version uint64) error {
	t := s.prefix + "params"
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+t+" (v UInt64, traversal_path String, project_id Int64, branch String) ENGINE = MergeTree ORDER BY tuple()"); err != nil {
		return err
	}
	var sc Scope
	if s.opts.Replace != nil {
		sc = *s.opts.Replace
	}
	if err := s.e.Insert(ctx, t, []string{"v", "traversal_path", "project_id", "branch"}, [][]any{{int64(version), sc.TraversalPath, sc.ProjectID, sc.Branch}}); err != nil {
		return fmt.Errorf("load: write parameters: %w", err)
	}
	return nil
}

func (s *stage) param(name string) string { return "(SELECT " + name + " FROM " + s.prefix + "params)" }

// delta creates the delta and key tables of a graph table once.
func (s *stage) delta(ctx context.Context, table string, keyCols string) error {
	if s.deltas[table] {
		return nil
	}
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"d_"+table+" AS "+table); err != nil {
		return err
	}
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"k_"+table+" ENGINE = MergeTree ORDER BY tuple() AS SELECT "+keyCols+", _deleted FROM "+table+" WHERE false"); err != nil {
		return err
	}
	s.deltas[table] = true
	s.order = append(s.order, table)
	return nil
}

// column is one column of a graph table as a load sees it.
type column struct {
	name     string
	typ      string // the property type; "UInt64" for _version
	nullable bool
	enum     []string
	required bool
}

func entityColumns(ent *ontology.Entity) []column {
	cols := []column{{name: "id", typ: "Int64", required: true}}
	if ent.Namespaced() {
		cols = append(cols, column{name: "traversal_path", typ: "String", required: true})
	}
	for _, p := range ent.Properties {
		cols = append(cols, column{name: p.Name, typ: p.Type, nullable: p.Nullable, enum: p.Enum})
	}
	return append(cols, column{name: "_version", typ: "UInt64", nullable: true}, column{name: "_deleted", typ: "Bool"})
}

var edgeColumns = []column{
	{name: "traversal_path", typ: "String", required: true},
	{name: "relationship_kind", typ: "String"},
	{name: "source_kind", typ: "String", required: true},
	{name: "source_id", typ: "Int64", required: true},
	{name: "target_kind", typ: "String", required: true},
	{name: "target_id", typ: "Int64", required: true},
	{name: "_version", typ: "UInt64", nullable: true},
	{name: "_deleted", typ: "Bool"},
}

const edgeKey = "traversal_path, relationship_kind, source_kind, source_id, target_kind, target_id"

// entityKey is the key of an entity table: (traversal_path, id), or id for a global entity.
func entityKey(ent *ontology.Entity) string {
	if ent.Namespaced() {
		return "traversal_path, id"
	}
	return "id"
}

// baseType is what a raw string is cast to for a property type.
func baseType(t string) string {
	if t == "LowCardinality(String)" {
		return "String"
	}
	return t
}

// file stages, checks and turns into delta rows one input file.
func (s *stage) file(ctx context.Context, i int, t *target) (FileReport, []Issue, error) {
	fr := FileReport{Path: t.src.Path, Type: t.name(), Format: t.src.Format}
	cols := edgeColumns
	if t.entity != nil {
		cols = entityColumns(t.entity)
	}
	// The file's columns, as the engine's schema inference sees them.
	res, err := collect(ctx, s.e, &compiler.Query{
		SQL:    "DESCRIBE file({p0:String}, " + t.src.Format.engineFormat() + ")",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: t.src.Path}},
	})
	if err != nil {
		return fr, nil, s.readIssue(t, err)
	}
	var have []string
	for _, row := range res.Rows {
		name, _ := row[0].(string)
		have = append(have, name)
	}
	var issues []Issue
	byName := map[string]column{}
	for _, c := range cols {
		byName[c.name] = c
	}
	for _, h := range have {
		if _, ok := byName[h]; !ok {
			issues = append(issues, Issue{File: t.src.Path, Row: -1, Column: h, Err: ErrUnknownProperty})
		}
	}
	for _, c := range cols {
		if c.required && !slices.Contains(have, c.name) {
			issues = append(issues, Issue{File: t.src.Path, Row: -1, Column: c.name, Err: ErrMissing})
		}
	}
	if len(issues) > 0 {
		// A file-level problem refuses the load even with SkipInvalid: no row of the file
		// can be read right.
		return fr, nil, &ValidationError{Issues: issues, Count: int64(len(issues))}
	}
	raw := s.prefix + "raw" + strconv.Itoa(i)
	var defs, names []string
	for _, h := range have {
		defs = append(defs, ident(h)+" Nullable(String)")
		names = append(names, ident(h))
	}
	structure := strings.Join(defs, ", ")
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+raw+" (_row UInt64, "+structure+") ENGINE = MergeTree ORDER BY _row"); err != nil {
		return fr, nil, err
	}
	ins := "INSERT INTO " + raw + " SELECT toUInt64(_row_number), " + strings.Join(names, ", ") +
		" FROM file(" + quote(t.src.Path) + ", " + t.src.Format.engineFormat() + ", " + quote(structure) + ")" +
		" SETTINGS input_format_skip_unknown_fields = 0, input_format_json_read_numbers_as_strings = 1," +
		" input_format_json_read_bools_as_strings = 1, input_format_json_read_objects_as_strings = 1," +
		" input_format_json_read_arrays_as_strings = 1, input_format_csv_empty_as_default = 1"
	if err := s.e.Exec(ctx, ins); err != nil {
		return fr, nil, s.readIssue(t, err)
	}
	if fr.Rows, err = count(ctx, s.e, "SELECT count() FROM "+raw); err != nil {
		return fr, nil, fmt.Errorf("load: count %s: %w", t.src.Path, err)
	}
	present := map[string]bool{}
	for _, h := range have {
		present[h] = true
	}
	// Checks, each a SELECT of the rows that fail it.
	var checks []string
	check := func(col, reason, cond string) {
		checks = append(checks, "SELECT _row, "+quote(col)+" AS column, "+quote(reason)+" AS reason, substring(ifNull("+ident(col)+", ''), 1, 80) AS value FROM "+raw+" WHERE "+cond)
	}
	for _, c := range cols {
		if !present[c.name] {
			continue
		}
		v := ident(c.name)
		if c.required {
			check(c.name, "missing", v+" IS NULL OR "+v+" = ''")
		}
		if c.name == "traversal_path" {
			check(c.name, "path", v+" IS NOT NULL AND "+v+" != '' AND NOT match("+v+", '^([0-9]+/)+$')")
		}
		if bt := baseType(c.typ); bt != "String" {
			check(c.name, "type", v+" IS NOT NULL AND "+v+" != '' AND accurateCastOrNull("+v+", "+quote(bt)+") IS NULL")
		}
		if len(c.enum) > 0 {
			var labels []string
			for _, l := range c.enum {
				labels = append(labels, quote(l))
			}
			check(c.name, "enum", v+" IS NOT NULL AND "+v+" NOT IN ("+strings.Join(labels, ", ")+")")
		}
	}
	if t.rel != nil {
		if present["relationship_kind"] {
			check("relationship_kind", "pair", "relationship_kind IS NOT NULL AND relationship_kind != "+quote(t.rel.Name))
		}
		var pairs []string
		for _, p := range t.rel.Pairs {
			pairs = append(pairs, "("+quote(p.From)+", "+quote(p.To)+")")
		}
		check("source_kind", "pair", "(ifNull(source_kind, ''), ifNull(target_kind, '')) NOT IN ("+strings.Join(pairs, ", ")+")")
		for _, side := range []string{"source", "target"} {
			cond, err := s.endpointMissing(ctx, t.rel, side)
			if err != nil {
				return fr, nil, err
			}
			check(side+"_id", "dangling", "(ifNull(source_kind, ''), ifNull(target_kind, '')) IN ("+strings.Join(pairs, ", ")+
				") AND accurateCastOrNull("+side+"_id, 'Int64') IS NOT NULL AND "+cond)
		}
	}
	bad := s.prefix + "bad" + strconv.Itoa(i)
	if err := s.exec(ctx, "validate "+t.src.Path, "CREATE TABLE "+bad+" ENGINE = MergeTree ORDER BY (_row, column) AS "+strings.Join(checks, " UNION ALL ")); err != nil {
		return fr, nil, err
	}
	if fr.Invalid, err = count(ctx, s.e, "SELECT uniqExact(_row) FROM "+bad); err != nil {
		return fr, nil, fmt.Errorf("load: validate %s: %w", t.src.Path, err)
	}
	if fr.Invalid > 0 {
		res, err := collect(ctx, s.e, &compiler.Query{SQL: "SELECT _row, column, reason, value FROM " + bad + " ORDER BY _row, column LIMIT " + strconv.Itoa(s.opts.MaxIssues)})
		if err != nil {
			return fr, nil, fmt.Errorf("load: validate %s: %w", t.src.Path, err)
		}
		for _, r := range res.Rows {
			row, _ := r[0].(int64)
			col, _ := r[1].(string)
			reason, _ := r[2].(string)
			val, _ := r[3].(string)
			is := Issue{File: t.src.Path, Row: row, Column: col, Value: val, Err: reasons[reason]}
			if fl := t.src.Format.firstLine(); fl > 0 {
				is.Line = row + fl
			}
			issues = append(issues, is)
		}
	}
	if fr.Invalid > 0 && !s.opts.SkipInvalid {
		return fr, issues, nil // refused by the caller; no delta needed
	}
	if t.entity != nil {
		return fr, issues, s.entityDelta(ctx, i, t, cols, present, raw, bad)
	}
	return fr, issues, s.edgeDelta(ctx, i, t, present, raw, bad)
}

var reasons = map[string]error{
	"missing": ErrMissing, "path": ErrPath, "type": ErrType, "enum": ErrEnum, "pair": ErrPair, "dangling": ErrDangling,
}

// readIssue reports an engine failure to read a file (malformed input, an unknown JSON key
// past the rows schema inference saw) as a validation error naming the file.
func (s *stage) readIssue(t *target, err error) error {
	var ee *executor.Error
	if errors.As(err, &ee) && (errors.Is(err, executor.ErrInvalidQuery) || errors.Is(err, executor.ErrInternal)) && ee.Code != 0 {
		is := Issue{File: t.src.Path, Row: -1, Column: "-", Err: fmt.Errorf("%w: %s", ErrRead, firstLine(ee.Error()))}
		return &ValidationError{Issues: []Issue{is}, Count: 1}
	}
	return fmt.Errorf("load: read %s: %w", t.src.Path, err)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// endpointMissing returns a condition true when the side endpoint of a row exists neither
// among the live nodes the load leaves alone nor among the nodes the load writes.
func (s *stage) endpointMissing(ctx context.Context, rel *ontology.Relationship, side string) (string, error) {
	kinds := map[string]bool{}
	for _, p := range rel.Pairs {
		if side == "source" {
			kinds[p.From] = true
		} else {
			kinds[p.To] = true
		}
	}
	id := "toInt64OrZero(" + side + "_id)"
	var arms []string
	for _, k := range sortedKeys(kinds) {
		ent, ok := s.ont.Entity(k)
		if !ok {
			return "", fmt.Errorf("load: relationship %s names unknown entity %s", rel.Name, k)
		}
		live := id + " IN (SELECT id FROM " + ent.Table + " FINAL WHERE _deleted = false)"
		exists := live
		if s.deltas[ent.Table] {
			keys := s.prefix + "k_" + ent.Table
			exists = "(" + id + " IN (SELECT id FROM " + keys + " WHERE _deleted = false) OR (" + live +
				" AND " + id + " NOT IN (SELECT id FROM " + keys + " WHERE _deleted = true)))"
		}
		arms = append(arms, "ifNull("+side+"_kind, '') = "+quote(k)+" AND NOT "+exists)
	}
	return "((" + strings.Join(arms, ") OR (") + "))", nil
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// typedExpr turns raw column c into the graph column's type.
func (s *stage) typedExpr(c column, present bool) string {
	bt := baseType(c.typ)
	v := ident(c.name)
	switch {
	case c.name == "_version":
		if !present {
			return s.param("v")
		}
		return "ifNull(CAST(nullIf(" + v + ", '') AS Nullable(UInt64)), " + s.param("v") + ")"
	case !present && c.nullable:
		return "CAST(NULL AS Nullable(" + bt + "))"
	case !present:
		return "defaultValueOfTypeName(" + quote(bt) + ")"
	case bt == "String" && c.nullable:
		return v
	case bt == "String":
		return "ifNull(" + v + ", '')"
	case c.nullable:
		return "CAST(nullIf(" + v + ", '') AS Nullable(" + bt + "))"
	}
	return "ifNull(CAST(nullIf(" + v + ", '') AS Nullable(" + bt + ")), defaultValueOfTypeName(" + quote(bt) + "))"
}

const castSettings = " SETTINGS cast_string_to_date_time_mode = 'best_effort'"

func (s *stage) entityDelta(ctx context.Context, i int, t *target, cols []column, present map[string]bool, raw, bad string) error {
	table := t.entity.Table
	key := entityKey(t.entity)
	if err := s.delta(ctx, table, key); err != nil {
		return err
	}
	typed := s.prefix + "typed" + strconv.Itoa(i)
	var names, exprs, data []string
	for _, c := range cols {
		names = append(names, ident(c.name))
		exprs = append(exprs, s.typedExpr(c, present[c.name])+" AS "+ident(c.name))
		if c.name != "id" && c.name != "traversal_path" && c.name != "_version" && c.name != "_deleted" {
			data = append(data, ident(c.name))
		}
	}
	if err := s.exec(ctx, "stage "+t.src.Path, "CREATE TABLE "+typed+" AS "+table+" ENGINE = MergeTree ORDER BY tuple() PRIMARY KEY tuple()"); err != nil {
		return err
	}
	list := strings.Join(names, ", ")
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+typed+" ("+list+") SELECT "+strings.Join(exprs, ", ")+
		" FROM "+raw+" WHERE _row NOT IN (SELECT _row FROM "+bad+")"+castSettings); err != nil {
		return err
	}
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"k_"+table+" SELECT "+key+", _deleted FROM "+typed); err != nil {
		return err
	}
	hash := "sipHash128(tuple(" + strings.Join(data, ", ") + "))"
	live := "(SELECT " + key + ", " + hash + " FROM " + table + " FINAL WHERE _deleted = false)"
	liveKeys := "(SELECT " + key + " FROM " + table + " FINAL WHERE _deleted = false)"
	// Unchanged rows and tombstones of absent rows would change nothing: leave them out, so
	// that loading the same files again writes no row.
	return s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"d_"+table+" ("+list+") SELECT "+list+" FROM "+typed+
		" WHERE (_deleted = false AND ("+key+", "+hash+") NOT IN "+live+")"+
		" OR (_deleted = true AND ("+key+") IN "+liveKeys+")")
}

func (s *stage) edgeDelta(ctx context.Context, i int, t *target, present map[string]bool, raw, bad string) error {
	table := s.ont.EdgeTable
	if err := s.delta(ctx, table, edgeKey); err != nil {
		return err
	}
	typed := s.prefix + "typed" + strconv.Itoa(i)
	var exprs []string
	for _, c := range edgeColumns {
		e := s.typedExpr(c, present[c.name])
		if c.name == "relationship_kind" {
			e = quote(t.rel.Name)
		}
		exprs = append(exprs, e+" AS "+c.name)
	}
	if err := s.exec(ctx, "stage "+t.src.Path, "CREATE TABLE "+typed+" AS "+table+" ENGINE = MergeTree ORDER BY tuple() PRIMARY KEY tuple()"); err != nil {
		return err
	}
	all := edgeKey + ", _version, _deleted"
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+typed+" ("+all+") SELECT "+strings.Join(exprs, ", ")+
		" FROM "+raw+" WHERE _row NOT IN (SELECT _row FROM "+bad+")"+castSettings); err != nil {
		return err
	}
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"k_"+table+" SELECT "+edgeKey+", _deleted FROM "+typed); err != nil {
		return err
	}
	live := "(SELECT " + edgeKey + " FROM " + table + " FINAL WHERE _deleted = false)"
	return s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"d_"+table+" ("+all+") SELECT "+all+" FROM "+typed+
		" WHERE (_deleted = false AND ("+edgeKey+") NOT IN "+live+") OR (_deleted = true AND ("+edgeKey+") IN "+live+")")
}

// replace tombstones the live rows of the scope that the load does not hold, and returns
// how many.
func (s *stage) replace(ctx context.Context, ts []*target) (int64, error) {
	before, _, _, err := s.counts(ctx)
	if err != nil {
		return 0, err
	}
	var scopeNodes []string
	for _, table := range slices.Clone(s.order) {
		ent := s.entityOfTable(table)
		if ent == nil || !ent.Namespaced() {
			continue
		}
		branchCol := "branch"
		if ent.Name == "Branch" {
			branchCol = "name"
		}
		if _, ok := ent.Property(branchCol); !ok {
			continue
		}
		if _, ok := ent.Property("project_id"); !ok {
			continue
		}
		where := "traversal_path = " + s.param("traversal_path") + " AND project_id = " + s.param("project_id") + " AND " + branchCol + " = " + s.param("branch")
		keys := s.prefix + "k_" + table
		scopeNodes = append(scopeNodes, "SELECT "+quote(ent.Name)+" AS kind, id FROM "+table+" FINAL WHERE _deleted = false AND "+where,
			"SELECT "+quote(ent.Name)+" AS kind, id FROM "+keys)
		// The filter sits in a sub-query: at the outer level _deleted would resolve to the
		// REPLACE alias.
		if err := s.exec(ctx, "tombstone "+table, "INSERT INTO "+s.prefix+"d_"+table+" SELECT * REPLACE ("+s.param("v")+" AS _version, true AS _deleted) FROM (SELECT * FROM "+table+
			" FINAL WHERE _deleted = false AND "+where+") WHERE (traversal_path, id) NOT IN (SELECT traversal_path, id FROM "+keys+")"); err != nil {
			return 0, err
		}
	}
	if s.deltas[s.ont.EdgeTable] && len(scopeNodes) > 0 {
		var rels []string
		for _, t := range ts {
			if t.rel != nil && !slices.Contains(rels, quote(t.rel.Name)) {
				rels = append(rels, quote(t.rel.Name))
			}
		}
		table := s.ont.EdgeTable
		if err := s.exec(ctx, "tombstone "+table, "INSERT INTO "+s.prefix+"d_"+table+" SELECT * REPLACE ("+s.param("v")+" AS _version, true AS _deleted) FROM (SELECT * FROM "+table+
			" FINAL WHERE _deleted = false AND traversal_path = "+s.param("traversal_path")+" AND relationship_kind IN ("+strings.Join(rels, ", ")+
			") AND (source_kind, source_id) IN ("+strings.Join(scopeNodes, " UNION ALL ")+")) WHERE ("+edgeKey+") NOT IN (SELECT "+edgeKey+" FROM "+s.prefix+"k_"+table+")"); err != nil {
			return 0, err
		}
	}
	after, _, _, err := s.counts(ctx)
	return after - before, err
}

func (s *stage) entityOfTable(table string) *ontology.Entity {
	for _, e := range s.ont.Entities {
		if e.Table == table {
			return e
		}
	}
	return nil
}

// finishEdges copies the edge delta into the delta of the second edge table: the
// materialized view that fills gl_edge_by_target runs on inserts, not on attached parts.
func (s *stage) finishEdges(ctx context.Context) error {
	if !s.deltas[s.ont.EdgeTable] {
		return nil
	}
	by := s.ont.EdgeTableByTarget
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"d_"+by+" AS "+by); err != nil {
		return err
	}
	s.deltas[by] = true
	s.order = append(s.order, by)
	return s.exec(ctx, "stage edges", "INSERT INTO "+s.prefix+"d_"+by+" SELECT * FROM "+s.prefix+"d_"+s.ont.EdgeTable)
}

// counts returns the rows of every delta (the by-target copy of the edges not counted
// again), and of them the node and edge rows.
func (s *stage) counts(ctx context.Context) (total, nodes, edges int64, err error) {
	for _, table := range s.order {
		if table == s.ont.EdgeTableByTarget {
			continue
		}
		n, err := count(ctx, s.e, "SELECT count() FROM "+s.prefix+"d_"+table)
		if err != nil {
			return 0, 0, 0, fmt.Errorf("load: count %s: %w", table, err)
		}
		total += n
		if table == s.ont.EdgeTable {
			edges += n
		} else {
			nodes += n
		}
	}
	return total, nodes, edges, nil
}

// writeManifest records the deltas to attach. It is written under a temporary name and
// renamed, so it exists whole or not at all.
func (s *stage) writeManifest(ctx context.Context) error {
	tmp := s.prefix + "manifest_tmp"
	if err := s.exec(ctx, "write manifest", "CREATE TABLE "+tmp+" (n UInt32, target String, delta String) ENGINE = MergeTree ORDER BY n"); err != nil {
		return err
	}
	var rows [][]any
	for i, t := range s.order {
		rows = append(rows, []any{int64(i), t, s.prefix + "d_" + t})
	}
	if len(rows) > 0 {
		if err := s.e.Insert(ctx, tmp, []string{"n", "target", "delta"}, rows); err != nil {
			return fmt.Errorf("load: write manifest: %w", err)
		}
	}
	return s.exec(ctx, "write manifest", "RENAME TABLE "+tmp+" TO "+s.prefix+"manifest")
}

// verify counts the distinct live keys the load holds and how many of them a FINAL read of
// the graph now returns.
func (s *stage) verify(ctx context.Context) (live, found int64, err error) {
	for _, table := range s.order {
		if table == s.ont.EdgeTableByTarget {
			continue
		}
		key := edgeKey
		if ent := s.entityOfTable(table); ent != nil {
			key = entityKey(ent)
		}
		keys := "(SELECT DISTINCT " + key + " FROM " + s.prefix + "k_" + table + " WHERE _deleted = false)"
		n, err := count(ctx, s.e, "SELECT count() FROM "+keys)
		if err != nil {
			return 0, 0, fmt.Errorf("load: verify %s: %w", table, err)
		}
		m, err := count(ctx, s.e, "SELECT count() FROM "+keys+" WHERE ("+key+") IN (SELECT "+key+" FROM "+table+" FINAL WHERE _deleted = false)")
		if err != nil {
			return 0, 0, fmt.Errorf("load: verify %s: %w", table, err)
		}
		live += n
		found += m
	}
	return live, found, nil
}

// drop removes every staging table of the load.
func (s *stage) drop(ctx context.Context) {
	if err := dropPrefix(ctx, s.e, s.prefix); err != nil {
		s.opts.Logger.Warn("load_cleanup_failed", "err", err)
	}
}

func dropPrefix(ctx context.Context, e Engine, prefix string) error {
	names, err := stagingTables(ctx, e, prefix)
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := e.Exec(ctx, "DROP TABLE IF EXISTS "+n+" SYNC"); err != nil {
			return fmt.Errorf("drop %s: %w", n, err)
		}
	}
	return nil
}

// stagingTables lists the tables whose names start with prefix. The names were made by
// this package (prefix, hex token, a fixed suffix), so they are safe identifiers.
func stagingTables(ctx context.Context, e Engine, prefix string) ([]string, error) {
	res, err := collect(ctx, e, &compiler.Query{
		SQL:    "SELECT name FROM system.tables WHERE database = currentDatabase() AND startsWith(name, {p0:String}) ORDER BY name",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: prefix}},
	})
	if err != nil {
		return nil, fmt.Errorf("list staging tables: %w", err)
	}
	var names []string
	for _, r := range res.Rows {
		n, _ := r[0].(string)
		if stagingName(n) {
			names = append(names, n)
		}
	}
	return names, nil
}

func stagingName(n string) bool {
	if !strings.HasPrefix(n, stagePrefix) {
		return false
	}
	for _, r := range n {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
