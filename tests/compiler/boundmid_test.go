package compilertest_test

import (
	"context"
	"slices"
	"testing"
)

// TestBoundEdgesMeetOneCopy: a definition whose id is live under two paths (the node tables
// are keyed by traversal_path and id) is two nodes to edges bound to their namespace: a walk
// or a path may pass it only on two edges under the same path. Here a -> b is stored under
// "1/", b -> c under "1/5400000/" and b -> d under "1/": a variable-length walk and
// path_finding from a reach d through b, and neither reaches c.
func TestBoundEdgesMeetOneCopy(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const a, b, c, d = int64(5400001), int64(5400002), int64(5400003), int64(5400004)
	const p1, p2 = "1/", "1/5400000/"
	dcols := []string{"id", "traversal_path", "name", "project_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_definition", dcols, [][]any{
		{a, p1, "a", int64(1), int64(1), false},
		{b, p1, "b", int64(1), int64(1), false},
		{b, p2, "b", int64(1), int64(1), false},
		{c, p2, "c", int64(1), int64(1), false},
		{d, p1, "d", int64(1), int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_edge", ecols, [][]any{
		{p1, "CALLS", "Definition", a, "Definition", b, int64(1), false},
		{p2, "CALLS", "Definition", b, "Definition", c, int64(1), false},
		{p1, "CALLS", "Definition", b, "Definition", d, int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	caller := callerWith(scopeSpec{"1/", 30})
	for _, tt := range []struct{ name, query string }{
		{"walk", `{"query_type":"traversal","nodes":[{"id":"a","entity":"Definition","node_ids":[5400001]},{"id":"b","entity":"Definition","node_ids":[5400003,5400004]}],"relationships":[{"type":"CALLS","from":"a","to":"b","hops":[1,3]}]}`},
		{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"a","entity":"Definition","node_ids":[5400001]},{"id":"b","entity":"Definition","node_ids":[5400003,5400004]}],"path":{"type":"shortest","from":"a","to":"b","max_depth":3,"rel_types":["CALLS"]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := nodeIDs(run(t, tt.query, caller), "Definition")
			if !slices.Contains(got, d) || slices.Contains(got, c) {
				t.Errorf("definitions %v: want %d (through %d under %s) and not %d (its edge from %d is under %s)", got, d, b, p1, c, b, p2)
			}
		})
	}
}
