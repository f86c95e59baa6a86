package compiler_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

// TestTraversalPathRefusals: traversal_path is a column of namespaced entities only, and it is
// selected, not sorted on, grouped by or aggregated (Orbit lists it as not filterable; its
// filter is the scope-checked prefix filter).
func TestTraversalPathRefusals(t *testing.T) {
	cases := []errCase{
		{name: "global entity column", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username","traversal_path"]}]}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/nodes/0/columns/1"},
		{name: "global entity filter", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"filters":{"traversal_path":{"starts_with":"100/"}}}]}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/nodes/0/filters/traversal_path"},
		{name: "global entity in a traversal", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":["traversal_path"]},{"id":"u","entity":"User","columns":["traversal_path"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}]}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/nodes/1/columns/0"},
		{name: "order_by", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":["traversal_path"]}],"order_by":"mr.traversal_path"}`, wantErr: compiler.ErrNotFilterable, wantPath: "/order_by"},
		{name: "group key", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"group_by":["mr.traversal_path"],"aggregations":[{"count":"mr"}]}`, wantErr: compiler.ErrInvalidAggregation, wantPath: "/group_by/0"},
		{name: "aggregation target", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"max":"mr.traversal_path"}]}`, wantErr: compiler.ErrInvalidAggregation, wantPath: "/aggregations/0/max"},
	}
	runErrCases(t, cases, map[string][]string{
		"global entity column":         {"User is a global entity", "traversal_path"},
		"global entity filter":         {"User is a global entity"},
		"global entity in a traversal": {"User is a global entity"},
		"order_by":                     {"traversal_path", "not sorted on"},
		"group key":                    {"traversal_path cannot be a group key"},
		"aggregation target":           {"cannot aggregate traversal_path"},
	})
}

// TestTraversalPathSelected: naming traversal_path in columns, "*" or dynamic "*" selects the
// table's column; the default columns never include it; its filter still works.
func TestTraversalPathSelected(t *testing.T) {
	c := newCompiler(t)
	tests := []struct {
		name, query string
		want        bool
	}{
		{"named", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":["title","traversal_path"]}]}`, true},
		{"star", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":"*"}]}`, true},
		{"defaults", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}]}`, false},
		{"named with filter", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","columns":["traversal_path"],"filters":{"traversal_path":{"starts_with":"100/"}}}]}`, true},
		{"global star", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":"*"}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := c.Compile([]byte(tt.query), specCaller)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			got := strings.Contains(q.SQL, "traversal_path AS n0_traversal_path")
			if got != tt.want {
				t.Errorf("selects traversal_path = %v, want %v:\n%s", got, tt.want, q.SQL)
			}
		})
	}
	// Dynamic selections: the hydration plan of a neighbors query lists traversal_path for a
	// namespaced kind with dynamic_columns "*" and not with the defaults.
	for _, dyn := range []string{"*", "default"} {
		q, err := c.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1]}],"neighbors":{"direction":"incoming","rel_types":["IN_PROJECT"]},"options":{"dynamic_columns":"`+dyn+`"}}`), specCaller)
		if err != nil {
			t.Fatalf("Compile (%s): %v", dyn, err)
		}
		var found bool
		for _, pk := range q.Plan.Build.Hydration {
			if pk.Entity == "MergeRequest" {
				found = slices.Contains(pk.Dynamic, "traversal_path")
			}
		}
		if found != (dyn == "*") {
			t.Errorf("dynamic_columns %q: MergeRequest hydration has traversal_path = %v", dyn, found)
		}
	}
}
