package compilertest_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/tests/serverdb"
)

// forgingPaths is a Hydrator whose PathStep is handed extra candidates besides those the
// first statement of a path_finding plan reached: a tampered list.
type forgingPaths struct {
	*compiler.Compiler
	near, far []graphresponse.NodeRef
}

func (f forgingPaths) PathStep(q *compiler.Query, near, far []graphresponse.NodeRef, props bool) (*compiler.Query, error) {
	return f.Compiler.PathStep(q, append(slices.Clone(near), f.near...), append(slices.Clone(far), f.far...), props)
}

// pathQuery is the load test's path_finding query from user u.
func pathQuery(u int64) string {
	return `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + strconv.FormatInt(u, 10) + `]},{"id":"p","entity":"Project","id_range":{"start":1,"end":400}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":50}`
}

// TestPathStepBindsHandedOverIDs: the second statement of the multi-step path_finding plan is
// handed candidate ids (docs/compiler.md, "Path finding in steps"); given ids of every kind
// it checks, most in namespaces the caller may not read, and a missing one, it returns as
// checked nodes exactly the live ones the caller may read, and only edges between them.
// Through the executor a tampered list leaves the answer unchanged.
func TestPathStepBindsHandedOverIDs(t *testing.T) {
	e := engine(t)
	w := loadWorld(t)
	ctx := context.Background()
	caller := callerWith(scopeSpec{"1/", 30})
	readable := func(r graphresponse.NodeRef) bool {
		p, live := w.nodePath[r.Kind][r.ID]
		return live && (w.floors[r.Kind] == 0 || under(p, caller.PathsAtLeast(w.floors[r.Kind])))
	}
	// A user with paths of two or three edges for this caller.
	var q *compiler.Query
	var clean *graphresponse.Response
	for _, u := range slices.Sorted(maps.Keys(w.nodePath["User"])) {
		c, err := env.compiler.Compile([]byte(pathQuery(u)), caller)
		if err != nil {
			t.Fatal(err)
		}
		resp, _, err := executor.Respond(ctx, e, env.compiler, c)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(resp.Edges, func(e graphresponse.Edge) bool { return e.Step.Value >= 1 }) {
			q, clean = c, resp
			break
		}
	}
	if q == nil || !q.Plan.Paths() {
		t.Fatal("no user with a longer path, or no multi-step plan")
	}
	// Forge candidates of each kind the statement accepts.
	var near, far []graphresponse.NodeRef
	for _, kind := range slices.Sorted(maps.Keys(w.nodePath)) {
		one := []graphresponse.NodeRef{{Kind: kind, ID: 1}}
		ids := slices.Sorted(maps.Keys(w.nodePath[kind]))
		var refs []graphresponse.NodeRef
		for _, id := range ids[:min(len(ids), 150)] {
			refs = append(refs, graphresponse.NodeRef{Kind: kind, ID: id})
		}
		refs = append(refs, graphresponse.NodeRef{Kind: kind, ID: 5300001})
		if _, err := env.compiler.PathStep(q, one, nil, true); err == nil {
			near = append(near, refs...)
		}
		if _, err := env.compiler.PathStep(q, []graphresponse.NodeRef{{Kind: "Group", ID: 1}}, one, true); err == nil {
			far = append(far, refs...)
		}
	}
	if len(near) == 0 || len(far) == 0 {
		t.Fatalf("the step accepted no kind: near %d, far %d", len(near), len(far))
	}
	if _, err := env.compiler.PathStep(q, []graphresponse.NodeRef{{Kind: "MergeRequest", ID: 1}}, nil, true); err == nil {
		t.Error("a path step of MergeRequest, a kind no path passes through, was built")
	}
	sq, err := env.compiler.PathStep(q, near, far, true)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := executor.CollectRows(ctx, e, sq)
	if err != nil {
		t.Fatalf("%v\n%s", err, sq.SQL)
	}
	got := map[string][]graphresponse.NodeRef{}
	edges := 0
	for _, row := range rows.Values {
		x := graphresponse.NodeRef{Kind: row[2].(string), ID: row[1].(int64)}
		y := graphresponse.NodeRef{Kind: row[4].(string), ID: row[3].(int64)}
		switch part := row[0].(string); part {
		case "m1":
			edges++
			if !readable(x) || !readable(y) {
				t.Errorf("edge %v -> %v leaves or enters a node the caller may not read", x, y)
			}
		default:
			got[part] = append(got[part], x)
		}
	}
	order := func(a, b graphresponse.NodeRef) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return int(a.ID - b.ID)
	}
	denied := 0
	var want []graphresponse.NodeRef
	for _, r := range slices.Concat(near, far) {
		if readable(r) {
			want = append(want, r)
		} else if w.floors[r.Kind] > 0 {
			denied++
		}
	}
	slices.SortFunc(want, order)
	want = slices.Compact(want)
	slices.SortFunc(got["v"], order)
	if diff := cmp.Diff(want, got["v"]); diff != "" {
		t.Errorf("lookup of forged ids (-readable and live +returned):\n%s", diff)
	}
	if denied < 10 || len(got["v"]) == 0 || edges == 0 {
		t.Fatalf("%d refs out of scope, %d readable, %d edges: the test needs all", denied, len(got["v"]), edges)
	}
	tampered, _, err := executor.Respond(ctx, e, forgingPaths{env.compiler, near, far}, q)
	if err != nil {
		t.Fatal(err)
	}
	a := answerBytes(clean)
	b := answerBytes(tampered)
	if !bytes.Equal(a, b) {
		t.Errorf("a tampered path step changed the answer:\nclean:    %s\ntampered: %s", a, b)
	}
	if v := w.violations(tampered, caller); len(v) > 0 {
		t.Errorf("out of scope: %v", v)
	}
	// With a screen (redaction), the check reads no properties and the page is hydrated by a
	// statement of its own; the answer is the same.
	screened, ex, err := executor.RespondScreened(ctx, e, env.compiler, q, noScreen{})
	if err != nil {
		t.Fatal(err)
	}
	labels := statementLabels(ex)
	if want := []string{executor.LabelBase, executor.LabelLookup, executor.LabelHydration}; !slices.Equal(labels, want) {
		t.Errorf("screened statements %q, want %q", labels, want)
	}
	if c := answerBytes(screened); !bytes.Equal(a, c) {
		t.Errorf("screened answer differs:\nclean:    %s\nscreened: %s", a, c)
	}
}

// TestPathsPastTheStepLimit: when the first statement of the path plan stops at its limit
// (a user with more edges than it reads), the executor answers with the one-statement form.
func TestPathsPastTheStepLimit(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	// Ids far above the seeded graph's, so that no other test's id ranges reach these nodes.
	const user = int64(5300000)
	if err := e.Insert(ctx, "gl_user", []string{"id", "username", "_version", "_deleted"}, [][]any{{user, "joiner", int64(1), false}}); err != nil {
		t.Fatal(err)
	}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	edges := [][]any{{"1/", "MEMBER_OF", "User", user, "Project", int64(1), int64(1), false}}
	for i := range int64(compiler.PathStepRows) {
		edges = append(edges, []any{"1/", "MEMBER_OF", "User", user, "Group", 7000000 + i, int64(1), false})
	}
	if err := e.Insert(ctx, "gl_edge", ecols, edges); err != nil {
		t.Fatal(err)
	}
	q, err := env.compiler.Compile([]byte(pathQuery(user)), admin)
	if err != nil {
		t.Fatal(err)
	}
	resp, ex, err := executor.Respond(ctx, e, env.compiler, q)
	if err != nil {
		t.Fatal(err)
	}
	labels := statementLabels(ex)
	if want := []string{executor.LabelBase, executor.LabelBase, executor.LabelHydration}; !slices.Equal(labels, want) {
		t.Errorf("statements %q, want %q (the first step, then the one-statement form)", labels, want)
	}
	if len(resp.Edges) == 0 || resp.Edges[0].ToID != 1 {
		t.Errorf("edges %v, want the MEMBER_OF edge to project 1 first", resp.Edges)
	}
	if err := sameAsOneStatement(ctx, e, env.compiler, q, resp); err != nil {
		t.Error(err)
	}
}

// TestPathFirstStepReadsOnlyReadableAnchors: every edge scan of the path plan's first
// statement starts at anchors the caller may read, also when both anchors name their ids
// (the anchors then reach the answer through the second statement): the edges of a named
// node the caller may not read (a merge request, floor 20, for a caller with level 10 there,
// who may read the edges, floor 10) or of a deleted one never leave the engine, so that they
// neither steer the second statement (its candidates) nor reach the executor's memory.
func TestPathFirstStepReadsOnlyReadableAnchors(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	gone, mr, diff := writeUnreadableEnds(t, e, 5330000, "Project")
	for _, tc := range []struct {
		name, dsl string
		caller    *compiler.Caller
		unread    graphresponse.NodeRef
	}{
		{"an anchor above the caller's level", `{"query_type":"path_finding","nodes":[{"id":"m","entity":"MergeRequest","node_ids":[` + strconv.FormatInt(mr, 10) + `]},{"id":"f","entity":"MergeRequestDiffFile","node_ids":[` + strconv.FormatInt(diff+1, 10) + `]}],"path":{"type":"shortest","from":"m","to":"f","max_depth":2,"rel_types":["HAS_DIFF","HAS_FILE"]}}`,
			callerWith(scopeSpec{"1/", 10}, scopeSpec{"2/", 30}), graphresponse.NodeRef{Kind: "MergeRequest", ID: mr}},
		{"a deleted anchor", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + strconv.FormatInt(gone, 10) + `]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
			admin, graphresponse.NodeRef{Kind: "User", ID: gone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := env.compiler.Compile([]byte(tc.dsl), tc.caller)
			if err != nil {
				t.Fatal(err)
			}
			if !q.Plan.Paths() {
				t.Fatal("no path plan")
			}
			first, err := executor.CollectRows(ctx, e, q.Plan.Edges())
			if err != nil {
				t.Fatal(err)
			}
			at := map[string]int{}
			for i, c := range first.Columns {
				at[c] = i
			}
			// An f1 edge starts at its x end (the start anchor), a b1 edge at its y end (the
			// end anchor); the other end is a candidate the second statement checks.
			starts := map[string][2]string{"f1": {"x", "x_kind"}, "b1": {"y", "y_kind"}}
			scans := 0
			for _, row := range first.Values {
				end, ok := starts[row[at["part"]].(string)]
				if !ok {
					continue
				}
				scans++
				if row[at[end[0]]] == tc.unread.ID && row[at[end[1]]] == tc.unread.Kind {
					t.Errorf("the first statement returns an edge starting at %v, which the caller may not read: %v", tc.unread, row)
				}
			}
			t.Logf("%d edge rows", scans)
			// The answer is the one-statement form's (respond compares them) and holds no
			// path: every path starts at the unreadable anchor.
			resp, _, err := respond(t, env.compiler, tc.dsl, tc.caller)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Edges) != 0 {
				t.Errorf("paths through an unreadable anchor: %v", resp.Edges)
			}
		})
	}
}

// writeUnreadableEnds writes, at ids base+1, base+2 and base+4 (far above the seeded graph's,
// so that no other test's id ranges reach them), a deleted user with a live MEMBER_OF edge to
// memberOf 1 and a merge request at floor 20 under 1/ with a live HAS_DIFF edge: the ends of
// edges that a caller with level 10 under 1/ may read, but whose named node it may not.
func writeUnreadableEnds(t *testing.T, e serverdb.Engine, base int64, memberOf string) (gone, mr, diff int64) {
	t.Helper()
	ctx := context.Background()
	gone, mr, diff = base+1, base+2, base+4
	ucols := []string{"id", "username", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_user", ucols, [][]any{{gone, "gone", int64(1), false}, {gone, "gone", int64(2), true}}); err != nil {
		t.Fatal(err)
	}
	cols := []string{"id", "traversal_path", "iid", "title", "state", "project_id", "author_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_merge_request", cols, [][]any{{mr, "1/", int64(5), "floor 20", "opened", int64(1), int64(1), int64(1), false}}); err != nil {
		t.Fatal(err)
	}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_edge", ecols, [][]any{
		{"1/", "MEMBER_OF", "User", gone, memberOf, int64(1), int64(1), false},
		{"1/", "HAS_DIFF", "MergeRequest", mr, "MergeRequestDiff", diff, int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	return gone, mr, diff
}
