package compiler

import (
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// TestCachedHopsBounded: the hops in Go give up, and the query falls back to its one
// statement, when their edge sets pass maxWalkSteps edges or the statement would need more
// than maxHopArms arms; below both they run (docs/compiler.md, "Traversals on cached edges").
func TestCachedHopsBounded(t *testing.T) {
	c := newTestCompiler(t)
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1000}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}],"limit":10}`), &Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	pairs := q.Plan.TraversalCachePairs()
	if len(pairs) != 2 {
		t.Fatalf("pairs %v, want CONTAINS Group→Group and Group→Project", pairs)
	}
	ref := func(kind string, id int64) graphresponse.NodeRef { return graphresponse.NodeRef{Kind: kind, ID: id} }
	// sets: groups 1..roots each contain group 1000+i, which contains projects; fanout
	// projects per group, each project in one group.
	sets := func(roots, fanout int64) map[EdgePair][]PathEdge {
		out := map[EdgePair][]PathEdge{}
		for _, ep := range pairs {
			for i := int64(1); i <= roots; i++ {
				if ep.To == "Group" {
					out[ep] = append(out[ep], PathEdge{X: ref("Group", i), Y: ref("Group", 1000+i)})
					continue
				}
				for j := range fanout {
					out[ep] = append(out[ep], PathEdge{X: ref("Group", 1000+i), Y: ref("Project", i*100000+j)})
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		roots, fanout int64
		ok            bool
	}{
		{30, 10, true},                 // 30 + 30 arms
		{40, 10, false},                // 40 + 40 arms
		{3, maxWalkSteps/3 + 1, false}, // more edges than steps
		{3, maxWalkSteps/3 - 10, true}, // within the steps
	} {
		hs, ok, err := q.Plan.CachedHops(sets(tc.roots, tc.fanout))
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.ok {
			t.Errorf("%d roots, %d projects each: ok %v, want %v", tc.roots, tc.fanout, ok, tc.ok)
		}
		if ok && hs.Len() != int(tc.roots+tc.roots*tc.fanout) {
			t.Errorf("%d roots, %d projects each: %d edges found, want %d", tc.roots, tc.fanout, hs.Len(), tc.roots+tc.roots*tc.fanout)
		}
	}
}

// TestTraversalCacheEligible pins which traversals have the cached form: single hops in one
// direction from a root that names its ids, with no edge filter.
func TestTraversalCacheEligible(t *testing.T) {
	c := newTestCompiler(t)
	for _, tc := range []struct {
		dsl string
		ok  bool
	}{
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project","filters":{"name":"x"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"order_by":"p.name"}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1001}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1002}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","filters":{"name":"x"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","direction":"both"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}]}`, false},
		{`{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"group_by":["g"],"aggregations":[{"count":"p"}]}`, false},
	} {
		q, err := c.Compile([]byte(tc.dsl), &Caller{Admin: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.dsl, err)
		}
		if got := q.Plan.TraversalCachePairs() != nil; got != tc.ok {
			t.Errorf("%s: cached form %v, want %v", tc.dsl, got, tc.ok)
		}
	}
}
