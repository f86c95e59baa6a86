package graphresponse_test

import (
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// TestBuildRepairsText: every string from the engine that is not UTF-8 (a node property, an
// edge kind, an aggregation cell, a property of a node bucket) is repaired, each run of bad
// bytes as one U+FFFD, and counted once in Repaired; valid strings are left as they are.
func TestBuildRepairsText(t *testing.T) {
	traversal := &graphresponse.BuildPlan{
		QueryType: "traversal", FormatVersion: "5.0.1",
		Nodes: []graphresponse.PlanNode{
			{Alias: "u", Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}, {Name: "name", Type: "String"}}},
			{Alias: "g", Entity: "Group", Columns: []graphresponse.PlanColumn{{Name: "name", Type: "String"}}},
		},
		Edges: []graphresponse.PlanEdge{{From: 0, To: 1}},
	}
	aggregation := &graphresponse.BuildPlan{
		QueryType: "aggregation", FormatVersion: "5.0.1",
		Nodes:   []graphresponse.PlanNode{{Alias: "u", Entity: "User", Columns: []graphresponse.PlanColumn{{Name: "username", Type: "String"}}}},
		Groups:  []graphresponse.PlanGroup{{Name: "u", Kind: graphresponse.GroupKindNode, Alias: "u", Entity: "User", Node: 0}, {Name: "state", Kind: graphresponse.GroupKindProperty, Column: "g0", Type: "String"}},
		Metrics: []graphresponse.PlanMetric{{Name: "n", Function: "count", Target: "u", Column: "m0"}},
	}
	tests := []struct {
		name     string
		plan     *graphresponse.BuildPlan
		base     graphresponse.Rows
		want     string
		repaired int
	}{
		{
			name: "traversal",
			plan: traversal,
			base: graphresponse.Rows{Columns: []string{"n0_id", "n0_username", "n0_name", "n1_id", "n1_name", "e0_kind", "e0_fwd", "e0_depth"}, Values: [][]any{
				{int64(1), "al\xff\xfeice", "Alice ü", int64(2), "\xc3", "MEMBER\x80OF", true, uint8(1)},
			}},
			want:     `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","name":"Alice ü","username":"al` + "\uFFFD" + `ice"},{"type":"Group","id":"2","name":"` + "\uFFFD" + `"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"2","type":"MEMBER` + "\uFFFD" + `OF"}],"pagination":{"has_more":false,"truncated":false}}`,
			repaired: 3,
		},
		{
			name: "aggregation",
			plan: aggregation,
			base: graphresponse.Rows{Columns: []string{"n0_id", "n0_username", "g0", "m0"}, Values: [][]any{
				{int64(1), "b\xffb", "open\xff", int64(2)},
				{int64(2), "ok", "closed", int64(1)},
			}},
			want:     `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],"columns":[{"name":"n","function":"count","target":"u"}],"group_columns":[{"name":"u","kind":"node","node":"u","entity":"User"},{"name":"state","kind":"property","node":""}],"rows":[{"u":{"type":"User","id":"1","properties":{"username":"b` + "\uFFFD" + `b"}},"state":"open` + "\uFFFD" + `","n":2},{"u":{"type":"User","id":"2","properties":{"username":"ok"}},"state":"closed","n":1}],"pagination":{"has_more":false,"truncated":false}}`,
			repaired: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := graphresponse.Build(tt.plan, tt.base, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(graphresponse.Marshal(r)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if r.Repaired != tt.repaired {
				t.Errorf("Repaired = %d, want %d", r.Repaired, tt.repaired)
			}
		})
	}
}

// BenchmarkBuildTraversal builds a page of 10,000 traversal rows with two text properties
// each; the UTF-8 repair pass of Build is part of it.
func BenchmarkBuildTraversal(b *testing.B) {
	plan := &graphresponse.BuildPlan{
		QueryType: "traversal", FormatVersion: "5.0.1",
		Nodes: []graphresponse.PlanNode{{Alias: "mr", Entity: "MergeRequest", Columns: []graphresponse.PlanColumn{{Name: "title", Type: "String"}, {Name: "description", Type: "String"}}}},
	}
	rows := graphresponse.Rows{Columns: []string{"n0_id", "n0_title", "n0_description"}}
	for i := range 10000 {
		rows.Values = append(rows.Values, []any{int64(i), "Fix the flaky pipeline on main", "A description of a merge request, long enough to matter: ü, ∑, and some more text."})
	}
	for b.Loop() {
		if _, err := graphresponse.Build(plan, rows, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMapStrings: f reaches strings at any depth (keys only when asked), the changed ones are
// counted, the value given is never changed in place, and a value f changes nothing in is
// returned without allocating.
func TestMapStrings(t *testing.T) {
	s, arr, obj := graphresponse.String, graphresponse.Array, graphresponse.Object
	mb := func(k string, v graphresponse.Value) graphresponse.Member {
		return graphresponse.Member{Key: k, Value: v}
	}
	in := arr(s("a"), obj(mb("x", s("b")), mb("y", arr(s("a"), graphresponse.Int(1)))), obj(mb("a", s("c"))))
	before := string(graphresponse.AppendValueJSON(nil, in))
	upA := func(x string) (string, bool) {
		if x == "a" {
			return "A", true
		}
		return x, false
	}
	for _, tt := range []struct {
		keys bool
		want string
		n    int
	}{
		{false, `["A",{"x":"b","y":["A",1]},{"a":"c"}]`, 2},
		{true, `["A",{"x":"b","y":["A",1]},{"A":"c"}]`, 3},
	} {
		got, n := graphresponse.MapStrings(in, tt.keys, upA)
		if js := string(graphresponse.AppendValueJSON(nil, got)); js != tt.want || n != tt.n {
			t.Errorf("keys %v: got %s, %d; want %s, %d", tt.keys, js, n, tt.want, tt.n)
		}
		if after := string(graphresponse.AppendValueJSON(nil, in)); after != before {
			t.Errorf("keys %v: the value given changed: %s, was %s", tt.keys, after, before)
		}
	}
	none := func(x string) (string, bool) { return x, false }
	if allocs := testing.AllocsPerRun(100, func() { graphresponse.MapStrings(in, true, none) }); allocs != 0 {
		t.Errorf("MapStrings changing nothing allocated %v times per run, want 0", allocs)
	}
}
