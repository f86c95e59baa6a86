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
	w, ok, err := q.Plan.CachedWalks(indexed(t, sets))
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Fatalf("the walk in Go ran to the end on %d edges (%d walks); want a fall back", n*n, w.Len())
	}
}

// TestCachedWalksManyStarts: walks from many starts run on the cached edges (their statement
// carries them as parameter rows, however many (start, depth) pairs there are), up to
// maxWalkRows walks; above it the query falls back to its one statement.
func TestCachedWalksManyStarts(t *testing.T) {
	c := newTestCompiler(t)
	admin := &Caller{Admin: true}
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1000}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}],"limit":10}`), admin)
	if err != nil {
		t.Fatal(err)
	}
	var pair EdgePair
	for _, ep := range q.Plan.WalkCachePairs() {
		if ep.From == "Group" && ep.To == "Project" {
			pair = ep
		}
	}
	if pair.Type == "" {
		t.Fatal("no Group → Project edge set in the plan")
	}
	// starts groups, each containing ends projects of its own.
	walks := func(starts, ends int64) (*Walks, bool) {
		t.Helper()
		sets := map[EdgePair][]PathEdge{}
		for g := int64(1); g <= starts; g++ {
			for i := range ends {
				sets[pair] = append(sets[pair], PathEdge{X: graphresponse.NodeRef{Kind: "Group", ID: g}, Y: graphresponse.NodeRef{Kind: "Project", ID: g*1000 + i}})
			}
		}
		w, ok, err := q.Plan.CachedWalks(indexed(t, sets))
		if err != nil {
			t.Fatal(err)
		}
		return w, ok
	}
	w, ok := walks(200, 1)
	if !ok || w.Len() != 200 || len(w.keys) != 200 {
		t.Fatalf("200 starts: ok %v, %v walks; want them on the cache", ok, w)
	}
	if _, err := c.WalkCachedStep(q, w); err != nil {
		t.Fatal(err)
	}
	if w, ok := walks(1000, maxWalkRows/1000+1); ok {
		t.Errorf("%d walks ran on the cache; want a fall back above %d", w.Len(), maxWalkRows)
	}
}
