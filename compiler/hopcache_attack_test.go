package compiler

import (
	"strconv"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// BenchmarkCachedHopsLargeSets: the hops in Go of a two-hop traversal from one named group
// that reaches a handful of edges, over edge sets of n edges each. The hops look up the edges
// of the nodes they reach in the sets' indexes, so the cost does not grow with n (it scanned
// the sets whole before: 0.15 ms at 10k edges per set, 2.0 ms at 100k, 22-29 ms at 500k).
//
//	go test ./compiler -run '^$' -bench BenchmarkCachedHopsLargeSets
func BenchmarkCachedHopsLargeSets(b *testing.B) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		b.Fatal(err)
	}
	c, err := New(ont, Options{})
	if err != nil {
		b.Fatal(err)
	}
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}],"limit":10}`), &Caller{Admin: true})
	if err != nil {
		b.Fatal(err)
	}
	pairs := q.Plan.TraversalCachePairs()
	if len(pairs) != 2 {
		b.Fatalf("pairs %v", pairs)
	}
	for _, n := range []int{10_000, 100_000, 500_000} {
		sets := map[EdgePair][]PathEdge{}
		for _, ep := range pairs {
			for i := range n {
				sets[ep] = append(sets[ep], PathEdge{X: graphresponse.NodeRef{Kind: ep.From, ID: int64(i + 1)}, Y: graphresponse.NodeRef{Kind: ep.To, ID: int64(n + i + 1)}, TP: "1/"})
			}
		}
		idx := indexed(b, sets)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				hs, ok, err := q.Plan.CachedHops(idx)
				if err != nil || !ok || hs.Len() < 1 {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
