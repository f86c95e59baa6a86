package load

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// ExportOptions configures [Export].
type ExportOptions struct {
	// Format of the files written. Default JSONL.
	Format Format
	// Types lists the entity and relationship names to export. Empty means every type that
	// has live rows.
	Types []string
	// TraversalPath, when set, keeps only rows whose traversal_path starts with it.
	TraversalPath string
}

// Export writes the live rows of the graph e holds to dir, one file per entity or
// relationship type named Type.ext, in the columns [Load] reads: what Export writes, Load
// reads back to the same graph, and a second Export of that graph writes the same bytes.
// Rows are ordered by their key. Each file is written by the engine's own format writer.
func Export(ctx context.Context, e Engine, ont *ontology.Ontology, dir string, opts ExportOptions) ([]FileReport, error) {
	want := map[string]bool{}
	for _, t := range opts.Types {
		if !exportable(ont, strings.ToLower(t)) {
			return nil, fmt.Errorf("load: export: %w %q", ErrUnknownType, t)
		}
		want[strings.ToLower(t)] = true
	}
	abs, prefix, err := exportStart(dir, &opts)
	if err != nil {
		return nil, err
	}
	// The path filter is a value: it reaches the statements through a one-row table,
	// because Exec binds no parameters.
	params := prefix + "params"
	if err := e.Exec(ctx, "CREATE TABLE "+params+" (prefix String) ENGINE = MergeTree ORDER BY tuple()"); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	defer e.Exec(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+params+" SYNC")
	if err := e.Insert(ctx, params, []string{"prefix"}, [][]any{{opts.TraversalPath}}); err != nil {
		return nil, fmt.Errorf("load: export: %w", err)
	}
	pathFilter := "startsWith(traversal_path, (SELECT prefix FROM " + params + "))"
	var out []FileReport
	// write writes the n rows of from that meet filter to a file of typ, unless there are none
	// and typ was not asked for by name; with unreachable > 0 (edges left out) the file is
	// written and the report counts them.
	write := func(typ, cols, from, filter, order string, n, unreachable int64) error {
		if n == 0 && unreachable == 0 && !want[strings.ToLower(typ)] {
			return nil
		}
		fr, err := writeFile(ctx, e, abs, typ, opts.Format, "SELECT "+cols+" FROM "+from+" WHERE "+filter+" ORDER BY "+order)
		if err != nil {
			return err
		}
		fr.Rows, fr.Unreachable = n, unreachable
		out = append(out, fr)
		return nil
	}
	for _, ent := range ont.Entities {
		if len(want) > 0 && !want[strings.ToLower(ent.Name)] {
			continue
		}
		filter := pathFilter
		if !ent.Namespaced() { // no traversal_path: all rows, or none under a path filter
			filter = "(SELECT prefix FROM " + params + ") = ''"
		}
		from := liveRows(ent.Table, "")
		n, err := count(ctx, e, "SELECT count() FROM "+from+" WHERE "+filter)
		if err != nil {
			return out, fmt.Errorf("load: export %s: %w", ent.Name, err)
		}
		if err := write(ent.Name, exportColumns(ent, true), from, filter, entityKey(ent), n, 0); err != nil {
			return out, err
		}
	}
	for _, rel := range ont.Relationships {
		if len(want) > 0 && !want[strings.ToLower(rel.Name)] {
			continue
		}
		ends, err := endsLive(ont, rel)
		if err != nil {
			return out, err
		}
		// The edges written and those left out, in one read.
		res, err := collect(ctx, e, &compiler.Query{SQL: "SELECT toInt64(countIf(" + ends + ")), toInt64(countIf(NOT (" + ends + "))) FROM " + liveEdges(ont, rel, "") + " WHERE " + pathFilter})
		if err != nil {
			return out, fmt.Errorf("load: export %s: %w", rel.Name, err)
		}
		if len(res.Rows) != 1 || len(res.Rows[0]) != 2 {
			return out, fmt.Errorf("load: export %s: unexpected counts %v", rel.Name, res.Rows)
		}
		n, _ := res.Rows[0][0].(int64)
		gone, _ := res.Rows[0][1].(int64)
		if err := write(rel.Name, edgeExportColumns(rel), liveEdges(ont, rel, ends), pathFilter, edgeKey, n, gone); err != nil {
			return out, err
		}
	}
	return out, nil
}

// exportStart applies the defaults of opts, checks its format, makes dir and returns its
// absolute path with a fresh prefix for the export's staging tables.
func exportStart(dir string, opts *ExportOptions) (abs, prefix string, err error) {
	if opts.Format == "" {
		opts.Format = JSONL
	}
	if opts.Format.engineFormat() == "" {
		return "", "", fmt.Errorf("load: export: %w %q", ErrFormat, opts.Format)
	}
	if abs, err = exportDir(dir); err != nil {
		return "", "", err
	}
	if prefix, err = newStagePrefix(); err != nil {
		return "", "", fmt.Errorf("load: export: %w", err)
	}
	return abs, prefix, nil
}

// edgeExportColumns are the columns of an exported relationship file of rel: the edge
// properties only for a type that declares them (ontology edge_properties).
func edgeExportColumns(rel *ontology.Relationship) string {
	cols := "traversal_path, source_kind, source_id, target_kind, target_id"
	for _, p := range rel.EdgeProperties {
		cols += ", " + p
	}
	return cols + ", _version"
}

// exportColumns lists the columns of an exported file of ent: every column Load reads but
// _deleted, without the admin_only properties unless admin.
func exportColumns(ent *ontology.Entity, admin bool) string {
	var cols []string
	for _, c := range entityColumns(ent) {
		if c.name == "_deleted" {
			continue
		}
		if p, isProp := ent.Property(c.name); isProp && !p.Visible(admin) {
			continue
		}
		cols = append(cols, ident(c.name))
	}
	return strings.Join(cols, ", ")
}

// liveRows is a subquery of the live rows of table that meet cond (SQL; empty for all).
func liveRows(table, cond string) string {
	if cond != "" {
		cond = " AND " + cond
	}
	return "(SELECT * FROM " + table + " FINAL WHERE _deleted = false" + cond + ")"
}

// liveEdges is a subquery of the live edges of rel that meet cond (SQL; empty for all).
func liveEdges(ont *ontology.Ontology, rel *ontology.Relationship, cond string) string {
	where := "relationship_kind = " + quote(rel.Name)
	if cond != "" {
		where += " AND " + cond
	}
	return liveRows(ont.EdgeTable, where)
}

// endsLive is the condition that both ends of an edge of rel are live nodes, one set of ids
// (for a same_namespace rel, of paths and ids) per kind its pairs name.
func endsLive(ont *ontology.Ontology, rel *ontology.Relationship) (string, error) {
	var conds []string
	for _, side := range []string{"source", "target"} {
		seen := map[string]bool{}
		var arms []string
		for _, p := range rel.Pairs {
			k := p.From
			if side == "target" {
				k = p.To
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			ent, ok := ont.Entity(k)
			if !ok {
				return "", fmt.Errorf("load: export %s: unknown entity %s", rel.Name, k)
			}
			// An edge of a same_namespace type is followed only to ends live under its own
			// path (docs/loading.md, "Paths and foreign keys").
			if rel.SameNamespace {
				arms = append(arms, side+"_kind = "+quote(k), "(traversal_path, "+side+"_id) IN (SELECT traversal_path, id FROM "+ent.Table+" FINAL WHERE _deleted = false)")
				continue
			}
			arms = append(arms, side+"_kind = "+quote(k), side+"_id IN (SELECT id FROM "+ent.Table+" FINAL WHERE _deleted = false)")
		}
		conds = append(conds, "multiIf("+strings.Join(arms, ", ")+", false)")
	}
	return strings.Join(conds, " AND "), nil
}

// exportDir makes dir and returns its absolute path.
func exportDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("load: export: %w", err)
	}
	if strings.ContainsFunc(abs, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", fmt.Errorf("load: export: %q: control character in the path", dir)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("load: export: %w", err)
	}
	return abs, nil
}

// writeFile writes the rows of sel to dir/typ.ext with the engine's writer for f.
func writeFile(ctx context.Context, e Engine, dir, typ string, f Format, sel string) (FileReport, error) {
	path := filepath.Join(dir, typ+"."+string(f))
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return FileReport{}, fmt.Errorf("load: export %s: %w", typ, err)
	}
	if err := e.Exec(ctx, "INSERT INTO FUNCTION file("+quote(path)+", "+f.engineFormat()+") "+sel+
		" SETTINGS engine_file_truncate_on_insert = 1, output_format_parquet_compression_method = 'zstd'"); err != nil {
		return FileReport{}, fmt.Errorf("load: export %s: %w", typ, err)
	}
	return FileReport{Path: path, Type: typ, Format: f}, nil
}

// ExportAnswer writes the nodes and edges of a query's answer to dir, in the files and
// columns [Export] writes: one file per entity type with the live rows of the answer's nodes,
// one per relationship type with the live edges of the answer whose two ends are among
// those nodes. Loading the files into an empty graph gives exactly the answer's nodes and
// edges. resp is what the compiler and executor answered for caller (executor.Respond on
// a query compiled for caller), so the caller's scopes already chose the nodes; ExportAnswer
// applies them again when reading the rows (a row counts only under a traversal path the
// caller may read at the entity's level), and writes no property that is admin_only unless
// the caller is an administrator (such a column is absent from the file, so it loads as
// NULL or the type's zero value). The answer is one page: raise the query's limit or follow
// its cursor for more. Only opts.Format is used.
func ExportAnswer(ctx context.Context, e Engine, ont *ontology.Ontology, resp *graphresponse.Response, caller *compiler.Caller, dir string, opts ExportOptions) ([]FileReport, error) {
	if caller == nil {
		return nil, fmt.Errorf("load: export: a caller is required")
	}
	abs, prefix, err := exportStart(dir, &opts)
	if err != nil {
		return nil, err
	}
	// The answer's nodes and edges, by kind.
	ids := map[string][]int64{}
	has := map[graphresponse.NodeRef]bool{}
	for _, n := range resp.Nodes {
		if _, ok := ont.Entity(n.Type); !ok {
			return nil, fmt.Errorf("load: export: answer node of %w %q", ErrUnknownType, n.Type)
		}
		ref := graphresponse.NodeRef{Kind: n.Type, ID: n.ID}
		if !has[ref] {
			has[ref] = true
			ids[n.Type] = append(ids[n.Type], n.ID)
		}
	}
	type edge struct {
		from, to string
		fromID   int64
		toID     int64
	}
	edges := map[string][]edge{}
	for _, ed := range resp.Edges {
		if _, ok := ont.Relationship(ed.Type); !ok {
			return nil, fmt.Errorf("load: export: answer edge of %w %q", ErrUnknownType, ed.Type)
		}
		if has[graphresponse.NodeRef{Kind: ed.From, ID: ed.FromID}] && has[graphresponse.NodeRef{Kind: ed.To, ID: ed.ToID}] {
			x := edge{ed.From, ed.To, ed.FromID, ed.ToID}
			if !slices.Contains(edges[ed.Type], x) {
				edges[ed.Type] = append(edges[ed.Type], x)
			}
		}
	}
	// Values reach the statements through staging tables, because Exec binds no parameters.
	defer dropPrefix(context.WithoutCancel(ctx), e, prefix)
	nodes, ends, scopes := prefix+"nodes", prefix+"edges", prefix+"scopes"
	for _, ddl := range []string{
		"CREATE TABLE " + nodes + " (kind String, id Int64) ENGINE = Memory",
		"CREATE TABLE " + ends + " (kind String, source_kind String, source_id Int64, target_kind String, target_id Int64) ENGINE = Memory",
		"CREATE TABLE " + scopes + " (path String, level Int64) ENGINE = Memory",
	} {
		if err := e.Exec(ctx, ddl); err != nil {
			return nil, fmt.Errorf("load: export: %w", err)
		}
	}
	var nodeRows, edgeRows, scopeRows [][]any
	for _, kind := range sortedKeys(ids) {
		for _, id := range ids[kind] {
			nodeRows = append(nodeRows, []any{kind, id})
		}
	}
	for _, kind := range sortedKeys(edges) {
		for _, x := range edges[kind] {
			edgeRows = append(edgeRows, []any{kind, x.from, x.fromID, x.to, x.toID})
		}
	}
	for _, sc := range caller.Scopes {
		scopeRows = append(scopeRows, []any{sc.Path, int64(sc.Level)})
	}
	for _, in := range []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{nodes, []string{"kind", "id"}, nodeRows},
		{ends, []string{"kind", "source_kind", "source_id", "target_kind", "target_id"}, edgeRows},
		{scopes, []string{"path", "level"}, scopeRows},
	} {
		if len(in.rows) == 0 {
			continue
		}
		if err := e.Insert(ctx, in.table, in.cols, in.rows); err != nil {
			return nil, fmt.Errorf("load: export: %w", err)
		}
	}
	// readable is true for a row under a path the caller may read at level.
	readable := func(level int) string {
		if caller.Admin {
			return "true"
		}
		return fmt.Sprintf("arrayExists(s -> startsWith(traversal_path, s.1) AND s.2 >= %d, (SELECT groupArray((path, level)) FROM %s))", level, scopes)
	}
	var out []FileReport
	for _, ent := range ont.Entities {
		if len(ids[ent.Name]) == 0 {
			continue
		}
		where := "id IN (SELECT id FROM " + nodes + " WHERE kind = " + quote(ent.Name) + ")"
		if ent.Namespaced() {
			where += " AND " + readable(ent.MinAccessLevel)
		}
		from := liveRows(ent.Table, where)
		fr, err := writeFile(ctx, e, abs, ent.Name, opts.Format, "SELECT "+exportColumns(ent, caller.Admin)+" FROM "+from+" ORDER BY "+entityKey(ent))
		if err != nil {
			return out, err
		}
		if fr.Rows, err = count(ctx, e, "SELECT count() FROM "+from); err != nil {
			return out, fmt.Errorf("load: export %s: %w", ent.Name, err)
		}
		out = append(out, fr)
	}
	for _, rel := range ont.Relationships {
		if len(edges[rel.Name]) == 0 {
			continue
		}
		from := liveEdges(ont, rel, "(source_kind, source_id, target_kind, target_id) IN (SELECT source_kind, source_id, target_kind, target_id FROM "+ends+
			" WHERE kind = "+quote(rel.Name)+") AND "+readable(0))
		fr, err := writeFile(ctx, e, abs, rel.Name, opts.Format, "SELECT "+edgeExportColumns(rel)+" FROM "+from+" ORDER BY "+edgeKey)
		if err != nil {
			return out, err
		}
		if fr.Rows, err = count(ctx, e, "SELECT count() FROM "+from); err != nil {
			return out, fmt.Errorf("load: export %s: %w", rel.Name, err)
		}
		out = append(out, fr)
	}
	slices.SortFunc(out, func(a, b FileReport) int { return cmp.Compare(a.Path, b.Path) })
	return out, nil
}

func exportable(ont *ontology.Ontology, lower string) bool {
	for _, e := range ont.Entities {
		if strings.ToLower(e.Name) == lower {
			return true
		}
	}
	for _, r := range ont.Relationships {
		if strings.ToLower(r.Name) == lower {
			return true
		}
	}
	return false
}
