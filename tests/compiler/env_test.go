package compilertest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
	"github.com/graphwire/graphwire/tests/serverdb"
)

// defaultSeedScale is the size of the shared test graph (about 2 800 nodes and 8 900 edges
// from seed.Generate at seed 42). Benchmarks on the
// scale-10 graph set GRAPHWIRE_SEED_SCALE=10.
const defaultSeedScale = 0.2

func seedScale() float64 {
	if s := os.Getenv("GRAPHWIRE_SEED_SCALE"); s != "" {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
			return f
		}
	}
	return defaultSeedScale
}

// env is the engine and compiler shared by every test of the package: chDB allows one data
// path per process, so TestMain opens and seeds it once. With GRAPHWIRE_TEST_ENGINE=server
// (make test-server) the suites run on the server twin instead (engine is server), and the
// embedded graph remains for TestServerMatchesEmbedded.
var env struct {
	engine   serverdb.Engine
	embedded *chdb.Executor
	compiler *compiler.Compiler // without table sizes: every far scan narrowed
	sized    *compiler.Compiler // with the graph's table sizes (all small here): far scans read whole
	ont      *ontology.Ontology
	err      error // why the engine is unavailable
	// server is the same graph, seeded alike, in a database of its own on the ClickHouse
	// server named by GRAPHWIRE_CLICKHOUSE_DSN (server_test.go); nil without one.
	server    *clickhouse.Executor
	serverErr error
	// cluster is the same graph again, sharded over the cluster GRAPHWIRE_CLUSTER of the
	// server GRAPHWIRE_CLUSTER_DSN (cluster_test.go), with GRAPHWIRE_TEST_ENGINE=cluster
	// (make test-cluster); nil otherwise.
	cluster    *clickhouse.Executor
	clusterErr error
}

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintln(os.Stderr, "load ontology:", err)
		return 1
	}
	env.ont = ont
	// One set of cursor keys for both compilers: a cursor of one continues in the other.
	keys := compiler.RandomCursorKeys()
	if env.compiler, err = compiler.New(ont, compiler.Options{CursorKeys: keys}); err != nil {
		fmt.Fprintln(os.Stderr, "new compiler:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "graphwire-compilertest-")
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
	env.err = openSeeded(dir)
	if env.embedded != nil {
		defer env.embedded.Close()
	}
	if dsn := os.Getenv(serverdb.DSNEnv); (dsn != "" || onServer) && env.err == nil {
		drop, err := openServer(dsn)
		env.serverErr = err
		defer drop()
		if onServer {
			if err != nil {
				fmt.Fprintln(os.Stderr, err) // a run asked for the server cannot skip it
				return 1
			}
			env.engine = env.server
		}
	}
	if env.err == nil {
		sizes := executor.NewTableSizes(env.engine, time.Hour)
		if err := sizes.Refresh(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// The sized compiler must compile every query the plain one does, so that both
		// statements run and give the same answer: the walk-cost bound, a refusal the plain
		// compiler (no edge counts) never makes, is off here (compiler TestWalkCost covers it).
		if env.sized, err = compiler.New(ont, compiler.Options{Sizes: sizes, MaxWalkCost: -1, CursorKeys: keys}); err != nil {
			fmt.Fprintln(os.Stderr, "new compiler:", err)
			return 1
		}
	}
	if dsn := os.Getenv(serverdb.ClusterDSNEnv); dsn != "" && serverdb.OnCluster() && env.err == nil {
		drop, err := openCluster(dsn, os.Getenv(serverdb.ClusterEnv))
		env.clusterErr = err
		defer drop()
	}
	return m.Run()
}

// openServer seeds the graph of openSeeded into a new database of the server at dsn, and
// returns what drops it again.
func openServer(dsn string) (drop func(), err error) {
	e, drop, err := serverdb.Open(dsn, "gw_compilertest")
	if err != nil {
		return drop, err
	}
	opts := seed.Options{Scale: seedScale(), Seed: 42}
	g, err := seed.Generate(env.ont, opts)
	if err != nil {
		return drop, err
	}
	if _, err := seed.Load(context.Background(), e, env.ont, g, opts); err != nil {
		return drop, fmt.Errorf("seed the graph on %s: %w", dsn, err)
	}
	env.server = e
	return drop, nil
}

func openSeeded(dir string) error {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: 2})
	if err != nil {
		return fmt.Errorf("open chdb: %w", err)
	}
	env.engine, env.embedded = e, e
	opts := seed.Options{Scale: seedScale(), Seed: 42}
	g, err := seed.Generate(env.ont, opts)
	if err != nil {
		return err
	}
	if _, err := seed.Load(context.Background(), e, env.ont, g, opts); err != nil {
		return err
	}
	return nil
}

// engine returns the seeded engine; without one the test skips, or fails when CI=true.
func engine(t testing.TB) serverdb.Engine {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	return env.engine
}

var admin = &compiler.Caller{Subject: "1", Admin: true}

// run compiles, executes (with hydration) and builds one query.
func run(t testing.TB, query string, caller *compiler.Caller) *graphresponse.Response {
	t.Helper()
	resp, err := tryRun(t, query, caller)
	if err != nil {
		t.Fatalf("query %s: %v", query, err)
	}
	return resp
}

// tryRun is run through the service's own path (executor.Respond), returning the error; an
// engine error names the statement that failed.
//
// The query is compiled twice: without table sizes (every far node narrowed to its hop's
// edges) and with this graph's (every table is small, so far nodes are read whole and hops
// read once). When the two statements differ, both run and must give the same response, so
// every oracle of the package checks both shapes.
func tryRun(t testing.TB, query string, caller *compiler.Caller) (*graphresponse.Response, error) {
	t.Helper()
	resp, sql, err := respond(t, env.compiler, query, caller)
	if err != nil {
		return nil, err
	}
	other, otherSQL, err := respond(t, env.sized, query, caller)
	if err != nil {
		return nil, fmt.Errorf("with table sizes: %w", err)
	}
	if sql != otherSQL {
		a := answerBytes(resp)
		b := answerBytes(other)
		if !bytes.Equal(a, b) {
			t.Errorf("query %s: the statement compiled with table sizes answers differently\nwithout: %s\nwith:    %s\n%s", query, a, b, otherSQL)
		}
	}
	return resp, nil
}

// respond compiles query with c and runs it, returning the response and the base statement.
func respond(t testing.TB, c *compiler.Compiler, query string, caller *compiler.Caller) (*graphresponse.Response, string, error) {
	e := engine(t)
	q, err := c.Compile([]byte(query), caller)
	if !caller.Admin && len(caller.PathsAtLeast(0)) == 0 {
		// A caller without scopes is refused at compile time (NO_SCOPES), as in Orbit. What
		// it would read is what a caller whose one scope reaches no floor reads (every
		// namespaced scan denies all), which the oracles, computed for the scope-less caller,
		// check: run that instead.
		if !errors.Is(err, compiler.ErrNoScopes) {
			t.Fatalf("query %s for a caller without scopes: error %v, want NO_SCOPES", query, err)
		}
		caller = &compiler.Caller{Subject: caller.Subject, Scopes: []compiler.Scope{{Path: "1/", Level: 5}}}
		q, err = c.Compile([]byte(query), caller)
	}
	if err != nil {
		return nil, "", err
	}
	resp, ex, err := executor.Respond(context.Background(), e, c, q)
	if err != nil {
		return nil, "", fmt.Errorf("%w\n%s", err, ex.Statements[len(ex.Statements)-1].Query.SQL)
	}
	if q.Plan.Edges() != nil {
		if err := sameAsOneStatement(context.Background(), e, c, q, resp); err != nil {
			t.Errorf("query %s: %v", query, err)
		}
	}
	if q.Plan.WalkCachePairs() != nil || q.Plan.TraversalCachePairs() != nil {
		if err := sameOnEdgeCache(context.Background(), e, c, q, answerBytes(resp)); err != nil {
			t.Errorf("query %s: %v", query, err)
		}
	}
	return resp, q.SQL, nil
}

// answerBytes is the form in which the oracles of the package compare two answers: the raw
// JSON encoding the service sends (graphresponse.Marshal), with every property, aggregation
// cell and cursor. encoding/json sees none of those (graphresponse.Value has no exported
// field, so every value encodes as {}), which let two answers differing only in a count or
// a property compare equal.
func answerBytes(r *graphresponse.Response) []byte { return graphresponse.Marshal(r) }

// sameAsOneStatement reports how resp, q's answer from a plan in steps (neighbors,
// path_finding), differs from the answer of q's one-statement form on the same engine, or
// an error if that form fails: nil when the two are byte for byte the same.
func sameAsOneStatement(ctx context.Context, e executor.Runner, c *compiler.Compiler, q *compiler.Query, resp *graphresponse.Response) error {
	one := *q
	one.Plan = q.Plan.OneStatement()
	other, ex, err := executor.Respond(ctx, e, c, &one)
	if err != nil {
		if n := len(ex.Statements); n > 0 {
			return fmt.Errorf("one-statement form: %w\n%s", err, ex.Statements[n-1].Query.SQL)
		}
		return fmt.Errorf("one-statement form: %w", err)
	}
	a := answerBytes(resp)
	b := answerBytes(other)
	if !bytes.Equal(a, b) {
		return fmt.Errorf("the plan in steps answers differently from the one-statement form:\nsteps: %s\none:   %s", a, b)
	}
	return sameOnEdgeCache(ctx, e, c, q, a)
}

// sameOnEdgeCache reports how the answers of q, a path_finding plan in steps, a traversal
// whose walk or fixed-length hops can run on cached edges or a two-step neighbors plan, on a cold and then a warm
// edge cache (docs/compiler.md, "Path finding on cached edges", "Walks on cached edges",
// "Neighbors on cached edges") differ from want, the answer without a cache: nil when both
// are byte for byte the same, or when q cannot run on the cache. It also fails when the cache
// form fell back (to the plan in steps, or to the traversal's one statement), when the cold
// run read fewer edge sets than q needs, or the warm one read any.
func sameOnEdgeCache(ctx context.Context, e executor.Runner, c *compiler.Compiler, q *compiler.Query, want []byte) error {
	pairs, fallback := q.Plan.PathCachePairs(), q.Plan.Edges()
	if pairs == nil {
		pairs, fallback = q.Plan.WalkCachePairs(), q
	}
	if pairs == nil {
		pairs, fallback = q.Plan.TraversalCachePairs(), q
	}
	if pairs == nil {
		pairs, fallback = q.Plan.NeighborCachePairs(), q.Plan.Edges()
	}
	if pairs == nil {
		return nil
	}
	cache, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 64 << 20, Generation: func() uint64 { return 0 }})
	if err != nil {
		return err
	}
	for _, pass := range []struct {
		name  string
		reads int
	}{{"cold", len(pairs)}, {"warm", 0}} {
		resp, ex, err := executor.RespondWith(ctx, e, c, q, executor.RespondOptions{Edges: cache})
		if err != nil {
			return fmt.Errorf("%s edge cache: %w", pass.name, err)
		}
		reads := 0
		for _, s := range ex.Statements {
			if s.Label == executor.LabelEdges {
				reads++
			}
			if s.Query == fallback {
				return fmt.Errorf("%s edge cache: the form without a cache ran (labels %v)", pass.name, statementLabels(ex))
			}
		}
		if reads != pass.reads {
			return fmt.Errorf("%s edge cache: %d edge sets read, want %d (labels %v)", pass.name, reads, pass.reads, statementLabels(ex))
		}
		if got := answerBytes(resp); !bytes.Equal(got, want) {
			return fmt.Errorf("the plan on a %s edge cache answers differently from the form without a cache:\ncache: %s\nwant:  %s", pass.name, got, want)
		}
	}
	return nil
}

// statementLabels are the labels of the statements ex ran, in order.
func statementLabels(ex executor.Executed) []string {
	var labels []string
	for _, s := range ex.Statements {
		labels = append(labels, s.Label)
	}
	return labels
}

// plain runs hand-written SQL (the independent oracle) and returns its rows.
func plain(t testing.TB, sql string) [][]any {
	t.Helper()
	rows, err := executor.CollectRows(context.Background(), engine(t), &compiler.Query{SQL: sql})
	if err != nil {
		t.Fatalf("plain SQL %s: %v", sql, err)
	}
	return rows.Values
}
