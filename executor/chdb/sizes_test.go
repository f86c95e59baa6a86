//go:build cgo

package chdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
)

// TestTableSizes reads the row counts of the engine's tables from its part catalogue: every
// stored version counts, a table not yet written is unknown, a stale snapshot is refreshed in
// the background without blocking Rows, and a failed refresh keeps the last snapshot.
func TestTableSizes(t *testing.T) {
	e := open(t, chdb.Options{})
	ctx := context.Background()
	for _, stmt := range []string{
		"CREATE TABLE small (id Int64, v UInt64) ENGINE = ReplacingMergeTree(v) ORDER BY id",
		"INSERT INTO small SELECT number, 1 FROM numbers(1000)",
		"INSERT INTO small SELECT number, 2 FROM numbers(10)", // new versions of ten rows
		"CREATE TABLE empty (id Int64) ENGINE = MergeTree ORDER BY id",
	} {
		if err := e.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	s := executor.NewTableSizes(e, time.Hour)
	if n, ok := s.Rows("small"); ok {
		t.Fatalf("before any refresh: Rows(small) = %d, true", n)
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n, ok := s.Rows("small"); !ok || n != 1010 {
		t.Errorf("Rows(small) = %d, %v; want 1010 (every stored version), true", n, ok)
	}
	for _, table := range []string{"empty", "no_such_table"} {
		if n, ok := s.Rows(table); ok {
			t.Errorf("Rows(%s) = %d, true; want unknown", table, n)
		}
	}

	// A stale snapshot: Rows answers at once (unknown, nothing read yet) and one refresh runs
	// in the background, which OnRefresh reports.
	stale := executor.NewTableSizes(e, time.Nanosecond)
	refreshed := make(chan error, 1)
	stale.OnRefresh = func(err error) {
		select {
		case refreshed <- err:
		default:
		}
	}
	if err := e.Exec(ctx, "INSERT INTO empty SELECT number FROM numbers(7)"); err != nil {
		t.Fatal(err)
	}
	if _, ok := stale.Rows("empty"); ok {
		t.Error("Rows answered from a snapshot never read")
	}
	select {
	case err := <-refreshed:
		if err != nil {
			t.Fatalf("background refresh: %v", err)
		}
	case <-t.Context().Done():
		t.Fatal("the background refresh never ran")
	}
	stale.OnRefresh = nil
	if n, ok := stale.Rows("empty"); !ok || n != 7 {
		t.Errorf("Rows(empty) after a background refresh = %d, %v; want 7, true", n, ok)
	}

	// The zero value knows nothing and starts no refresh.
	var zero executor.TableSizes
	if _, ok := zero.Rows("small"); ok {
		t.Error("the zero TableSizes knows a size")
	}
	if err := zero.Refresh(ctx); err == nil {
		t.Error("Refresh of the zero TableSizes succeeded")
	}

	// A refresh that fails (the engine is closed) returns its error and keeps the snapshot.
	e.Close()
	if err := s.Refresh(ctx); err == nil {
		t.Error("Refresh on a closed engine succeeded")
	}
	if n, ok := s.Rows("small"); !ok || n != 1010 {
		t.Errorf("after a failed refresh Rows(small) = %d, %v; want the last snapshot's 1010", n, ok)
	}
}

// TestEdgeRows: with the edge table there, a refresh also counts its rows per relationship
// type and end kinds (every stored version); without it, edge counts are unknown.
func TestEdgeRows(t *testing.T) {
	e := open(t, chdb.Options{})
	ctx := context.Background()
	s := executor.NewTableSizes(e, time.Hour)
	if err := e.Exec(ctx, "CREATE TABLE other (id Int64) ENGINE = MergeTree ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(ctx, "INSERT INTO other VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if n, ok := s.EdgeRows("AUTHORED", "User", "MergeRequest"); ok {
		t.Errorf("no edge table: EdgeRows = %d, true; want unknown", n)
	}
	for _, stmt := range []string{
		"CREATE TABLE gl_edge (relationship_kind LowCardinality(String), source_kind LowCardinality(String), target_kind LowCardinality(String), v UInt64) ENGINE = MergeTree ORDER BY relationship_kind",
		"INSERT INTO gl_edge SELECT 'AUTHORED', 'User', 'MergeRequest', number FROM numbers(30)",
		"INSERT INTO gl_edge SELECT 'AUTHORED', 'User', 'MergeRequest', 1 FROM numbers(5)",
		"INSERT INTO gl_edge SELECT 'IN_PROJECT', 'MergeRequest', 'Project', number FROM numbers(7)",
	} {
		if err := e.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rel, from, to string
		want          int64
	}{
		{"AUTHORED", "User", "MergeRequest", 35},
		{"IN_PROJECT", "MergeRequest", "Project", 7},
		{"IN_PROJECT", "Project", "MergeRequest", 0},
	} {
		if n, ok := s.EdgeRows(tt.rel, tt.from, tt.to); !ok || n != tt.want {
			t.Errorf("EdgeRows(%s, %s, %s) = %d, %v; want %d, true", tt.rel, tt.from, tt.to, n, ok, tt.want)
		}
	}
}
