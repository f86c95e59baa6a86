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
	t.Logf("%d compiled queries ran on the cache, %d answers with rows", ran, nonEmpty)
	if nonEmpty < ran/2 {
		t.Fatalf("only %d of %d answers have rows: the test proves little", nonEmpty, ran)
	}
}
