package compilertest_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// nodeIDs returns the ids of the response nodes of type typ, in response order.
func nodeIDs(r *graphresponse.Response, typ string) []int64 {
	out := []int64{}
	for _, n := range r.Nodes {
		if n.Type == typ {
			out = append(out, n.ID)
		}
	}
	return out
}

// int64s reads the first column of plain rows.
func int64s(rows [][]any) []int64 {
	out := []int64{}
	for _, r := range rows {
		out = append(out, r[0].(int64))
	}
	return out
}

type edgeID struct {
	From   string
	FromID int64
	To     string
	ToID   int64
	Type   string
}

func edgeIDs(r *graphresponse.Response) []edgeID {
	out := []edgeID{}
	for _, e := range r.Edges {
		out = append(out, edgeID{e.From, e.FromID, e.To, e.ToID, e.Type})
	}
	return out
}

func sortedEdges(es []edgeID) []edgeID {
	slices.SortFunc(es, func(a, b edgeID) int {
		return strings.Compare(fmt.Sprint(a), fmt.Sprint(b))
	})
	return slices.Compact(es)
}

const live = "FINAL WHERE _deleted = false"

// TestSearchOperators runs single-node traversals with every filter operator as admin and
// compares the ids with plain SQL written without the compiler's idioms.
func TestSearchOperators(t *testing.T) {
	engine(t)
	tests := []struct {
		name, filters, where string
		entity, table        string
	}{
		{"eq enum", `{"state":"merged"}`, "state = 'merged'", "MergeRequest", "gl_merge_request"},
		{"bare array", `{"state":["merged","closed"]}`, "state IN ('merged','closed')", "MergeRequest", "gl_merge_request"},
		{"in operator", `{"iid":{"in":[1,2,3]}}`, "iid IN (1,2,3)", "MergeRequest", "gl_merge_request"},
		{"gt", `{"added_lines":{"gt":100}}`, "added_lines > 100", "MergeRequest", "gl_merge_request"},
		{"gte and lt", `{"added_lines":{"gte":10,"lt":200}}`, "added_lines >= 10 AND added_lines < 200", "MergeRequest", "gl_merge_request"},
		{"lte", `{"iid":{"lte":5}}`, "iid <= 5", "MergeRequest", "gl_merge_request"},
		{"repeated operators", `{"iid":[{"gte":2},{"lte":9},{"gt":3}]}`, "iid >= 2 AND iid <= 9 AND iid > 3", "MergeRequest", "gl_merge_request"},
		{"float", `{"duration":{"gt":100.5}}`, "duration > 100.5", "Job", "gl_job"},
		{"bool", `{"draft":true}`, "draft", "MergeRequest", "gl_merge_request"},
		{"datetime range", `{"created_at":{"gte":"2025-07-01","lt":"2026-01-01T00:00:00Z"}}`, "created_at >= toDateTime('2025-07-01 00:00:00','UTC') AND created_at < toDateTime('2026-01-01 00:00:00','UTC')", "MergeRequest", "gl_merge_request"},
		{"datetime offset", `{"created_at":{"lt":"2026-01-01T02:00:00+02:00"}}`, "created_at < toDateTime('2026-01-01 00:00:00','UTC')", "MergeRequest", "gl_merge_request"},
		{"date32", `{"due_date":{"gte":"2026-01-01"}}`, "due_date >= toDate32('2026-01-01')", "Milestone", "gl_milestone"},
		{"contains is case-insensitive", `{"title":{"contains":"FIX"}}`, "lowerUTF8(title) LIKE '%fix%'", "MergeRequest", "gl_merge_request"},
		{"starts_with", `{"source_branch":{"starts_with":"feature/"}}`, "substring(source_branch, 1, 8) = 'feature/'", "MergeRequest", "gl_merge_request"},
		{"ends_with", `{"name":{"ends_with":"min"}}`, "right(name, 3) = 'min'", "User", "gl_user"},
		{"is_null", `{"merged_at":{"is_null":true}}`, "merged_at IS NULL", "MergeRequest", "gl_merge_request"},
		{"is_null false", `{"merged_at":{"is_null":false}}`, "merged_at IS NOT NULL", "MergeRequest", "gl_merge_request"},
		{"is_not_null", `{"milestone_id":{"is_not_null":true}}`, "milestone_id IS NOT NULL", "MergeRequest", "gl_merge_request"},
		{"is_not_null false", `{"milestone_id":{"is_not_null":false}}`, "milestone_id IS NULL", "MergeRequest", "gl_merge_request"},
		{"traversal_path starts_with", `{"traversal_path":{"starts_with":"1/"}}`, "substring(traversal_path, 1, 2) = '1/'", "MergeRequest", "gl_merge_request"},
		{"string range", `{"username":{"gte":"m"}}`, "username >= 'm'", "User", "gl_user"},
		{"large id", `{"id":9007199254740993}`, "id = 9007199254740993", "MergeRequest", "gl_merge_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"x","entity":%q,"filters":%s}],"limit":1000}`, tt.entity, tt.filters)
			got := run(t, q, admin)
			want := int64s(plain(t, fmt.Sprintf("SELECT id FROM %s %s AND (%s) ORDER BY id LIMIT 1000", tt.table, live, tt.where)))
			if diff := cmp.Diff(want, nodeIDs(got, tt.entity)); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
			if len(want) == 0 {
				t.Logf("note: no rows match %s", tt.where)
			}
		})
	}
}

// TestScopedSearch checks that a scoped caller sees exactly the rows under its paths, at the
// entity's floor.
func TestScopedSearch(t *testing.T) {
	engine(t)
	tests := []struct {
		name   string
		scopes string
		level  int
		entity string
		table  string
		where  string
	}{
		{"reporter sees merge requests under acme", "1/", 20, "MergeRequest", "gl_merge_request", "startsWith(traversal_path, '1/')"},
		{"guest does not see merge requests", "1/", 10, "MergeRequest", "gl_merge_request", "false"},
		{"guest sees projects", "1/", 10, "Project", "gl_project", "startsWith(traversal_path, '1/')"},
		{"developer sees vulnerabilities", "2/", 30, "Vulnerability", "gl_vulnerability", "startsWith(traversal_path, '2/')"},
		{"reporter does not see vulnerabilities", "2/", 20, "Vulnerability", "gl_vulnerability", "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caller := callerWith(scopeSpec{tt.scopes, tt.level})
			q := fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"x","entity":%q,"id_range":{"start":1,"end":100000}}],"limit":1000}`, tt.entity)
			got := run(t, q, caller)
			want := int64s(plain(t, fmt.Sprintf("SELECT id FROM %s %s AND id <= 100000 AND %s ORDER BY id LIMIT 1000", tt.table, live, tt.where)))
			if diff := cmp.Diff(want, nodeIDs(got, tt.entity)); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTraversal covers multi-hop, incoming, both and variable-length hops.
func TestTraversal(t *testing.T) {
	engine(t)
	t.Run("user authored merge requests in projects", func(t *testing.T) {
		got := run(t, `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"mr","entity":"MergeRequest"},{"id":"p","entity":"Project"}],
			"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":1000}`, admin)
		want := int64s(plain(t, "SELECT id FROM gl_merge_request "+live+" AND author_id = 1 AND id < 1000000 ORDER BY id"))
		if diff := cmp.Diff(want, nodeIDs(got, "MergeRequest")); diff != "" {
			t.Errorf("merge requests (-want +got):\n%s", diff)
		}
		wantP := int64s(plain(t, "SELECT DISTINCT project_id FROM gl_merge_request "+live+" AND author_id = 1 AND id < 1000000 ORDER BY project_id"))
		gotP := slices.Sorted(slices.Values(nodeIDs(got, "Project")))
		if diff := cmp.Diff(wantP, gotP); diff != "" {
			t.Errorf("projects (-want +got):\n%s", diff)
		}
	})
	t.Run("incoming from the item side", func(t *testing.T) {
		got := run(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":30}},{"id":"u","entity":"User"}],
			"relationships":[{"type":"AUTHORED","from":"mr","to":"u","direction":"incoming"}],"limit":1000}`, admin)
		want := []edgeID{}
		for _, r := range plain(t, "SELECT id, author_id FROM gl_merge_request "+live+" AND id BETWEEN 1 AND 30") {
			want = append(want, edgeID{"User", r[1].(int64), "MergeRequest", r[0].(int64), "AUTHORED"})
		}
		if diff := cmp.Diff(sortedEdges(want), sortedEdges(edgeIDs(got))); diff != "" {
			t.Errorf("edges (-want +got):\n%s", diff)
		}
	})
	t.Run("both directions", func(t *testing.T) {
		got := run(t, `{"query_type":"traversal","nodes":[{"id":"w","entity":"WorkItem","id_range":{"start":1,"end":300}},{"id":"o","entity":"WorkItem"}],
			"relationships":[{"type":"RELATED_TO","from":"w","to":"o","direction":"both"}],"limit":1000}`, admin)
		want := []edgeID{}
		for _, r := range plain(t, "SELECT source_id, target_id FROM gl_edge "+live+" AND relationship_kind = 'RELATED_TO' AND (source_id BETWEEN 1 AND 300 OR target_id BETWEEN 1 AND 300)") {
			want = append(want, edgeID{"WorkItem", r[0].(int64), "WorkItem", r[1].(int64), "RELATED_TO"})
		}
		if diff := cmp.Diff(sortedEdges(want), sortedEdges(edgeIDs(got))); diff != "" {
			t.Errorf("edges (-want +got):\n%s", diff)
		}
	})
	t.Run("variable length containment", func(t *testing.T) {
		got := run(t, `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],
			"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":1000}`, admin)
		// Independent oracle: every project under the group's path prefix, at most 3 levels down.
		want := int64s(plain(t, "SELECT id FROM gl_project "+live+" AND startsWith(traversal_path, '1/') AND length(splitByChar('/', traversal_path)) - 1 <= 4 ORDER BY id"))
		if diff := cmp.Diff(want, slices.Sorted(slices.Values(nodeIDs(got, "Project")))); diff != "" {
			t.Errorf("projects (-want +got):\n%s", diff)
		}
		for _, e := range got.Edges {
			if !e.Depth.Valid || e.Depth.Value < 1 || e.Depth.Value > 3 {
				t.Errorf("edge %+v has no depth in 1..3", e)
			}
		}
	})
}

// TestAggregation compares every aggregate function with plain SQL.
func TestAggregation(t *testing.T) {
	engine(t)
	t.Run("count sum avg min max by state", func(t *testing.T) {
		got := run(t, `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],
			"group_by":["mr.state"],"aggregations":[{"count":"mr"},{"sum":"mr.added_lines"},{"avg":"mr.added_lines"},{"min":"mr.iid"},{"max":"mr.created_at"},{"count":"mr.merged_at"}]}`, admin)
		want := plain(t, "SELECT state, count(), sum(added_lines), avg(added_lines), min(iid), formatDateTime(max(created_at), '%Y-%m-%dT%H:%i:%SZ'), countIf(merged_at IS NOT NULL) FROM gl_merge_request "+live+" AND id BETWEEN 1 AND 100000 GROUP BY state ORDER BY state")
		if len(got.Rows) != len(want) {
			t.Fatalf("rows = %d, want %d", len(got.Rows), len(want))
		}
		for i, w := range want {
			row := got.Rows[i]
			cell := func(k string) graphresponse.Value { v, _ := row.Get(k); return v }
			if cell("mr_state").Str() != w[0].(string) || cell("count_mr").Int() != w[1].(int64) || cell("sum_mr_added_lines").Int() != w[2].(int64) ||
				cell("min_mr_iid").Int() != w[4].(int64) || cell("max_mr_created_at").Str() != w[5].(string) || cell("count_mr_merged_at").Int() != w[6].(int64) {
				t.Errorf("row %d = %#v, want %v", i, row, w)
			}
			if d := cell("avg_mr_added_lines").Float() - w[3].(float64); d > 1e-9 || d < -1e-9 {
				t.Errorf("avg row %d = %v, want %v", i, cell("avg_mr_added_lines"), w[3])
			}
		}
	})
	t.Run("group by node through a hop", func(t *testing.T) {
		got := run(t, `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project","columns":["name"]}],
			"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}],"aggregation_sort":"-count_pl","limit":1000}`, admin)
		want := plain(t, "SELECT project_id, count() AS c FROM gl_pipeline "+live+" AND status = 'failed' GROUP BY project_id ORDER BY c DESC, project_id")
		if len(got.Rows) != len(want) {
			t.Fatalf("rows = %d, want %d", len(got.Rows), len(want))
		}
		for i, w := range want {
			p, _ := got.Rows[i].Get("p")
			id, _ := p.Get("id")
			c, _ := got.Rows[i].Get("count_pl")
			if id.Str() != fmt.Sprint(w[0]) || c.Int() != w[1].(int64) {
				t.Errorf("row %d = %s/%d, want %v", i, id.Str(), c.Int(), w)
			}
		}
	})
	t.Run("truncated time", func(t *testing.T) {
		got := run(t, `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],
			"group_by":[{"key":"mr.merged_at","truncate":"month","as":"month"}],"aggregations":[{"count":"mr","as":"n"}],"limit":1000}`, admin)
		want := plain(t, "SELECT formatDateTime(merged_at, '%Y-%m-01'), count() FROM gl_merge_request "+live+" AND state = 'merged' GROUP BY 1 ORDER BY 1")
		if len(got.Rows) != len(want) {
			t.Fatalf("rows = %d, want %d", len(got.Rows), len(want))
		}
		for i, w := range want {
			m, _ := got.Rows[i].Get("month")
			n, _ := got.Rows[i].Get("n")
			if m.Str() != w[0].(string) || n.Int() != w[1].(int64) {
				t.Errorf("row %d = %s/%d, want %v", i, m.Str(), n.Int(), w)
			}
		}
	})
	t.Run("no group by gives one row", func(t *testing.T) {
		got := run(t, `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}}],"aggregations":[{"count":"mr"}]}`, admin)
		want := plain(t, "SELECT count() FROM gl_merge_request "+live+" AND state = 'opened'")
		if len(got.Rows) != 1 {
			t.Fatalf("rows = %d", len(got.Rows))
		}
		if c, _ := got.Rows[0].Get("count_mr"); c.Int() != want[0][0].(int64) {
			t.Errorf("count = %d, want %d", c.Int(), want[0][0])
		}
	})
}

// TestNeighbors compares neighbors in every direction with the edge table.
func TestNeighbors(t *testing.T) {
	engine(t)
	for _, dir := range []string{"outgoing", "incoming", "both"} {
		t.Run(dir, func(t *testing.T) {
			got := run(t, `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,4,5]}],"neighbors":{"direction":"`+dir+`"},"limit":1000}`, admin)
			var where []string
			if dir != "incoming" {
				where = append(where, "(source_kind = 'MergeRequest' AND source_id BETWEEN 1 AND 5)")
			}
			if dir != "outgoing" {
				where = append(where, "(target_kind = 'MergeRequest' AND target_id BETWEEN 1 AND 5)")
			}
			want := []edgeID{}
			for _, r := range plain(t, "SELECT source_kind, source_id, target_kind, target_id, relationship_kind FROM gl_edge "+live+" AND ("+strings.Join(where, " OR ")+")") {
				want = append(want, edgeID{r[0].(string), r[1].(int64), r[2].(string), r[3].(int64), r[4].(string)})
			}
			if diff := cmp.Diff(sortedEdges(want), sortedEdges(edgeIDs(got))); diff != "" {
				t.Errorf("edges (-want +got):\n%s", diff)
			}
			for _, n := range got.Nodes {
				if len(n.Props) == 0 {
					t.Errorf("node %s %d was not hydrated", n.Type, n.ID)
				}
			}
		})
	}
}

// TestPathFinding compares paths with a breadth-first enumeration in Go over the edge rows.
func TestPathFinding(t *testing.T) {
	engine(t)
	type step struct {
		kind, rel string
		id        int64
	}
	adj := map[string][]step{}
	for _, r := range plain(t, "SELECT source_kind, source_id, target_kind, target_id, relationship_kind FROM gl_edge "+live+" AND relationship_kind IN ('MEMBER_OF','CONTAINS')") {
		k := fmt.Sprint(r[0], r[1])
		adj[k] = append(adj[k], step{r[2].(string), r[4].(string), r[3].(int64)})
	}
	ends := int64s(plain(t, "SELECT id FROM gl_project "+live+" AND startsWith(traversal_path, '1/') ORDER BY id LIMIT 3"))
	if len(ends) == 0 {
		t.Fatal("no projects under acme")
	}
	var want []string
	var walk func(kind string, id int64, nodes []string, rels []string)
	walk = func(kind string, id int64, nodes []string, rels []string) {
		if kind == "Project" && slices.Contains(ends, id) && len(rels) > 0 {
			want = append(want, strings.Join(nodes, ">")+"|"+strings.Join(rels, ","))
		}
		if len(rels) == 3 {
			return
		}
		for _, s := range adj[fmt.Sprint(kind, id)] {
			n := fmt.Sprint(s.kind, s.id)
			if slices.Contains(nodes, n) {
				continue
			}
			walk(s.kind, s.id, append(slices.Clone(nodes), n), append(slices.Clone(rels), s.rel))
		}
	}
	walk("User", 1, []string{"User1"}, nil)
	slices.Sort(want)
	q := fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","node_ids":%s}],
		"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":1000}`, jsonInts(ends))
	got := run(t, q, admin)
	paths := map[int64][]graphresponse.Edge{}
	for _, e := range got.Edges {
		paths[e.PathID.Value] = append(paths[e.PathID.Value], e)
	}
	var gotPaths []string
	prevLen := 0
	for id := int64(0); id < int64(len(paths)); id++ {
		es := paths[id]
		if len(es) < prevLen {
			t.Errorf("path %d is shorter than the one before: not shortest first", id)
		}
		prevLen = len(es)
		nodes := []string{fmt.Sprint(es[0].From, es[0].FromID)}
		var rels []string
		for i, e := range es {
			if e.Step.Value != int64(i) {
				t.Errorf("path %d step %d numbered %d", id, i, e.Step.Value)
			}
			nodes = append(nodes, fmt.Sprint(e.To, e.ToID))
			rels = append(rels, e.Type)
		}
		gotPaths = append(gotPaths, strings.Join(nodes, ">")+"|"+strings.Join(rels, ","))
	}
	slices.Sort(gotPaths)
	if diff := cmp.Diff(want, gotPaths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func jsonInts(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(s, ",") + "]"
}

// TestCursorWalk pages through results and checks that every row is visited exactly once.
func TestCursorWalk(t *testing.T) {
	engine(t)
	tests := []struct {
		name  string
		query func(after string) string
		want  []int64
		ids   func(*graphresponse.Response) []int64
	}{
		{
			name: "search ordered by a nullable column",
			query: func(after string) string {
				return `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000},"columns":["merged_at"]}],"order_by":"-mr.merged_at","cursor":{"page_size":40` + after + `}}`
			},
			want: int64s(plain(t, "SELECT id FROM gl_merge_request "+live+" AND id <= 100000 ORDER BY merged_at DESC NULLS LAST, id")),
			ids:  func(r *graphresponse.Response) []int64 { return nodeIDs(r, "MergeRequest") },
		},
		{
			name: "neighbors",
			query: func(after string) string {
				return `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":12}}],"neighbors":{"direction":"both"},"cursor":{"page_size":20` + after + `}}`
			},
			want: int64s(plain(t, `SELECT center FROM (
				SELECT source_id AS center, relationship_kind AS rel, target_kind AS kind, target_id AS nbr, true AS outgoing FROM gl_edge `+live+` AND source_kind = 'MergeRequest' AND source_id BETWEEN 1 AND 12
				UNION ALL
				SELECT target_id, relationship_kind, source_kind, source_id, false FROM gl_edge `+live+` AND target_kind = 'MergeRequest' AND target_id BETWEEN 1 AND 12)
				ORDER BY center, rel, kind, nbr, outgoing`)),
			ids: func(r *graphresponse.Response) []int64 {
				var out []int64
				for _, e := range r.Edges {
					if e.From == "MergeRequest" {
						out = append(out, e.FromID)
					} else {
						out = append(out, e.ToID)
					}
				}
				return out
			},
		},
		{
			name: "aggregation sorted by a metric",
			query: func(after string) string {
				return `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.author_id"],"aggregations":[{"count":"mr"}],"aggregation_sort":"-count_mr","cursor":{"page_size":6` + after + `}}`
			},
			want: int64s(plain(t, "SELECT author_id FROM gl_merge_request "+live+" AND id <= 100000 GROUP BY author_id ORDER BY count() DESC, author_id")),
			ids: func(r *graphresponse.Response) []int64 {
				var out []int64
				for _, row := range r.Rows {
					v, _ := row.Get("mr_author_id")
					out = append(out, v.Int())
				}
				return out
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			after := ""
			for page := 0; page < 200; page++ {
				r := run(t, tt.query(after), admin)
				got = append(got, tt.ids(r)...)
				if !r.Pagination.HasMore {
					break
				}
				if r.Pagination.NextCursor == nil {
					t.Fatal("has_more without next_cursor")
				}
				after = `,"after":"` + *r.Pagination.NextCursor + `"`
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCursorReplay: a token issued for one query is refused by another, and a forged token
// is refused outright.
func TestCursorReplay(t *testing.T) {
	engine(t)
	first := run(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"cursor":{"page_size":2}}`, admin)
	if first.Pagination.NextCursor == nil {
		t.Fatal("no next_cursor on the first page")
	}
	tok := *first.Pagination.NextCursor
	_, err := tryRun(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}}],"cursor":{"page_size":2,"after":"`+tok+`"}}`, admin)
	if !errors.Is(err, compiler.ErrCursorMismatch) {
		t.Errorf("replayed cursor: err = %v, want CURSOR_MISMATCH", err)
	}
	_, err = tryRun(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"cursor":{"page_size":2,"after":"`+tok[:len(tok)-3]+`"}}`, admin)
	if !errors.Is(err, compiler.ErrInvalidCursor) {
		t.Errorf("truncated cursor: err = %v, want INVALID_CURSOR", err)
	}
	// Page size may change between pages: the hash ignores the cursor object.
	if _, err := tryRun(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"cursor":{"page_size":5,"after":"`+tok+`"}}`, admin); err != nil {
		t.Errorf("same query, new page size: %v", err)
	}
}

// TestWideScopes runs the set form of the scope predicate (more than 8 paths): paths of one
// length, then the seeded graph's paths of many lengths with redundant and foreign ones, each
// checked against plain SQL with one startsWith per scope.
func TestWideScopes(t *testing.T) {
	w := loadWorld(t)
	for _, n := range []int{9, 300, 3000} {
		c := scopeCaller(w, n)
		for _, q := range []struct{ entity, table string }{{"MergeRequest", "gl_merge_request"}, {"Group", "gl_group"}} {
			got := run(t, `{"query_type":"traversal","nodes":[{"id":"x","entity":"`+q.entity+`","id_range":{"start":1,"end":100000}}],"limit":1000}`, c)
			want := int64s(plain(t, "SELECT id FROM "+q.table+" "+live+" AND id <= 100000 AND "+scopeSQL(c, w.floors[q.entity])+" ORDER BY id LIMIT 1000"))
			if diff := cmp.Diff(want, nodeIDs(got, q.entity)); diff != "" {
				t.Errorf("%d scopes, %s ids (-want +got):\n%s", n, q.entity, diff)
			}
		}
	}
	scopes := []scopeSpec{{"1/", 30}}
	for i := range 70 {
		scopes = append(scopes, scopeSpec{fmt.Sprintf("9%d/", 100+i), 30})
	}
	got := run(t, `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"limit":1000}`, callerWith(scopes...))
	want := int64s(plain(t, "SELECT id FROM gl_merge_request "+live+" AND id <= 100000 AND startsWith(traversal_path, '1/') ORDER BY id"))
	if diff := cmp.Diff(want, nodeIDs(got, "MergeRequest")); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// TestPathCursorWalk pages through paths two at a time and compares with one big page.
func TestPathCursorWalk(t *testing.T) {
	engine(t)
	const base = `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}`
	signature := func(r *graphresponse.Response) []string {
		var out []string
		cur := ""
		for _, e := range r.Edges {
			if e.Step.Value == 0 && cur != "" {
				out = append(out, cur)
				cur = ""
			}
			cur += fmt.Sprintf("%s%d-%s->%s%d;", e.From, e.FromID, e.Type, e.To, e.ToID)
		}
		if cur != "" {
			out = append(out, cur)
		}
		return out
	}
	want := signature(run(t, base+`,"limit":1000}`, admin))
	var got []string
	after := ""
	for page := 0; page < 100; page++ {
		r := run(t, base+`,"cursor":{"page_size":2`+after+`}}`, admin)
		got = append(got, signature(r)...)
		if !r.Pagination.HasMore {
			break
		}
		after = `,"after":"` + *r.Pagination.NextCursor + `"`
	}
	if len(want) <= 2 {
		t.Fatalf("only %d paths: the walk would not page", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

// TestNeighborsBothPagesEachEdgeOnce: with direction "both", an edge whose two ends are both
// centers is one edge of the answer, not one per center, so a walk by cursor returns it once
// and the pages together hold exactly the edges of the unpaged answer.
func TestNeighborsBothPagesEachEdgeOnce(t *testing.T) {
	engine(t)
	query := func(size int, after string) string {
		return `{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":30}}],"neighbors":{"direction":"both","rel_types":["CONTAINS"]},"cursor":{"page_size":` + fmt.Sprint(size) + after + `}}`
	}
	key := func(e graphresponse.Edge) string {
		return fmt.Sprint(e.From, e.FromID, ">", e.Type, ">", e.To, e.ToID)
	}
	var whole []string
	inner := 0
	for _, e := range run(t, query(1000, ""), admin).Edges {
		whole = append(whole, key(e))
		if e.From == "Group" && e.To == "Group" && e.FromID <= 30 && e.ToID <= 30 {
			inner++
		}
	}
	if inner == 0 {
		t.Fatal("the graph has no CONTAINS edge between two of the centers: the test proves nothing")
	}
	var paged []string
	seen := map[string]bool{}
	after := ""
	for page := 0; page < 500; page++ {
		r := run(t, query(3, after), admin)
		for _, e := range r.Edges {
			k := key(e)
			if seen[k] {
				t.Errorf("page %d repeats edge %s", page, k)
			}
			seen[k] = true
			paged = append(paged, k)
		}
		if !r.Pagination.HasMore {
			break
		}
		if r.Pagination.NextCursor == nil {
			t.Fatal("has_more without next_cursor")
		}
		after = `,"after":"` + *r.Pagination.NextCursor + `"`
	}
	if diff := cmp.Diff(whole, paged); diff != "" {
		t.Errorf("edges of the pages against the unpaged answer (-whole +paged):\n%s", diff)
	}
}
