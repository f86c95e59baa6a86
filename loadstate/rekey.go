package loadstate

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/ontology"
)

// Rekeyed is what [RekeyEdges] did to one edge table.
type Rekeyed struct {
	Table string
	From  string // the sorting key it had
	Rows  int64  // rows copied (every version and tombstone)
}

// OldEdgeKeys returns the edge tables of the graph w holds whose sorting key is not the
// current one ([ontology.Ontology.EdgeSortingKey]), with the key each has. A graph without
// edge tables has none.
func OldEdgeKeys(ctx context.Context, w Writer, ont *ontology.Ontology) ([]Rekeyed, error) {
	res, err := run(ctx, w, &compiler.Query{
		SQL: "SELECT name, engine, sorting_key FROM system.tables WHERE database = currentDatabase() AND name IN ({p0:String}, {p1:String}) ORDER BY name",
		Params: []compiler.Param{
			{Name: "p0", Type: "String", Value: ont.EdgeTable},
			{Name: "p1", Type: "String", Value: ont.EdgeTableByTarget},
		},
	})
	if err != nil {
		return nil, fmt.Errorf("edge keys: %w", err)
	}
	var old []Rekeyed
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		engine, _ := r[1].(string)
		key, _ := r[2].(string)
		if engine == "Distributed" {
			return nil, fmt.Errorf("edge keys: %s is Distributed: on a cluster rebuild each shard's local tables (docs/cluster.md)", name)
		}
		if squash(key) != squash(ont.EdgeSortingKey(name)) {
			old = append(old, Rekeyed{Table: name, From: key})
		}
	}
	return old, nil
}

func squash(s string) string { return strings.ReplaceAll(s, " ", "") }

// RekeyEdges rebuilds the edge tables of a graph created in an earlier sorting key in the
// current one: each is copied into a new table made by the current DDL with every row
// (versions and tombstones too), checked by count, merged, and swapped in by one RENAME; then the old one
// is dropped and the view between them created again. Answers do not change; seeded edge
// reads get the primary key's help (docs/loading.md, "Graphs from earlier versions"). Nothing
// may write to the graph meanwhile: the embedded engine's data directory is the caller's
// alone; on a ClickHouse server stop the writers first. A run cut short leaves the graph
// as it was, or rebuilt, plus a table named <table>_rekey that the next run replaces.
func RekeyEdges(ctx context.Context, w Writer, ont *ontology.Ontology) ([]Rekeyed, error) {
	for _, t := range []string{ont.EdgeTable, ont.EdgeTableByTarget} {
		if err := leftovers(ctx, w, t); err != nil {
			return nil, fmt.Errorf("rekey edges: %w", err)
		}
	}
	if err := MigrateEdges(ctx, w, ont); err != nil {
		return nil, err
	}
	old, err := OldEdgeKeys(ctx, w, ont)
	if err != nil || len(old) == 0 {
		return nil, err
	}
	cols := strings.Join(ontology.EdgeColumns, ", ")
	view := ont.EdgeTableByTarget + "_mv"
	// Without the view an insert into the edge table would not reach its by-target copy;
	// nothing writes meanwhile, and the view is created again below whatever happens.
	if err := w.Exec(ctx, "DROP VIEW IF EXISTS "+view); err != nil {
		return nil, fmt.Errorf("rekey edges: %w", err)
	}
	var done []Rekeyed
	for _, o := range old {
		n, err := rekey(ctx, w, ont, o.Table, cols)
		if err != nil {
			if verr := w.Exec(context.WithoutCancel(ctx), ont.EdgeViewDDL()); verr != nil {
				return done, fmt.Errorf("rekey edges: %w (and creating the view again: %v)", err, verr)
			}
			return done, fmt.Errorf("rekey edges: %w", err)
		}
		o.Rows = n
		done = append(done, o)
	}
	if err := w.Exec(ctx, ont.EdgeViewDDL()); err != nil {
		return done, fmt.Errorf("rekey edges: create the view again: %w", err)
	}
	return done, nil
}

// leftovers finishes or clears what a run cut short left of table's rebuild: the copy, whose
// rows were counted before any rename, takes the table's name if the table has none; a copy
// or an old table beside the table is dropped.
func leftovers(ctx context.Context, w Writer, table string) error {
	res, err := run(ctx, w, &compiler.Query{
		SQL:    "SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN ({p0:String}, {p1:String}, {p2:String})",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: table}, {Name: "p1", Type: "String", Value: table + "_rekey"}, {Name: "p2", Type: "String", Value: table + "_rekey_old"}},
	})
	if err != nil {
		return err
	}
	has := map[string]bool{}
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		has[name] = true
	}
	if !has[table] && has[table+"_rekey"] && has[table+"_rekey_old"] {
		// Cut between the two renames: the copy is whole.
		if err := w.Exec(ctx, "RENAME TABLE "+table+"_rekey TO "+table); err != nil {
			return err
		}
		has[table], has[table+"_rekey"] = true, false
	}
	if !has[table] {
		return nil
	}
	for _, t := range []string{table + "_rekey", table + "_rekey_old"} {
		if has[t] {
			if err := w.Exec(ctx, "DROP TABLE "+t+" SYNC"); err != nil {
				return err
			}
		}
	}
	return nil
}

// rekey copies table into a new table in the current key and swaps it in.
func rekey(ctx context.Context, w Writer, ont *ontology.Ontology, table, cols string) (int64, error) {
	tmp, gone := table+"_rekey", table+"_rekey_old"
	for _, stmt := range []string{
		ont.EdgeRekey(table, tmp),
		// Every row as stored: collapsing a key's versions on insert would lose the ones
		// a FINAL read does not show, and the count below would refuse the copy.
		"INSERT INTO " + tmp + " (" + cols + ") SELECT " + cols + " FROM " + table + " SETTINGS optimize_on_insert = 0",
	} {
		if err := w.Exec(ctx, stmt); err != nil {
			return 0, fmt.Errorf("%s: %w", table, err)
		}
	}
	var counts [2]uint64
	for i, t := range []string{table, tmp} {
		res, err := run(ctx, w, &compiler.Query{SQL: "SELECT count() FROM " + t})
		if err != nil {
			return 0, fmt.Errorf("%s: count: %w", t, err)
		}
		if counts[i], err = unsigned(res.Rows[0][0]); err != nil {
			return 0, fmt.Errorf("%s: count: %w", t, err)
		}
	}
	if counts[0] != counts[1] {
		return 0, fmt.Errorf("%s: copied %d rows of %d; the graph is unchanged", table, counts[1], counts[0])
	}
	// The copy lands in several parts on a large graph (5 per edge table at scale 100), and
	// every FINAL read pays for them until a merge: merge it now, while it is nobody's yet.
	// Like every merge of the engine (and graphwire's after a write) this keeps each key's
	// winning row and drops the versions it hides, so FINAL reads answer the same.
	if err := w.Exec(ctx, "OPTIMIZE TABLE "+tmp+" FINAL"); err != nil {
		return 0, fmt.Errorf("%s: merge the copy: %w", table, err)
	}
	if err := w.Exec(ctx, "RENAME TABLE "+table+" TO "+gone+", "+tmp+" TO "+table); err != nil {
		return 0, fmt.Errorf("%s: %w", table, err)
	}
	if err := w.Exec(ctx, "DROP TABLE "+gone+" SYNC"); err != nil {
		return 0, fmt.Errorf("%s: drop the old table: %w", table, err)
	}
	return int64(counts[0]), nil
}
