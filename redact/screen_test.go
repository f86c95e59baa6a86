package redact_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/redact"
	"github.com/graphwire/graphwire/telemetry"
)

// screenAuthority allows user 42 projects 1 and 2, merge requests 10 and 12,
// users 100 and 102 (user 101 and merge request 11 are denied).
func screenAuthority(t *testing.T) *redact.Authority {
	t.Helper()
	url, _ := startAuthority(t, allowList{Users: map[string]map[string][]string{"42": {
		"Project": {"1", "2"}, "MergeRequest": {"10", "12"}, "User": {"100", "102"},
	}}})
	return newAuthority(t, redact.Options{URL: url})
}

func ids(r *graphresponse.Response) (nodes []graphresponse.NodeRef, edges [][2]int64) {
	for _, n := range r.Nodes {
		nodes = append(nodes, graphresponse.NodeRef{Kind: n.Type, ID: n.ID})
	}
	for _, e := range r.Edges {
		edges = append(edges, [2]int64{e.FromID, e.ToID})
	}
	return nodes, edges
}

// TestScreenTraversal: a row showing a denied node is withheld with its
// edge; a node another row shows stays; the probe row still sets has_more,
// and the cursor anchors on the last row shown, never on a withheld one
// (whose sort keys it would carry out), as Orbit's cursor_with_redaction
// asserts.
func TestScreenTraversal(t *testing.T) {
	a := screenAuthority(t)
	plan := &graphresponse.BuildPlan{QueryType: graphresponse.QueryTraversal, PageSize: 3, Paginate: true, QueryHash: "0123456789abcdef", SortKeys: 1,
		Nodes: []graphresponse.PlanNode{{Alias: "p", Entity: "Project"}, {Alias: "mr", Entity: "MergeRequest"}},
		Edges: []graphresponse.PlanEdge{{From: 0, To: 1}}}
	cols := []string{"n0_id", "n1_id", "e0_kind", "e0_fwd", "e0_depth", "_k0"}
	base := graphresponse.Rows{Columns: cols, Values: [][]any{
		{int64(1), int64(10), "HAS", true, int64(1), "a"},
		{int64(3), int64(12), "HAS", true, int64(1), "b"}, // project 3 denied
		{int64(1), int64(11), "HAS", true, int64(1), "c"}, // merge request 11 denied: last page row
		{int64(2), int64(12), "HAS", true, int64(1), "d"}, // probe
	}}
	n, err := a.Screen(t.Context(), alice, plan, &base)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("withheld %d rows, want 2", n)
	}
	resp, err := graphresponse.Build(plan, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, edges := ids(resp)
	if diff := cmp.Diff([]graphresponse.NodeRef{{Kind: "Project", ID: 1}, {Kind: "MergeRequest", ID: 10}}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int64{{1, 10}}, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	want := graphresponse.EncodeCursor("0123456789abcdef", []*string{ptr("a")})
	if p := resp.Pagination; p == nil || !p.HasMore || p.NextCursor == nil || *p.NextCursor != want {
		t.Errorf("pagination %+v, want has_more and the cursor after row a", resp.Pagination)
	}
	if _, ok, err := plan.Exhausted(base); ok || err != nil {
		t.Errorf("Exhausted = %v, %v for a page that shows a row", ok, err)
	}

	// The engine's last page: a withheld tail ends it, with no cursor.
	last := graphresponse.Rows{Columns: cols, Values: base.Values[:3]}
	if _, err := a.Screen(t.Context(), alice, plan, &last); err != nil {
		t.Fatal(err)
	}
	resp, err = graphresponse.Build(plan, last, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.Pagination; p == nil || p.HasMore || p.NextCursor != nil {
		t.Errorf("last page: pagination %+v, want no has_more and no cursor", resp.Pagination)
	}

	// A page all withheld, more rows after: no cursor (nothing to anchor on); Exhausted
	// hands the caller the position to read on from, server-side.
	denied := graphresponse.Rows{Columns: cols, Values: [][]any{
		{int64(3), int64(10), "HAS", true, int64(1), "a"},
		{int64(1), int64(11), "HAS", true, int64(1), "b"},
		{int64(3), int64(11), "HAS", true, int64(1), "c"},
		{int64(2), int64(12), "HAS", true, int64(1), "d"},
	}}
	if _, err := a.Screen(t.Context(), alice, plan, &denied); err != nil {
		t.Fatal(err)
	}
	resp, err = graphresponse.Build(plan, denied, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := resp.Pagination; len(resp.Nodes) != 0 || p == nil || !p.HasMore || p.NextCursor != nil {
		t.Errorf("all withheld: %d nodes, pagination %+v; want none, has_more, no cursor", len(resp.Nodes), resp.Pagination)
	}
	tok, ok, err := plan.Exhausted(denied)
	if want := graphresponse.EncodeCursor("0123456789abcdef", []*string{ptr("c")}); !ok || err != nil || tok != want {
		t.Errorf("Exhausted = %q, %v, %v; want the position after row c", tok, ok, err)
	}
}

// TestScreenPath: a path through a denied middle node is withheld whole;
// the other path stays.
func TestScreenPath(t *testing.T) {
	a := screenAuthority(t)
	plan := &graphresponse.BuildPlan{QueryType: graphresponse.QueryPathFinding, PageSize: 10,
		Nodes: []graphresponse.PlanNode{{Alias: "a", Entity: "User"}, {Alias: "b", Entity: "Project"}}, PathTo: 1}
	path := func(nodes ...[]any) []any {
		out := make([]any, len(nodes))
		for i, n := range nodes {
			out[i] = n
		}
		return out
	}
	base := graphresponse.Rows{Columns: []string{"path_nodes", "path_kinds"}, Values: [][]any{
		{path([]any{int64(100), "User"}, []any{int64(11), "MergeRequest"}, []any{int64(1), "Project"}), []any{"AUTHORED", "IN_PROJECT"}},
		{path([]any{int64(100), "User"}, []any{int64(10), "MergeRequest"}, []any{int64(1), "Project"}), []any{"AUTHORED", "IN_PROJECT"}},
	}}
	if _, err := a.Screen(t.Context(), alice, plan, &base); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{true, false}, base.Withheld); diff != "" {
		t.Errorf("withheld (-want +got):\n%s", diff)
	}
	refs, err := plan.NodeRefs(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		if r.ID == 11 {
			t.Errorf("hydration would fetch the denied node %v", r)
		}
	}
	resp, err := graphresponse.Build(plan, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, edges := ids(resp)
	if diff := cmp.Diff([]graphresponse.NodeRef{{Kind: "User", ID: 100}, {Kind: "MergeRequest", ID: 10}, {Kind: "Project", ID: 1}}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int64{{100, 10}, {10, 1}}, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	if got := resp.Edges[0].PathID; got != graphresponse.Some(0) {
		t.Errorf("the remaining path is numbered %v, want 0", got)
	}
}

// TestScreenNeighbors: a denied neighbour goes with its edge.
func TestScreenNeighbors(t *testing.T) {
	a := screenAuthority(t)
	plan := &graphresponse.BuildPlan{QueryType: graphresponse.QueryNeighbors, PageSize: 10,
		Nodes: []graphresponse.PlanNode{{Alias: "mr", Entity: "MergeRequest"}}}
	base := graphresponse.Rows{Columns: []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"}, Values: [][]any{
		{int64(10), int64(101), "User", "AUTHORED", false},
		{int64(10), int64(102), "User", "REVIEWED", false},
	}}
	if _, err := a.Screen(t.Context(), alice, plan, &base); err != nil {
		t.Fatal(err)
	}
	resp, err := graphresponse.Build(plan, base, nil)
	if err != nil {
		t.Fatal(err)
	}
	nodes, edges := ids(resp)
	if diff := cmp.Diff([]graphresponse.NodeRef{{Kind: "MergeRequest", ID: 10}, {Kind: "User", ID: 102}}, nodes); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([][2]int64{{102, 10}}, edges); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
}

// TestScreenAggregation: metrics are not redacted (the scopes bound what
// they count, as in Orbit), but a bucket grouped by a denied node is
// withheld; buckets grouped by properties are never checked.
func TestScreenAggregation(t *testing.T) {
	a := screenAuthority(t)
	byNode := &graphresponse.BuildPlan{QueryType: graphresponse.QueryAggregation,
		Nodes:   []graphresponse.PlanNode{{Alias: "p", Entity: "Project"}},
		Groups:  []graphresponse.PlanGroup{{Name: "p", Kind: graphresponse.GroupKindNode, Alias: "p", Entity: "Project", Node: 0}},
		Metrics: []graphresponse.PlanMetric{{Name: "n", Function: "count", Target: "mr", Column: "m0"}}}
	base := graphresponse.Rows{Columns: []string{"n0_id", "m0"}, Values: [][]any{{int64(1), int64(5)}, {int64(3), int64(7)}}}
	if _, err := a.Screen(t.Context(), alice, byNode, &base); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{false, true}, base.Withheld); diff != "" {
		t.Errorf("withheld (-want +got):\n%s", diff)
	}
	byProp := &graphresponse.BuildPlan{QueryType: graphresponse.QueryAggregation,
		Groups:  []graphresponse.PlanGroup{{Name: "state", Kind: graphresponse.GroupKindProperty, Column: "g0"}},
		Metrics: []graphresponse.PlanMetric{{Name: "n", Function: "count", Target: "mr", Column: "m0"}}}
	base = graphresponse.Rows{Columns: []string{"g0", "m0"}, Values: [][]any{{"opened", int64(5)}}}
	n, err := a.Screen(t.Context(), alice, byProp, &base)
	if err != nil || n != 0 || base.Withheld != nil {
		t.Errorf("Screen by property = %d, %v, withheld %v; want nothing checked", n, err, base.Withheld)
	}
}

func ptr(s string) *string { return &s }

// TestScreenerPerRequestCache: the pages of one request share their decisions, so a node
// shown again is not asked again, even with the per-caller cache off; another request asks.
func TestScreenerPerRequestCache(t *testing.T) {
	url, _ := startAuthority(t, allowList{Users: map[string]map[string][]string{"42": {"User": {"100", "102"}}}})
	m, err := telemetry.New(telemetry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := newAuthority(t, redact.Options{URL: url, CacheTTL: -1, Metrics: m})
	plan := &graphresponse.BuildPlan{QueryType: graphresponse.QueryTraversal, PageSize: 10,
		Nodes: []graphresponse.PlanNode{{Alias: "u", Entity: "User"}}}
	page := func(ids ...int64) *graphresponse.Rows {
		r := &graphresponse.Rows{Columns: []string{"n0_id"}}
		for _, id := range ids {
			r.Values = append(r.Values, []any{id})
		}
		return r
	}
	s := a.For(alice)
	for _, p := range []*graphresponse.Rows{page(100, 101), page(101, 102), page(100, 102)} {
		if err := s.Screen(t.Context(), plan, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := s.Withheld(); got != 2 {
		t.Errorf("withheld %d rows, want 2 (user 101 twice)", got)
	}
	if got, want := metric(t, m, `graphwire_redaction_ids_total{source="authority"}`), "3"; got != want {
		t.Errorf("ids asked of the authority = %s, want %s (100, 101, 102 once each)", got, want)
	}
	if err := a.For(alice).Screen(t.Context(), plan, page(100)); err != nil {
		t.Fatal(err)
	}
	if got, want := metric(t, m, `graphwire_redaction_ids_total{source="authority"}`), "4"; got != want {
		t.Errorf("after another request: %s ids asked, want %s", got, want)
	}
}

// TestScreenNeighborsCenters: a neighbors centre named by id enters the answer even when no
// row shows it (BuildPlan.Centers), so redaction asks about it too: a denied centre with no
// neighbors is neither hydrated nor shown, and an allowed one still is.
func TestScreenNeighborsCenters(t *testing.T) {
	a := screenAuthority(t)
	plan := &graphresponse.BuildPlan{QueryType: graphresponse.QueryNeighbors, PageSize: 10,
		Nodes: []graphresponse.PlanNode{{Alias: "mr", Entity: "MergeRequest"}}, Centers: []int64{10, 11}}
	base := graphresponse.Rows{Columns: []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"}}
	if _, err := a.Screen(t.Context(), alice, plan, &base); err != nil {
		t.Fatal(err)
	}
	refs, err := plan.NodeRefs(base)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graphresponse.NodeRef{{Kind: "MergeRequest", ID: 10}}, refs); diff != "" {
		t.Errorf("nodes to hydrate (-want +got):\n%s", diff)
	}
}
