package parity_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
)

// The fixture's files 700–704: 701 and 702 mention ClickHouse, 703 is binary (no content).
const fileIDs = `[700, 701, 702, 703, 704]`

func TestVirtualContentFilters(t *testing.T) {
	tests := []struct {
		name, filter string
		want         []string
	}{
		{"contains", `{"content": {"contains": "ClickHouse"}}`, []string{"File:701", "File:702"}},
		{"starts_with", `{"content": {"starts_with": "package engine // talks"}}`, []string{"File:701"}},
		{"ends_with", `{"content": {"ends_with": "via chDB"}}`, []string{"File:702"}},
		{"eq", `{"content": "nothing to see"}`, []string{"File:704"}},
		{"eq operator", `{"content": {"eq": "nothing to see"}}`, []string{"File:704"}},
		{"is_null: a binary file", `{"content": {"is_null": true}}`, []string{"File:703"}},
		{"is_not_null", `{"content": {"is_not_null": true}}`, []string{"File:700", "File:701", "File:702", "File:704"}},
		{"with another filter", `{"content": {"contains": "ClickHouse"}, "name": "chdb.go"}`, []string{"File:702"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, `{"query_type": "traversal", "nodes": [{"id": "f", "entity": "File", "node_ids": `+fileIDs+`, "filters": `+tt.filter+`}]}`, scoped)
			if diff := cmp.Diff(tt.want, nodeIDs(r)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("Definition.content", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal", "nodes": [{"id": "d", "entity": "Definition", "node_ids": [500, 501, 502], "filters": {"content": {"contains": "walk("}}}]}`, scoped)
		if diff := cmp.Diff([]string{"Definition:501"}, nodeIDs(r)); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
	})
	t.Run("on the far node of a traversal", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal",
			"nodes": [{"id": "a", "entity": "Definition", "node_ids": [500]}, {"id": "b", "entity": "Definition", "node_ids": [501, 502], "filters": {"content": {"starts_with": "func lower"}}}],
			"relationships": [{"type": "CALLS", "from": "a", "to": "b"}]}`, scoped)
		if diff := cmp.Diff([]string{"Definition:500", "Definition:501"}, nodeIDs(r)); diff != "" {
			t.Errorf("nodes (-want +got):\n%s", diff)
		}
	})
}

func TestVirtualContentFiltersRefused(t *testing.T) {
	tests := []struct {
		name, query string
		want        error
		path        string
	}{
		{"without node_ids", `{"query_type": "traversal", "nodes": [{"id": "f", "entity": "File", "filters": {"name": "chdb.go", "content": {"contains": "ClickHouse"}}}]}`, compiler.ErrNotSelective, "/nodes/0/filters/content"},
		{"id_range is not enough", `{"query_type": "traversal", "nodes": [{"id": "f", "entity": "File", "id_range": {"start": 700, "end": 704}, "filters": {"content": {"contains": "ClickHouse"}}}]}`, compiler.ErrNotSelective, "/nodes/0/filters/content"},
		{"an operator Orbit does not offer", `{"query_type": "traversal", "nodes": [{"id": "f", "entity": "File", "node_ids": [701], "filters": {"content": {"gt": "a"}}}]}`, compiler.ErrOperatorNotAllowed, "/nodes/0/filters/content/gt"},
		{"in", `{"query_type": "traversal", "nodes": [{"id": "f", "entity": "File", "node_ids": [701], "filters": {"content": ["a", "b"]}}]}`, compiler.ErrOperatorNotAllowed, "/nodes/0/filters/content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ce := compileErr(t, tt.query, scoped)
			if !errors.Is(ce, tt.want) || ce.Path != tt.path {
				t.Errorf("error %s (%s), want %s at %s", ce.Reason(), ce.Error(), tt.want, tt.path)
			}
		})
	}
}
