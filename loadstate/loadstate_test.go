package loadstate_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// openChDB opens the embedded engine on a temporary directory. Without libchdb.so the test
// skips locally and fails under CI=true.
func openChDB(t *testing.T) *chdb.Executor {
	t.Helper()
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		cache := os.Getenv("GRAPHWIRE_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "graphwire")
		}
		lib = chdb.CachedLibrary(cache)
	}
	if _, err := os.Stat(lib); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and libchdb.so is missing at %s (run bash scripts/install-chdb.sh): %v", lib, err)
		}
		t.Skipf("libchdb.so not found at %s (run bash scripts/install-chdb.sh): %v", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestLifecycle walks one database through every state Check tells apart, on the real engine.
func TestLifecycle(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	e := openChDB(t)
	ctx := t.Context()
	check := func(step string, wantErr error) loadstate.State {
		t.Helper()
		st, err := loadstate.Check(ctx, e, ont)
		if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
			t.Fatalf("%s: Check error = %v, want %v", step, err, wantErr)
		}
		return st
	}
	exec := func(sql string) {
		t.Helper()
		if err := e.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}

	check("empty database", loadstate.ErrNoGraph)
	exec("CREATE TABLE " + ont.EdgeTable + " (x Int64) ENGINE = Memory")
	check("a graph table without any load record", loadstate.ErrIncomplete)
	exec("DROP TABLE " + ont.EdgeTable)
	for _, stmt := range ont.DDLStatements() {
		exec(stmt)
	}
	check("schema, no load yet", loadstate.ErrIncomplete)

	first, err := loadstate.Begin(ctx, e, ont, "test")
	if err != nil {
		t.Fatal(err)
	}
	check("first load begun", loadstate.ErrIncomplete)
	if err := first.Complete(ctx, loadstate.Totals{Version: 2, Nodes: 10, Edges: 1 << 63}); err != nil {
		t.Fatal(err)
	}
	want := loadstate.State{Seq: 1, Status: loadstate.StatusComplete, Source: "test", OntologyFingerprint: ont.Fingerprint, Version: 2, Nodes: 10, Edges: 1 << 63}
	if diff := cmp.Diff(want, check("first load complete", nil)); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}

	second, err := loadstate.Begin(ctx, e, ont, "test")
	if err != nil {
		t.Fatal(err)
	}
	got := check("second load begun after a complete one", loadstate.ErrIncomplete)
	if got.Seq != 2 || got.Status != loadstate.StatusLoading {
		t.Errorf("state = %+v, want seq 2 loading", got)
	}
	if err := second.Complete(ctx, loadstate.Totals{Version: 4, Nodes: 5, Edges: 6}); err != nil {
		t.Fatal(err)
	}
	if got := check("second load complete", nil); got.Seq != 2 || got.Version != 4 {
		t.Errorf("state = %+v, want seq 2 version 4", got)
	}
	exec("DROP TABLE " + ont.Entities[0].Table)
	check("complete record but a graph table dropped", loadstate.ErrIncomplete)
}

// TestHighestVersion: the greatest _version over the entity and edge tables, with the table
// holding it, up to the highest UInt64 (which load and seed refuse to go past); 0 and "" for
// a graph without rows.
func TestHighestVersion(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	e := openChDB(t)
	ctx := t.Context()
	for _, stmt := range ont.DDLStatements() {
		if err := e.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	type got struct {
		V uint64
		T string
	}
	step := func(name, sql string, want got) {
		t.Helper()
		if sql != "" {
			if err := e.Exec(ctx, sql); err != nil {
				t.Fatal(err)
			}
		}
		v, table, err := loadstate.HighestVersion(ctx, e, ont)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(want, got{v, table}); diff != "" {
			t.Errorf("%s: HighestVersion (-want +got):\n%s", name, diff)
		}
	}
	step("no rows", "", got{})
	step("an edge", "INSERT INTO "+ont.EdgeTable+" (traversal_path, source_kind, source_id, relationship_kind, target_kind, target_id, _version) VALUES ('1/', 'User', 1, 'AUTHORED', 'MergeRequest', 2, 7)", got{7, ont.EdgeTable})
	step("a user above it", "INSERT INTO gl_user (id, username, _version) VALUES (1, 'u', 9)", got{9, "gl_user"})
	step("the highest UInt64", "INSERT INTO gl_user (id, username, _version) VALUES (2, 'w', 18446744073709551615)", got{18446744073709551615, "gl_user"})
}
