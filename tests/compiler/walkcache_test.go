package compilertest_test

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/cputime"
)

// TestWalkCacheCraftedGraph: walks on cached edges (docs/compiler.md, "Walks on cached edges")
// answer byte for byte as the traversal's one statement does, on a crafted graph with a self
// loop, a cycle, a walk back to its start, one end reached at several depths, an intermediate
// node in another namespace and a deleted one; for callers with other scopes, in turns on one
// cache, cold and warm; for pages of one row walked by cursor (first round); and after writes.
func TestWalkCacheCraftedGraph(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const base = int64(9100000)
	g1, g2, g3, gx, gd := base+1, base+2, base+3, base+4, base+5
	p1, p2, p3 := base+11, base+12, base+13
	gcols := []string{"id", "traversal_path", "full_path", "_version", "_deleted"}
	pcols := []string{"id", "traversal_path", "full_path", "_version", "_deleted"}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	group := func(id int64, path string, deleted bool) []any {
		return []any{id, path, fmt.Sprint("g", id), int64(1), deleted}
	}
	project := func(id int64, path string) []any { return []any{id, path, fmt.Sprint("p", id), int64(1), false} }
	edge := func(path, sk string, s int64, tk string, tg int64, version int64, deleted bool) []any {
		return []any{path, "CONTAINS", sk, s, tk, tg, version, deleted}
	}
	insert := func(table string, cols []string, rows ...[]any) {
		t.Helper()
		if err := e.Insert(ctx, table, cols, rows); err != nil {
			t.Fatal(err)
		}
	}
	in, out := "1/91/", "2/92/"
	groups := [][]any{group(g1, in, false), group(g2, in, false), group(g3, in, false), group(gx, out, false), group(gd, in, true)}
	projects := [][]any{project(p1, in), project(p2, in), project(p3, out)}
	edges := [][]any{
		edge(in, "Group", g1, "Group", g1, 1, false),     // a self loop
		edge(in, "Group", g1, "Group", g2, 1, false),     // g1 → g2 → g1: a cycle
		edge(in, "Group", g2, "Group", g1, 1, false),     //
		edge(in, "Group", g2, "Group", g3, 1, false),     //
		edge(in, "Group", g1, "Project", p1, 1, false),   // p1 at depth 1, 2 (g2) and 3 (g2, g3)
		edge(in, "Group", g2, "Project", p1, 1, false),   //
		edge(in, "Group", g3, "Project", p1, 1, false),   //
		edge(in, "Group", g3, "Project", p2, 1, false),   // p2 at depth 3
		edge(in, "Group", g1, "Group", gx, 1, false),     // through another namespace
		edge(out, "Group", gx, "Project", p2, 1, false),  //
		edge(out, "Group", gx, "Project", p3, 1, false),  //
		edge(in, "Group", g1, "Group", gd, 1, false),     // through a deleted group
		edge(in, "Group", gd, "Project", p2, 1, false),   //
		edge(in, "Group", g3, "Group", g1, 1, false),     // g1 → g2 → g3 → g1: back to the start
		edge(in, "Project", p1, "Project", p2, 1, false), // not a pair of CONTAINS: never walked
	}
	insert("gl_group", gcols, groups...)
	insert("gl_project", pcols, projects...)
	insert("gl_edge", ecols, edges...)
	t.Cleanup(func() {
		for _, rows := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{{"gl_edge", ecols, edges}, {"gl_group", gcols, groups}, {"gl_project", pcols, projects}} {
			var gone [][]any
			for _, r := range rows.rows {
				r = append([]any(nil), r...)
				r[len(r)-2], r[len(r)-1] = int64(9), true
				gone = append(gone, r)
			}
			_ = e.Insert(ctx, rows.table, rows.cols, gone)
		}
	})
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/", 30}), callerWith(scopeSpec{"2/", 30}), callerWith(scopeSpec{"1/91/", 10})}
	queries := []string{
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%[1]d],"columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100%[2]s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":%[1]d,"end":%[1]d}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[2,3]}],"limit":100%[2]s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%[1]d]},{"id":"h","entity":"Group","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,3]}],"limit":100%[2]s}`,
		`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[` + fmt.Sprint(p1) + `,` + fmt.Sprint(p2) + `]},{"id":"g","entity":"Group","filters":{"full_path":"g%[1]d"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100%[2]s}`,
	}
	var gen atomic.Uint64
	cache := newCache(t, 64<<20, gen.Load)
	compile := func(q string, c *compiler.Caller) *compiler.Query {
		t.Helper()
		cq, err := env.compiler.Compile([]byte(q), c)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if cq.Plan.WalkCachePairs() == nil {
			t.Fatalf("%s: no cached walk form", q)
		}
		return cq
	}
	// same runs q without and with the cache and returns the answer; nonEmpty counts the
	// answers with rows, so that the test cannot pass on empty answers alone.
	nonEmpty := 0
	same := func(what string, q *compiler.Query) *graphresponse.Response {
		t.Helper()
		want, _, err := executor.Respond(ctx, e, env.compiler, q)
		if err != nil {
			t.Fatal(err)
		}
		resp, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ex.Statements {
			if s.Query == q {
				t.Errorf("%s: the one statement ran (labels %v)", what, statementLabels(ex))
			}
		}
		if got, w := answerBytes(resp), answerBytes(want); !bytes.Equal(got, w) {
			t.Errorf("%s: answer on the edge cache differs:\ncache: %s\none:   %s", what, got, w)
		}
		if len(want.Nodes) > 0 {
			nonEmpty++
		}
		return want
	}
	before := map[string][]byte{}
	for round := range 2 {
		for qi, qt := range queries {
			for ci, c := range callers {
				what := fmt.Sprintf("round %d, query %d, caller %d", round, qi, ci)
				before[fmt.Sprint(qi, ci)] = answerBytes(same(what, compile(fmt.Sprintf(qt, g1, ""), c)))
				if round > 0 {
					continue
				}
				// Pages of one row, by cursor: the same pages and cursors.
				after := ""
				for page := 0; page < 20; page++ {
					q := compile(fmt.Sprintf(qt, g1, `,"cursor":{"page_size":1`+after+`}`), c)
					r := same(fmt.Sprintf("%s, page %d", what, page), q)
					if !r.Pagination.HasMore {
						break
					}
					after = `,"after":"` + *r.Pagination.NextCursor + `"`
				}
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatal("every answer was empty: the test proves nothing")
	}
	// A write: g2 → p1 tombstoned, g3 → p3 added; the answers follow.
	gen.Add(1)
	insert("gl_edge", ecols, edge(in, "Group", g2, "Project", p1, 2, true), edge(in, "Group", g3, "Project", p3, 1, false))
	edges = append(edges, edge(in, "Group", g3, "Project", p3, 1, false))
	gen.Add(1)
	changed := false
	for qi, qt := range queries {
		for ci, c := range callers {
			got := answerBytes(same(fmt.Sprintf("after the write, query %d, caller %d", qi, ci), compile(fmt.Sprintf(qt, g1, ""), c)))
			changed = changed || !bytes.Equal(got, before[fmt.Sprint(qi, ci)])
		}
	}
	if !changed {
		t.Error("no answer changed after the write: the test cannot see a stale cache")
	}
}

// BenchmarkWalkCache runs bench/duckdb's variable_length question (three groups' projects
// 1..3 hops down, admin and a caller scoped to the first top-level group at Developer) as
// serve does, without and with a warm edge cache, interleaved in one process; checks that
// both answer byte for byte the same and reports each one's median process CPU and wall time
// per request and their ratios (cached ÷ uncached).
//
//	GRAPHWIRE_SEED_SCALE=10 go test ./tests/compiler -run '^$' -bench BenchmarkWalkCache -benchtime 15x
func BenchmarkWalkCache(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	w := loadWorld(b)
	const walk = `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2,3],"columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`
	for _, c := range []struct {
		name   string
		caller *compiler.Caller
	}{{"admin", admin}, {"scoped", callerWith(scopeSpec{topLevel(w)[0], 30})}} {
		b.Run("variable_length/"+c.name, func(b *testing.B) {
			q, err := env.sized.Compile([]byte(walk), c.caller)
			if err != nil {
				b.Fatal(err)
			}
			if q.Plan.WalkCachePairs() == nil {
				b.Fatal("no cached walk form")
			}
			cache, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 128 << 20, Generation: func() uint64 { return 0 }})
			if err != nil {
				b.Fatal(err)
			}
			measure := func(edges *executor.EdgeCache) (cpu, wall time.Duration, answer []byte) {
				c0, _ := cputime.Process()
				t0 := time.Now()
				resp, _, err := executor.RespondWith(ctx, e, env.sized, q, executor.RespondOptions{Edges: edges})
				if err != nil {
					b.Fatal(err)
				}
				c1, _ := cputime.Process()
				return c1 - c0, time.Since(t0), answerBytes(resp)
			}
			_, _, want := measure(nil)
			cc, cw, got := measure(cache) // the cold cache: edge sets read
			if !bytes.Equal(got, want) {
				b.Fatalf("the answers differ:\ncache: %s\none:   %s", got, want)
			}
			b.Logf("cold cache: %.1f ms CPU, %.1f ms wall; %d answer bytes", float64(cc.Microseconds())/1000, float64(cw.Microseconds())/1000, len(want))
			var pc, sc, pw, sw []time.Duration
			for b.Loop() {
				c, w, _ := measure(nil)
				pc, pw = append(pc, c), append(pw, w)
				c, w, got = measure(cache)
				sc, sw = append(sc, c), append(sw, w)
				if !bytes.Equal(got, want) {
					b.Fatal("the warm cache answers differently")
				}
			}
			ms := func(d []time.Duration) float64 { return float64(median(d).Microseconds()) / 1000 }
			b.ReportMetric(ms(pc), "uncached-cpu-ms")
			b.ReportMetric(ms(sc), "cached-cpu-ms")
			b.ReportMetric(ms(sc)/ms(pc), "cpu-ratio")
			b.ReportMetric(ms(pw), "uncached-ms")
			b.ReportMetric(ms(sw), "cached-ms")
			b.ReportMetric(ms(sw)/ms(pw), "ratio")
		})
	}
}
