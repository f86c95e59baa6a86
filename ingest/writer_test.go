package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

func library(t testing.TB) string {
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
			t.Fatalf("CI=true and libchdb.so is missing at %s: %v", lib, err)
		}
		t.Skipf("libchdb.so not found at %s (run bash scripts/install-chdb.sh): %v", lib, err)
	}
	return lib
}

func setup(t *testing.T) (*chdb.Executor, *ingest.Writer) {
	t.Helper()
	return setupWith(t, ingest.Options{})
}

func setupWith(t *testing.T, opts ingest.Options) (*chdb.Executor, *ingest.Writer) {
	t.Helper()
	e, err := chdb.Open(chdb.Options{Library: library(t), Path: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	return e, ingest.NewWriter(e, ont, opts)
}

var scope = load.Scope{TraversalPath: "1/", ProjectID: 1, Branch: "main"}

// fileGraph is the graph of one file f.go holding n functions, named prefix0 … prefix(n-1),
// each calling the next: n definitions and n-1 CALLS edges.
func fileGraph(prefix string, n int) *codeindex.Graph {
	c := func(id int64) codeindex.Common {
		return codeindex.Common{ID: id, TraversalPath: scope.TraversalPath, Branch: scope.Branch, ProjectID: scope.ProjectID}
	}
	g := &codeindex.Graph{TraversalPath: scope.TraversalPath,
		Branch: codeindex.Branch{ID: 1, TraversalPath: scope.TraversalPath, Name: scope.Branch, IsDefault: true, ProjectID: scope.ProjectID}}
	g.Directories = []codeindex.Directory{{Common: c(2), Path: ".", Name: "repo"}}
	g.Files = []codeindex.File{{Common: c(3), Path: "f.go", Name: "f.go", Extension: "go", Language: "go", Content: prefix}}
	g.Edges = append(g.Edges, codeindex.Edge{Kind: "CONTAINS", FromKind: "Directory", From: 2, ToKind: "File", To: 3})
	base := int64(100)
	if prefix == "b" {
		base = 200
	}
	for i := range n {
		id := base + int64(i)
		name := fmt.Sprintf("%s%d", prefix, i)
		g.Definitions = append(g.Definitions, codeindex.Definition{Common: c(id), Name: name, FQN: "p." + name,
			DefinitionType: "Function", FilePath: "f.go", StartLine: 1, EndLine: 1, Content: "func " + name + "()"})
		g.Edges = append(g.Edges, codeindex.Edge{Kind: "DEFINES", FromKind: "File", From: 3, ToKind: "Definition", To: id})
		if i+1 < n {
			g.Edges = append(g.Edges, codeindex.Edge{Kind: "CALLS", FromKind: "Definition", From: id, ToKind: "Definition", To: id + 1})
		}
	}
	return g
}

// snapshot reads, in one statement, the live definitions of f.go and the live CALLS edges.
func snapshot(ctx context.Context, r executor.Runner) (defs, calls int64, err error) {
	rows, err := r.Run(ctx, &compiler.Query{
		SQL: "SELECT (SELECT count() FROM gl_definition FINAL WHERE traversal_path = {p0:String} AND file_path = {p1:String} AND NOT _deleted)," +
			" (SELECT count() FROM gl_edge FINAL WHERE traversal_path = {p0:String} AND relationship_kind = {p2:String} AND NOT _deleted)",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: "1/"}, {Name: "p1", Type: "String", Value: "f.go"},
			{Name: "p2", Type: "String", Value: "CALLS"}},
	})
	if err != nil {
		return 0, 0, err
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return 0, 0, err
	}
	num := func(v any) int64 {
		switch n := v.(type) {
		case uint64:
			return int64(n)
		case int64:
			return n
		}
		return -1
	}
	return num(res.Rows[0][0]), num(res.Rows[0][1]), nil
}

// TestIndexAtomicForQueries re-indexes one file back and forth between two versions while
// queries run through the writer's reader: each query sees one version whole (5
// definitions and 4 calls, or 7 and 6), never the definitions of one with the calls of the
// other. Bounded: a fixed number of writes, readers stop with them. Merging is on, as in
// serve with the embedded engine, so the queries also run while each write's merge rewrites
// the parts.
func TestIndexAtomicForQueries(t *testing.T) {
	e, w := setupWith(t, ingest.Options{Merge: &load.MergeOptions{}})
	ctx := t.Context()
	versions := []*codeindex.Graph{fileGraph("a", 5), fileGraph("b", 7)}
	if _, err := ingest.IndexGraph(ctx, w, versions[0], ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	want := map[[2]int64]bool{{5, 4}: true, {7, 6}: true}
	r := w.Reader(e)
	done := make(chan struct{})
	var seen, mixed atomic.Int64
	var firstMixed atomic.Value
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				d, c, err := snapshot(ctx, r)
				if err != nil {
					t.Error(err)
					return
				}
				seen.Add(1)
				if !want[[2]int64{d, c}] {
					mixed.Add(1)
					firstMixed.CompareAndSwap(nil, fmt.Sprintf("%d definitions, %d calls", d, c))
				}
			}
		}()
	}
	const writes = 6
	for i := 1; i <= writes; i++ {
		rep, err := ingest.IndexGraph(ctx, w, versions[i%2], ingest.IndexOptions{Scope: scope, Dir: t.TempDir()})
		if err != nil {
			close(done)
			wg.Wait()
			t.Fatal(err)
		}
		if !rep.Incremental || len(rep.Changed) != 1 || rep.Changed[0] != "f.go" {
			t.Errorf("write %d: changed %v (incremental %v), want [f.go]", i, rep.Changed, rep.Incremental)
		}
	}
	close(done)
	wg.Wait()
	if n := mixed.Load(); n > 0 {
		t.Errorf("%d of %d queries saw half a write, first: %v", n, seen.Load(), firstMixed.Load())
	}
	d, c, err := snapshot(ctx, r)
	if err != nil || d != 5 || c != 4 { // writes is even: version a last
		t.Errorf("after the writes: %d definitions, %d calls (%v), want 5 and 4", d, c, err)
	}
	t.Logf("%d queries during %d writes", seen.Load(), writes)
}

// TestIndexNoChange: indexing the same graph again writes nothing and reports no change.
func TestIndexNoChange(t *testing.T) {
	_, w := setup(t)
	g := fileGraph("a", 3)
	if _, err := ingest.IndexGraph(t.Context(), w, g, ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	rep, err := ingest.IndexGraph(t.Context(), w, g, ingest.IndexOptions{Scope: scope, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Wrote || !rep.Incremental || len(rep.Changed) != 0 || len(rep.Gone) != 0 {
		t.Errorf("no-op index: %+v", rep)
	}
}

// graphParts returns the number of active parts of each gl_ table that has any.
func graphParts(t *testing.T, r executor.Runner) map[string]int64 {
	t.Helper()
	rows, err := r.Run(t.Context(), &compiler.Query{SQL: "SELECT table, count() FROM system.parts" +
		" WHERE database = currentDatabase() AND active AND startsWith(table, 'gl_') GROUP BY table ORDER BY table"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, row := range res.Rows {
		out[row[0].(string)] = row[1].(int64)
	}
	return out
}

// TestWritesEndMerged: three writes (a first index, a re-index with other rows, and one
// more) each attach parts of their own. With Options.Merge every graph table ends in one
// part, and the report says what was merged; without it, the tables the writes touched stay
// in several parts.
func TestWritesEndMerged(t *testing.T) {
	tests := []struct {
		name  string
		merge *load.MergeOptions
	}{
		{name: "merge", merge: &load.MergeOptions{}},
		{name: "no merge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, w := setupWith(t, ingest.Options{Merge: tt.merge})
			var merged []load.MergedTable
			for _, g := range []*codeindex.Graph{fileGraph("a", 5), fileGraph("b", 7), fileGraph("a", 3)} {
				rep, err := ingest.IndexGraph(t.Context(), w, g, ingest.IndexOptions{Scope: scope, Dir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				merged = append(merged, rep.Load.Merged...)
			}
			parts := graphParts(t, e)
			several := 0
			for _, n := range parts {
				if n > 1 {
					several++
				}
			}
			if tt.merge != nil && (several > 0 || len(merged) == 0) {
				t.Errorf("with merging: %d tables in several parts (%v), %d merges reported", several, parts, len(merged))
			}
			if tt.merge == nil && (several == 0 || len(merged) > 0) {
				t.Errorf("without merging: %d tables in several parts (%v), %d merges reported", several, parts, len(merged))
			}
			if d, c, err := snapshot(t.Context(), e); err != nil || d != 3 || c != 2 {
				t.Errorf("after the writes: %d definitions, %d calls (%v), want 3 and 2", d, c, err)
			}
		})
	}
}

// TestActivity: Activity grows with every write and every statement run through the reader,
// and not with a Background statement (a health check), which is how serve's health check
// knows that nothing used the graph since it last ran.
func TestActivity(t *testing.T) {
	e, w := setup(t)
	ctx := t.Context()
	r := w.Reader(e)
	run := func(ctx context.Context) {
		t.Helper()
		rows, err := r.Run(ctx, &compiler.Query{SQL: "SELECT 1"})
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	a := w.Activity()
	run(ingest.Background(ctx))
	if got := w.Activity(); got != a {
		t.Errorf("a background statement changed the activity from %d to %d", a, got)
	}
	run(ctx)
	b := w.Activity()
	if b == a {
		t.Error("a query left the activity unchanged")
	}
	if _, err := ingest.IndexGraph(ctx, w, fileGraph("a", 3), ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := w.Activity(); got == b {
		t.Error("a write left the activity unchanged")
	}
}

// TestMergeIdle: writes whose own merges leave a large table's parts for later (here every
// table counts as large) are merged by MergeIdle only once no statement runs through the
// reader and none ran within the idle time, and only once per write; a Background statement
// (a health check) does not count.
func TestMergeIdle(t *testing.T) {
	e, w := setupWith(t, ingest.Options{Merge: &load.MergeOptions{WholeBytes: 1, Share: 1, MaxParts: 100}})
	ctx := t.Context()
	for _, g := range []*codeindex.Graph{fileGraph("a", 5), fileGraph("b", 7)} {
		rep, err := ingest.IndexGraph(ctx, w, g, ingest.IndexOptions{Scope: scope, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Load.Merged) > 0 {
			t.Fatalf("the write merged %+v; these options leave every table for later", rep.Load.Merged)
		}
	}
	several := func() []string {
		var out []string
		for tb, n := range graphParts(t, e) {
			if n > 1 {
				out = append(out, tb)
			}
		}
		return out
	}
	if len(several()) == 0 {
		t.Fatal("no table in several parts after two writes")
	}
	r := w.Reader(e)
	// A health check's statement (Background) is no query: the writer is idle beside it.
	bg, err := r.Run(ingest.Background(ctx), &compiler.Query{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.MergeIdle(ctx, time.Hour); len(got) == 0 {
		t.Error("a background statement kept the writer from being idle")
	}
	bg.Close()
	if _, err := ingest.IndexGraph(ctx, w, fileGraph("a", 5), ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if len(several()) == 0 {
		t.Fatal("no table in several parts after a third write")
	}
	rows, err := r.Run(ctx, &compiler.Query{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.MergeIdle(ctx, 0); got != nil {
		t.Errorf("merged while a statement runs: %+v", got)
	}
	rows.Close()
	if got := w.MergeIdle(ctx, time.Hour); got != nil {
		t.Errorf("merged within the idle time of a statement: %+v", got)
	}
	if got := w.MergeIdle(ctx, 0); len(got) == 0 {
		t.Error("idle: merged nothing")
	}
	if left := several(); len(left) > 0 {
		t.Errorf("after the idle merge, in several parts: %v", left)
	}
	if got := w.MergeIdle(ctx, 0); got != nil {
		t.Errorf("merged again with no write since: %+v", got)
	}
	if d, c, err := snapshot(ctx, r); err != nil || d != 5 || c != 4 {
		t.Errorf("after the merge: %d definitions, %d calls (%v), want 5 and 4", d, c, err)
	}
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.IndexGraph(ctx, w, fileGraph("b", 7), ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if got := ingest.NewWriter(e, o, ingest.Options{}).MergeIdle(ctx, 0); got != nil {
		t.Errorf("a writer without Merge merged: %+v", got)
	}
}

// TestReaderLendsGated: the writer's reader lends a second connection of an idle embedded
// engine (executor.Lender, so that a lookup may run in two halves), and the lent runner's
// statements go through the writer's gate as the reader's do: each counts as a query
// (Activity) and holds the read side of the gate until its rows are closed.
func TestReaderLendsGated(t *testing.T) {
	e, w := setupWith(t, ingest.Options{})
	ctx := t.Context()
	l, ok := w.Reader(e).(executor.Lender)
	if !ok {
		t.Fatal("the writer's reader of an embedded engine is not an executor.Lender")
	}
	lent, release, ok := l.Lend()
	if !ok {
		t.Fatal("an idle embedded engine lent no connection through the writer's reader")
	}
	defer release()
	before := w.Activity()
	rows, err := lent.Run(ctx, &compiler.Query{SQL: "SELECT 1"})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if got := w.Activity(); got != before+1 {
		t.Errorf("activity %d after a statement on the lent runner, want %d: the lent runner is not gated", got, before+1)
	}
	// A runner that does not lend: the reader lends nothing.
	if _, _, ok := w.Reader(runnerOnly{e}).(executor.Lender).Lend(); ok {
		t.Error("the reader of a runner that does not lend lent a connection")
	}
}

// runnerOnly hides every method of its runner but Run.
type runnerOnly struct{ r executor.Runner }

func (o runnerOnly) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	return o.r.Run(ctx, q)
}
