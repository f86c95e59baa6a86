package compilertest_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/cputime"
)

// TestTraversalCacheCraftedGraph: fixed-length traversals of two hops on cached edges (docs/compiler.md,
// "Traversals on cached edges") answer byte for byte as the one statement does, on a crafted
// graph with a self loop, a far node in another namespace and a deleted one, a named root the
// caller may not read or that is deleted, and an edge stored under two traversal paths (which
// the cached form must leave to the one statement, whose edge scans return it twice); chains,
// a tree, a chain from the root's far side, an incoming relationship, a far node naming its ids, filters and an order_by; for
// callers with other scopes and the same scope at two levels, in turns on one cache, cold and
// warm; pages of one row by cursor; and after a write. Single hops too, from the named roots
// and into named far nodes.
func TestTraversalCacheCraftedGraph(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const base = int64(9300000)
	g1, g2, g3, gx, gd, g4, g5 := base+1, base+2, base+3, base+4, base+5, base+6, base+7
	p1, p2, p3, p4 := base+11, base+12, base+13, base+14
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
	in, out, sub := "1/96/", "2/97/", "1/96/98/"
	groups := [][]any{group(g1, in, false), group(g2, in, false), group(g3, sub, false), group(gx, out, false),
		group(gd, in, true), group(g4, in, false), group(g5, out, false)}
	projects := [][]any{project(p1, in), project(p2, sub), project(p3, out), project(p4, in)}
	edges := [][]any{
		edge(in, "Group", g1, "Group", g1, 1, false),    // a self loop
		edge(in, "Group", g1, "Group", g2, 1, false),    //
		edge(sub, "Group", g2, "Group", g3, 1, false),   // into a deeper namespace
		edge(in, "Group", g1, "Group", gx, 1, false),    // into another namespace
		edge(in, "Group", g1, "Group", gd, 1, false),    // to a deleted group
		edge(in, "Group", g1, "Project", p1, 1, false),  //
		edge(in, "Group", g2, "Project", p1, 1, false),  //
		edge(sub, "Group", g3, "Project", p2, 1, false), //
		edge(out, "Group", gx, "Project", p3, 1, false), //
		edge(in, "Group", gd, "Project", p4, 1, false),  // from the deleted group
		edge(in, "Group", g2, "Project", p4, 1, false),  //
		edge(out, "Group", g5, "Project", p3, 1, false), // a root in another namespace
		edge(in, "Group", g4, "Project", p4, 1, false),  // one edge under two traversal paths
		edge(sub, "Group", g4, "Project", p4, 1, false), //
		edge(in, "Group", g4, "Project", p1, 1, false),  //
		edge(in, "Group", g4, "Group", g2, 1, false),    //
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
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/", 30}), callerWith(scopeSpec{"2/", 30}),
		callerWith(scopeSpec{"1/96/", 10}), callerWith(scopeSpec{"1/96/", 30}), callerWith(scopeSpec{"1/96/98/", 30})}
	roots := fmt.Sprintf("%d,%d,%d", g1, g2, gd)
	queries := []string{
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + roots + `]},{"id":"h","entity":"Group","columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}],"limit":100%s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + roots + `]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"g","to":"p"}],"order_by":"-p.full_path","limit":100%s}`,
		`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[` + fmt.Sprintf("%d,%d,%d", p1, p2, p3) + `]},{"id":"g","entity":"Group","filters":{"full_path":{"starts_with":"g93"}}},{"id":"f","entity":"Group","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"},{"type":"CONTAINS","from":"f","to":"g"}],"limit":100%s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + roots + `]},{"id":"h","entity":"Group","node_ids":[` + fmt.Sprintf("%d,%d,%d", g1, g3, gx) + `],"columns":["full_path"]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"h","to":"g","direction":"incoming"},{"type":"CONTAINS","from":"h","to":"p"}],"limit":100%s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":` + fmt.Sprint(g1) + `,"end":` + fmt.Sprint(gd) + `}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}],"limit":100%s}`,
		// One hop: from the roots (a self loop, a far node deleted or in another namespace),
		// and into named projects (one in a deeper namespace, one in another).
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + roots + `],"columns":["full_path"]},{"id":"h","entity":"Group","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"}],"limit":100%s}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","columns":["full_path"]},{"id":"p","entity":"Project","node_ids":[` + fmt.Sprintf("%d,%d,%d", p1, p2, p3) + `]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"order_by":"-g.full_path","limit":100%s}`,
	}
	// The root named by this query has an edge stored twice: the cached form leaves it to
	// the one statement, whose edge scan returns the edge twice (the second row is the
	// probe for has_more at this limit).
	twice := `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + fmt.Sprint(g4) + `]},{"id":"p","entity":"Project"},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"},{"type":"CONTAINS","from":"g","to":"h"}],"limit":2}`
	twiceOneHop := `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + fmt.Sprint(g4) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"limit":2}`
	var gen atomic.Uint64
	cache := newCache(t, 64<<20, gen.Load)
	compile := func(q string, c *compiler.Caller) *compiler.Query {
		t.Helper()
		cq, err := env.compiler.Compile([]byte(q), c)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if cq.Plan.TraversalCachePairs() == nil {
			t.Fatalf("%s: no cached traversal form", q)
		}
		return cq
	}
	nonEmpty := 0
	same := func(what string, q *compiler.Query, fallback bool) *graphresponse.Response {
		t.Helper()
		want, _, err := executor.Respond(ctx, e, env.compiler, q)
		if err != nil {
			t.Fatal(err)
		}
		resp, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
		if err != nil {
			t.Fatal(err)
		}
		ran := false
		for _, s := range ex.Statements {
			ran = ran || s.Query == q
		}
		if ran != fallback {
			t.Errorf("%s: the one statement ran: %v, want %v (labels %v)", what, ran, fallback, statementLabels(ex))
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
				before[fmt.Sprint(qi, ci)] = answerBytes(same(what, compile(fmt.Sprintf(qt, ""), c), false))
				if round > 0 {
					continue
				}
				after := ""
				for page := 0; page < 20; page++ {
					q := compile(fmt.Sprintf(qt, `,"cursor":{"page_size":1`+after+`}`), c)
					r := same(fmt.Sprintf("%s, page %d", what, page), q, false)
					if !r.Pagination.HasMore {
						break
					}
					after = `,"after":"` + *r.Pagination.NextCursor + `"`
				}
			}
		}
		same(fmt.Sprintf("round %d, an edge stored twice", round), compile(twice, admin), true)
		same(fmt.Sprintf("round %d, an edge stored twice, caller at 1/96/98/", round), compile(twice, callers[5]), false)
		same(fmt.Sprintf("round %d, an edge stored twice, one hop", round), compile(twiceOneHop, admin), true)
	}
	if nonEmpty == 0 {
		t.Fatal("every answer was empty: the test proves nothing")
	}
	// A named root the caller may not read, or deleted, yields nothing, though its edges
	// are in sets the cache holds for others.
	for _, c := range callers[1:] {
		for _, root := range []int64{gd, g5} {
			q := compile(fmt.Sprintf(strings.Replace(queries[0], roots, fmt.Sprint(root), 1), ""), c)
			if r := same(fmt.Sprintf("root %d", root), q, false); root == gd || !strings.HasPrefix(c.Scopes[0].Path, "2/") {
				if len(r.Nodes) > 0 {
					t.Errorf("root %d: %d nodes for a caller that may not read it", root, len(r.Nodes))
				}
			}
		}
	}
	// A write: g2 → p1 tombstoned, g3 → p4 added; the answers follow.
	gen.Add(1)
	insert("gl_edge", ecols, edge(in, "Group", g2, "Project", p1, 2, true), edge(sub, "Group", g3, "Project", p4, 1, false))
	edges = append(edges, edge(sub, "Group", g3, "Project", p4, 1, false))
	gen.Add(1)
	changed := false
	for qi, qt := range queries {
		for ci, c := range callers {
			got := answerBytes(same(fmt.Sprintf("after the write, query %d, caller %d", qi, ci), compile(fmt.Sprintf(qt, ""), c), false))
			changed = changed || !bytes.Equal(got, before[fmt.Sprint(qi, ci)])
		}
	}
	if !changed {
		t.Error("no answer changed after the write: the test cannot see a stale cache")
	}
}

// BenchmarkTraversalCache runs bench/duckdb's 2-hop traversal question (eight users' authored
// merge requests and their projects) as serve does, without and with a warm edge cache, interleaved in one process; checks that both
// answer byte for byte the same and reports each one's median process CPU and wall time per
// request and their ratios (cached ÷ uncached).
//
//	GRAPHWIRE_SEED_SCALE=10 go test ./tests/compiler -run '^$' -bench BenchmarkTraversalCache -benchtime 15x
func BenchmarkTraversalCache(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	w := loadWorld(b)
	questions := []struct{ name, dsl string }{
		{"2hop", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6,7,8],"columns":["username"]},{"id":"mr","entity":"MergeRequest","columns":["iid","title"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`},
	}
	for _, qn := range questions {
		for _, c := range []struct {
			name   string
			caller *compiler.Caller
		}{{"admin", admin}, {"scoped", callerWith(scopeSpec{topLevel(w)[0], 30})}} {
			b.Run(qn.name+"/"+c.name, func(b *testing.B) {
				q, err := env.sized.Compile([]byte(qn.dsl), c.caller)
				if err != nil {
					b.Fatal(err)
				}
				if q.Plan.TraversalCachePairs() == nil {
					b.Fatal("no cached traversal form")
				}
				cache, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 128 << 20, Generation: func() uint64 { return 0 }})
				if err != nil {
					b.Fatal(err)
				}
				measure := func(edges *executor.EdgeCache) (cpu, wall time.Duration, answer []byte, ex executor.Executed) {
					c0, _ := cputime.Process()
					t0 := time.Now()
					resp, ex, err := executor.RespondWith(ctx, e, env.sized, q, executor.RespondOptions{Edges: edges})
					if err != nil {
						b.Fatal(err)
					}
					c1, _ := cputime.Process()
					return c1 - c0, time.Since(t0), answerBytes(resp), ex
				}
				_, _, want, _ := measure(nil)
				cc, cw, got, _ := measure(cache)
				if !bytes.Equal(got, want) {
					b.Fatalf("the answers differ:\ncache: %s\none:   %s", got, want)
				}
				b.Logf("cold cache: %.1f ms CPU, %.1f ms wall; %d answer bytes; %d sets, %d bytes", float64(cc.Microseconds())/1000, float64(cw.Microseconds())/1000, len(want), cache.Stats().Entries, cache.Stats().Bytes)
				var pc, sc, pw, sw []time.Duration
				for b.Loop() {
					c, w, _, _ := measure(nil)
					pc, pw = append(pc, c), append(pw, w)
					var ex executor.Executed
					c, w, got, ex = measure(cache)
					sc, sw = append(sc, c), append(sw, w)
					if !bytes.Equal(got, want) {
						b.Fatal("the warm cache answers differently")
					}
					for _, s := range ex.Statements {
						if s.Query == q {
							b.Fatal("the warm cache fell back to the one statement")
						}
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
}
