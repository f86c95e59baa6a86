package compilertest_test

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// TestNeighborsOnEdgeCacheKeepsCallersApart: the load test's neighbors question and named
// centers a caller may not read (above its level, deleted) run, for four callers in turns on
// one edge cache (docs/compiler.md, "Neighbors on cached edges"), on the cached edges and
// one statement, and each answer is byte for byte the two-step plan's; no row of an
// unreadable center appears.
func TestNeighborsOnEdgeCacheKeepsCallersApart(t *testing.T) {
	e := engine(t)
	gone, mr, _ := writeUnreadableEnds(t, e, 5350000, "Group")
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	type run struct {
		name, dsl string
		caller    *compiler.Caller
		unread    int64 // a named center the caller may not read; 0: none
	}
	loadtest := `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"both"},"limit":8}`
	whole := `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4]}],"neighbors":{"direction":"both"},"limit":200}`
	// Merge request 2's own namespace, and its top-level group's, at two levels: callers
	// that read it and see other sets of its neighbors.
	path := loadWorld(t).nodePath["MergeRequest"][2]
	top := path[:strings.Index(path, "/")+1]
	runs := []run{
		{"loadtest admin", loadtest, admin, 0},
		{"loadtest own path:30", loadtest, callerWith(scopeSpec{path, 30}), 0},
		{"loadtest top:20", loadtest, callerWith(scopeSpec{top, 20}), 0},
		{"loadtest top:30", loadtest, callerWith(scopeSpec{top, 30}), 0},
		{"whole admin", whole, admin, 0},
		{"whole own path:30", whole, callerWith(scopeSpec{path, 30}), 0},
		{"whole top:20", whole, callerWith(scopeSpec{top, 20}), 0},
		{"whole top:10", whole, callerWith(scopeSpec{top, 10}), 0},
		{"above the level", `{"query_type":"neighbors","nodes":[{"id":"m","entity":"MergeRequest","node_ids":[2,` + id(mr) + `]}],"neighbors":{"direction":"both"},"limit":20}`,
			callerWith(scopeSpec{"1/", 10}, scopeSpec{"2/", 30}), mr},
		{"deleted", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,` + id(gone) + `]}],"neighbors":{"direction":"both"},"limit":20}`,
			admin, gone},
	}
	cache := newCache(t, 64<<20, func() uint64 { return 0 })
	distinct := map[string]bool{}
	for round := range 2 {
		for _, r := range runs {
			q, err := env.compiler.Compile([]byte(r.dsl), r.caller)
			if err != nil {
				t.Fatal(err)
			}
			if q.Plan.NeighborCachePairs() == nil {
				t.Fatalf("%s: no cached neighbors plan", r.name)
			}
			resp, got, _, fellBack := cachedResponse(t, e, cache, q)
			if fellBack {
				t.Errorf("round %d, %s: fell back to the two-step plan", round, r.name)
			}
			if want := stepAnswer(t, q); !bytes.Equal(got, want) {
				t.Errorf("round %d, %s: answer on the shared cache differs from the two-step plan's:\ncache: %s\nsteps: %s", round, r.name, got, want)
			}
			if r.unread != 0 && len(resp.Edges) == 0 {
				t.Errorf("round %d, %s: no edge of the readable center beside it either; the test would prove little", round, r.name)
			}
			for _, ed := range resp.Edges {
				if r.unread != 0 && (ed.FromID == r.unread || ed.ToID == r.unread) {
					t.Errorf("round %d, %s: an edge of center %d, which the caller may not read: %+v", round, r.name, r.unread, ed)
				}
			}
			if r.dsl == whole {
				distinct[string(got)] = true
			}
		}
	}
	if len(distinct) < 2 {
		t.Errorf("merge requests 2 to 4 answer the same for every caller: the test would not see callers mixed")
	}
}

// TestCachedNeighborsJoinChecksCenters: edge sets that hold an edge of a named center the
// lookup does not return (here a deleted user, handed over in a tampered set) yield no row
// of it: the join keeps only the rows whose center the lookup returned, as the first
// statement keeps only those of readable, live centers.
func TestCachedNeighborsJoinChecksCenters(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	gone, _, _ := writeUnreadableEnds(t, e, 5360000, "Group")
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,`+strconv.FormatInt(gone, 10)+`]}],"neighbors":{"direction":"outgoing","rel_types":["MEMBER_OF"]},"limit":20}`), admin)
	if err != nil {
		t.Fatal(err)
	}
	pairs := q.Plan.NeighborCachePairs()
	if pairs == nil {
		t.Fatal("no cached neighbors plan")
	}
	sets := map[compiler.EdgePair]*compiler.EdgeSet{}
	for _, p := range pairs {
		if p.To == "Group" {
			set, err := compiler.NewEdgeSet(p, []compiler.PathEdge{{X: graphresponse.NodeRef{Kind: "User", ID: gone}, Y: graphresponse.NodeRef{Kind: "Group", ID: 1}, TP: "1/"}})
			if err != nil {
				t.Fatal(err)
			}
			sets[p] = set
		}
	}
	edges, err := q.Plan.CachedNeighborEdges(sets)
	if err != nil {
		t.Fatal(err)
	}
	if len(edges.Values) != 1 {
		t.Fatalf("%d edge rows from the tampered set, want 1", len(edges.Values))
	}
	refs, err := q.Plan.Reached(edges)
	if err != nil {
		t.Fatal(err)
	}
	lq, err := env.compiler.Lookup(q, refs, false)
	if err != nil {
		t.Fatal(err)
	}
	live, err := executor.CollectRows(ctx, e, lq)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(live.Values, func(row []any) bool { return slices.Contains(row, any("Group")) }) {
		t.Fatalf("the lookup does not return group 1, so the test would not see the center check: %v", live.Values)
	}
	base, complete, err := q.Plan.JoinCachedNeighbors(edges, live)
	if err != nil {
		t.Fatal(err)
	}
	if !complete || len(base.Values) != 0 {
		t.Errorf("join: %v (complete %v), want no row: center %d is deleted", base.Values, complete, gone)
	}
}

// TestNeighborsOnEdgeCacheOverBudget: when the sets of a neighbors question together pass
// half a caller's share of the cache, the question runs the two-step plan (they would evict
// each other on every request), with the same answer.
func TestNeighborsOnEdgeCacheOverBudget(t *testing.T) {
	e := engine(t)
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4]}],"neighbors":{"direction":"both"},"limit":200}`), admin)
	if err != nil {
		t.Fatal(err)
	}
	big := newCache(t, 64<<20, func() uint64 { return 0 })
	want, _, fellBack := cachedAnswer(t, e, big, q)
	if fellBack {
		t.Fatal("fell back on a large cache")
	}
	var edges int64
	for _, p := range q.Plan.NeighborCachePairs() {
		got, ok, err := big.Edges(context.Background(), e, env.compiler, admin, p, &executor.Executed{})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		edges += int64(got.Len())
	}
	if edges < 4 {
		t.Fatalf("%d edges in the sets: the test would prove nothing", edges)
	}
	// A share of a little under twice the sets' edges' size: each set fits, together they
	// pass half of it.
	perEdge := compiler.EdgeBytes
	small, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 64 << 20, CallerBytes: 2*edges*perEdge - perEdge, Generation: func() uint64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	got, _, fellBack := cachedAnswer(t, e, small, q)
	if !fellBack {
		t.Error("the sets pass half the share, and the question did not fall back")
	}
	if !bytes.Equal(got, want) {
		t.Errorf("answer over the budget differs:\nsmall: %s\nlarge: %s", got, want)
	}
}

// TestNeighborsOnEdgeCacheLooksUpThePage: on cached edges, the lookup reads only the nodes of
// the page's rows (the sets hold only live ends the caller may read, so all of them are
// expected back); and when it does not return one of them (here a group deleted after its
// set was cached, under a generation that did not move), all the edges' nodes are looked up,
// and the answer is still the two-step plan's, the page filled from the rows after it.
func TestNeighborsOnEdgeCacheLooksUpThePage(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const base = int64(9200000)
	u := base + 1
	gs := []int64{base + 2, base + 3, base + 4, base + 5}
	path := "1/95/"
	ucols := []string{"id", "username", "_version", "_deleted"}
	gcols := []string{"id", "traversal_path", "full_path", "_version", "_deleted"}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	users := [][]any{{u, "page-center", int64(1), false}}
	var groups, edges [][]any
	for _, g := range gs {
		groups = append(groups, []any{g, path, "g" + strconv.FormatInt(g, 10), int64(1), false})
		edges = append(edges, []any{path, "MEMBER_OF", "User", u, "Group", g, int64(1), false})
	}
	insert := func(table string, cols []string, rows [][]any) {
		t.Helper()
		if err := e.Insert(ctx, table, cols, rows); err != nil {
			t.Fatal(err)
		}
	}
	insert("gl_user", ucols, users)
	insert("gl_group", gcols, groups)
	insert("gl_edge", ecols, edges)
	t.Cleanup(func() {
		for _, x := range []struct {
			table string
			cols  []string
			rows  [][]any
		}{{"gl_edge", ecols, edges}, {"gl_group", gcols, groups}, {"gl_user", ucols, users}} {
			var gone [][]any
			for _, r := range x.rows {
				r = slices.Clone(r)
				r[len(r)-2], r[len(r)-1] = int64(9), true
				gone = append(gone, r)
			}
			_ = e.Insert(ctx, x.table, x.cols, gone)
		}
	})
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[`+strconv.FormatInt(u, 10)+`]}],"neighbors":{"direction":"outgoing","rel_types":["MEMBER_OF"]},"limit":2}`), admin)
	if err != nil {
		t.Fatal(err)
	}
	if q.Plan.NeighborCachePairs() == nil {
		t.Fatal("no cached neighbors plan")
	}
	cache := newCache(t, 64<<20, func() uint64 { return 0 })
	// looked lists the group ids the lookups of a run on cache read.
	looked := func() (answer []byte, ids [][]int64, fellBack bool) {
		t.Helper()
		resp, ex, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ex.Statements {
			fellBack = fellBack || s.Query == q.Plan.Edges()
			if s.Label != executor.LabelLookup && s.Label != executor.LabelHydration {
				continue
			}
			var in []int64
			for _, p := range s.Query.Params {
				vals, _ := p.Value.([]any)
				if p.Value != nil && vals == nil {
					vals = []any{p.Value}
				}
				for _, v := range vals {
					if id, ok := v.(int64); ok && slices.Contains(gs, id) {
						in = append(in, id)
					}
				}
			}
			ids = append(ids, in)
		}
		return answerBytes(resp), ids, fellBack
	}
	got, ids, fellBack := looked()
	if want := stepAnswer(t, q); fellBack || !bytes.Equal(got, want) {
		t.Fatalf("fell back %v, or the answer on cached edges differs from the two-step plan's:\ncache: %s\nsteps: %s", fellBack, got, want)
	}
	if len(ids) != 1 || !slices.Equal(ids[0], gs[:3]) {
		t.Errorf("lookups read groups %v, want one of the page's (a page of 2 and the probe row): %v", ids, gs[:3])
	}
	// The first group deleted; the cached set still holds its edge.
	insert("gl_group", gcols, [][]any{{gs[0], path, "gone", int64(2), true}})
	got, ids, fellBack = looked()
	want := stepAnswer(t, q)
	// The probe row, the last group's edge, says there is more.
	if !bytes.Contains(want, []byte(`"has_more":true`)) {
		t.Fatalf("the two-step answer has no more rows after the page, so the test would prove little: %s", want)
	}
	if fellBack || !bytes.Equal(got, want) {
		t.Errorf("fell back %v, or the answer on a set holding a deleted group differs from the two-step plan's:\ncache: %s\nsteps: %s", fellBack, got, want)
	}
	if len(ids) != 2 || !slices.Equal(ids[1], gs) {
		t.Errorf("lookups read groups %v, want the page's, then every group", ids)
	}
}

// TestNeighborsOverBudgetNotReadAgain: a neighbors question whose sets passed half the
// caller's share runs the two-step plan, and after a write it does so without reading its
// sets again (they were over the budget when last read), until 8 writes have passed; the
// answers stay the two-step plan's.
func TestNeighborsOverBudgetNotReadAgain(t *testing.T) {
	e := engine(t)
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4]}],"neighbors":{"direction":"both"},"limit":200}`), admin)
	if err != nil {
		t.Fatal(err)
	}
	want := stepAnswer(t, q)
	big := newCache(t, 64<<20, func() uint64 { return 0 })
	var edges int64
	for _, p := range q.Plan.NeighborCachePairs() {
		got, ok, err := big.Edges(context.Background(), e, env.compiler, admin, p, &executor.Executed{})
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		edges += int64(got.Len())
	}
	if edges < 4 {
		t.Fatalf("%d edges in the sets: the test would prove nothing", edges)
	}
	perEdge := compiler.EdgeBytes
	var gen uint64
	small, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 64 << 20, CallerBytes: 2*edges*perEdge - perEdge, Generation: func() uint64 { return gen }})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		name  string
		gen   uint64
		reads bool
	}{{"first", 0, true}, {"after a write", 2, false}, {"after 7 writes", 14, false}, {"after 8 writes", 16, true}} {
		gen = step.gen
		got, read, fellBack := cachedAnswer(t, e, small, q)
		if !fellBack {
			t.Errorf("%s: the sets pass half the share, and the question did not fall back", step.name)
		}
		if read != step.reads {
			t.Errorf("%s: read edge sets %v, want %v", step.name, read, step.reads)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: answer over the budget differs:\ngot:  %s\nwant: %s", step.name, got, want)
		}
	}
	if s := small.Stats(); s.OverBudget != 2 {
		t.Errorf("%d questions sent to their plan without reading, want 2", s.OverBudget)
	}
	// The sizes are the caller's own: a caller whose sets of the same pairs fit runs on them.
	path := loadWorld(t).nodePath["MergeRequest"][2]
	scoped := callerWith(scopeSpec{path, 30})
	sq, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4]}],"neighbors":{"direction":"both"},"limit":200}`), scoped)
	if err != nil {
		t.Fatal(err)
	}
	var scopedEdges int64
	for _, p := range sq.Plan.NeighborCachePairs() {
		got, _, err := big.Edges(context.Background(), e, env.compiler, scoped, p, &executor.Executed{})
		if err != nil {
			t.Fatal(err)
		}
		scopedEdges += int64(got.Len())
	}
	if scopedEdges == 0 || 2*scopedEdges*perEdge > 2*edges*perEdge-perEdge {
		t.Fatalf("the scoped caller's sets hold %d edges (the admin's %d): the test would prove little", scopedEdges, edges)
	}
	got, _, fellBack := cachedAnswer(t, e, small, sq)
	if fellBack {
		t.Error("a scoped caller whose sets fit fell back after the admin's were over the budget")
	}
	if want := stepAnswer(t, sq); !bytes.Equal(got, want) {
		t.Errorf("scoped answer differs:\ngot:  %s\nwant: %s", got, want)
	}
}
