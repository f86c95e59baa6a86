package graphresponse_test

import (
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/graphresponse"
)

type date struct{ s string }

func (d date) String() string { return d.s }

func TestBuild(t *testing.T) {
	const big = int64(9007199254740993)
	traversal := &graphresponse.BuildPlan{
		QueryType: "traversal", PageSize: 2, FormatVersion: "5.0.1",
		Nodes: []graphresponse.PlanNode{
			{Alias: "u", Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}}},
			{Alias: "mr", Entity: "MergeRequest", Columns: []graphresponse.PlanColumn{{Name: "merged_at", Type: "DateTime64(0, 'UTC')"}}},
		},
		Edges: []graphresponse.PlanEdge{{From: 1, To: 0, Depth: true}},
	}
	trCols := []string{"n0_id", "n0_username", "n1_id", "n1_merged_at", "e0_kind", "e0_fwd", "e0_depth"}
	merged := time.Date(2026, 3, 2, 14, 5, 11, 0, time.UTC)
	tests := []struct {
		name    string
		plan    *graphresponse.BuildPlan
		base    graphresponse.Rows
		hyd     *graphresponse.Rows
		want    string
		wantErr error
	}{
		{
			name: "traversal dedups nodes and edges, reverses incoming edges, drops the probe",
			plan: traversal,
			base: graphresponse.Rows{Columns: trCols, Values: [][]any{
				{int64(1), "alice", big, merged, "AUTHORED", false, uint8(1)},
				{int64(1), "alice", big, merged, "AUTHORED", false, uint8(1)},
				{int64(2), "bob", int64(3), nil, "AUTHORED", false, uint8(2)},
			}},
			want: `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"alice"},{"type":"MergeRequest","id":"9007199254740993","merged_at":"2026-03-02T14:05:11Z"}],"edges":[{"from":"User","from_id":"1","to":"MergeRequest","to_id":"9007199254740993","type":"AUTHORED","depth":1}],"pagination":{"has_more":true,"truncated":true}}`,
		},
		{
			name: "traversal keeps nulls",
			plan: traversal,
			base: graphresponse.Rows{Columns: trCols, Values: [][]any{
				{int64(2), nil, int64(3), nil, "AUTHORED", true, uint8(1)},
			}},
			want: `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"2","username":null},{"type":"MergeRequest","id":"3","merged_at":null}],"edges":[{"from":"MergeRequest","from_id":"3","to":"User","to_id":"2","type":"AUTHORED","depth":1}],"pagination":{"has_more":false,"truncated":false}}`,
		},
		{
			name:    "traversal with a missing column",
			plan:    traversal,
			base:    graphresponse.Rows{Columns: trCols[:3], Values: [][]any{{int64(1), "a", int64(2)}}},
			wantErr: graphresponse.ErrBuild,
		},
		{
			name: "aggregation",
			plan: &graphresponse.BuildPlan{
				QueryType: "aggregation", PageSize: 10, FormatVersion: "5.0.1",
				Nodes: []graphresponse.PlanNode{
					{Alias: "pl", Entity: "Pipeline"},
					{Alias: "p", Entity: "Project", Columns: []graphresponse.PlanColumn{{Name: "name", Type: "String"}}},
				},
				Groups: []graphresponse.PlanGroup{
					{Name: "p", Kind: "node", Alias: "p", Entity: "Project", Node: 1, Column: "n1_id"},
					{Name: "pl_created_at_month", Kind: "property", Alias: "pl", Entity: "Pipeline", Property: "created_at", Column: "g1", Type: "Date32"},
				},
				Metrics: []graphresponse.PlanMetric{
					{Name: "count_pl", Function: "count", Target: "pl", Column: "m0"},
					{Name: "avg_duration", Function: "avg", Target: "pl", Property: "duration", Column: "m1"},
				},
			},
			base: graphresponse.Rows{Columns: []string{"n1_id", "n1_name", "g1", "m0", "m1"}, Values: [][]any{
				{int64(1000), "api", date{"2026-06-01"}, int64(2), 312.5},
				{int64(1001), "web", date{"2026-05-01"}, int64(1), nil},
			}},
			want: `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],"columns":[{"name":"count_pl","function":"count","target":"pl"},{"name":"avg_duration","function":"avg","target":"pl","property":"duration"}],"group_columns":[{"name":"p","kind":"node","node":"p","entity":"Project"},{"name":"pl_created_at_month","kind":"property","node":"pl","property":"created_at","entity":"Pipeline"}],"rows":[{"p":{"type":"Project","id":"1000","properties":{"name":"api"}},"pl_created_at_month":"2026-06-01","count_pl":2,"avg_duration":312.5},{"p":{"type":"Project","id":"1001","properties":{"name":"web"}},"pl_created_at_month":"2026-05-01","count_pl":1,"avg_duration":null}],"pagination":{"has_more":false,"truncated":false}}`,
		},
		{
			name: "paths: numbering, duplicate paths skipped, hydration drop",
			plan: &graphresponse.BuildPlan{
				QueryType: "path_finding", PageSize: 5, FormatVersion: "5.0.1", PathFrom: 0, PathTo: 1,
				Nodes: []graphresponse.PlanNode{
					{Alias: "u", Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}}},
					{Alias: "p", Entity: "Project", Columns: []graphresponse.PlanColumn{}},
				},
				Hydration: []graphresponse.PlanKind{
					{Entity: "Group", Columns: []graphresponse.PlanColumn{{Name: "name", Type: "String"}, {Name: "archived", Type: "Bool"}}, Dynamic: []string{"name"}},
					{Entity: "Project", Columns: []graphresponse.PlanColumn{{Name: "star_count", Type: "Int64"}}, Dynamic: []string{"star_count"}},
					{Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}}, Dynamic: []string{"username"}},
				},
			},
			base: graphresponse.Rows{Columns: []string{"depth", "path_nodes", "path_kinds"}, Values: [][]any{
				{uint8(1), []any{[]any{int64(1), "User"}, []any{int64(1000), "Project"}}, []any{"MEMBER_OF"}},
				{uint8(1), []any{[]any{int64(1), "User"}, []any{int64(1000), "Project"}}, []any{"MEMBER_OF"}},
				{uint8(2), []any{[]any{int64(1), "User"}, []any{int64(666), "Group"}, []any{int64(1000), "Project"}}, []any{"MEMBER_OF", "CONTAINS"}},
				{uint8(2), []any{[]any{int64(1), "User"}, []any{int64(101), "Group"}, []any{int64(1000), "Project"}}, []any{"MEMBER_OF", "CONTAINS"}},
			}},
			hyd: &graphresponse.Rows{Columns: []string{"kind", "id", "props"}, Values: [][]any{
				{"User", int64(1), []any{"alice"}},
				{"Project", int64(1000), []any{"7"}},
				{"Group", int64(101), []any{"platform", "false"}},
			}},
			want: `{"format_version":"5.0.1","query_type":"path_finding","nodes":[{"type":"User","id":"1","username":"alice"},{"type":"Project","id":"1000"},{"type":"Group","id":"101","name":"platform"}],"edges":[{"from":"User","from_id":"1","to":"Project","to_id":"1000","type":"MEMBER_OF","path_id":0,"step":0},{"from":"User","from_id":"1","to":"Group","to_id":"101","type":"MEMBER_OF","path_id":1,"step":0},{"from":"Group","from_id":"101","to":"Project","to_id":"1000","type":"CONTAINS","path_id":1,"step":1}],"pagination":{"has_more":false,"truncated":false}}`,
		},
		{
			name: "neighbors with cursor",
			plan: &graphresponse.BuildPlan{
				QueryType: "neighbors", PageSize: 2, Paginate: true, SortKeys: 2, QueryHash: "cd915f8db181d017", FormatVersion: "5.0.1",
				Nodes: []graphresponse.PlanNode{{Alias: "mr", Entity: "MergeRequest", Columns: []graphresponse.PlanColumn{{Name: "iid", Type: "Int64"}}}},
				Hydration: []graphresponse.PlanKind{
					{Entity: "MergeRequest", Columns: []graphresponse.PlanColumn{{Name: "iid", Type: "Int64"}, {Name: "merged_at", Type: "DateTime64(0, 'UTC')"}}, Dynamic: []string{"merged_at"}},
					{Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}}, Dynamic: []string{"username"}},
				},
			},
			base: graphresponse.Rows{Columns: []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing", "_k0", "_k1"}, Values: [][]any{
				{int64(10452), int64(1), "User", "AUTHORED", false, "10452", "AUTHORED"},
				{int64(10452), int64(10452), "MergeRequest", "RELATED", true, "10452", nil},
				{int64(10452), int64(2), "User", "REVIEWER", false, "10452", "REVIEWER"},
			}},
			hyd: &graphresponse.Rows{Columns: []string{"kind", "id", "props"}, Values: [][]any{
				{"MergeRequest", int64(10452), []any{"311", "2026-03-02 14:05:11"}},
				{"User", int64(1), []any{nil}},
			}},
			want: `{"format_version":"5.0.1","query_type":"neighbors","nodes":[{"type":"MergeRequest","id":"10452","iid":311},{"type":"User","id":"1","username":null}],"edges":[{"from":"User","from_id":"1","to":"MergeRequest","to_id":"10452","type":"AUTHORED"},{"from":"MergeRequest","from_id":"10452","to":"MergeRequest","to_id":"10452","type":"RELATED"}],"pagination":{"has_more":true,"truncated":true,"next_cursor":"` +
				base64.RawURLEncoding.EncodeToString([]byte(`{"h":"cd915f8db181d017","k":["10452",null]}`)) + `"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := graphresponse.Build(tt.plan, tt.base, tt.hyd)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Build error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b := graphresponse.Marshal(got)
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("Build mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNodeRefs(t *testing.T) {
	plan := &graphresponse.BuildPlan{QueryType: "neighbors", PageSize: 1, Nodes: []graphresponse.PlanNode{{Entity: "MergeRequest"}}}
	base := graphresponse.Rows{Columns: []string{"center_id", "nbr_id", "nbr_kind"}, Values: [][]any{
		{int64(5), int64(1), "User"},
		{int64(5), int64(2), "User"}, // probe: not hydrated
	}}
	got, err := plan.NodeRefs(base)
	if err != nil {
		t.Fatal(err)
	}
	want := []graphresponse.NodeRef{{Kind: "MergeRequest", ID: 5}, {Kind: "User", ID: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NodeRefs mismatch (-want +got):\n%s", diff)
	}
}
