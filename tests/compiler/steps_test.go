package compilertest_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// forging is a Hydrator whose Lookup is handed extra ids besides those the first statement
// reached: a tampered list, as a bug or an attacker between the two statements would make.
type forging struct {
	*compiler.Compiler
	extra []graphresponse.NodeRef
}

func (f forging) Lookup(q *compiler.Query, refs []graphresponse.NodeRef, props bool) (*compiler.Query, error) {
	return f.Compiler.Lookup(q, append(slices.Clone(refs), f.extra...), props)
}

// TestLookupBindsHandedOverIDs: the second statement of the two-step neighbors plan is handed
// ids (docs/compiler.md, "Two-step neighbors"); given ids of every kind the plan looks up,
// most of them in namespaces the caller may not read, and ids of a deleted and of a missing
// node, it returns exactly the live nodes among them that the caller may read. Run through
// the executor with such a list, the answer is the untampered one.
func TestLookupBindsHandedOverIDs(t *testing.T) {
	e := engine(t)
	w := loadWorld(t)
	ctx := context.Background()
	// A merge request whose latest version is a tombstone, inside the caller's scope.
	const gone = int64(5100001)
	cols := []string{"id", "traversal_path", "iid", "title", "state", "project_id", "author_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_merge_request", cols, [][]any{
		{gone, "1/", int64(3), "deleted", "opened", int64(1), int64(1), int64(1), false},
		{gone, "1/", int64(3), "deleted", "opened", int64(1), int64(1), int64(2), true},
	}); err != nil {
		t.Fatal(err)
	}
	caller := callerWith(scopeSpec{"1/", 30})
	var center int64
	for _, id := range slices.Sorted(maps.Keys(w.nodePath["MergeRequest"])) {
		if strings.HasPrefix(w.nodePath["MergeRequest"][id], "1/") {
			center = id
			break
		}
	}
	query := `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[` + strconv.FormatInt(center, 10) + `]}],"neighbors":{"direction":"both"}}`
	q, err := env.compiler.Compile([]byte(query), caller)
	if err != nil {
		t.Fatal(err)
	}
	if q.Plan.Edges() == nil {
		t.Fatal("no two-step plan")
	}
	readable := func(r graphresponse.NodeRef) bool {
		p, live := w.nodePath[r.Kind][r.ID]
		return live && (w.floors[r.Kind] == 0 || under(p, caller.PathsAtLeast(w.floors[r.Kind])))
	}
	var forged []graphresponse.NodeRef
	for _, k := range q.Plan.Build.Hydration {
		ids := slices.Sorted(maps.Keys(w.nodePath[k.Entity]))
		for _, id := range ids[:min(len(ids), 150)] {
			forged = append(forged, graphresponse.NodeRef{Kind: k.Entity, ID: id})
		}
	}
	forged = append(forged, graphresponse.NodeRef{Kind: "MergeRequest", ID: gone}, graphresponse.NodeRef{Kind: "MergeRequest", ID: 5100002})
	var want []graphresponse.NodeRef
	denied := 0
	for _, r := range forged {
		if readable(r) {
			want = append(want, r)
		} else if w.floors[r.Kind] > 0 {
			denied++
		}
	}
	if denied < 100 || len(want) == 0 {
		t.Fatalf("%d refs out of scope and %d readable: the test needs both", denied, len(want))
	}
	for _, props := range []bool{true, false} {
		lq, err := env.compiler.Lookup(q, forged, props)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := executor.CollectRows(ctx, e, lq)
		if err != nil {
			t.Fatalf("%v\n%s", err, lq.SQL)
		}
		var got []graphresponse.NodeRef
		for _, row := range rows.Values {
			got = append(got, graphresponse.NodeRef{Kind: row[0].(string), ID: row[1].(int64)})
		}
		order := func(a, b graphresponse.NodeRef) int {
			if c := strings.Compare(a.Kind, b.Kind); c != 0 {
				return c
			}
			return int(a.ID - b.ID)
		}
		slices.SortFunc(got, order)
		slices.SortFunc(want, order)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("props=%v: lookup of forged ids (-readable and live +returned):\n%s", props, diff)
		}
	}
	// Kinds the plan does not look up cannot be named.
	for _, ent := range env.ont.Entities {
		if !slices.ContainsFunc(q.Plan.Build.Hydration, func(k graphresponse.PlanKind) bool { return k.Entity == ent.Name }) {
			if _, err := env.compiler.Lookup(q, []graphresponse.NodeRef{{Kind: ent.Name, ID: 1}}, true); err == nil {
				t.Errorf("a lookup of %s, a kind outside the plan, was built", ent.Name)
			}
			break
		}
	}
	// Through the executor, a tampered list changes nothing.
	clean, _, err := executor.Respond(ctx, e, env.compiler, q)
	if err != nil {
		t.Fatal(err)
	}
	tampered, ex, err := executor.Respond(ctx, e, forging{env.compiler, forged}, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Statements) != 2 || ex.Statements[1].Label != executor.LabelHydration {
		t.Errorf("statements %v, want the edges and a hydrating lookup", ex.Statements)
	}
	a := answerBytes(clean)
	b := answerBytes(tampered)
	if !bytes.Equal(a, b) || len(clean.Nodes) < 2 {
		t.Errorf("a tampered lookup changed the answer (or it is empty):\nclean:    %s\ntampered: %s", a, b)
	}
	if v := w.violations(tampered, caller); len(v) > 0 {
		t.Errorf("out of scope: %v", v)
	}
}

// TestNeighborsPastTheEdgeLimit: when the first statement of the two-step plan stops at its
// limit with the page not full (here 1,100 edges to users that do not exist sort before the one
// edge to a live user), the executor answers with the one-statement form, which sees past the
// limit, and the answer is that form's.
func TestNeighborsPastTheEdgeLimit(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	// Ids far above the seeded graph's, so that no other test's id ranges reach these nodes.
	const center, reviewer = int64(5200000), int64(5200001)
	if err := e.Insert(ctx, "gl_user", []string{"id", "username", "_version", "_deleted"}, [][]any{{reviewer, "reviewer", int64(1), false}}); err != nil {
		t.Fatal(err)
	}
	cols := []string{"id", "traversal_path", "iid", "title", "state", "project_id", "author_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_merge_request", cols, [][]any{{center, "1/", int64(4), "many approvers", "opened", int64(1), int64(1), int64(1), false}}); err != nil {
		t.Fatal(err)
	}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	edges := [][]any{{"1/", "REVIEWER", "User", reviewer, "MergeRequest", center, int64(1), false}}
	for i := range int64(compiler.NeighborEdgesLimit + 99) {
		edges = append(edges, []any{"1/", "APPROVED", "User", 6000000 + i, "MergeRequest", center, int64(1), false})
	}
	if err := e.Insert(ctx, "gl_edge", ecols, edges); err != nil {
		t.Fatal(err)
	}
	caller := callerWith(scopeSpec{"1/", 30})
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[5200000]}],"neighbors":{"direction":"incoming"},"limit":5}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	resp, ex, err := executor.Respond(ctx, e, env.compiler, q)
	if err != nil {
		t.Fatal(err)
	}
	labels := statementLabels(ex)
	if want := []string{executor.LabelBase, executor.LabelLookup, executor.LabelBase, executor.LabelHydration}; !slices.Equal(labels, want) {
		t.Errorf("statements %q, want %q (the plan, then the one-statement form)", labels, want)
	}
	if len(resp.Edges) != 1 || resp.Edges[0].Type != "REVIEWER" || resp.Edges[0].FromID != reviewer {
		t.Errorf("edges %v, want the one REVIEWER edge from the reviewer", resp.Edges)
	}
	if err := sameAsOneStatement(ctx, e, env.compiler, q, resp); err != nil {
		t.Error(err)
	}
}

// TestNeighborsNodeUnderTwoPaths: a node's id may be stored under two traversal paths (the
// node tables are ordered by (traversal_path, id), as after a project moved), both live and
// readable. Each same_namespace edge binds to the copy under its own path, so both edges below
// reach the definition in the one-statement form; the two-step plan must keep both too.
func TestNeighborsNodeUnderTwoPaths(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	const f1, f2, def = int64(5300001), int64(5300002), int64(5300003)
	fcols := []string{"id", "traversal_path", "path", "name", "project_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_file", fcols, [][]any{
		{f1, "1/", "a.go", "a.go", int64(1), int64(1), false},
		{f2, "1/5300000/", "b.go", "b.go", int64(1), int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	dcols := []string{"id", "traversal_path", "name", "project_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_definition", dcols, [][]any{
		{def, "1/", "Moved", int64(1), int64(1), false},
		{def, "1/5300000/", "Moved", int64(1), int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	if err := e.Insert(ctx, "gl_edge", ecols, [][]any{
		{"1/", "DEFINES", "File", f1, "Definition", def, int64(1), false},
		{"1/5300000/", "DEFINES", "File", f2, "Definition", def, int64(1), false},
	}); err != nil {
		t.Fatal(err)
	}
	caller := callerWith(scopeSpec{"1/", 30})
	q, err := env.compiler.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"f","entity":"File","node_ids":[5300001,5300002]}],"neighbors":{"direction":"outgoing","rel_types":["DEFINES"]}}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	if q.Plan.Edges() == nil {
		t.Fatal("no two-step plan")
	}
	one := *q
	one.Plan = q.Plan.OneStatement()
	for _, form := range []struct {
		name string
		q    *compiler.Query
	}{{"two steps", q}, {"one statement", &one}} {
		resp, _, err := executor.Respond(ctx, e, env.compiler, form.q)
		if err != nil {
			t.Fatal(err)
		}
		var from []int64
		for _, ed := range resp.Edges {
			if ed.Type == "DEFINES" && ed.ToID == def {
				from = append(from, ed.FromID)
			}
		}
		slices.Sort(from)
		if !slices.Equal(from, []int64{f1, f2}) {
			t.Errorf("%s: DEFINES edges to the definition from %v, want from both files %v", form.name, from, []int64{f1, f2})
		}
	}
}

// TestNeighborsScreenedLookup: with a screen (redaction), the two-step plan's lookup carries no
// properties and the page is hydrated by a statement of its own, so the lookup reads only the
// neighbors, not the centers (Plan.Neighbors): merge requests have no merge request neighbors,
// so it reads no merge request. A center that is also a neighbor of another center (a group
// and the subgroup it CONTAINS) is still looked up as a neighbor. Either way the answer is the
// unscreened one.
func TestNeighborsScreenedLookup(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	pair, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: "SELECT e.source_id, e.target_id FROM gl_edge AS e FINAL " +
		"WHERE e._deleted = false AND e.relationship_kind = 'CONTAINS' AND e.source_kind = 'Group' AND e.target_kind = 'Group' " +
		"AND e.source_id IN (SELECT id FROM gl_group FINAL WHERE _deleted = false) AND e.target_id IN (SELECT id FROM gl_group FINAL WHERE _deleted = false) " +
		"ORDER BY e.source_id, e.target_id LIMIT 1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pair.Values) != 1 {
		t.Fatalf("no live group containing a live group in the seeded graph: %v", pair.Values)
	}
	parent, child := pair.Values[0][0].(int64), pair.Values[0][1].(int64)
	for _, tt := range []struct {
		name, dsl string
		centers   string // the lookup must not read the centers' table
	}{
		{"merge requests", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]}],"neighbors":{"direction":"both"},"limit":50}`, "FROM gl_merge_request AS t"},
		{"a group and its subgroup", fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[%d,%d]}],"neighbors":{"direction":"both"},"limit":200}`, parent, child), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := env.compiler.Compile([]byte(tt.dsl), admin)
			if err != nil {
				t.Fatal(err)
			}
			clean, _, err := executor.Respond(ctx, e, env.compiler, q)
			if err != nil {
				t.Fatal(err)
			}
			screened, ex, err := executor.RespondScreened(ctx, e, env.compiler, q, noScreen{})
			if err != nil {
				t.Fatal(err)
			}
			var labels []string
			for _, s := range ex.Statements {
				labels = append(labels, s.Label)
				if s.Label == executor.LabelLookup && tt.centers != "" && strings.Contains(s.Query.SQL, tt.centers) {
					t.Errorf("the lookup reads the centers' table (%s):\n%s", tt.centers, s.Query.SQL)
				}
			}
			if want := []string{executor.LabelBase, executor.LabelLookup, executor.LabelHydration}; !slices.Equal(labels, want) {
				t.Errorf("screened statements %q, want %q", labels, want)
			}
			a := answerBytes(clean)
			b := answerBytes(screened)
			if !bytes.Equal(a, b) {
				t.Errorf("screened answer differs:\nclean:    %s\nscreened: %s", a, b)
			}
			if tt.centers == "" {
				found := false
				for _, ed := range clean.Edges {
					found = found || ed.FromID == parent && ed.ToID == child
				}
				if !found {
					t.Errorf("no edge from center %d to center %d in %v", parent, child, clean.Edges)
				}
			}
		})
	}
}

// TestNeighborsFirstStepReadsOnlyReadableCenters: when the centers name their ids, the first
// statement of the two-step neighbors plan bounds its edge scans by those ids and keeps only
// the rows whose center is in the center set (checkEdges): the edges of a named center the
// caller may not read (a merge request, floor 20, for a caller with level 10 there, who may
// read the edges, floor 10) or of a deleted one never leave the engine. A readable center
// named beside them keeps its edges, so the statement is seen returning rows.
func TestNeighborsFirstStepReadsOnlyReadableCenters(t *testing.T) {
	e := engine(t)
	ctx := context.Background()
	gone, mr, _ := writeUnreadableEnds(t, e, 5340000, "Group")
	id := func(n int64) string { return strconv.FormatInt(n, 10) }
	for _, tc := range []struct {
		name, dsl string
		caller    *compiler.Caller
		unread    int64
	}{
		{"a center above the caller's level", `{"query_type":"neighbors","nodes":[{"id":"m","entity":"MergeRequest","node_ids":[` + id(mr) + `]}],"neighbors":{"direction":"both"},"limit":20}`,
			callerWith(scopeSpec{"1/", 10}, scopeSpec{"2/", 30}), mr},
		{"a deleted center", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,` + id(gone) + `]}],"neighbors":{"direction":"both"},"limit":20}`,
			admin, gone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []*compiler.Compiler{env.compiler, env.sized} {
				q, err := c.Compile([]byte(tc.dsl), tc.caller)
				if err != nil {
					t.Fatal(err)
				}
				if q.Plan.Edges() == nil {
					t.Fatal("no two-step plan")
				}
				first, err := executor.CollectRows(ctx, e, q.Plan.Edges())
				if err != nil {
					t.Fatal(err)
				}
				at := slices.Index(first.Columns, "center_id")
				if at < 0 {
					t.Fatalf("no center_id column in %v", first.Columns)
				}
				for _, row := range first.Values {
					if row[at] == tc.unread {
						t.Errorf("the first statement returns an edge of center %d, which the caller may not read: %v", tc.unread, row)
					}
				}
				if tc.caller.Admin && len(first.Values) == 0 {
					t.Error("the readable center beside it returned no edge either")
				}
				t.Logf("%d edge rows", len(first.Values))
			}
		})
	}
}
