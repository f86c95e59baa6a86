package parity_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// env is the engine and compiler the package's tests share: chDB allows one data path per
// process, so TestMain opens it once and loads testdata/graph into it.
var env struct {
	engine   *chdb.Executor
	compiler *compiler.Compiler
	sized    *compiler.Compiler // with the fixture's table sizes, as serve has them (nil without an engine)
	ont      *ontology.Ontology
	err      error // the engine is missing: skip locally, fail under CI=true
	loadErr  error // the fixture did not load: always a failure
}

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintln(os.Stderr, "load ontology:", err)
		return 1
	}
	env.ont = ont
	if env.compiler, err = compiler.New(ont, compiler.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, "new compiler:", err)
		return 1
	}
	dir, err := os.MkdirTemp("", "graphwire-parity-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env.err = openLoaded(ont, dir)
	if env.engine != nil {
		defer env.engine.Close()
	}
	if env.err == nil && env.loadErr == nil {
		// The shape of a statement may depend on the table sizes (docs/compiler.md, "Table
		// sizes"); the fixture's tables are all small.
		sizes := executor.NewTableSizes(env.engine, time.Hour)
		if err := sizes.Refresh(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "table sizes:", err)
			return 1
		}
		if env.sized, err = compiler.New(ont, compiler.Options{Sizes: sizes}); err != nil {
			fmt.Fprintln(os.Stderr, "new compiler:", err)
			return 1
		}
	}
	return m.Run()
}

// openLoaded opens the embedded engine on dir and loads the fixture: first every file of
// testdata/graph, then the files of testdata/later, which supersede some of those rows (a
// newer version, a tombstone), as a second graphwire load would.
func openLoaded(ont *ontology.Ontology, dir string) error {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("libchdb.so not found at %s (run bash scripts/install-chdb.sh or set GRAPHWIRE_CHDB_LIB): %w", lib, err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir, PoolSize: 2})
	if err != nil {
		return fmt.Errorf("open chdb: %w", err)
	}
	env.engine = e
	env.loadErr = loadFixture(ont, e)
	return nil
}

// loadFixture loads testdata/graph, then testdata/later.
func loadFixture(ont *ontology.Ontology, e *chdb.Executor) error {
	for _, d := range []string{"testdata/graph", "testdata/later"} {
		names, err := filepath.Glob(filepath.Join(d, "*"))
		if err != nil {
			return err
		}
		if len(names) == 0 {
			continue
		}
		var srcs []load.Source
		for _, n := range names {
			srcs = append(srcs, load.Source{Path: n})
		}
		if _, err := load.Load(context.Background(), e, ont, srcs, load.Options{}); err != nil {
			return fmt.Errorf("load %s: %w", d, err)
		}
	}
	return nil
}

func engine(t testing.TB) *chdb.Executor {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
	if env.loadErr != nil {
		t.Fatalf("the fixture did not load: %v", env.loadErr)
	}
	return env.engine
}

// admin may read everything; scoped reads the namespaces under 1/ as an owner, other only
// group 11 (not project 100).
var (
	admin  = &compiler.Caller{Subject: "1", Admin: true}
	scoped = &compiler.Caller{Subject: "2", Scopes: []compiler.Scope{{Path: "1/", Level: 50}}}
	other  = &compiler.Caller{Subject: "3", Scopes: []compiler.Scope{{Path: "1/11/", Level: 50}}}
)

// run compiles, executes (with hydration) and builds one query through the service's own
// path, executor.Respond.
func run(t testing.TB, query string, caller *compiler.Caller) *graphresponse.Response {
	t.Helper()
	engine(t)
	return runWith(t, env.compiler, query, caller)
}

// runWith is run with compiler c.
func runWith(t testing.TB, c *compiler.Compiler, query string, caller *compiler.Caller) *graphresponse.Response {
	t.Helper()
	e := engine(t)
	q, err := c.Compile([]byte(query), caller)
	if err != nil {
		t.Fatalf("compile %s: %v", query, err)
	}
	resp, ex, err := executor.Respond(t.Context(), e, c, q)
	if err != nil {
		t.Fatalf("run %s: %v", ex.Statements[len(ex.Statements)-1].Query.SQL, err)
	}
	return resp
}

// compileErr compiles query and returns its error, failing the test when it compiles.
func compileErr(t testing.TB, query string, caller *compiler.Caller) *compiler.Error {
	t.Helper()
	_, err := env.compiler.Compile([]byte(query), caller)
	if err == nil {
		t.Fatalf("compile %s: want an error, got none", query)
	}
	var ce *compiler.Error
	if !errors.As(err, &ce) {
		t.Fatalf("compile %s: error %v is not a *compiler.Error", query, err)
	}
	return ce
}

// nodeIDs lists "Type:id" of every node of r, sorted.
func nodeIDs(r *graphresponse.Response) []string {
	var out []string
	for _, n := range r.Nodes {
		out = append(out, n.Type+":"+strconv.FormatInt(n.ID, 10))
	}
	slices.Sort(out)
	return out
}

// edgeKeys lists "From:id-TYPE->To:id" of every edge of r, sorted.
func edgeKeys(r *graphresponse.Response) []string {
	var out []string
	for _, e := range r.Edges {
		out = append(out, e.From+":"+strconv.FormatInt(e.FromID, 10)+"-"+e.Type+"->"+e.To+":"+strconv.FormatInt(e.ToID, 10))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// paths lists each path of a path_finding answer as its node ids in order, sorted.
func paths(t testing.TB, r *graphresponse.Response) [][]int64 {
	t.Helper()
	byPath := map[int64][]graphresponse.Edge{}
	for _, e := range r.Edges {
		if !e.PathID.Valid {
			continue
		}
		byPath[e.PathID.Value] = append(byPath[e.PathID.Value], e)
	}
	var out [][]int64
	for _, es := range byPath {
		slices.SortFunc(es, func(a, b graphresponse.Edge) int { return int(a.Step.Value - b.Step.Value) })
		p := []int64{es[0].FromID}
		for _, e := range es {
			p = append(p, e.ToID)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, slices.Compare)
	return out
}
