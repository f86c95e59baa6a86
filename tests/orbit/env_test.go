package orbit_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/graphwire/graphwire/cluster"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
	"github.com/graphwire/graphwire/tests/serverdb"
)

// env is the engine and compiler shared by the package's tests: chDB allows one data path
// per process, so TestMain opens and seeds it once (scale 0.2, seed 42). With
// GRAPHWIRE_TEST_ENGINE=server the engine is instead a database of its own on the ClickHouse
// server GRAPHWIRE_CLICKHOUSE_DSN names (make test runs the package both ways).
var env struct {
	engine   testEngine
	compiler *compiler.Compiler
	err      error
}

// testEngine is what the suite needs of an engine: seeding and running statements.
type testEngine interface {
	seed.Engine
	Close() error
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
	onServer, err := serverdb.OnServer()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if serverdb.OnCluster() {
		e, drop, err := serverdb.OpenCluster(os.Getenv(serverdb.ClusterDSNEnv), os.Getenv(serverdb.ClusterEnv), "gw_orbittest", ont)
		defer drop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err) // a run asked for the cluster cannot skip it
			return 1
		}
		merge := func(ctx context.Context, table string) error { return cluster.Merge(ctx, e, table) }
		env.err = seedInto(ont, e, merge)
		return m.Run()
	}
	if onServer {
		e, drop, err := serverdb.Open(os.Getenv(serverdb.DSNEnv), "gw_orbittest")
		defer drop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err) // a run asked for the server cannot skip it
			return 1
		}
		env.err = seedInto(ont, e, nil)
	} else {
		env.err = openSeeded(ont, dir)
	}
	if env.engine != nil && !onServer {
		defer env.engine.Close()
	}
	return m.Run()
}

func openSeeded(ont *ontology.Ontology, dir string) error {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: 2})
	if err != nil {
		return fmt.Errorf("open chdb: %w", err)
	}
	return seedInto(ont, e, nil)
}

// seedInto makes e the suite's engine and seeds the graph into it; merge, when set, is
// seed.Options.Merge (a cluster's).
func seedInto(ont *ontology.Ontology, e testEngine, merge func(context.Context, string) error) error {
	env.engine = e
	opts := seed.Options{Scale: 0.2, Seed: 42, Merge: merge}
	g, err := seed.Generate(ont, opts)
	if err != nil {
		return err
	}
	_, err = seed.Load(context.Background(), e, ont, g, opts)
	return err
}

func engine(t testing.TB) testEngine {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	return env.engine
}

// run compiles, executes (with hydration) and builds one query through the service's own
// path, executor.Respond.
func run(t testing.TB, query string, caller *compiler.Caller) *graphresponse.Response {
	t.Helper()
	e := engine(t)
	q, err := env.compiler.Compile([]byte(query), caller)
	if err != nil {
		t.Fatalf("compile %s: %v", query, err)
	}
	resp, ex, err := executor.Respond(t.Context(), e, env.compiler, q)
	if err != nil {
		t.Fatalf("run %s: %v", ex.Statements[len(ex.Statements)-1].Query.SQL, err)
	}
	return resp
}

// plain runs hand-written SQL, the independent oracle, and returns its rows.
func plain(t testing.TB, sql string) [][]any {
	t.Helper()
	rows, err := executor.CollectRows(t.Context(), engine(t), &compiler.Query{SQL: sql})
	if err != nil {
		t.Fatalf("plain SQL %s: %v", sql, err)
	}
	return rows.Values
}
