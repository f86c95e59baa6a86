package executor

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/graphwire/graphwire/compiler"
)

// sizesQuery counts the rows of every table of the current database from the engine's part
// catalogue: no table is read, so its cost does not grow with the graph (2.2–2.3 ms at
// scales 10 and 100 of the seeded graph, docs/compiler.md "Table sizes"). Rows of
// every stored version count, which is what a scan reads before FINAL.
const sizesQuery = "SELECT table, toInt64(sum(rows)) FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table"

// edgeKindsQuery counts the rows of the edge table per relationship type and end kinds, every
// stored version counting as in sizesQuery. It reads the three LowCardinality kind columns
// of the table (46,124 rows at scale 1), so it runs only with the table sizes, in the
// background, and only when the table is there.
// clusterSizesQuery is sizesQuery over every shard of a cluster (%s: its name), for the
// local tables under the Distributed ones (package cluster: gl_user_local under gl_user);
// each is counted under the Distributed table's name, the one the compiler asks about.
const clusterSizesQuery = "SELECT substring(table, 1, length(table) - 6), toInt64(sum(rows)) FROM clusterAllReplicas('%s', system.parts) " +
	"WHERE active AND database = currentDatabase() AND endsWith(table, '_local') GROUP BY table"

const edgeKindsQuery = "SELECT toString(relationship_kind), toString(source_kind), toString(target_kind), toInt64(count()) FROM %s GROUP BY 1, 2, 3"

// TableSizes knows how many rows each table of the graph holds, for [compiler.Options.Sizes]
// (the compiler reads a small node table whole instead of narrowing it to the ends of a hop's
// edges). It is safe for concurrent use.
//
// Rows never waits for the engine: it answers from the last snapshot and, when that is older
// than the refresh interval, starts one refresh in the background (never two at once). A
// refresh that fails keeps the previous snapshot; without any, every size is unknown and the
// compiler narrows every scan, which is correct at any size.
//
// Make one with [NewTableSizes]; the zero value knows no sizes and never refreshes.
type TableSizes struct {
	// OnRefresh, when set (before the first Rows), is called after each background refresh
	// with its error (nil when it succeeded): serve logs a failure there.
	OnRefresh func(error)
	// EdgeTable is the edge table whose rows per relationship type and end kinds EdgeRows
	// reports ([compiler.EdgeSizes]); "" means gl_edge. Set it before the first refresh.
	EdgeTable string
	// Cluster, when set (before the first refresh), names the cluster whose shards hold the
	// graph (docs/cluster.md): the sizes are the sums over its shards' local tables.
	Cluster string

	r       Runner
	every   time.Duration
	timeout time.Duration
	snap    atomic.Pointer[snapshot] // nil before the first read
	tried   atomic.Int64             // unix nanoseconds of the last refresh started
	busy    atomic.Bool
}

// snapshot is one read of the sizes.
type snapshot struct {
	tables map[string]int64  // table -> rows
	edges  map[edgeKey]int64 // nil when the edge table was not there
}

// edgeKey names the edges of one relationship type from one kind to another.
type edgeKey struct{ rel, from, to string }

var (
	_ compiler.TableSizes = (*TableSizes)(nil)
	_ compiler.EdgeSizes  = (*TableSizes)(nil)
)

// NewTableSizes returns sizes read through r, refreshed at most once per every (a minute
// when every is 0).
func NewTableSizes(r Runner, every time.Duration) *TableSizes {
	if every <= 0 {
		every = time.Minute
	}
	return &TableSizes{r: r, every: every, timeout: 10 * time.Second}
}

// Refresh reads the sizes now and replaces the snapshot.
func (s *TableSizes) Refresh(ctx context.Context) error {
	if s.r == nil {
		return fmt.Errorf("table sizes: no engine (use NewTableSizes)")
	}
	s.tried.Store(time.Now().UnixNano())
	sql := sizesQuery
	if s.Cluster != "" {
		if !ValidIdent(s.Cluster) {
			return fmt.Errorf("table sizes: invalid cluster name %q", s.Cluster)
		}
		sql = fmt.Sprintf(clusterSizesQuery, s.Cluster)
	}
	rows, err := CollectRows(ctx, s.r, &compiler.Query{SQL: sql, Settings: []compiler.Setting{{Key: "readonly", Value: int64(2)}}})
	if err != nil {
		return fmt.Errorf("table sizes: %w", err)
	}
	snap := &snapshot{tables: make(map[string]int64, len(rows.Values))}
	for _, row := range rows.Values {
		name, ok1 := row[0].(string)
		n, ok2 := row[1].(int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("table sizes: unexpected row %v", row)
		}
		snap.tables[name] = n
	}
	edges := s.EdgeTable
	if edges == "" {
		edges = "gl_edge"
	}
	if _, ok := snap.tables[edges]; ok && ValidIdent(edges) {
		q := &compiler.Query{SQL: fmt.Sprintf(edgeKindsQuery, edges), Settings: []compiler.Setting{{Key: "readonly", Value: int64(2)}}}
		rows, err := CollectRows(ctx, s.r, q)
		if err != nil {
			return fmt.Errorf("edge counts of %s: %w", edges, err)
		}
		snap.edges = make(map[edgeKey]int64, len(rows.Values))
		for _, row := range rows.Values {
			rel, ok1 := row[0].(string)
			from, ok2 := row[1].(string)
			to, ok3 := row[2].(string)
			n, ok4 := row[3].(int64)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return fmt.Errorf("edge counts of %s: unexpected row %v", edges, row)
			}
			snap.edges[edgeKey{rel, from, to}] = n
		}
	}
	s.snap.Store(snap)
	return nil
}

// Rows reports the rows stored in table, from the last snapshot; ok is false when the table
// is not in it or no snapshot was ever read.
func (s *TableSizes) Rows(table string) (int64, bool) {
	snap := s.snapshot()
	if snap == nil {
		return 0, false
	}
	n, ok := snap.tables[table]
	return n, ok
}

// EdgeRows reports the rows of the edge table of relationship type rel from a node of kind
// from to one of kind to, from the last snapshot (0 when there are none); ok is false when
// the edge table was not read. Like Rows, it may start a background refresh.
func (s *TableSizes) EdgeRows(rel, from, to string) (int64, bool) {
	snap := s.snapshot()
	if snap == nil || snap.edges == nil {
		return 0, false
	}
	return snap.edges[edgeKey{rel, from, to}], true
}

// snapshot returns the last snapshot, first starting a background refresh when it is older
// than the refresh interval (never two at once).
func (s *TableSizes) snapshot() *snapshot {
	if s.r != nil && time.Since(time.Unix(0, s.tried.Load())) > s.every && s.busy.CompareAndSwap(false, true) {
		go func() {
			defer s.busy.Store(false)
			ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
			defer cancel()
			err := s.Refresh(ctx) // a failed refresh keeps the previous snapshot
			if s.OnRefresh != nil {
				s.OnRefresh(err)
			}
		}()
	}
	return s.snap.Load()
}
