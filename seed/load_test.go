package seed_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// openChDB opens the embedded engine on a temporary directory. Without libchdb.so the test
// skips locally and fails under CI=true.
func openChDB(t testing.TB) *chdb.Executor {
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
		if os.Getenv("CI") != "true" && !cgoEnabled {
			t.Skipf("embedded engine unavailable: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func counts(t *testing.T, e executor.Executor) [][]any {
	t.Helper()
	rows, err := e.Run(t.Context(), &compiler.Query{SQL: `SELECT
	(SELECT count() FROM gl_user FINAL WHERE _deleted = false),
	(SELECT count() FROM gl_merge_request FINAL WHERE _deleted = false),
	(SELECT count() FROM gl_note FINAL WHERE _deleted = false),
	(SELECT count() FROM gl_edge FINAL WHERE _deleted = false),
	(SELECT count() FROM gl_edge_by_target FINAL WHERE _deleted = false)`})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

func want(g *seed.Graph) [][]any {
	n := func(name string) any { return int64(len(g.Table(name).Rows)) }
	return [][]any{{n("gl_user"), n("gl_merge_request"), n("gl_note"), n("gl_edge"), n("gl_edge")}}
}

// TestLoadReplaces loads two different graphs into one database: the second run replaces the
// first through tombstones and higher versions.
func TestLoadReplaces(t *testing.T) {
	e := openChDB(t)
	o := loadOntology(t)
	first := generate(t, o, seed.Options{Scale: 0.2, Seed: 1})
	st, err := seed.Load(t.Context(), e, o, first, seed.Options{BatchSize: 3000})
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 2 || st.Nodes != first.Nodes() || st.Batches < 2 {
		t.Errorf("first load stats = %+v", st)
	}
	if diff := cmp.Diff(want(first), counts(t, e)); diff != "" {
		t.Errorf("after the first load (-want +got):\n%s", diff)
	}
	second := generate(t, o, seed.Options{Scale: 0.1, Seed: 2})
	st, err = seed.Load(t.Context(), e, o, second, seed.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != 4 {
		t.Errorf("second load version = %d, want 4", st.Version)
	}
	if diff := cmp.Diff(want(second), counts(t, e)); diff != "" {
		t.Errorf("after the second load (-want +got):\n%s", diff)
	}
	// The special rows survive the round trip through RowBinary.
	rows, err := e.Run(t.Context(), &compiler.Query{
		SQL:    "SELECT name FROM gl_user FINAL WHERE _deleted = false AND id = {p0:Int64}",
		Params: []compiler.Param{{Name: "p0", Type: "Int64", Value: int64(2)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{`Bob "the Builder"`}}, res.Rows); diff != "" {
		t.Errorf("user 2 (-want +got):\n%s", diff)
	}
}

// cancellingEngine cancels the load's context once after inserts graph inserts, the way
// Ctrl-C would mid-seed.
type cancellingEngine struct {
	seed.Engine
	inserts int
	cancel  context.CancelFunc
}

func (c *cancellingEngine) Insert(ctx context.Context, table string, columns []string, rows [][]any) error {
	if table != ontology.LoadStateTable {
		if c.inserts == 0 {
			c.cancel()
		}
		c.inserts--
	}
	return c.Engine.Insert(ctx, table, columns, rows)
}

// TestLoadInterrupted stops a load after a few batches: the graph reads as incomplete until a
// later load finishes.
func TestLoadInterrupted(t *testing.T) {
	e := openChDB(t)
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 0.1, Seed: 3})
	if _, err := loadstate.Check(t.Context(), e, o); !errors.Is(err, loadstate.ErrNoGraph) {
		t.Fatalf("before any load: Check error = %v, want ErrNoGraph", err)
	}
	for i, step := range []string{"first load", "reload over a complete graph"} {
		ctx, cancel := context.WithCancel(t.Context())
		_, err := seed.Load(ctx, &cancellingEngine{Engine: e, inserts: 3, cancel: cancel}, o, g, seed.Options{BatchSize: 500})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: cancelled Load error = %v, want context.Canceled", step, err)
		}
		if _, err := loadstate.Check(t.Context(), e, o); !errors.Is(err, loadstate.ErrIncomplete) {
			t.Fatalf("%s: after a cancelled load Check error = %v, want ErrIncomplete", step, err)
		}
		st, err := seed.Load(t.Context(), e, o, g, seed.Options{BatchSize: 5000})
		if err != nil {
			t.Fatal(err)
		}
		got, err := loadstate.Check(t.Context(), e, o)
		if err != nil {
			t.Fatalf("%s: after a finished load Check error = %v", step, err)
		}
		wantState := loadstate.State{Seq: uint64(2 * (i + 1)), Status: loadstate.StatusComplete, Source: "seed", OntologyFingerprint: o.Fingerprint,
			Version: st.Version, Nodes: uint64(g.Nodes()), Edges: uint64(g.Edges())}
		if diff := cmp.Diff(wantState, got); diff != "" {
			t.Errorf("%s: state (-want +got):\n%s", step, diff)
		}
		if diff := cmp.Diff(want(g), counts(t, e)); diff != "" {
			t.Errorf("%s: rows (-want +got):\n%s", step, diff)
		}
	}
}

// TestLoadLeavesTablesMerged: a load written in many batches, and a second load that
// tombstones the first, leave every graph table in one active part, so that reads with FINAL
// do not merge versions at query time.
func TestLoadLeavesTablesMerged(t *testing.T) {
	e := openChDB(t)
	o := loadOntology(t)
	for i, g := range []*seed.Graph{
		generate(t, o, seed.Options{Scale: 0.2, Seed: 1}),
		generate(t, o, seed.Options{Scale: 0.1, Seed: 2}),
	} {
		st, err := seed.Load(t.Context(), e, o, g, seed.Options{BatchSize: 500})
		if err != nil {
			t.Fatal(err)
		}
		if st.Batches < 10 {
			t.Fatalf("load %d wrote %d batches; the test needs many parts", i, st.Batches)
		}
		rows, err := e.Run(t.Context(), &compiler.Query{SQL: "SELECT table, toInt64(count()) FROM system.parts " +
			"WHERE active AND database = currentDatabase() AND startsWith(table, 'gl_') GROUP BY table HAVING count() > 1 ORDER BY table"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := executor.Collect(rows)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rows) != 0 {
			t.Errorf("after load %d, tables with more than one active part: %v", i, res.Rows)
		}
	}
}

// TestLoadRefusesVersionWrap: after a row with the highest UInt64 _version, a seed is refused
// with the reason instead of running at a version that wrapped to 1 and loses to every row.
func TestLoadRefusesVersionWrap(t *testing.T) {
	e := openChDB(t)
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 0.02, Seed: 1})
	if _, err := seed.Load(t.Context(), e, o, g, seed.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(t.Context(), "INSERT INTO gl_user (id, username, _version) VALUES (900200, 'wrap', 18446744073709551615)"); err != nil {
		t.Fatal(err)
	}
	_, err := seed.Load(t.Context(), e, o, g, seed.Options{})
	if err == nil || !strings.Contains(err.Error(), "18446744073709551615") {
		t.Fatalf("seed after a row at 2^64-1: %v, want a refusal naming the version", err)
	}
}
