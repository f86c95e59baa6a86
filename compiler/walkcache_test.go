package compiler

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// walkCacheQueries are traversals whose walk has a cached form: forwards from named ids, from
// an id_range, backwards from the far node's ids, several types, node filters.
var walkCacheQueries = []string{
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2],"columns":["full_path"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":50}},{"id":"p","entity":"Project","filters":{"visibility_level":"public"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[2,3]}],"limit":10}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","filters":{"full_path":"a"}},{"id":"p","entity":"Project","node_ids":[7]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
	`{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","node_ids":[3]},{"id":"p","entity":"Project"}],"relationships":[{"type":["FIXES","IN_PROJECT"],"from":"m","to":"p","hops":[1,2]}],"limit":100}`,
}

// someWalks is a walks value with ends for every start the plan may have, found by
// CachedWalks on edge sets that hold an edge from the named start to a far node.
func someWalks(t *testing.T, q *Query) *Walks {
	t.Helper()
	wc := q.Plan.walks
	sets := map[EdgePair][]PathEdge{}
	start := int64(1)
	if wc.near.hasIDs {
		start = wc.near.nodeIDs[0]
	} else if wc.near.idRange != nil {
		start = wc.near.idRange[0]
	}
	for _, ep := range wc.pairs {
		x := graphresponse.NodeRef{Kind: ep.From, ID: start}
		y := graphresponse.NodeRef{Kind: ep.To, ID: 900}
		if !wc.forward {
			x.ID, y.ID = 900, start // (the walk goes from the set's targets to its sources)
		}
		sets[ep] = append(sets[ep], PathEdge{X: x, Y: y})
	}
	w, ok, err := q.Plan.CachedWalks(indexed(t, sets))
	if err != nil || !ok {
		t.Fatalf("walks: %v, %v", ok, err)
	}
	return w
}

// TestWalkCachedStepChecked: the statement of a walk on cached edges (docs/compiler.md, "Walks
// on cached edges") passes the security check for every caller, and each of its scans
// weakened (scope dropped, widened or moved, FINAL or _deleted = false dropped, a non-key
// filter before FINAL, another table) is refused.
func TestWalkCachedStepChecked(t *testing.T) {
	c := newTestCompiler(t)
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, dsl := range walkCacheQueries {
		for ci, caller := range callers {
			q, err := c.Compile([]byte(dsl), caller)
			if err != nil {
				t.Fatalf("%s: %v", dsl, err)
			}
			if q.Plan.WalkCachePairs() == nil {
				t.Fatalf("%s: no cached walk form", dsl)
			}
			w := someWalks(t, q)
			if _, err := c.WalkCachedStep(q, w); err != nil {
				t.Fatalf("caller %d, %s: %v", ci, dsl, err)
			}
			build := func() *selectStmt {
				stmt, err := c.walkCachedStmt(q, w)
				if err != nil {
					t.Fatal(err)
				}
				return stmt
			}
			n := len(scans(build()))
			if n != 2 {
				t.Errorf("caller %d, %s: %d table reads, want 2 (start and end nodes)", ci, dsl, n)
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
		}
	}
	if mutants == 0 {
		t.Fatal("no mutant")
	}
	t.Logf("%d mutants refused", mutants)
}

// TestWalkCachedRowsChecked: the statement of a walk on cached edges reads its walks as one
// select of rows given as parameters (no union of an arm per start and depth, no far node
// computed into an array by a scalar sub-query, which the engine's analysis runs), and that
// select joined to anything, even a scan that passes every rule, or filtered before FINAL, is
// refused: the walks meet the scans only in the top-level select.
func TestWalkCachedRowsChecked(t *testing.T) {
	c := newTestCompiler(t)
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, dsl := range walkCacheQueries {
		for ci, caller := range callers {
			q, err := c.Compile([]byte(dsl), caller)
			if err != nil {
				t.Fatalf("%s: %v", dsl, err)
			}
			w := someWalks(t, q)
			wq, err := c.WalkCachedStep(q, w)
			if err != nil {
				t.Fatalf("caller %d, %s: %v", ci, dsl, err)
			}
			if strings.Contains(wq.SQL, arrayPrefix) || strings.Count(wq.SQL, "ARRAY JOIN") != 1 || strings.Contains(wq.SQL, "UNION") {
				t.Errorf("caller %d, %.60s: want the walks as one ARRAY JOIN of parameters, no union, no array CTE:\n%s", ci, dsl, wq.SQL)
			}
			cat := c.catalogFor(caller)
			build := func() (*selectStmt, *selectStmt) {
				stmt, err := c.walkCachedStmt(q, w)
				if err != nil {
					t.Fatal(err)
				}
				var rows []*selectStmt
				walk(stmt, func(n sqlNode) {
					if s, ok := n.(*selectStmt); ok {
						if _, ok := s.from.(*paramRows); ok {
							rows = append(rows, s)
						}
					}
				})
				if len(rows) != 1 {
					t.Fatalf("caller %d, %.60s: %d selects of parameter rows, want 1", ci, dsl, len(rows))
				}
				return stmt, rows[0]
			}
			// A scan of the far node that passes every rule: the far CTE's own body.
			stmt, _ := build()
			var scan *selectStmt
			for _, x := range stmt.with {
				if _, ok := x.body.from.(*tableRef); ok {
					scan = x.body
				}
			}
			if scan == nil {
				t.Fatalf("caller %d, %.60s: no node scan", ci, dsl)
			}
			mutations := []struct {
				name   string
				mutate func(rows *selectStmt)
			}{
				{"a node CTE joined", func(rows *selectStmt) {
					rows.joins = append(rows.joins, join{right: &cteRef{name: stmt.with[0].name, alias: "x"}, on: []expr{eq(col("x", "id"), col("", "b"))}})
				}},
				{"a checked scan joined", func(rows *selectStmt) {
					rows.joins = append(rows.joins, join{right: scan.from, on: []expr{eq(col("t", "id"), col("", "b"))}})
				}},
				{"a filter before FINAL", func(rows *selectStmt) {
					rows.prewhere = append(rows.prewhere, eq(col("", "a"), prm(int64(1), typInt64)))
				}},
			}
			for _, m := range mutations {
				var rows *selectStmt
				stmt, rows = build()
				m.mutate(rows)
				mutants++
				if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, %.60s: mutation %q passed the check", ci, dsl, m.name)
				}
			}
		}
	}
	t.Logf("%d mutants refused", mutants)
}

// TestWalkCacheFallsBack: traversals whose answer the cached form could not reproduce have
// none: a start without named ids, both directions, edge filters, edges bound to their
// namespace, a fixed single hop, several relationships.
func TestWalkCacheFallsBack(t *testing.T) {
	c := newTestCompiler(t)
	for _, dsl := range []string{
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","filters":{"full_path":"a"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":5000}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":["CONTAINS","IN_GROUP"],"from":"g","to":"p","direction":"both","hops":[1,3]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"f","entity":"File","node_ids":[1]},{"id":"d","entity":"Definition"}],"relationships":[{"type":"DEFINES","from":"f","to":"d","hops":[1,2]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"m","entity":"MergeRequest"},{"id":"p","entity":"Project"}],"relationships":[{"type":"AUTHORED","from":"u","to":"m"},{"type":"IN_PROJECT","from":"m","to":"p","hops":[1,2]}],"limit":100}`,
		`{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"group_by":["g"],"aggregations":[{"count":"p"}]}`,
	} {
		q, err := c.Compile([]byte(dsl), &Caller{Admin: true})
		if err != nil {
			t.Logf("%s: %v", dsl, err)
			continue
		}
		if p := q.Plan.WalkCachePairs(); p != nil {
			t.Errorf("%s: a cached walk form (%v)", dsl, p)
		}
	}
}
