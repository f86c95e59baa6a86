package compiler_test

import (
	"strings"
	"testing"
)

// TestSingleNodeReadsItsTable: a traversal of one node is one select that reads the table
// itself (no CTE for the engine to analyse and plan), with the filters after FINAL, the
// cursor's seek on id ahead of FINAL with the scope, and a seek on another column after FINAL;
// lazy materialization is off unless a text column is left to read after the limit; an
// aggregation of one node groups and seeks (HAVING, on its own aliases) on the scan too; a
// traversal or aggregation with a relationship keeps its CTEs.
func TestSingleNodeReadsItsTable(t *testing.T) {
	c := newCompiler(t)
	search := `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","title":{"contains":"fix"}},"columns":["merged_at"]}],"order_by":"-mr.merged_at"`
	page := func(base, keys string) string {
		t.Helper()
		q, err := c.Compile([]byte(base+`,"cursor":{"page_size":2}}`), specCaller)
		if err != nil {
			t.Fatal(err)
		}
		tok := q.Plan.Build.SignCursor([]byte(`{"h":"` + q.Plan.Build.QueryHash + `","k":` + keys + `}`))
		q, err = c.Compile([]byte(base+`,"cursor":{"page_size":2,"after":"`+tok+`"}}`), specCaller)
		if err != nil {
			t.Fatal(err)
		}
		return q.SQL
	}
	compile := func(query string) string {
		t.Helper()
		q, err := c.Compile([]byte(query), specCaller)
		if err != nil {
			t.Fatal(err)
		}
		return q.SQL
	}
	tests := []struct {
		name, sql string
		want      []string // clauses, in this order
		not       []string
	}{
		{"search", compile(search + `}`), []string{
			"SELECT t.id AS n0_id, t.merged_at AS n0_merged_at\nFROM gl_merge_request AS t FINAL\n",
			"PREWHERE startsWith(t.traversal_path, {p0:String})\n",
			"WHERE t._deleted = false AND t.state = {p1:String} AND positionCaseInsensitiveUTF8(t.title, {p2:String}) > 0\n",
			"ORDER BY t.merged_at DESC NULLS LAST, t.id ASC\n",
			"SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, query_plan_optimize_lazy_materialization = 0",
		}, []string{"WITH", "n0."}},
		{"search, second page", page(search, `["2024-01-01 00:00:00","5"]`), []string{
			"FROM gl_merge_request AS t FINAL\nPREWHERE startsWith(t.traversal_path, {p0:String})\n",
			"WHERE t._deleted = false AND t.state = {p1:String} AND positionCaseInsensitiveUTF8(t.title, {p2:String}) > 0 AND ((t.merged_at < {p3:",
		}, []string{"WITH", "n0."}},
		{"by id, second page", page(mrSearch, `["5"]`), []string{
			"FROM gl_merge_request AS t FINAL\n",
			"PREWHERE startsWith(t.traversal_path, {p0:String}) AND t.id = {p1:Int64} AND t.id > {p2:Int64}\n",
			"WHERE t._deleted = false\n",
		}, []string{"WITH", "n0."}},
		{"numbers left to read", compile(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"contains":"fix"}},"columns":["title","iid","merged_at","draft"]}]}`), []string{
			"FROM gl_merge_request AS t FINAL\n",
			", query_plan_optimize_lazy_materialization = 0",
		}, []string{"WITH"}},
		{"text left to read", compile(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"},"columns":["iid","description"]}],"order_by":"-mr.merged_at"}`), []string{
			"FROM gl_merge_request AS t FINAL\n",
		}, []string{"WITH", "lazy"}},
		{"aggregation, second page", page(`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"draft":false}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"},{"max":"mr.iid"}],"aggregation_sort":"-count_mr"`, `["5","merged"]`), []string{
			"SELECT t.state AS g0, count() AS m0, maxOrNull(t.iid) AS m1, toString(m0) AS _k0, toString(g0) AS _k1\nFROM gl_merge_request AS t FINAL\n",
			"PREWHERE startsWith(t.traversal_path, {p0:String})\nWHERE t._deleted = false AND t.draft = {p1:Bool}\nGROUP BY t.state\n",
			"HAVING (m0 < {p2:Int64} OR m0 = {p2:Int64} AND g0 > {p3:String})\nORDER BY m0 DESC, g0 ASC\n",
		}, []string{"WITH", "n0."}},
		{"aggregation over a hop", compile(`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}]}`),
			[]string{"WITH\n", "INNER JOIN n1 ON", "enable_join_runtime_filters = 0"}, nil},
		{"one hop", compile(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}]}`),
			[]string{"WITH\n", "FROM n0\n"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rest := tt.sql
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("no %q in order in\n%s", w, tt.sql)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range tt.not {
				if strings.Contains(tt.sql, n) {
					t.Errorf("%q in\n%s", n, tt.sql)
				}
			}
		})
	}
}
