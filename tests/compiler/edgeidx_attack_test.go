package compilertest_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/tests/serverdb"
)

// edgeGraph is a crafted graph of users, groups and projects inserted for one test, marked
// deleted when it ends.
type edgeGraph struct {
	users, groups, projects, edges [][]any
}

func (g *edgeGraph) user(id int64, name string) {
	g.users = append(g.users, []any{id, name, int64(1), false})
}

func (g *edgeGraph) group(id int64, path, name string) {
	g.groups = append(g.groups, []any{id, path, name, fmt.Sprint("fp", id), "public", nil, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), int64(1), false})
}

func (g *edgeGraph) project(id int64, path string) {
	g.projects = append(g.projects, []any{id, path, fmt.Sprint("pp", id), int64(1), false})
}

func (g *edgeGraph) edge(path, kind, sk string, s int64, tk string, tg int64) {
	g.edges = append(g.edges, []any{path, kind, sk, s, tk, tg, int64(1), false})
}

func (g *edgeGraph) insert(t *testing.T, e serverdb.Engine) {
	t.Helper()
	ctx := context.Background()
	tables := []struct {
		table string
		cols  []string
		rows  [][]any
	}{
		{"gl_user", []string{"id", "username", "_version", "_deleted"}, g.users},
		{"gl_group", []string{"id", "traversal_path", "name", "full_path", "visibility_level", "parent_id", "created_at", "_version", "_deleted"}, g.groups},
		{"gl_project", []string{"id", "traversal_path", "full_path", "_version", "_deleted"}, g.projects},
		{"gl_edge", []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}, g.edges},
	}
	for _, tb := range tables {
		if len(tb.rows) == 0 {
			continue
		}
		if err := e.Insert(ctx, tb.table, tb.cols, tb.rows); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, tb := range tables {
			var gone [][]any
			for _, r := range tb.rows {
				r = append([]any(nil), r...)
				r[len(r)-2], r[len(r)-1] = int64(9), true
				gone = append(gone, r)
			}
			if len(gone) > 0 {
				_ = e.Insert(ctx, tb.table, tb.cols, gone)
			}
		}
	})
}

// TestEdgeIndexExtremeIDs: the edge sets' index (compiler.EdgeSet) at the ends of the int64
// range: ids math.MaxInt64 and math.MinInt64 (the bounds its range searches special-case),
// their neighbours, negative ids, the same id for nodes of other kinds, a self loop, a node
// that is the source of one pair of a set and the target of another, a node without edges.
// Hops, walks, neighbors in every direction and path finding on the cache answer byte for
// byte as without it, for admin and two scoped callers.
func TestEdgeIndexExtremeIDs(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const maxID, minID = int64(math.MaxInt64), int64(math.MinInt64)
	in, sub := "1/93/", "1/93/95/"
	var g edgeGraph
	g.user(maxID, "umax")
	g.user(minID, "umin")
	g.user(-7, "uneg")
	for _, id := range []int64{maxID, maxID - 1, minID, minID + 1, -7} {
		path := in
		if id == minID+1 {
			path = sub
		}
		g.group(id, path, fmt.Sprint("g", id))
	}
	g.project(maxID, in)
	g.project(minID+1, sub)
	g.project(-7, in)
	g.edge(in, "MEMBER_OF", "User", maxID, "Group", maxID)
	g.edge(in, "MEMBER_OF", "User", maxID, "Group", minID)
	g.edge(in, "MEMBER_OF", "User", minID, "Group", -7)
	g.edge(in, "MEMBER_OF", "User", minID, "Group", maxID)
	g.edge(sub, "MEMBER_OF", "User", -7, "Group", minID+1)
	g.edge(in, "CONTAINS", "Group", maxID, "Group", maxID) // a self loop at the top
	g.edge(in, "CONTAINS", "Group", minID, "Group", maxID)
	g.edge(in, "CONTAINS", "Group", maxID, "Group", -7)
	g.edge(in, "CONTAINS", "Group", -7, "Group", minID) // minID: source above, target here
	g.edge(sub, "CONTAINS", "Group", minID, "Group", minID+1)
	g.edge(in, "CONTAINS", "Group", maxID, "Project", maxID)
	g.edge(sub, "CONTAINS", "Group", minID+1, "Project", minID+1)
	g.edge(in, "CONTAINS", "Group", -7, "Project", maxID)
	g.edge(in, "CONTAINS", "Group", minID, "Project", -7)
	g.insert(t, e)

	gs := fmt.Sprintf("%d,%d,%d,%d,%d", maxID, maxID-1, minID, minID+1, -7)
	us := fmt.Sprintf("%d,%d,%d", maxID, minID, -7)
	queries := []string{
		// One hop from named ids, both directions, same kind at both ends.
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + us + `]},{"id":"g","entity":"Group","columns":["name"]}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]},{"id":"h","entity":"Group","columns":["name"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]},{"id":"h","entity":"Group","columns":["name"]}],"relationships":[{"type":"CONTAINS","from":"h","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]},{"id":"x","entity":"Project"}],"relationships":[{"type":"*","from":"g","to":"x"}],"limit":100}`,
		// Id ranges at either end of int64.
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"}],"limit":100}`, maxID-5, maxID),
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"h","to":"g"}],"limit":100}`, minID, minID+5),
		// Chains.
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + us + `]},{"id":"g","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + us + `]},{"id":"g","entity":"Group"},{"id":"h","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"h"}],"limit":100}`,
		// Walks.
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + fmt.Sprint(minID) + `]},{"id":"h","entity":"Group","columns":["name"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,3]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":` + fmt.Sprint(maxID-3) + `,"end":` + fmt.Sprint(maxID) + `}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
		// Neighbors.
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]}],"neighbors":{"direction":"both"},"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]}],"neighbors":{"direction":"incoming"},"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + gs + `]}],"neighbors":{"direction":"outgoing"},"limit":100}`,
		fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}}],"neighbors":{"direction":"both"},"limit":100}`, maxID-3, maxID),
		// Path finding.
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + us + `]},{"id":"p","entity":"Project","node_ids":[` + fmt.Sprintf("%d,%d,%d", maxID, minID+1, -7) + `]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
	}
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/93/", 30}), callerWith(scopeSpec{"1/93/95/", 30})}
	cached, nonEmpty := 0, 0
	same := func(what, dsl string, c *compiler.Caller) *graphresponse.Response {
		t.Helper()
		q, err := env.compiler.Compile([]byte(dsl), c)
		if err != nil {
			t.Errorf("%s: %s: %v", what, dsl, err)
			return nil
		}
		want, _, err := executor.Respond(ctx, e, env.compiler, q)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if err := sameOnEdgeCache(ctx, e, env.compiler, q, answerBytes(want)); err != nil {
			t.Errorf("%s: %s: %v", what, dsl, err)
		}
		return want
	}
	for qi, dsl := range queries {
		for ci, c := range callers {
			q, err := env.compiler.Compile([]byte(dsl), c)
			if err != nil {
				t.Fatalf("query %d: %s: %v", qi, dsl, err)
			}
			want, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatalf("query %d caller %d: %v", qi, ci, err)
			}
			if len(want.Nodes) > 0 {
				nonEmpty++
			}
			if q.Plan.PathCachePairs() == nil && q.Plan.WalkCachePairs() == nil && q.Plan.TraversalCachePairs() == nil && q.Plan.NeighborCachePairs() == nil {
				t.Errorf("query %d: %s: no cached form", qi, dsl)
				continue
			}
			cached++
			if err := sameOnEdgeCache(ctx, e, env.compiler, q, answerBytes(want)); err != nil {
				t.Errorf("query %d caller %d: %s: %v", qi, ci, dsl, err)
			}
			if ci != 0 || strings.Contains(dsl, "path_finding") {
				continue
			}
			// Limits around the answer's size, and pages of one row to the end (the cursor
			// keys of negative and extreme ids).
			n := len(want.Edges)
			for _, limit := range []int{1, n - 1, n, n + 1} {
				if limit >= 1 {
					same(fmt.Sprintf("query %d limit %d", qi, limit), strings.Replace(dsl, `"limit":100`, fmt.Sprintf(`"limit":%d`, limit), 1), c)
				}
			}
			after := ""
			for page := 0; page < 40; page++ {
				r := same(fmt.Sprintf("query %d page %d", qi, page), strings.Replace(dsl, `"limit":100`, `"cursor":{"page_size":1`+after+`}`, 1), c)
				if r == nil || !r.Pagination.HasMore {
					break
				}
				after = `,"after":"` + *r.Pagination.NextCursor + `"`
			}
		}
	}
	if cached == 0 || nonEmpty == 0 {
		t.Fatalf("%d answers on the cache, %d not empty: the test proves nothing", cached, nonEmpty)
	}
}

// TestEdgeIndexWideRangeNoCachedForm: an id_range wider than maxWalkRange (1,000 ids) does
// not take the cached traversal or walk form, also when its width overflows int64 (start
// math.MinInt64, end math.MaxInt64: end-start wraps to -1); the answer is the one
// statement's either way.
func TestEdgeIndexWideRangeNoCachedForm(t *testing.T) {
	const maxID, minID = int64(math.MaxInt64), int64(math.MinInt64)
	for _, rg := range [][2]int64{{minID, maxID}, {-2, maxID}, {minID, 1}} {
		for _, dsl := range []string{
			fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"h","entity":"Group","filters":{"name":"x"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"h"}],"limit":10}`, rg[0], rg[1]),
			fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"p","entity":"Project","filters":{"full_path":"x"}}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":10}`, rg[0], rg[1]),
		} {
			q, err := env.compiler.Compile([]byte(dsl), admin)
			if err != nil {
				t.Fatalf("%s: %v", dsl, err)
			}
			if p := q.Plan.TraversalCachePairs(); p != nil {
				t.Errorf("%s: a cached traversal form on %v", dsl, p)
			}
			if p := q.Plan.WalkCachePairs(); p != nil {
				t.Errorf("%s: a cached walk form on %v", dsl, p)
			}
		}
	}
}

// TestEdgeIndexDuplicateEdges: an edge stored twice between the same two nodes, under two
// traversal paths (and the same two nodes joined by two relationship types): on the cache,
// hops, walks, neighbors and path finding answer as without it (the hops fall back where
// the edge scans return the edge twice), for callers who may read both paths or one.
func TestEdgeIndexDuplicateEdges(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const b = int64(9500000)
	in, sub := "1/93/", "1/93/95/"
	var g edgeGraph
	g.user(b+1, "ann")
	g.user(b+2, "bob")
	g.group(b+11, in, "G11")
	g.group(b+12, sub, "G12")
	g.group(b+13, in, "G13")
	g.project(b+21, sub)
	g.project(b+22, in)
	g.edge(in, "MEMBER_OF", "User", b+1, "Group", b+12)
	g.edge(sub, "MEMBER_OF", "User", b+1, "Group", b+12) // the same edge under a second path
	g.edge(in, "MEMBER_OF", "User", b+2, "Group", b+11)
	g.edge(in, "CONTAINS", "Group", b+11, "Group", b+12)
	g.edge(sub, "CONTAINS", "Group", b+11, "Group", b+12)
	g.edge(in, "CONTAINS", "Group", b+12, "Project", b+21)
	g.edge(in, "MEMBER_OF", "User", b+1, "Project", b+21)
	g.edge(in, "CONTAINS", "User", b+1, "Project", b+21) // the same two nodes, another type
	g.edge(in, "CONTAINS", "Group", b+13, "Project", b+22)
	g.insert(t, e)
	id := func(x int64) string { return fmt.Sprint(b + x) }
	queries := []string{
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `,` + id(2) + `]},{"id":"g","entity":"Group","columns":["name"]}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(12) + `]},{"id":"u","entity":"User"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"g","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":["MEMBER_OF","CONTAINS"],"from":"u","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":"*","from":"u","to":"p"}],"limit":1}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `]},{"id":"h","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"h","hops":[1,2]}],"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `,` + id(12) + `]}],"neighbors":{"direction":"both"},"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]}],"neighbors":{"direction":"outgoing"},"limit":100}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `,` + id(2) + `]},{"id":"p","entity":"Project","node_ids":[` + id(21) + `]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
	}
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/93/", 30}), callerWith(scopeSpec{"1/93/95/", 30})}
	cache := newCache(t, 64<<20, func() uint64 { return 0 })
	nonEmpty := 0
	for qi, dsl := range queries {
		for ci, c := range callers {
			q, err := env.compiler.Compile([]byte(dsl), c)
			if err != nil {
				t.Fatalf("query %d: %s: %v", qi, dsl, err)
			}
			want, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatalf("query %d caller %d: %v", qi, ci, err)
			}
			if len(want.Nodes) > 0 {
				nonEmpty++
			}
			for pass := 0; pass < 2; pass++ {
				got, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
				if err != nil {
					t.Fatalf("query %d caller %d: %v", qi, ci, err)
				}
				if g, w := answerBytes(got), answerBytes(want); !bytes.Equal(g, w) {
					t.Errorf("query %d caller %d pass %d: %s: answer on the edge cache differs (labels %v):\ncache: %s\none:   %s", qi, ci, pass, dsl, statementLabels(ex), g, w)
				}
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatal("every answer empty: the test proves nothing")
	}
}

// TestHopsOnEdgeCacheAtTheirBounds: a fixed-length traversal runs on cached edges while its
// hops find at most 4,096 edges in all (maxHopEdges), a single hop while it finds at most
// 1,024 (maxOneHopEdges), and as one statement one edge over either; the answers are the one
// statement's, at every limit tried. Hubs of 1,023 and 1,025 projects make the counts.
func TestHopsOnEdgeCacheAtTheirBounds(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const b = int64(9600000)
	in := "1/93/"
	var g edgeGraph
	u1, u2 := b+1, b+2
	g.user(u1, "hubby")
	g.user(u2, "hubbier")
	hubs := []int64{b + 11, b + 12, b + 13, b + 14, b + 15, b + 16} // 15: no projects; 16: the one-hop hub
	for _, h := range hubs {
		g.group(h, in, fmt.Sprint("hub", h))
	}
	const shared = 1023
	p0 := b + 100
	for i := int64(0); i < shared+2; i++ {
		g.project(p0+i, in)
	}
	for _, h := range hubs[:4] {
		g.edge(in, "MEMBER_OF", "User", u1, "Group", h)
		g.edge(in, "MEMBER_OF", "User", u2, "Group", h)
		for i := int64(0); i < shared; i++ {
			g.edge(in, "CONTAINS", "Group", h, "Project", p0+i)
		}
	}
	g.edge(in, "MEMBER_OF", "User", u2, "Group", hubs[4])
	for i := int64(0); i < shared+2; i++ {
		g.edge(in, "CONTAINS", "Group", hubs[5], "Project", p0+i)
	}
	g.insert(t, e)
	projects := func(n int64) string { // the first n projects, as an id_range
		return fmt.Sprintf(`,"id_range":{"start":%d,"end":%d}`, p0, p0+n-1)
	}
	chain := func(u int64) string {
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[%d]},{"id":"g","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"p"}],"limit":%%d}`, u)
	}
	oneHop := func(far string) string {
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%d]},{"id":"p","entity":"Project"%s}],"relationships":[{"type":"CONTAINS","from":"g","to":"p"}],"limit":%%d}`, hubs[5], far)
	}
	cases := []struct {
		name   string
		dsl    string
		cached bool
	}{
		{"two hops, 4,096 edges", chain(u1), true},
		{"two hops, 4,097 edges", chain(u2), false},
		{"one hop, 1,024 edges", oneHop(projects(shared + 1)), true},
		{"one hop, 1,025 edges (far named)", oneHop(projects(shared + 2)), false},
		{"one hop, 1,025 edges", oneHop(""), false},
		{"one hop, 1,023 edges", oneHop(projects(shared)), true},
	}
	cache := newCache(t, 256<<20, func() uint64 { return 0 })
	// Paths and neighbors through the hubs: the answer on the cache is the one without it.
	for _, dsl := range []string{
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d,%d]},{"id":"p","entity":"Project","node_ids":[%d,%d,%d]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`, u1, u2, p0, p0+shared-1, p0+shared+1),
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d,%d]},{"id":"h","entity":"Group","node_ids":[%d,%d,%d]}],"path":{"type":"shortest","from":"u","to":"h","max_depth":3,"rel_types":["*"]}}`, u1, u2, hubs[5], hubs[3], hubs[4]),
		fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[%d,%d]}],"neighbors":{"direction":"both"},"limit":1000}`, hubs[0], hubs[5]),
		fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[%d,%d]}],"neighbors":{"direction":"incoming"},"limit":1000}`, p0, p0+shared+1),
		fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[%d]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}],"limit":1000}`, hubs[5]),
	} {
		q, err := env.compiler.Compile([]byte(dsl), admin)
		if err != nil {
			t.Fatalf("%s: %v", dsl, err)
		}
		want, _, err := executor.Respond(ctx, e, env.compiler, q)
		if err != nil {
			t.Fatal(err)
		}
		got, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
		if err != nil {
			t.Fatalf("%s: %v", dsl, err)
		}
		if len(want.Edges) == 0 {
			t.Errorf("%s: empty answer: proves nothing", dsl)
		}
		if g, w := answerBytes(got), answerBytes(want); !bytes.Equal(g, w) {
			t.Errorf("%s: the answer on the edge cache differs (labels %v):\ncache: %.600s\none:   %.600s", dsl, statementLabels(ex), g, w)
		}
	}
	for _, tc := range cases {
		for _, limit := range []int{1, 1000} {
			dsl := fmt.Sprintf(tc.dsl, limit)
			q, err := env.compiler.Compile([]byte(dsl), admin)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if q.Plan.TraversalCachePairs() == nil {
				t.Fatalf("%s: no cached form", tc.name)
			}
			want, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Edges) == 0 {
				t.Fatalf("%s: empty answer: the test proves nothing", tc.name)
			}
			got, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			one := false
			for _, s := range ex.Statements {
				one = one || s.Query == q
			}
			if one == tc.cached {
				t.Errorf("%s, limit %d: ran on the cache %v, want %v (labels %v)", tc.name, limit, !one, tc.cached, statementLabels(ex))
			}
			if g, w := answerBytes(got), answerBytes(want); !bytes.Equal(g, w) {
				t.Errorf("%s, limit %d: the answer on the edge cache differs (%d bytes, want %d)", tc.name, limit, len(g), len(w))
			}
		}
	}
}

// TestEdgeCacheAcrossWrites: on one cache shared by three callers, hops, walks, neighbors
// and path finding answer as without it before a write, after a write that deletes every
// edge of their sets (the sets are then empty, and small: the sizes remembered from before
// must not keep a stale entry in use), and after a write that brings some back.
func TestEdgeCacheAcrossWrites(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const b = int64(9700000)
	in, sub := "1/93/", "1/93/95/"
	var g edgeGraph
	g.user(b+1, "wann")
	g.group(b+11, in, "W11")
	g.group(b+12, sub, "W12")
	g.project(b+21, sub)
	g.project(b+22, in)
	g.edge(in, "MEMBER_OF", "User", b+1, "Group", b+11)
	g.edge(sub, "MEMBER_OF", "User", b+1, "Group", b+12)
	g.edge(in, "CONTAINS", "Group", b+11, "Group", b+12)
	g.edge(sub, "CONTAINS", "Group", b+12, "Project", b+21)
	g.edge(in, "CONTAINS", "Group", b+11, "Project", b+22)
	g.insert(t, e)
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	rewrite := func(version int64, deleted bool, rows [][]any) {
		t.Helper()
		var out [][]any
		for _, r := range rows {
			r = append([]any(nil), r...)
			r[len(r)-2], r[len(r)-1] = version, deleted
			out = append(out, r)
		}
		if err := e.Insert(ctx, "gl_edge", ecols, out); err != nil {
			t.Fatal(err)
		}
	}
	id := func(x int64) string { return fmt.Sprint(b + x) }
	queries := []string{
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"g","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}],"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `,` + id(12) + `]}],"neighbors":{"direction":"both"},"limit":100}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `]},{"id":"p","entity":"Project","node_ids":[` + id(21) + `,` + id(22) + `]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
	}
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/93/", 30}), callerWith(scopeSpec{"1/93/95/", 30})}
	var gen uint64
	cache := newCache(t, 64<<20, func() uint64 { return gen })
	check := func(stage string) (nonEmpty int) {
		t.Helper()
		for qi, dsl := range queries {
			for ci, c := range callers {
				q, err := env.compiler.Compile([]byte(dsl), c)
				if err != nil {
					t.Fatalf("%s: %v", dsl, err)
				}
				want, _, err := executor.Respond(ctx, e, env.compiler, q)
				if err != nil {
					t.Fatal(err)
				}
				nonEmpty += len(want.Edges)
				for pass := 0; pass < 2; pass++ {
					got, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
					if err != nil {
						t.Fatalf("%s: %v", dsl, err)
					}
					if g, w := answerBytes(got), answerBytes(want); !bytes.Equal(g, w) {
						t.Errorf("%s: query %d caller %d pass %d: the answer on the edge cache differs (labels %v):\ncache: %s\none:   %s", stage, qi, ci, pass, statementLabels(ex), g, w)
					}
				}
			}
		}
		return nonEmpty
	}
	if check("before the writes") == 0 {
		t.Fatal("every answer empty: the test proves nothing")
	}
	gen++ // a write starts
	rewrite(2, true, g.edges)
	gen++ // and ends
	if n := check("every edge deleted"); n != 0 {
		t.Errorf("every edge deleted: %d edges in the answers", n)
	}
	gen++
	rewrite(3, false, g.edges[:3])
	gen++
	if check("some edges back") == 0 {
		t.Error("some edges back: every answer empty")
	}
	gen++
	rewrite(4, true, g.edges[:3]) // (the cleanup marks the rest at version 9)
	gen++
}

// TestEdgeParamRowsRoundTrip: the parameter rows of cached hops ((SELECT 1) ARRAY JOIN of
// parallel arrays, as compiler/emit.go writes them) come back from the engine exactly: ids at
// both ends of int64, kinds with quotes, backslashes, control characters and Unicode, empty
// lists (no row) and lists of 20,000 edges.
func TestEdgeParamRowsRoundTrip(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const sql = "SELECT a, b, kind FROM (SELECT 1) ARRAY JOIN {p0:Array(Int64)} AS a, {p1:Array(Int64)} AS b, {p2:Array(String)} AS kind"
	run := func(as, bs []int64, kinds []string) [][]any {
		t.Helper()
		a, b, k := make([]any, len(as)), make([]any, len(bs)), make([]any, len(kinds))
		for i := range as {
			a[i], b[i], k[i] = as[i], bs[i], kinds[i]
		}
		rows, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: sql, Params: []compiler.Param{
			{Name: "p0", Type: "Array(Int64)", Value: a}, {Name: "p1", Type: "Array(Int64)", Value: b}, {Name: "p2", Type: "Array(String)", Value: k}}})
		if err != nil {
			t.Fatal(err)
		}
		return rows.Values
	}
	as := []int64{math.MinInt64, math.MaxInt64, -1, 0, 7}
	bs := []int64{math.MaxInt64, math.MinInt64, 0, -1, 7}
	kinds := []string{"it's", `back\slash`, "Ünïcode ✓", "tab\tnew\nline\x00", ""}
	got := run(as, bs, kinds)
	if len(got) != len(as) {
		t.Fatalf("%d rows, want %d: %v", len(got), len(as), got)
	}
	for i, r := range got {
		if r[0] != as[i] || r[1] != bs[i] || r[2] != kinds[i] {
			t.Errorf("row %d: %#v, want %d %d %q", i, r, as[i], bs[i], kinds[i])
		}
	}
	if got := run(nil, nil, nil); len(got) != 0 {
		t.Errorf("empty lists: %d rows", len(got))
	}
	const n = 20000
	as, bs, kinds = make([]int64, n), make([]int64, n), make([]string, n)
	for i := range n {
		as[i], bs[i], kinds[i] = math.MaxInt64-int64(i), math.MinInt64+int64(i), []string{"MEMBER_OF", "CONTAINS"}[i%2]
	}
	got = run(as, bs, kinds)
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, r := range got {
		if r[0] != as[i] || r[1] != bs[i] || r[2] != kinds[i] {
			t.Fatalf("row %d of %d: %#v, want %d %d %q", i, n, r, as[i], bs[i], kinds[i])
		}
	}
}

// TestEdgeCacheConcurrentCallers: seven callers (admin; scoped at other paths, levels and
// several scopes) ask hops, walks, neighbors and path finding at once on one small edge cache
// (entries evict each other; the generation moves meanwhile) and each gets exactly the answer
// the one statement gives it. Run with -race, it also checks the shared sets are only read.
func TestEdgeCacheConcurrentCallers(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const b = int64(9800000)
	in, sub, out := "1/93/", "1/93/95/", "2/94/"
	var g edgeGraph
	g.user(b+1, "cann")
	g.user(b+2, "cbob")
	g.group(b+11, in, "C11")
	g.group(b+12, sub, "C12")
	g.group(b+13, out, "C13")
	g.project(b+21, sub)
	g.project(b+22, in)
	g.project(b+23, out)
	g.edge(in, "MEMBER_OF", "User", b+1, "Group", b+11)
	g.edge(sub, "MEMBER_OF", "User", b+1, "Group", b+12)
	g.edge(out, "MEMBER_OF", "User", b+2, "Group", b+13)
	g.edge(in, "MEMBER_OF", "User", b+2, "Group", b+11)
	g.edge(in, "CONTAINS", "Group", b+11, "Group", b+12)
	g.edge(sub, "CONTAINS", "Group", b+12, "Project", b+21)
	g.edge(in, "CONTAINS", "Group", b+11, "Project", b+22)
	g.edge(out, "CONTAINS", "Group", b+13, "Project", b+23)
	g.edge(in, "CONTAINS", "Group", b+11, "Group", b+13)
	g.insert(t, e)
	id := func(x int64) string { return fmt.Sprint(b + x) }
	queries := []string{
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `,` + id(2) + `]},{"id":"g","entity":"Group","columns":["name"]}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `,` + id(2) + `]},{"id":"g","entity":"Group"},{"id":"p","entity":"Project"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"},{"type":"CONTAINS","from":"g","to":"p"}],"limit":100}`,
		`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}],"limit":100}`,
		`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[` + id(11) + `,` + id(12) + `,` + id(13) + `]}],"neighbors":{"direction":"both"},"limit":100}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + id(1) + `,` + id(2) + `]},{"id":"p","entity":"Project","node_ids":[` + id(21) + `,` + id(22) + `,` + id(23) + `]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
	}
	callers := []*compiler.Caller{admin, callerWith(scopeSpec{"1/", 30}), callerWith(scopeSpec{"2/", 30}),
		callerWith(scopeSpec{"1/93/", 10}), callerWith(scopeSpec{"1/93/", 30}), callerWith(scopeSpec{"1/93/95/", 30}),
		callerWith(scopeSpec{"1/93/95/", 30}, scopeSpec{"2/94/", 20})}
	type job struct {
		q    *compiler.Query
		want []byte
		what string
	}
	var jobs []job
	distinct := map[string]bool{}
	for qi, dsl := range queries {
		for ci, c := range callers {
			q, err := env.compiler.Compile([]byte(dsl), c)
			if err != nil {
				t.Fatalf("%s: %v", dsl, err)
			}
			want, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatal(err)
			}
			w := answerBytes(want)
			distinct[fmt.Sprint(qi, string(w))] = true
			jobs = append(jobs, job{q, w, fmt.Sprintf("query %d caller %d", qi, ci)})
		}
	}
	if len(distinct) < 2*len(queries) {
		t.Fatalf("%d distinct answers over %d queries: the callers hardly differ, the test proves little", len(distinct), len(queries))
	}
	var gen atomic.Uint64
	cache := newCache(t, 16<<10, gen.Load)
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(jobs))
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 3 {
				for i := range jobs {
					j := jobs[(i*7+w*5+round)%len(jobs)]
					got, _, err := executor.RespondWith(ctx, e, env.compiler, j.q, executor.RespondOptions{Edges: cache})
					if err != nil {
						errs <- fmt.Sprintf("%s: %v", j.what, err)
						return
					}
					if !bytes.Equal(answerBytes(got), j.want) {
						errs <- fmt.Sprintf("%s: the answer on the shared edge cache differs:\ncache: %s\none:   %s", j.what, answerBytes(got), j.want)
					}
				}
				if w == 0 {
					gen.Add(2) // a write started and ended: the entries are forgotten
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
	if s := cache.Stats(); s.Hits == 0 || s.Stored == 0 {
		t.Errorf("cache stats %+v: the cache was not used", s)
	}
}
