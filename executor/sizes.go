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

	r       Runner
	every   time.Duration
	timeout time.Duration
	snap    atomic.Pointer[map[string]int64] // table -> rows; nil before the first read
	tried   atomic.Int64                     // unix nanoseconds of the last refresh started
	busy    atomic.Bool
}

var _ compiler.TableSizes = (*TableSizes)(nil)

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
	rows, err := CollectRows(ctx, s.r, &compiler.Query{SQL: sizesQuery, Settings: []compiler.Setting{{Key: "readonly", Value: int64(2)}}})
	if err != nil {
		return fmt.Errorf("table sizes: %w", err)
	}
	m := make(map[string]int64, len(rows.Values))
	for _, row := range rows.Values {
		name, ok1 := row[0].(string)
		n, ok2 := row[1].(int64)
		if !ok1 || !ok2 {
			return fmt.Errorf("table sizes: unexpected row %v", row)
		}
		m[name] = n
	}
	s.snap.Store(&m)
	return nil
}

// Rows reports the rows stored in table, from the last snapshot; ok is false when the table
// is not in it or no snapshot was ever read.
func (s *TableSizes) Rows(table string) (int64, bool) {
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
	snap := s.snap.Load()
	if snap == nil {
		return 0, false
	}
	n, ok := (*snap)[table]
	return n, ok
}
