package compiler

import (
	"errors"
	"slices"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// TestCachedHopsBounded: the hops in Go give up, and the query falls back to its one
// statement, when they visit more than maxWalkSteps edges or find more than maxHopEdges;
// below both they run, however many edges of the sets they do not reach (docs/compiler.md, "Traversals on cached edges").
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
	// sets: groups 1..roots each contain group 1000+i, which contains fanout projects; and
	// noise edges between groups no root reaches.
	sets := func(roots, fanout, noise int64) map[EdgePair][]PathEdge {
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
			if ep.To == "Group" {
				for i := range noise {
					out[ep] = append(out[ep], PathEdge{X: ref("Group", 5000+i), Y: ref("Group", 6000+i)})
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		roots, fanout, noise int64
		ok                   bool
	}{
		{30, 10, 1000, true},            // 330 edges
		{400, 10, 0, false},             // 4,400 edges, more than maxHopEdges
		{3, 10, maxWalkSteps, true},     // many edges no hop reaches: not visited (the sets' indexes)
		{2, maxWalkSteps / 2, 0, false}, // more edges visited than steps
	} {
		hs, ok, err := q.Plan.CachedHops(indexed(t, sets(tc.roots, tc.fanout, tc.noise)))
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.ok {
			t.Errorf("%d roots, %d projects each, %d other edges: ok %v, want %v", tc.roots, tc.fanout, tc.noise, ok, tc.ok)
		}
		if ok && hs.Len() != int(tc.roots+tc.roots*tc.fanout) {
			t.Errorf("%d roots, %d projects each: %d edges found, want %d", tc.roots, tc.fanout, hs.Len(), tc.roots+tc.roots*tc.fanout)
		}
	}
}

// TestTraversalCacheEligible pins which traversals have the cached form: two or more single
// hops in one direction from a root that names its ids, with no edge filter.
func TestTraversalCacheEligible(t *testing.T) {
	c := newTestCompiler(t)
	for _, tc := range []struct {
		dsl string
		ok  bool
	}{
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project","filters":{"name":"x"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"g","to":"p"}],"order_by":"p.name"}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1001}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":1002}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","filters":{"name":"x"}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","direction":"both"},{"type":"CONTAINS","from":"h","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,2]},{"type":"CONTAINS","from":"h","to":"p"}]}`, false},
		{`{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"h","to":"p"}],"group_by":["g"],"aggregations":[{"count":"p"}]}`, false},
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

// hopQueries are traversals with the cached form, for the check's tests.
var hopQueries = []string{
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2]},{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":10}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":9}},{"id":"h","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"},{"type":"CONTAINS","from":"g","to":"p"}],"order_by":"p.name","limit":10}`,
	`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[3]},{"id":"g","entity":"Group"},{"id":"f","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"},{"type":["CONTAINS","MEMBER_OF"],"from":"f","to":"g"}],"limit":10}`,
}

// someHops finds, on edge sets holding one edge per pair from every id the root names to
// node 900 and from 900 on, the hops of q.
func someHops(t *testing.T, q *Query) *Hops {
	t.Helper()
	sets := map[EdgePair][]PathEdge{}
	for _, ep := range q.Plan.TraversalCachePairs() {
		for _, x := range []int64{1, 3, 900} {
			for _, y := range []int64{1, 3, 900} {
				sets[ep] = append(sets[ep], PathEdge{X: graphresponse.NodeRef{Kind: ep.From, ID: x}, Y: graphresponse.NodeRef{Kind: ep.To, ID: y}})
			}
		}
	}
	hs, ok, err := q.Plan.CachedHops(indexed(t, sets))
	if err != nil || !ok {
		t.Fatalf("cached hops: %v, %v", ok, err)
	}
	if hs.Len() == 0 {
		t.Fatal("no edge found: the test proves nothing")
	}
	return hs
}

// TestHopsCachedStepChecked: the statement of a traversal on cached edges passes the security
// check for every caller; its node scans, mutated as checkMutations does, are refused; and an
// arrayJoin that unfolds a column or an array of columns instead of the parameter is refused, so the
// one function added to the allow-list for it cannot turn rows a scan read into others.
func TestHopsCachedStepChecked(t *testing.T) {
	c := newTestCompiler(t)
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, dsl := range hopQueries {
		for ci, caller := range callers {
			q, err := c.Compile([]byte(dsl), caller)
			if err != nil {
				t.Fatalf("%s: %v", dsl, err)
			}
			if q.Plan.TraversalCachePairs() == nil {
				t.Fatalf("%s: no cached traversal form", dsl)
			}
			hs := someHops(t, q)
			if _, err := c.HopsCachedStep(q, hs); err != nil {
				t.Fatalf("caller %d, %s: %v", ci, dsl, err)
			}
			build := func() *selectStmt {
				stmt, err := c.hopsCachedStmt(q, hs)
				if err != nil {
					t.Fatal(err)
				}
				return stmt
			}
			n := len(scans(build()))
			if n != 3 {
				t.Errorf("caller %d, %s: %d table reads, want 3 (the nodes)", ci, dsl, n)
			}
			cat := c.catalogFor(caller)
			for _, m := range checkMutations {
				if caller.Admin && (m.name == "allow all" || m.name == "foreign path") {
					continue // an admin reads everything: neither widens what it may read
				}
				for i := range n {
					stmt := build()
					if !m.mutate(scans(stmt)[i]) {
						continue
					}
					mutants++
					if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("caller %d, scan %d of %.60s: mutation %q passed the check", ci, i, dsl, m.name)
					}
				}
			}
			// arrayJoin of something other than the parameter.
			for _, arg := range []func(stmt *selectStmt) expr{
				func(*selectStmt) expr { return col("", "id") },
				func(*selectStmt) expr { return arrayExpr{col("", "id")} },
			} {
				stmt := build()
				found := false
				walk(stmt, func(n sqlNode) {
					if x, ok := n.(*call); ok && x.fn == "arrayJoin" && !found {
						x.args = []expr{arg(stmt)}
						found = true
					}
				})
				if !found {
					t.Fatalf("%s: no arrayJoin in the statement", dsl)
				}
				mutants++
				if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, %.60s: arrayJoin of %T passed the check", ci, dsl, arg(stmt))
				}
			}
		}
	}
	t.Logf("%d mutants refused", mutants)
}
