package seed

import (
	"context"
	"fmt"
	"math"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// Engine is what loading needs: DDL and inserts, and one read of the current row versions.
type Engine interface {
	executor.Loader
	Run(ctx context.Context, q *compiler.Query) (executor.Rows, error)
}

// Stats reports what [Load] wrote.
type Stats struct {
	Nodes, Edges int
	Batches      int
	Version      uint64 // the _version of the inserted rows
}

// Load creates the schema (CREATE … IF NOT EXISTS, so it is safe on an existing database) and
// writes g in batches of opts.BatchSize rows, then merges every table's parts (OPTIMIZE … FINAL)
// so that reads with FINAL do not merge versions at query time.
//
// The load is bracketed by a load record (package [loadstate]): "loading" before the first row is
// touched, "complete" after the last insert. Until Load returns nil, [loadstate.Check] reports the
// graph incomplete, whether Load failed, its context was cancelled or the process was killed; a
// later Load that finishes makes the graph complete again.
//
// Re-running replaces the data the ReplacingMergeTree way, without deleting anything: every row
// that is live before the run gets a tombstone (same key, _deleted = true, _version + 1), and the
// new rows get a _version greater than every version in the database. Reads with FINAL then see
// exactly the new graph, whatever scale or seed the earlier run used.
func Load(ctx context.Context, e Engine, ont *ontology.Ontology, g *Graph, opts Options) (Stats, error) {
	opts = opts.withDefaults()
	var st Stats
	// A graph created before ontology version 3 gets the edge property columns.
	if err := loadstate.MigrateEdges(ctx, e, ont); err != nil {
		return st, fmt.Errorf("seed: %w", err)
	}
	for _, stmt := range ont.DDLStatements() {
		if err := e.Exec(ctx, stmt); err != nil {
			return st, fmt.Errorf("seed: create schema: %w", err)
		}
	}
	ld, err := loadstate.Begin(ctx, e, ont, "seed")
	if err != nil {
		return st, fmt.Errorf("seed: %w", err)
	}
	base, _, err := loadstate.HighestVersion(ctx, e, ont)
	if err != nil {
		return st, fmt.Errorf("seed: %w", err)
	}
	// The seed's rows take base + 2 and the tombstones of the previous run at most base + 1;
	// both must stay above every stored version, and exact as an Int64, or a wrapped version
	// would lose to the rows it is meant to replace.
	if base > maxSeedBase {
		return st, fmt.Errorf("seed: the graph's highest _version is %d; a seed needs two versions above it, at most %d", base, uint64(math.MaxInt64))
	}
	st.Version = base + 2
	// Tombstones first: every live row of the previous run, version + 1 ≤ base + 1.
	// gl_edge_by_target is filled from gl_edge by the materialized view, tombstones included.
	for _, t := range g.Tables {
		// The filter sits in a sub-query: at the outer level ClickHouse would resolve
		// _deleted to the REPLACE alias (always true) and select nothing.
		stmt := "INSERT INTO " + t.Name + " SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM " + t.Name + " FINAL WHERE _deleted = false)"
		if err := e.Exec(ctx, stmt); err != nil {
			return st, fmt.Errorf("seed: tombstone %s: %w", t.Name, err)
		}
	}
	var total, done int64
	for _, t := range g.Tables {
		total += int64(len(t.Rows))
	}
	report := func() {
		if opts.Progress != nil {
			opts.Progress("load", done, total)
		}
	}
	report()
	version := int64(st.Version)
	for _, t := range g.Tables {
		vi := columnIndex(t.Columns, "_version")
		for start := 0; start < len(t.Rows); start += opts.BatchSize {
			batch := t.Rows[start:min(start+opts.BatchSize, len(t.Rows))]
			for _, r := range batch {
				r[vi] = version
			}
			if err := e.Insert(ctx, t.Name, t.Columns, batch); err != nil {
				return st, fmt.Errorf("seed: insert into %s: %w", t.Name, err)
			}
			st.Batches++
			done += int64(len(batch))
			report()
		}
	}
	// Leave every table merged into one part per partition. Batches and the tombstones land in
	// parts of their own, and a read with FINAL merges overlapping parts at query time (1.5–2×
	// the work on the edge tables at scale 10). The completion record is still written last.
	tables := []string{ont.EdgeTableByTarget}
	for _, t := range g.Tables {
		tables = append(tables, t.Name)
	}
	merge := opts.Merge
	if merge == nil {
		merge = func(ctx context.Context, t string) error { return e.Exec(ctx, "OPTIMIZE TABLE "+t+" FINAL") }
	}
	for _, t := range tables {
		if err := merge(ctx, t); err != nil {
			return st, fmt.Errorf("seed: merge %s: %w", t, err)
		}
	}
	st.Nodes, st.Edges = g.Nodes(), g.Edges()
	if err := ld.Complete(ctx, loadstate.Totals{Version: st.Version, Nodes: uint64(st.Nodes), Edges: uint64(st.Edges)}); err != nil {
		return st, fmt.Errorf("seed: %w", err)
	}
	return st, nil
}

func columnIndex(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	panic("seed: no column " + name)
}

// maxSeedBase is the highest stored _version a seed can go above: its own version, base + 2,
// is at most math.MaxInt64.
const maxSeedBase = math.MaxInt64 - 2
