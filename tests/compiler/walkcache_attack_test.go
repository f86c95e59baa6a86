package compilertest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// TestWalkCacheShapes: every walk shape the cached form takes (hops, both ends' ids, id
// ranges, several types, filters and order on either end, cursors) answers on a cold and a
// warm edge cache byte for byte as the one statement does, for callers that differ only in
// level.
func TestWalkCacheShapes(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	w := loadWorld(t)
	top := topLevel(w)
	callers := []*compiler.Caller{admin}
	for _, lv := range []int{10, 30} {
		callers = append(callers, callerWith(scopeSpec{top[0], lv}))
	}
	queries := []string{}
	for _, hops := range [][2]int{{1, 2}, {2, 3}, {3, 3}, {1, 3}, {2, 2}} {
		h := fmt.Sprintf(`"hops":[%d,%d]`, hops[0], hops[1])
		queries = append(queries,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2,3]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p",`+h+`}],"limit":100}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1000}},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p",`+h+`}],"order_by":"-p.full_path","limit":7}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2],"filters":{"visibility_level":"private"}},{"id":"h","entity":"Group","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h",`+h+`}],"limit":1000}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","columns":["full_path"]},{"id":"h","entity":"Group","node_ids":[5,6,7,8,9,10]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h",`+h+`}],"limit":1000}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group"},{"id":"p","entity":"Project","id_range":{"start":1,"end":50}}],"relationships":[{"type":"CONTAINS","from":"g","to":"p",`+h+`}],"limit":1000}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":4}},{"id":"x","entity":"User"}],"relationships":[{"type":"*","from":"x","to":"g",`+h+`}],"limit":1000}`,
			`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2,3,4]},{"id":"x","entity":"Group","filters":{"visibility_level":"private"}}],"relationships":[{"type":["CONTAINS","IN_GROUP"],"from":"g","to":"x",`+h+`}],"limit":1000}`,
		)
	}
	ran, nonEmpty := 0, 0
	for qi, qs := range queries {
		for ci, c := range callers {
			for _, comp := range []*compiler.Compiler{env.compiler, env.sized} {
				q, err := comp.Compile([]byte(qs), c)
				if err != nil {
					t.Logf("query %d: %v", qi, err)
					break
				}
				if q.Plan.WalkCachePairs() == nil {
					continue
				}
				ran++
				resp, _, err := executor.Respond(ctx, e, comp, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(resp.Nodes) > 0 {
					nonEmpty++
				}
				if err := sameOnEdgeCache(ctx, e, comp, q, answerBytes(resp)); err != nil {
					t.Errorf("query %d caller %d: %s\n%v", qi, ci, qs, err)
				}
			}
		}
	}
	// Pages of one row by cursor, ordered on the end node, to the last page.
	const paged = `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1000}},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[2,3]}],"order_by":"-p.full_path","limit":100,"cursor":{"page_size":1%s}}`
	for ci, c := range callers[:2] {
		after, pages := "", 0
		for ; pages < 40; pages++ {
			q, err := env.compiler.Compile([]byte(fmt.Sprintf(paged, after)), c)
			if err != nil {
				t.Fatal(err)
			}
			if q.Plan.WalkCachePairs() == nil {
				t.Fatal("paged walk: no cached walk form")
			}
			resp, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameOnEdgeCache(ctx, e, env.compiler, q, answerBytes(resp)); err != nil {
				t.Errorf("caller %d, page %d: %v", ci, pages, err)
			}
			if !resp.Pagination.HasMore {
				break
			}
			after = `,"after":"` + *resp.Pagination.NextCursor + `"`
		}
		t.Logf("caller %d: %d pages", ci, pages+1)
	}
	t.Logf("%d compiled queries ran on the cache, %d answers with rows", ran, nonEmpty)
	if nonEmpty < ran/2 {
		t.Fatalf("only %d of %d answers have rows: the test proves little", nonEmpty, ran)
	}
}

// TestWalkCacheCraftedKinds: walks on cached edges where a group and a project share an id
// (an edge between them is no self loop; a group in the middle is not the project end), an
// edge recorded in another namespace between two readable groups, and a project end reached
// through a group with the project's id; cold and warm, for callers of two scopes.
func TestWalkCacheCraftedKinds(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const base = int64(9200000)
	g1, g2, g3 := base+1, base+2, base+3
	gcols := []string{"id", "traversal_path", "full_path", "_version", "_deleted"}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	node := func(id int64, path string) []any { return []any{id, path, fmt.Sprint("n", id), int64(1), false} }
	edge := func(path, sk string, s int64, tk string, tg int64) []any {
		return []any{path, "CONTAINS", sk, s, tk, tg, int64(1), false}
	}
	in, out := "1/93/", "2/94/"
	groups := [][]any{node(g1, in), node(g2, in), node(g3, in)}
	projects := [][]any{node(g1, in), node(g2, in), node(g3, out)}
	edges := [][]any{
		edge(in, "Group", g1, "Project", g1), // same id, other kind: not a self loop
		edge(in, "Group", g1, "Group", g2),   //
		edge(in, "Group", g2, "Project", g1), // back to the project with the start's id
		edge(out, "Group", g2, "Group", g3),  // recorded in another namespace
		edge(in, "Group", g3, "Project", g2), //
		edge(in, "Group", g2, "Project", g3), // a project in another namespace
		edge(in, "Group", g3, "Group", g1),   // a cycle
	}
	ins := func(table string, cols []string, rows [][]any) {
		t.Helper()
		if err := e.Insert(ctx, table, cols, rows); err != nil {
			t.Fatal(err)
		}
	}
	ins("gl_group", gcols, groups)
	ins("gl_project", gcols, projects)
	ins("gl_edge", ecols, edges)
	t.Cleanup(func() {
		for _, r := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{{"gl_edge", ecols, edges}, {"gl_group", gcols, groups}, {"gl_project", gcols, projects}} {
			var gone [][]any
			for _, row := range r.rows {
				row = append([]any(nil), row...)
				row[len(row)-2], row[len(row)-1] = int64(9), true
				gone = append(gone, row)
			}
			_ = e.Insert(ctx, r.table, r.cols, gone)
		}
	})
	queries := []string{
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%d]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`, g1),
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%d]},{"id":"h","entity":"Group","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,3]}],"limit":100}`, g1),
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","columns":["full_path"]},{"id":"p","entity":"Project","node_ids":[%d,%d]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[2,3]}],"limit":100}`, g1, g2),
	}
	ran, nonEmpty := 0, 0
	for _, c := range []*compiler.Caller{admin, callerWith(scopeSpec{"1/", 30}), callerWith(scopeSpec{"1/93/", 10})} {
		for _, qs := range queries {
			q, err := env.compiler.Compile([]byte(qs), c)
			if err != nil {
				t.Fatalf("%s: %v", qs, err)
			}
			if q.Plan.WalkCachePairs() == nil {
				t.Fatalf("%s: no cached walk form", qs)
			}
			resp, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatal(err)
			}
			ran++
			if len(resp.Nodes) > 0 {
				nonEmpty++
			}
			if err := sameOnEdgeCache(ctx, e, env.compiler, q, answerBytes(resp)); err != nil {
				t.Errorf("%s: %v", qs, err)
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatalf("all %d answers empty: the test proves nothing", ran)
	}
}
