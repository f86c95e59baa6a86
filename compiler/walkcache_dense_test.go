package compiler

import (
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// TestCachedWalksBounded: on dense edge sets (300 groups, each containing every other: 2.7e7
// walks of three hops from one start, about 6 s in Go, deaf to the request's context) the
// walk in Go gives up after maxWalkSteps steps and the query falls back to its one statement.
func TestCachedWalksBounded(t *testing.T) {
	c := newTestCompiler(t)
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,3]}],"limit":10}`), &Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	sets := map[EdgePair][]PathEdge{}
	dense := false
	for _, ep := range q.Plan.WalkCachePairs() {
		if ep.From != "Group" || ep.To != "Group" {
			continue
		}
		dense = true
		for i := int64(1); i <= n; i++ {
			for j := int64(1); j <= n; j++ {
				sets[ep] = append(sets[ep], PathEdge{X: graphresponse.NodeRef{Kind: "Group", ID: i}, Y: graphresponse.NodeRef{Kind: "Group", ID: j}})
			}
		}
	}
	if !dense {
		t.Fatal("no Group → Group edge set in the plan")
	}
	w, ok, err := q.Plan.CachedWalks(sets)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Fatalf("the walk in Go ran to the end on %d edges (%d walks); want a fall back", n*n, w.Len())
	}
}
