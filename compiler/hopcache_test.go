package compiler

import (
	"errors"
	"slices"
	"strings"
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

// TestCachedOneHopBounded: a single hop runs on cached edges only when it finds at most
// maxOneHopEdges, however many edges of its sets it does not reach (docs/compiler.md,
// "Traversals on cached edges"); above it it falls back to its one statement, whose edge scan
// the named ids bound.
func TestCachedOneHopBounded(t *testing.T) {
	c := newTestCompiler(t)
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"limit":10}`), &Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	pairs := q.Plan.TraversalCachePairs()
	if len(pairs) != 1 {
		t.Fatalf("pairs %v, want CONTAINS Group→Project", pairs)
	}
	// found edges from groups 1 and 2, then others from group 3 up to size.
	sets := func(found, size int) map[EdgePair][]PathEdge {
		var es []PathEdge
		for i := range size {
			g := int64(3)
			if i < found {
				g = int64(1 + i%2)
			}
			es = append(es, PathEdge{X: graphresponse.NodeRef{Kind: "Group", ID: g}, Y: graphresponse.NodeRef{Kind: "Project", ID: int64(i)}})
		}
		return map[EdgePair][]PathEdge{pairs[0]: es}
	}
	for _, tc := range []struct {
		found, size int
		ok          bool
	}{
		{10, 100, true},
		{maxOneHopEdges, 4 * maxOneHopEdges, true},
		{maxOneHopEdges + 1, maxOneHopEdges + 1, false},
		{10, 64 * maxOneHopEdges, true}, // the edges of group 3 are not visited
	} {
		hs, ok, err := q.Plan.CachedHops(indexed(t, sets(tc.found, tc.size)))
		if err != nil {
			t.Fatal(err)
		}
		if ok != tc.ok {
			t.Errorf("%d edges found on a set of %d: ok %v, want %v", tc.found, tc.size, ok, tc.ok)
		}
		if ok && hs.Len() != tc.found {
			t.Errorf("%d edges found on a set of %d: %d listed", tc.found, tc.size, hs.Len())
		}
	}
}

// TestTraversalCacheEligible pins which traversals have the cached form: one or more single
// hops in one direction from a root that names its ids, with no edge filter.
func TestTraversalCacheEligible(t *testing.T) {
	c := newTestCompiler(t)
	for _, tc := range []struct {
		dsl string
		ok  bool
	}{
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group"},{"id":"p","entity":"Project","node_ids":[1]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, true},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","filters":{"name":"x"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}]}`, false},
		{`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","direction":"both"}]}`, false},
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
	`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[1,3]},{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`,
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"g","entity":"Group"}],"relationships":[{"type":["MEMBER_OF","CONTAINS"],"from":"u","to":"g"}],"order_by":"g.name","limit":10}`,
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
// check for every caller and lists each hop's edges as one select of parameter rows (no
// arrayJoin, which the allow-list no longer has); its node scans, mutated as checkMutations
// does, are refused; and a select of parameter rows joined to anything (a node CTE, a scan that
// passes every rule) or filtered before FINAL is refused, as is arrayJoin or tupleElement
// over a column, so the edges meet the scans only in the top-level select.
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
			hq, err := c.HopsCachedStep(q, hs)
			if err != nil {
				t.Fatalf("caller %d, %s: %v", ci, dsl, err)
			}
			if strings.Contains(hq.SQL, "arrayJoin") || strings.Count(hq.SQL, "ARRAY JOIN") != len(q.Plan.hops.hops) {
				t.Errorf("caller %d, %.60s: want one ARRAY JOIN of parameters per hop, no arrayJoin:\n%s", ci, dsl, hq.SQL)
			}
			build := func() *selectStmt {
				stmt, err := c.hopsCachedStmt(q, hs)
				if err != nil {
					t.Fatal(err)
				}
				return stmt
			}
			n := len(scans(build()))
			if want := len(q.Plan.hops.r.nodes); n != want {
				t.Errorf("caller %d, %s: %d table reads, want %d (the nodes)", ci, dsl, n, want)
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
			// The parameter rows joined in their own select, filtered before FINAL, or a
			// column unfolded into rows by a function.
			var scan *selectStmt
			for _, x := range build().with {
				if _, ok := x.body.from.(*tableRef); ok {
					scan = x.body
				}
			}
			if scan == nil {
				t.Fatalf("caller %d, %.60s: no node scan", ci, dsl)
			}
			for _, m := range []struct {
				name   string
				mutate func(stmt, rows *selectStmt)
			}{
				{"a node CTE joined", func(stmt, rows *selectStmt) {
					rows.joins = append(rows.joins, join{right: &cteRef{name: stmt.with[0].name, alias: "x"}, on: []expr{eq(col("x", "id"), col("", "b"))}})
				}},
				{"a checked scan joined", func(_, rows *selectStmt) {
					rows.joins = append(rows.joins, join{right: scan.from, on: []expr{eq(col("t", "id"), col("", "b"))}})
				}},
				{"a filter before FINAL", func(_, rows *selectStmt) {
					rows.prewhere = append(rows.prewhere, eq(col("", "a"), prm(int64(1), typInt64)))
				}},
				{"arrayJoin of a column", func(_, rows *selectStmt) {
					rows.cols[1].e = fn("arrayJoin", arrayExpr{col("", "b")})
				}},
				{"tupleElement of a column", func(_, rows *selectStmt) {
					rows.cols[1].e = fn("tupleElement", col("", "b"), litInt(1))
				}},
			} {
				for hi := range q.Plan.hops.hops {
					stmt := build()
					var rows []*selectStmt
					walk(stmt, func(n sqlNode) {
						if s, ok := n.(*selectStmt); ok {
							if _, ok := s.from.(*paramRows); ok {
								rows = append(rows, s)
							}
						}
					})
					if len(rows) != len(q.Plan.hops.hops) {
						t.Fatalf("caller %d, %.60s: %d selects of parameter rows, want one per hop", ci, dsl, len(rows))
					}
					m.mutate(stmt, rows[hi])
					mutants++
					if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("caller %d, hop %d of %.60s: mutation %q passed the check", ci, hi, dsl, m.name)
					}
				}
			}
		}
	}
	t.Logf("%d mutants refused", mutants)
}
