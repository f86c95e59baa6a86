package compiler

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/graphresponse"
)

// TestJoinNeighbors: the join of the two statements keeps an edge only when the lookup
// returned its neighbor (a candidate the lookup did not confirm is dropped, whatever the
// edge rows say), keeps the first statement's order, stops at a page plus the probe row,
// drops nbr_tp, and reports an incomplete page when the first statement hit its limit.
func TestJoinNeighbors(t *testing.T) {
	c := newTestCompiler(t)
	caller := &Caller{Scopes: []Scope{{Path: "1/", Level: 30}}}
	q, err := c.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[7]}],"neighbors":{"direction":"both"},"limit":2}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	if q.Plan.Edges() == nil {
		t.Fatal("neighbors of a MergeRequest have no two-step plan")
	}
	cols := []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"}
	edge := func(id int64, kind string) []any { return []any{int64(7), id, kind, "R", true} }
	edges := graphresponse.Rows{Columns: cols, Values: [][]any{
		edge(1, "User"), edge(2, "User"), edge(3, "Project"), edge(4, "Label"), edge(5, "User"),
	}}
	lookup := graphresponse.Rows{Columns: []string{"kind", "id", "props", "tp"}, Values: [][]any{
		{"User", int64(2), []any{}, ""}, {"Label", int64(4), []any{}, "1/"},
		{"User", int64(5), []any{}, ""}, {"User", int64(9), []any{}, ""},
	}}
	refs, err := q.Plan.Reached(edges)
	if err != nil {
		t.Fatal(err)
	}
	wantRefs := []graphresponse.NodeRef{{Kind: "MergeRequest", ID: 7}, {Kind: "User", ID: 1}, {Kind: "User", ID: 2}, {Kind: "Project", ID: 3}, {Kind: "Label", ID: 4}, {Kind: "User", ID: 5}}
	if diff := cmp.Diff(wantRefs, refs); diff != "" {
		t.Errorf("Reached (-want +got):\n%s", diff)
	}
	// Without hydration the lookup needs only the neighbors, which is all the join reads.
	nbrs, err := q.Plan.Neighbors(edges)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantRefs[1:], nbrs); diff != "" {
		t.Errorf("Neighbors (-want +got):\n%s", diff)
	}
	// Every arm of the lookup and of the hydration tests its scope and ids in PREWHERE, ahead
	// of FINAL, as every other scan does.
	lq, err := c.Lookup(q, nbrs, false)
	if err != nil {
		t.Fatal(err)
	}
	hq, err := c.Hydrate(q, refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Query{lq, hq} {
		if arms, pre := strings.Count(x.SQL, " FINAL"), strings.Count(x.SQL, "PREWHERE "); arms == 0 || pre != arms {
			t.Errorf("%d FINAL arms, %d with PREWHERE:\n%s", arms, pre, x.SQL)
		}
	}
	base, complete, err := q.Plan.JoinNeighbors(edges, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{edge(2, "User"), edge(4, "Label"), edge(5, "User")}
	if diff := cmp.Diff(want, base.Values); diff != "" || !complete || !slices.Equal(base.Columns, cols) {
		t.Errorf("JoinNeighbors complete=%v columns %v (-want +got):\n%s", complete, base.Columns, diff)
	}
	// At the first statement's limit with the page not full, the rows do not settle the page.
	full := graphresponse.Rows{Columns: cols}
	for i := range NeighborEdgesLimit {
		full.Values = append(full.Values, edge(int64(100+i), "User"))
	}
	full.Values[0] = edge(2, "User")
	if base, complete, err := q.Plan.JoinNeighbors(full, lookup); err != nil || complete || len(base.Values) != 1 {
		t.Errorf("at the limit with 1 of 3 rows: complete=%v rows=%d err=%v, want incomplete", complete, len(base.Values), err)
	}
	if _, _, err := q.Plan.JoinNeighbors(graphresponse.Rows{Columns: []string{"center_id"}}, lookup); err == nil {
		t.Error("edge rows without nbr_id were accepted")
	}
	one := *q
	one.Plan = q.Plan.OneStatement()
	if one.Plan.Edges() != nil || q.Plan.Edges() == nil {
		t.Error("OneStatement kept the plan, or changed the original")
	}
	if _, err := c.Lookup(&one, refs, true); !errors.Is(err, ErrCompilerBug) {
		t.Errorf("Lookup without a two-step plan: %v, want COMPILER_BUG", err)
	}
}

// TestJoinNeighborsSameNamespace: an edge of a same_namespace type joins its neighbor only
// under the neighbor's own traversal_path, like the one-statement form's tp match.
func TestJoinNeighborsSameNamespace(t *testing.T) {
	c := newTestCompiler(t)
	caller := &Caller{Scopes: []Scope{{Path: "1/", Level: 30}}}
	q, err := c.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"d","entity":"Definition","node_ids":[7]}],"neighbors":{"direction":"outgoing","rel_types":["CALLS"]}}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(q.Plan.Edges().SQL, "nbr_tp") {
		t.Fatalf("first statement of a CALLS walk selects no nbr_tp:\n%s", q.Plan.Edges().SQL)
	}
	cols := []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing", "nbr_tp"}
	edges := graphresponse.Rows{Columns: cols, Values: [][]any{
		{int64(7), int64(1), "Definition", "CALLS", true, "1/2/"},
		{int64(7), int64(2), "Definition", "CALLS", true, "1/3/"},
	}}
	lookup := graphresponse.Rows{Columns: []string{"kind", "id", "props", "tp"}, Values: [][]any{
		{"Definition", int64(1), []any{}, "1/2/"}, {"Definition", int64(2), []any{}, "1/2/"},
	}}
	base, _, err := q.Plan.JoinNeighbors(edges, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(7), int64(1), "Definition", "CALLS", true}}
	if diff := cmp.Diff(want, base.Values); diff != "" || slices.Contains(base.Columns, "nbr_tp") {
		t.Errorf("columns %v (-want +got):\n%s", base.Columns, diff)
	}
}
