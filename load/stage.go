package load

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
//	k_<table>       keys of every valid row for a graph table (unchanged ones too), with
//	                its _deleted, _version and _ord (file index and row: later is greater)
//	w_<table>       when the load holds a key both live and deleted: each key once, with
//	                the _deleted, _version and _ord of the row that wins it (see winners)
//	dangling        the live edge rows with an end that is no live node: _ord, column,
//	                value, end kind, the edge's path for a same_namespace type, and
//	                whether the row is invalid for another reason (see danglingEnds)
//	d_<table>       the delta for a graph table: only rows that change the graph
//	manifest        written last; its presence means the deltas are complete
type stage struct {
	e      Engine
	ont    *ontology.Ontology
	opts   Options
	prefix string
	deltas map[string]bool // graph tables with a delta
	order  []string        // the same, in creation order
	empty  map[string]bool // graph tables found without rows before the load wrote to them
	// versioned holds the graph tables a file with a _version column wrote to; only their
	// rows can lose to a version already in the graph (see shadowed).
	versioned map[string]bool
	// won holds, per graph table, where its keys' winning states are read (see winners).
	won map[string]string
	// dangling is set once the staging table of dangling edge ends exists (see danglingEnds).
	dangling bool
}

func (s *stage) exec(ctx context.Context, what, sql string) error {
	if err := s.e.Exec(ctx, sql); err != nil {
		return fmt.Errorf("load: %s: %w", what, err)
	}
	return nil
}

func (s *stage) query(ctx context.Context, q *compiler.Query) (*executor.Result, error) {
	return collect(ctx, s.e, q)
}

func (s *stage) count(ctx context.Context, sql string) (int64, error) {
	return count(ctx, s.e, sql)
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
	if sc.Files == nil {
		return nil
	}
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"files (path String) ENGINE = Memory"); err != nil {
		return err
	}
	var rows [][]any
	for _, f := range sc.Files {
		rows = append(rows, []any{f})
	}
	if len(rows) == 0 {
		return nil
	}
	if err := s.e.Insert(ctx, s.prefix+"files", []string{"path"}, rows); err != nil {
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
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"d_"+table+" AS "+s.opts.shape(table)); err != nil {
		return err
	}
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"k_"+table+" ENGINE = Memory AS SELECT "+keyCols+", _deleted, _version, toUInt64(0) AS _ord, sipHash128('') AS _h FROM "+table+" WHERE false"); err != nil {
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
	{name: "project_id", typ: "Int64"},
	{name: "branch", typ: "String"},
	{name: "_version", typ: "UInt64", nullable: true},
	{name: "_deleted", typ: "Bool"},
}

const edgeKey = "traversal_path, relationship_kind, source_kind, source_id, target_kind, target_id"

// edgeHash is the hash of an edge row's data: what a live edge of one key may change.
const edgeHash = "sipHash128(tuple(project_id, branch))"

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
	// A file without rows has no schema to infer, and the engine refuses to read it.
	if blank, header, err := blankRows(t.src.Path, t.src.Format); err != nil || blank {
		if err != nil {
			return fr, nil, err
		}
		return fr, nil, s.blankFile(ctx, t, cols, header)
	}
	// The file's columns, as the engine's schema inference sees them.
	res, err := collect(ctx, s.e, &compiler.Query{
		SQL:    "DESCRIBE file({p0:String}, " + t.src.Format.engineFormat() + ")" + describeSettings,
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: t.enginePath}},
	})
	if err != nil {
		return fr, nil, s.readIssue(t, err)
	}
	var have []string
	for _, row := range res.Rows {
		name, _ := row[0].(string)
		have = append(have, name)
	}
	if err := columnIssues(t, cols, have); err != nil {
		return fr, nil, err
	}
	var issues []Issue
	raw := s.prefix + "raw" + strconv.Itoa(i)
	var defs, names []string
	for _, h := range have {
		defs = append(defs, ident(h)+" Nullable(String)")
		names = append(names, ident(h))
	}
	structure := strings.Join(defs, ", ")
	// Staging tables that only this process reads live in memory: no compression, no parts
	// written. A kill loses them, which is right: the next load starts over.
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+raw+" (_row UInt64, "+structure+") ENGINE = Memory"); err != nil {
		return fr, nil, err
	}
	ins := "INSERT INTO " + raw + " SELECT toUInt64(_row_number), " + strings.Join(names, ", ") +
		" FROM file(" + quote(t.enginePath) + ", " + t.src.Format.engineFormat() + ", " + quote(structure) + ")" +
		" SETTINGS input_format_skip_unknown_fields = 0, input_format_json_read_numbers_as_strings = 1," +
		" input_format_json_read_bools_as_strings = 1, input_format_json_read_objects_as_strings = 1," +
		" input_format_json_read_arrays_as_strings = 1, input_format_csv_empty_as_default = 1," +
		" input_format_parallel_parsing = 1, max_insert_threads = 2"
	if err := s.e.Exec(ctx, ins); err != nil {
		return fr, nil, s.readIssue(t, err)
	}
	if fr.Rows, err = s.count(ctx, "SELECT count() FROM "+raw); err != nil {
		return fr, nil, fmt.Errorf("load: count %s: %w", t.src.Path, err)
	}
	present := map[string]bool{}
	for _, h := range have {
		present[h] = true
	}
	checks, err := s.checks(ctx, t, cols, present, raw)
	if err != nil {
		return fr, nil, err
	}
	// One pass over the file's rows evaluates every check: the WHERE keeps the rows failing
	// any, and only for those the array names each failed check.
	var conds, items []string
	for _, c := range checks {
		conds = append(conds, "("+c.cond+")")
		items = append(items, "("+quote(c.col)+", if("+c.cond+", "+quote(c.reason)+", ''), substring(ifNull("+ident(c.col)+", ''), 1, 80))")
	}
	bad := s.prefix + "bad" + strconv.Itoa(i)
	if err := s.exec(ctx, "validate "+t.src.Path, "CREATE TABLE "+bad+" ENGINE = Memory AS SELECT _row, c.1 AS column, c.2 AS reason, c.3 AS value FROM (SELECT _row, arrayJoin(arrayFilter(x -> x.2 != '', ["+
		strings.Join(items, ", ")+"])) AS c FROM "+raw+" WHERE "+strings.Join(conds, " OR ")+")"); err != nil {
		return fr, nil, err
	}
	// A dangling end is no reason by itself: only the row that wins its key is checked, once
	// every file is staged (see danglingIssues). A row invalid for another reason is invalid
	// whatever wins; its dangling ends are reported with the rest.
	res, err = s.query(ctx, &compiler.Query{SQL: "SELECT toInt64(uniqExactIf(_row, reason != 'dangling')), toInt64(countIf(reason = 'dangling')) FROM " + bad})
	if err != nil {
		return fr, nil, fmt.Errorf("load: validate %s: %w", t.src.Path, err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 2 {
		return fr, nil, fmt.Errorf("load: validate %s: unexpected result %v", t.src.Path, res.Rows)
	}
	fr.Invalid, _ = res.Rows[0][0].(int64)
	if n, _ := res.Rows[0][1].(int64); n > 0 {
		if err := s.danglingEnds(ctx, i, t, raw, bad); err != nil {
			return fr, nil, err
		}
	}
	if fr.Invalid > 0 {
		res, err := s.query(ctx, &compiler.Query{SQL: "SELECT _row, column, reason, value FROM " + bad + " WHERE reason != 'dangling' ORDER BY _row, column, reason LIMIT " + strconv.Itoa(s.opts.MaxIssues)})
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
	// The valid rows: all of them, unless some were skipped.
	valid := raw
	if fr.Invalid > 0 {
		valid = "(SELECT * FROM " + raw + " WHERE _row NOT IN (SELECT _row FROM " + bad + " WHERE reason != 'dangling'))"
	}
	if t.entity != nil {
		err = s.entityDelta(ctx, t, cols, present, valid, ord(i))
	} else {
		err = s.edgeDelta(ctx, t, present, valid, ord(i))
	}
	if err != nil {
		return fr, nil, err
	}
	s.markVersioned(t, present)
	// The file's rows are in the key and delta tables now. Its tables in memory go before
	// the next file is read, so a load holds one file's raw rows at a time.
	for _, n := range []string{raw, bad} {
		if err := s.exec(ctx, "drop staging", "DROP TABLE "+n+" SYNC"); err != nil {
			return fr, nil, err
		}
	}
	return fr, issues, nil
}

// describeSettings make schema inference read every value as a string: only the column
// names are used (the file is read as Nullable(String) columns and checked afterwards), and
// trying each string as a number, a date and a date-time costs a third of the inference on a
// JSON Lines file.
const describeSettings = " SETTINGS input_format_json_read_numbers_as_strings = 1, input_format_json_read_bools_as_strings = 1," +
	" input_format_json_read_objects_as_strings = 1, input_format_json_read_arrays_as_strings = 1," +
	" input_format_json_try_infer_numbers_from_strings = 0, input_format_try_infer_dates = 0," +
	" input_format_try_infer_datetimes = 0, input_format_csv_use_best_effort_in_schema_inference = 0"

// check is one rule a row of a file must pass: cond is true when the row fails it.
type check struct{ col, reason, cond string }

// checks returns the rules the rows of raw must pass.
func (s *stage) checks(ctx context.Context, t *target, cols []column, present map[string]bool, raw string) ([]check, error) {
	var checks []check
	add := func(col, reason, cond string) { checks = append(checks, check{col, reason, cond}) }
	for _, c := range cols {
		if !present[c.name] {
			continue
		}
		v := ident(c.name)
		if c.required {
			add(c.name, "missing", v+" IS NULL OR "+v+" = ''")
		}
		if c.name == "traversal_path" {
			add(c.name, "path", v+" IS NOT NULL AND "+v+" != '' AND NOT "+validPathSQL(v))
		}
		if bt := baseType(c.typ); bt != "String" {
			add(c.name, "type", v+" IS NOT NULL AND "+v+" != '' AND accurateCastOrNull("+v+", "+quote(bt)+") IS NULL")
		}
		if len(c.enum) > 0 {
			var labels []string
			for _, l := range c.enum {
				labels = append(labels, quote(l))
			}
			add(c.name, "enum", v+" IS NOT NULL AND "+v+" NOT IN ("+strings.Join(labels, ", ")+")")
		}
		if uc, ok := utf8Check(c); ok {
			checks = append(checks, uc)
		}
	}
	checks = append(checks, versionChecks(present)...)
	if t.rel == nil {
		return checks, nil
	}
	if present["relationship_kind"] {
		add("relationship_kind", "pair", "relationship_kind IS NOT NULL AND relationship_kind != "+quote(t.rel.Name))
	}
	var pairs []string
	for _, p := range t.rel.Pairs {
		pairs = append(pairs, "(source_kind = "+quote(p.From)+" AND target_kind = "+quote(p.To)+")")
	}
	// Comparisons are several times cheaper than a set of (source_kind, target_kind)
	// tuples; a NULL kind is no pair.
	isPair := "ifNull(" + strings.Join(pairs, " OR ") + ", false)"
	add("source_kind", "pair", "NOT "+isPair)
	sets, err := s.endpoints(ctx, t.rel, raw)
	if err != nil {
		return nil, err
	}
	if len(sets) == 0 {
		return checks, nil // no row has a pair of the relationship
	}
	// A tombstone hides a row and needs no live end: the same load may delete that end.
	live := ""
	if present["_deleted"] {
		live = " AND NOT ifNull(accurateCastOrNull(nullIf(" + ident("_deleted") + ", ''), 'Bool'), false)"
	}
	for _, side := range []string{"source", "target"} {
		// One set of ids per kind: probing a set of Int64 is several times faster than a
		// set of (kind, id) tuples. An edge of a same_namespace type is followed only to ends
		// under its own path, so its ends are (path, id), probed as a 64-bit hash of the
		// pair: a set of (String, Int64) tuples doubled the check's CPU on a million CALLS
		// edges, the hash costs about a tenth more than ids alone. Two pairs sharing a hash
		// could let one edge whose end is not live under its path through (about one chance
		// in 10^8 for a million edges against 200,000 nodes); such an edge leads nowhere,
		// and export leaves it out, comparing the pairs themselves.
		end := "toInt64OrZero(" + side + "_id)"
		if t.rel.SameNamespace {
			end = "cityHash64(ifNull(traversal_path, ''), " + end + ")"
		}
		var arms []string
		for _, k := range sortedKeys(sets) {
			arms = append(arms, side+"_kind = "+quote(k), end+" IN ("+sets[k]+")")
		}
		add(side+"_id", "dangling", isPair+live+" AND accurateCastOrNull("+side+"_id, 'Int64') IS NOT NULL AND NOT multiIf("+
			strings.Join(arms, ", ")+", false)")
	}
	return checks, nil
}

var reasons = map[string]error{
	"missing": ErrMissing, "path": ErrPath, "type": ErrType, "enum": ErrEnum, "pair": ErrPair, "dangling": ErrDangling, "utf8": ErrUTF8,
	"version": ErrVersion,
}

// readIssue reports an engine failure to read a file (malformed input, an unknown JSON key
// past the rows schema inference saw) as a file-level validation error naming the file, with
// the engine's whole message (the first line alone cut off its reason).
func (s *stage) readIssue(t *target, err error) error {
	var ee *executor.Error
	if errors.As(err, &ee) && (errors.Is(err, executor.ErrInvalidQuery) || errors.Is(err, executor.ErrInternal)) && ee.Code != 0 {
		is := Issue{File: t.src.Path, Row: -1, Column: "-", Err: fmt.Errorf("%w: %s", ErrRead, ee.Error())}
		return &ValidationError{Issues: []Issue{is}, Count: 1}
	}
	return fmt.Errorf("load: read %s: %w", t.src.Path, err)
}

// endpoints returns, for each node kind the rows of raw name in a pair of rel, a query of the
// id (for a same_namespace rel, a hash of the traversal_path and id) of every node of that
// kind an edge may end at: the live nodes the load writes, and the live nodes of the graph
// the load does not delete. Both sides of every row are checked against these sets. It
// returns none when no row names a pair of rel.
func (s *stage) endpoints(ctx context.Context, rel *ontology.Relationship, raw string) (map[string]string, error) {
	res, err := s.query(ctx, &compiler.Query{SQL: "SELECT DISTINCT ifNull(source_kind, ''), ifNull(target_kind, '') FROM " + raw})
	if err != nil {
		return nil, fmt.Errorf("load: endpoint kinds: %w", err)
	}
	kinds := map[string]bool{}
	for _, r := range res.Rows {
		from, _ := r[0].(string)
		to, _ := r[1].(string)
		for _, p := range rel.Pairs {
			if p.From == from && p.To == to {
				kinds[from], kinds[to] = true, true
			}
		}
	}
	cols := "id"
	if rel.SameNamespace {
		cols = "cityHash64(traversal_path, id)" // see checks
	}
	sets := map[string]string{}
	for k := range kinds {
		ent, ok := s.ont.Entity(k)
		if !ok {
			return nil, fmt.Errorf("load: relationship %s names unknown entity %s", rel.Name, k)
		}
		live := "SELECT " + cols + " FROM " + ent.Table + " FINAL WHERE _deleted = false"
		if s.deltas[ent.Table] {
			// A key of the load is live when the row that wins it in the load is, unless
			// the graph holds it at a higher _version (only a file with _version can lose
			// so); the graph's other keys are live as they are.
			key := entityKey(ent)
			won, err := s.winners(ctx, ent.Table, key)
			if err != nil {
				return nil, err
			}
			mine := "SELECT " + cols + " FROM " + won + " WHERE _deleted = false"
			if s.versioned[ent.Table] && !s.empty[ent.Table] {
				// The graph's state of each key: its highest _version, deleted or not. Not
				// with FINAL, which hides the tombstones this is looking for (a tombstone at
				// a higher _version would read as no row, and a losing live row as the
				// node's state); at one _version, a tombstone counts.
				graph := "(SELECT " + key + ", max(_version) AS gv, argMax(_deleted, (_version, _deleted)) AS gd FROM " + ent.Table +
					" WHERE (" + key + ") IN (SELECT " + key + " FROM " + s.prefix + "k_" + ent.Table + ") GROUP BY " + key + ")"
				mine = "SELECT " + cols + " FROM " + won + " AS l LEFT ANY JOIN " + graph + " AS g USING (" + key + ") WHERE if(g.gv > l._version, NOT g.gd, NOT l._deleted)"
			}
			live = mine + " UNION ALL " + live + " AND (" + key + ") NOT IN (SELECT " + key + " FROM " + won + " WHERE _deleted = true)"
		}
		sets[k] = live
	}
	return sets, nil
}

// ord is the _ord of file i's rows: a later row of the load is greater.
func ord(i int) string { return "bitOr(bitShiftLeft(toUInt64(" + strconv.Itoa(i) + "), 40), _row)" }

// winners returns the table to read a graph table's load keys from, each with the _deleted,
// _version, data hash and _ord of the row that wins it in the load: the highest _version, then
// the last row, as the graph keeps them. That is k_<table> itself unless the load holds a
// key more than once; then it is w_<table>, each key once, with _n, its rows in the load.
// Computed once per table, after the table's files are staged.
func (s *stage) winners(ctx context.Context, table, key string) (string, error) {
	if w, ok := s.won[table]; ok {
		return w, nil
	}
	keys := s.prefix + "k_" + table
	// Keys compared by a 64-bit hash: two keys sharing one only build w_ for nothing. Into
	// a table empty before the load only a tombstone is left out of the delta, so only a key
	// both live and deleted needs settling (see keyHash).
	sql := "SELECT toInt64(uniqExact(cityHash64(" + key + "))), toInt64(count()) FROM " + keys
	if s.empty[table] {
		sql = "SELECT if(countIf(_deleted) IN (0, count()), toInt64(0), toInt64(-1)), toInt64(0) FROM " + keys
	}
	res, err := s.query(ctx, &compiler.Query{SQL: sql})
	if err != nil {
		return "", fmt.Errorf("load: count keys of %s: %w", table, err)
	}
	w := keys
	if r := res.Rows[0]; r[0] != r[1] {
		w = s.prefix + "w_" + table
		if err := s.exec(ctx, "settle "+table, "CREATE TABLE "+w+" ENGINE = Memory AS SELECT "+key+", won.1 AS _deleted, won.2 AS _version, won.3 AS _h, won.4 AS _ord, n AS _n FROM (SELECT "+key+
			", argMax((_deleted, _version, _h, _ord), (_version, _ord)) AS won, count() AS n FROM "+keys+" GROUP BY "+key+")"); err != nil {
			return "", err
		}
	}
	if s.won == nil {
		s.won = map[string]string{}
	}
	s.won[table] = w
	return w, nil
}

// settle leaves in each delta, of a key the load holds more than once, only rows equal to
// the winner of the key: a tombstone the same load outdates by a live row (or the other way
// round), or a live row with other data, is dropped, so the graph ends as the winning row
// says, whether or not the winning row was left out of the delta as changing nothing. Runs
// once every file is staged.
func (s *stage) settle(ctx context.Context) error {
	for _, table := range s.order {
		key, hash := edgeKey, edgeHash
		if ent := s.entityOfTable(table); ent != nil {
			key = entityKey(ent)
			var data []string
			for _, c := range entityColumns(ent) {
				if n := c.name; n != "id" && n != "traversal_path" && n != "_version" && n != "_deleted" {
					data = append(data, ident(n))
				}
			}
			hash = "sipHash128(tuple(" + strings.Join(data, ", ") + "))"
		}
		if s.empty[table] {
			hash = "sipHash128('')" // as keyHash put in k_
		}
		w, err := s.winners(ctx, table, key)
		if err != nil {
			return err
		}
		if w == s.prefix+"k_"+table {
			continue
		}
		if err := s.exec(ctx, "settle "+table, "ALTER TABLE "+s.prefix+"d_"+table+" DELETE WHERE ("+key+") IN (SELECT "+key+" FROM "+w+" WHERE _n > 1) AND ("+key+", _deleted, _version, "+hash+
			") NOT IN (SELECT "+key+", _deleted, _version, _h FROM "+w+" WHERE _n > 1) SETTINGS mutations_sync = 2"); err != nil {
			return err
		}
	}
	return nil
}

// deletions counts the keys the files' tombstones delete (before a replace adds its own),
// once each: the keys that settle left won by a tombstone in the deltas (a tombstone enters
// a delta only when the graph holds its key live), less those a higher _version in the graph
// outdates (see shadowed). A tombstone outdated in the load by a later or higher-version live
// row was dropped by settle; a tombstone repeated counts once.
func (s *stage) deletions(ctx context.Context) (int64, error) {
	var n int64
	for _, table := range s.order {
		key := edgeKey
		if ent := s.entityOfTable(table); ent != nil {
			key = entityKey(ent)
		}
		d := s.prefix + "d_" + table
		sql := "SELECT count() FROM (SELECT DISTINCT " + key + " FROM " + d + " WHERE _deleted)"
		if s.versioned[table] && !s.empty[table] {
			sql = "SELECT count() FROM (SELECT " + key + ", max(_version) AS v FROM " + d + " WHERE _deleted GROUP BY " + key + ") AS l LEFT ANY JOIN (SELECT " + key +
				", max(_version) AS gv FROM " + table + " WHERE (" + key + ") IN (SELECT " + key + " FROM " + d + " WHERE _deleted) GROUP BY " + key + ") AS g USING (" + key + ") WHERE NOT g.gv > l.v"
		}
		c, err := s.count(ctx, sql)
		if err != nil {
			return 0, fmt.Errorf("load: count tombstones of %s: %w", table, err)
		}
		n += c
	}
	return n, nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

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

const castSettings = " SETTINGS cast_string_to_date_time_mode = 'best_effort', max_insert_threads = 2"

// keyHash returns what k_<table> holds as a row's data hash: hash, unless the table had no
// rows before the load. Then every live row goes to the delta (none is left out as
// unchanged), where the last of a key wins at its _version, and settle needs no hash.
func (s *stage) keyHash(ctx context.Context, table, hash string) (string, error) {
	if !s.empty[table] {
		n, err := s.count(ctx, "SELECT count() FROM "+table)
		if err != nil {
			return "", fmt.Errorf("load: count %s: %w", table, err)
		}
		if n > 0 {
			return hash, nil
		}
		s.empty[table] = true
	}
	return "sipHash128('')", nil
}

// holdsKeys reports whether a graph table holds a row (live or not) with a key the load's
// key table k_<table> holds. An empty table is a metadata read and is remembered in
// s.empty; otherwise the primary key index finds the parts and granules that may hold the
// keys, so keys new to a large graph (another project, another namespace) cost little.
// Without such a row the load's rows need no comparing with the graph.
func (s *stage) holdsKeys(ctx context.Context, table, key string) (bool, error) {
	n, err := s.count(ctx, "SELECT count() FROM "+table)
	if err != nil {
		return false, fmt.Errorf("load: count %s: %w", table, err)
	}
	if n == 0 {
		s.empty[table] = true
		return false, nil
	}
	n, err = s.count(ctx, "SELECT count() FROM (SELECT 1 FROM "+table+" WHERE ("+key+") IN (SELECT "+key+" FROM "+s.prefix+"k_"+table+") LIMIT 1)")
	if err != nil {
		return false, fmt.Errorf("load: compare keys with %s: %w", table, err)
	}
	return n > 0, nil
}

// entityDelta writes the keys of the valid rows to k_<table> and the rows that change the
// graph to d_<table>, each straight from the raw rows, cast on the way.
func (s *stage) entityDelta(ctx context.Context, t *target, cols []column, present map[string]bool, valid, ord string) error {
	table := t.entity.Table
	key := entityKey(t.entity)
	if err := s.delta(ctx, table, key); err != nil {
		return err
	}
	var names, exprs, keyNames, keyExprs, data []string
	for _, c := range cols {
		e := s.typedExpr(c, present[c.name]) + " AS " + ident(c.name)
		names = append(names, ident(c.name))
		exprs = append(exprs, e)
		switch c.name {
		case "id", "traversal_path", "_deleted", "_version":
			keyNames = append(keyNames, ident(c.name))
			keyExprs = append(keyExprs, ident(c.name))
		default:
			data = append(data, ident(c.name))
		}
	}
	list := strings.Join(names, ", ")
	typed := "(SELECT " + strings.Join(exprs, ", ") + " FROM " + valid + ")"
	// The key table holds a hash of each row's data too, to tell the winning row of a
	// repeated key from the others (see settle).
	hash := "sipHash128(tuple(" + strings.Join(data, ", ") + "))"
	kh, err := s.keyHash(ctx, table, hash)
	if err != nil {
		return err
	}
	keyTyped := "(SELECT " + strings.Join(exprs, ", ") + ", " + ord + " AS _ord FROM " + valid + ")"
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"k_"+table+" ("+strings.Join(keyNames, ", ")+", _ord, _h) SELECT "+strings.Join(keyExprs, ", ")+", _ord, "+kh+" FROM "+keyTyped+castSettings); err != nil {
		return err
	}
	// Unchanged rows and tombstones of absent rows would change nothing: leave them out, so
	// that loading the same files again writes no row. Into a table that holds none of the
	// keys every live row goes.
	where := "_deleted = false"
	full, err := s.holdsKeys(ctx, table, key)
	if err != nil {
		return err
	}
	if full {
		// Only the graph's rows with the load's keys are read (the primary key finds them), so
		// loading a few rows into a large graph costs little.
		mine := " AND (" + key + ") IN (SELECT " + key + " FROM " + s.prefix + "k_" + table + ")"
		live := "(SELECT " + key + ", " + hash + " FROM " + table + " FINAL WHERE _deleted = false" + mine + ")"
		liveKeys := "(SELECT " + key + " FROM " + table + " FINAL WHERE _deleted = false" + mine + ")"
		where = "(_deleted = false AND (" + key + ", " + hash + ") NOT IN " + live + ") OR (_deleted = true AND (" + key + ") IN " + liveKeys + ")"
	}
	return s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"d_"+table+" ("+list+") SELECT "+list+" FROM "+typed+" WHERE "+where+castSettings)
}

func (s *stage) edgeDelta(ctx context.Context, t *target, present map[string]bool, valid, ord string) error {
	table := s.ont.EdgeTable
	if err := s.delta(ctx, table, edgeKey); err != nil {
		return err
	}
	var exprs []string
	for _, c := range edgeColumns {
		e := s.typedExpr(c, present[c.name])
		switch {
		case c.name == "relationship_kind":
			e = quote(t.rel.Name)
		case slices.Contains(ontology.EdgeProperties, c.name) && !slices.Contains(t.rel.EdgeProperties, c.name):
			// A type that does not declare the edge property holds the default
			// (docs/loading.md, "Edges").
			e = "defaultValueOfTypeName(" + quote(baseType(c.typ)) + ")"
		}
		exprs = append(exprs, e+" AS "+c.name)
	}
	typed := "(SELECT " + strings.Join(exprs, ", ") + ", " + ord + " AS _ord FROM " + valid + ")"
	kh, err := s.keyHash(ctx, table, edgeHash)
	if err != nil {
		return err
	}
	if err := s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"k_"+table+" SELECT "+edgeKey+", _deleted, _version, _ord, "+kh+" FROM "+typed+castSettings); err != nil {
		return err
	}
	all := edgeKey + ", project_id, branch, _version, _deleted"
	where := "_deleted = false"
	full, err := s.holdsKeys(ctx, table, edgeKey)
	if err != nil {
		return err
	}
	if full {
		// A live edge is written again only when its edge properties changed.
		mine := " FROM " + table + " FINAL WHERE _deleted = false AND (" + edgeKey + ") IN (SELECT " + edgeKey + " FROM " + s.prefix + "k_" + table + "))"
		live := "(SELECT " + edgeKey + mine
		liveData := "(SELECT " + edgeKey + ", project_id, branch" + mine
		where = "(_deleted = false AND (" + edgeKey + ", project_id, branch) NOT IN " + liveData + ") OR (_deleted = true AND (" + edgeKey + ") IN " + live + ")"
	}
	return s.exec(ctx, "stage "+t.src.Path, "INSERT INTO "+s.prefix+"d_"+table+" ("+all+") SELECT "+all+" FROM "+typed+" WHERE "+where+castSettings)
}

// replace tombstones the live rows of the scope that the load does not hold, and returns
// how many.
func (s *stage) replace(ctx context.Context, ts []*target) (int64, error) {
	before, _, _, err := s.counts(ctx)
	if err != nil {
		return 0, err
	}
	files := s.opts.Replace.Files != nil
	tables := slices.Clone(s.order)
	if files {
		// Narrowed to files: the types with a file path are replaced even when the load
		// holds none of their rows (every row of the files may be gone).
		for _, ent := range s.ont.Entities {
			if fileColumn(ent) != "" && !slices.Contains(tables, ent.Table) {
				if err := s.delta(ctx, ent.Table, entityKey(ent)); err != nil {
					return 0, err
				}
				tables = append(tables, ent.Table)
			}
		}
	}
	var scopeNodes []string
	for _, table := range tables {
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
		if col := fileColumn(ent); files && col != "" {
			where += " AND " + ident(col) + " IN (SELECT path FROM " + s.prefix + "files)"
		}
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
	if files && len(scopeNodes) > 0 {
		if err := s.delta(ctx, s.ont.EdgeTable, edgeKey); err != nil {
			return 0, err
		}
	}
	if s.deltas[s.ont.EdgeTable] && len(scopeNodes) > 0 {
		kinds := "true" // narrowed to files: every edge leaving their nodes
		if !files {
			var rels []string
			for _, t := range ts {
				if t.rel != nil && !slices.Contains(rels, quote(t.rel.Name)) {
					rels = append(rels, quote(t.rel.Name))
				}
			}
			kinds = "relationship_kind IN (" + strings.Join(rels, ", ") + ")"
		}
		table := s.ont.EdgeTable
		if err := s.exec(ctx, "tombstone "+table, "INSERT INTO "+s.prefix+"d_"+table+" SELECT * REPLACE ("+s.param("v")+" AS _version, true AS _deleted) FROM (SELECT * FROM "+table+
			" FINAL WHERE _deleted = false AND traversal_path = "+s.param("traversal_path")+" AND "+kinds+
			" AND (source_kind, source_id) IN ("+strings.Join(scopeNodes, " UNION ALL ")+")) WHERE ("+edgeKey+") NOT IN (SELECT "+edgeKey+" FROM "+s.prefix+"k_"+table+")"); err != nil {
			return 0, err
		}
	}
	after, _, _, err := s.counts(ctx)
	return after - before, err
}

// fileColumn is the column naming the file a node came from: path for File, file_path for
// an entity that has it, "" otherwise.
func fileColumn(ent *ontology.Entity) string {
	if ent.Name == "File" {
		if _, ok := ent.Property("path"); ok {
			return "path"
		}
	}
	if _, ok := ent.Property("file_path"); ok {
		return "file_path"
	}
	return ""
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
	if err := s.exec(ctx, "create staging", "CREATE TABLE "+s.prefix+"d_"+by+" AS "+s.opts.shape(by)); err != nil {
		return err
	}
	s.deltas[by] = true
	s.order = append(s.order, by)
	return s.exec(ctx, "stage edges", "INSERT INTO "+s.prefix+"d_"+by+" SELECT * FROM "+s.prefix+"d_"+s.ont.EdgeTable+
		// The rows are those of the edge delta, already collapsed by key on insert.
		" SETTINGS optimize_on_insert = 0, max_insert_threads = 2")
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
// the graph now returns, in one query over every table the load wrote. Only the graph's rows
// with the load's keys are read (the primary key finds them), and keys are compared by a
// 64-bit hash (an order
// of magnitude faster than comparing the columns): with a million keys the chance that two
// share a hash is below one in ten million, and a shared hash could only change these two
// counts by one, never what the load wrote.
func (s *stage) verify(ctx context.Context) (live, found int64, err error) {
	var parts []string
	for _, table := range s.order {
		if table == s.ont.EdgeTableByTarget {
			continue
		}
		key := edgeKey
		if ent := s.entityOfTable(table); ent != nil {
			key = entityKey(ent)
		}
		keys := s.prefix + "k_" + table
		if w, ok := s.won[table]; ok {
			keys = w
		}
		loaded := "(SELECT cityHash64(" + key + ") AS h FROM " + keys + " WHERE _deleted = false)"
		if s.empty[table] && s.opts.Replace == nil {
			// The table had no rows before this load (and no other load runs): every live
			// row a FINAL read finds now is one of the load's keys, so counting them is
			// enough, and much cheaper than matching a million keys.
			parts = append(parts, "SELECT uniqExact(h) AS l, (SELECT count() FROM "+table+" FINAL WHERE _deleted = false) AS q FROM "+loaded)
			continue
		}
		graph := "SELECT cityHash64(" + key + ") FROM " + table + " FINAL WHERE _deleted = false AND (" + key + ") IN (SELECT " + key + " FROM " + keys + ")"
		parts = append(parts, "SELECT uniqExact(h) AS l, uniqExactIf(h, h IN ("+graph+")) AS q FROM "+loaded)
	}
	if len(parts) == 0 {
		return 0, 0, nil
	}
	res, err := s.query(ctx, &compiler.Query{SQL: "SELECT toInt64(sum(l)), toInt64(sum(q)) FROM (" + strings.Join(parts, " UNION ALL ") + ")"})
	if err != nil {
		return 0, 0, fmt.Errorf("load: verify: %w", err)
	}
	if len(res.Rows) != 1 || len(res.Rows[0]) != 2 {
		return 0, 0, fmt.Errorf("load: verify: unexpected result %v", res.Rows)
	}
	live, _ = res.Rows[0][0].(int64)
	found, _ = res.Rows[0][1].(int64)
	return live, found, nil
}

// drop removes every staging table of the load.
func (s *stage) drop(ctx context.Context) {
	if err := dropPrefix(ctx, s.e, s.prefix); err != nil {
		s.opts.Logger.Warn("load_cleanup_failed", "err", err)
	}
	if s.opts.Shards != nil {
		if err := s.opts.Shards.Drop(ctx, s.prefix); err != nil {
			s.opts.Logger.Warn("load_cleanup_failed", "err", err)
		}
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
