package orbit_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// env is the engine and compiler shared by the package's tests: chDB allows one data path
// per process, so TestMain opens and seeds it once (scale 0.2, seed 42).
var env struct {
	engine   *chdb.Executor
	compiler *compiler.Compiler
	err      error
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintln(os.Stderr, "load ontology:", err)
		return 1
	}
	if env.compiler, err = compiler.New(ont, compiler.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "new compiler:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "graphwire-orbittest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env.err = openSeeded(ont, dir)
	if env.engine != nil {
		defer env.engine.Close()
	}
	return m.Run()
}

func chdbLibrary() string {
	if p := os.Getenv("GRAPHWIRE_CHDB_LIB"); p != "" {
		return p
	}
	cache := os.Getenv("GRAPHWIRE_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		cache = filepath.Join(home, ".cache", "graphwire")
	}
	return chdb.CachedLibrary(cache)
}

func openSeeded(ont *ontology.Ontology, dir string) error {
	lib := chdbLibrary()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: 2})
	if err != nil {
		return fmt.Errorf("open chdb: %w", err)
	}
	env.engine = e
	opts := seed.Options{Scale: 0.2, Seed: 42}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return err
	}
	_, err = seed.Load(context.Background(), e, ont, g, opts)
	return err
}

func engine(t testing.TB) *chdb.Executor {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	return env.engine
}

func collect(ctx context.Context, e executor.Executor, q *compiler.Query) (graphresponse.Rows, error) {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	out := graphresponse.Rows{Values: res.Rows}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, c.Name)
	}
	return out, nil
}

// run compiles, executes (with hydration) and builds one query.
func run(t testing.TB, query string, caller *compiler.Caller) *graphresponse.Response {
	t.Helper()
	e := engine(t)
	ctx := t.Context()
	q, err := env.compiler.Compile([]byte(query), caller)
	if err != nil {
		t.Fatalf("compile %s: %v", query, err)
	}
	base, err := collect(ctx, e, q)
	if err != nil {
		t.Fatalf("run %s: %v", q.SQL, err)
	}
	var hyd *graphresponse.Rows
	if q.Plan.NeedsHydration() {
		refs, err := q.Plan.Build.NodeRefs(base)
		if err != nil {
			t.Fatal(err)
		}
		hq, err := env.compiler.Hydrate(q, refs)
		if err != nil {
			t.Fatal(err)
		}
		hyd = &graphresponse.Rows{}
		if hq != nil {
			h, err := collect(ctx, e, hq)
			if err != nil {
				t.Fatalf("run hydration %s: %v", hq.SQL, err)
			}
			hyd = &h
		}
	}
	resp, err := graphresponse.Build(q.Plan.Build, base, hyd)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// plain runs hand-written SQL, the independent oracle, and returns its rows.
func plain(t testing.TB, sql string) [][]any {
	t.Helper()
	rows, err := collect(t.Context(), engine(t), &compiler.Query{SQL: sql})
	if err != nil {
		t.Fatalf("plain SQL %s: %v", sql, err)
	}
	return rows.Values
}
