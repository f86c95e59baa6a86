package compiler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/graphresponse"
)

// TestJoinPaths: the join of the path steps' rows builds a path only through middles the
// second statement returned (an f1 edge to a group it did not confirm leads nowhere, and so
// does a middle edge leaving one), orders the paths by depth and the engine's text of their
// nodes, and refuses to settle the page when a statement hit its limit.
// stepNodeRow and stepEdgeRow are rows of the step statements (stepCols) without a path or
// hydration columns: a node of the set part, and an edge of the scan part.
func stepNodeRow(part string, id int64, kind string) []any {
	return []any{part, id, kind, id, kind, "", "", []any{}}
}

func stepEdgeRow(part string, x int64, xk string, y int64, yk, kind string) []any {
	return []any{part, x, xk, y, yk, kind, "", []any{}}
}

func TestJoinPaths(t *testing.T) {
	c := newTestCompiler(t)
	q, err := c.Compile([]byte(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":5}`), &Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Plan.Paths() {
		t.Fatal("no path plan")
	}
	node, edge := stepNodeRow, stepEdgeRow
	first := graphresponse.Rows{Columns: stepCols, Values: [][]any{
		node("a0", 1, "User"), node("a1", 10, "Project"), node("a1", 11, "Project"),
		edge("f1", 1, "User", 10, "Project", "MEMBER_OF"),
		edge("f1", 1, "User", 100, "Group", "MEMBER_OF"),
		edge("f1", 1, "User", 200, "Group", "MEMBER_OF"),
		edge("f1", 1, "User", 300, "Group", "MEMBER_OF"),
		edge("b1", 100, "Group", 11, "Project", "CONTAINS"),
		edge("b1", 200, "Group", 11, "Project", "CONTAINS"),
		edge("b1", 400, "Group", 10, "Project", "CONTAINS"),
	}}
	near, far, complete, err := q.Plan.PathCandidates(first)
	if err != nil || !complete {
		t.Fatalf("PathCandidates: complete=%v err=%v", complete, err)
	}
	g := func(id int64) graphresponse.NodeRef { return graphresponse.NodeRef{Kind: "Group", ID: id} }
	if diff := cmp.Diff([]graphresponse.NodeRef{g(100), g(200), g(300)}, near); diff != "" {
		t.Errorf("near (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]graphresponse.NodeRef{g(100), g(200), g(400)}, far); diff != "" {
		t.Errorf("far (-want +got):\n%s", diff)
	}
	second := graphresponse.Rows{Columns: stepCols, Values: [][]any{
		node("v", 100, "Group"), node("v", 300, "Group"), node("v", 400, "Group"),
		edge("m1", 300, "Group", 400, "Group", "CONTAINS"),
		edge("m1", 200, "Group", 400, "Group", "CONTAINS"), // 200 is not readable: no path
	}}
	base, complete, err := q.Plan.JoinPaths(first, &second)
	if err != nil || !complete {
		t.Fatalf("JoinPaths: complete=%v err=%v", complete, err)
	}
	n := func(id int64, kind string) []any { return []any{id, kind} }
	want := [][]any{
		{uint8(1), []any{n(1, "User"), n(10, "Project")}, []any{"MEMBER_OF"}},
		{uint8(2), []any{n(1, "User"), n(100, "Group"), n(11, "Project")}, []any{"MEMBER_OF", "CONTAINS"}},
		{uint8(3), []any{n(1, "User"), n(300, "Group"), n(400, "Group"), n(10, "Project")}, []any{"MEMBER_OF", "CONTAINS", "CONTAINS"}},
	}
	if diff := cmp.Diff(want, base.Values); diff != "" {
		t.Errorf("JoinPaths (-want +got):\n%s", diff)
	}
	// The engine's text of the keys, as toString writes them.
	r := newPathRow([]graphresponse.NodeRef{{Kind: "User", ID: 1}, {Kind: "Group", ID: 100}}, []string{"MEMBER_OF"})
	if r.nodes != "[(1,'User'),(100,'Group')]" || r.kinds != "['MEMBER_OF']" {
		t.Errorf("keys %s %s", r.nodes, r.kinds)
	}
	// At a statement's limit, the rows do not settle the page.
	full := graphresponse.Rows{Columns: stepCols}
	for range PathStepRows {
		full.Values = append(full.Values, node("v", 100, "Group"))
	}
	if _, complete, err := q.Plan.JoinPaths(first, &full); err != nil || complete {
		t.Errorf("second statement at its limit: complete=%v err=%v, want incomplete", complete, err)
	}
	if _, _, complete, err := q.Plan.PathCandidates(full); err != nil || complete {
		t.Errorf("first statement at its limit: complete=%v err=%v, want incomplete", complete, err)
	}
}

// TestJoinPathsNeedsBothAnchors: when both anchors name their ids, the first statement reads
// the edges at those ids without knowing which the caller may read or which are live
// (anchorsLate), and the second statement returns the anchor sets: the join builds a path
// only from a start node of a0 to an end node of a1, at every depth.
func TestJoinPathsNeedsBothAnchors(t *testing.T) {
	c := newTestCompiler(t)
	q, err := c.Compile([]byte(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":50}`), &Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	if !q.Plan.Paths() || !q.Plan.paths.anchorsLate {
		t.Fatal("no path plan with the anchors read late")
	}
	node, edge := stepNodeRow, stepEdgeRow
	// User 2 and Project 12 are named by the query but the second statement does not return
	// them (the caller may not read them, or they are deleted).
	first := graphresponse.Rows{Columns: stepCols, Values: [][]any{
		edge("f1", 1, "User", 10, "Project", "MEMBER_OF"),
		edge("f1", 2, "User", 11, "Project", "MEMBER_OF"),
		edge("f1", 1, "User", 12, "Project", "MEMBER_OF"),
		edge("f1", 1, "User", 100, "Group", "MEMBER_OF"),
		edge("f1", 2, "User", 200, "Group", "MEMBER_OF"),
		edge("b1", 100, "Group", 11, "Project", "CONTAINS"),
		edge("b1", 100, "Group", 12, "Project", "CONTAINS"),
		edge("b1", 200, "Group", 10, "Project", "CONTAINS"),
		edge("b1", 300, "Group", 12, "Project", "CONTAINS"),
	}}
	second := graphresponse.Rows{Columns: stepCols, Values: [][]any{
		node("a0", 1, "User"), node("a1", 10, "Project"), node("a1", 11, "Project"),
		node("v", 100, "Group"), node("v", 200, "Group"), node("v", 300, "Group"),
		edge("m1", 100, "Group", 300, "Group", "CONTAINS"),
	}}
	base, complete, err := q.Plan.JoinPaths(first, &second)
	if err != nil || !complete {
		t.Fatalf("JoinPaths: complete=%v err=%v", complete, err)
	}
	n := func(id int64, kind string) []any { return []any{id, kind} }
	want := [][]any{
		{uint8(1), []any{n(1, "User"), n(10, "Project")}, []any{"MEMBER_OF"}},
		{uint8(2), []any{n(1, "User"), n(100, "Group"), n(11, "Project")}, []any{"MEMBER_OF", "CONTAINS"}},
	}
	if diff := cmp.Diff(want, base.Values); diff != "" {
		t.Errorf("JoinPaths (-want +got):\n%s", diff)
	}
}
