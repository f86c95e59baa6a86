package parity_test

import (
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// The fixture's merge request 810 has two diffs: 820 (one file) and its latest, 821 (three
// files: back/emit.go and back/write.go with text, docs/big.bin too large, so without text).
// Merge request 811's latest diff 822 has no file loaded.

func prop(t *testing.T, r *graphresponse.Response, typ string, id int64, key string) graphresponse.Value {
	t.Helper()
	for _, n := range r.Nodes {
		if n.Type == typ && n.ID == id {
			v, ok := n.Prop(key)
			if !ok {
				t.Fatalf("%s:%d has no %s: %v", typ, id, key, n.Props)
			}
			return v
		}
	}
	t.Fatalf("no node %s:%d in %v", typ, id, nodeIDs(r))
	return graphresponse.Value{}
}

func TestDerivedDiffText(t *testing.T) {
	latest := "@@ -1 +1 @@\n-old\n+new\n" + "@@ -0,0 +1 @@\n+package back\n" // by path: back/emit.go, back/write.go
	t.Run("MergeRequest.diff is its latest diff's files", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal", "nodes": [{"id": "mr", "entity": "MergeRequest", "node_ids": [810, 811], "columns": ["iid", "title", "state", "diff"]}], "limit": 5}`, scoped)
		if got := prop(t, r, "MergeRequest", 810, "diff"); got.Kind() != graphresponse.KindString || got.Str() != latest {
			t.Errorf("810 diff = %v, want %q", got, latest)
		}
		if got := prop(t, r, "MergeRequest", 811, "diff"); got.Kind() != graphresponse.KindNull {
			t.Errorf("811 diff = %v, want null: none of its diff files is loaded", got)
		}
	})
	t.Run("MergeRequestDiff.patch across a traversal", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal",
			"nodes": [{"id": "mr", "entity": "MergeRequest", "node_ids": [810], "columns": ["iid", "title", "state"]},
			          {"id": "snapshot", "entity": "MergeRequestDiff", "columns": ["state", "patch"]},
			          {"id": "file", "entity": "MergeRequestDiffFile", "columns": ["new_path", "old_path", "too_large", "diff"]}],
			"relationships": [{"type": "HAS_DIFF", "from": "mr", "to": "snapshot"}, {"type": "HAS_FILE", "from": "snapshot", "to": "file"}],
			"limit": 20}`, scoped)
		if got := prop(t, r, "MergeRequestDiff", 821, "patch"); got.Str() != latest {
			t.Errorf("821 patch = %v, want %q", got, latest)
		}
		if got := prop(t, r, "MergeRequestDiffFile", 833, "diff"); got.Kind() != graphresponse.KindNull {
			t.Errorf("833 (too large) diff = %v, want null", got)
		}
	})
	t.Run("MergeRequestDiff.patch", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal", "nodes": [{"id": "d", "entity": "MergeRequestDiff", "node_ids": [820, 821, 822], "columns": ["state", "patch"]}]}`, scoped)
		if got := prop(t, r, "MergeRequestDiff", 820, "patch"); got.Str() != "@@ first attempt @@\n" {
			t.Errorf("820 patch = %v", got)
		}
		if got := prop(t, r, "MergeRequestDiff", 821, "patch"); got.Str() != latest {
			t.Errorf("821 patch = %v, want %q", got, latest)
		}
		if got := prop(t, r, "MergeRequestDiff", 822, "patch"); got.Kind() != graphresponse.KindNull {
			t.Errorf("822 patch = %v, want null", got)
		}
	})
	t.Run("a caller of another namespace reads nothing", func(t *testing.T) {
		// The diff files live with their diff; a caller of another namespace reads neither.
		r := run(t, `{"query_type": "traversal", "nodes": [{"id": "d", "entity": "MergeRequestDiff", "node_ids": [821], "columns": ["patch"]}]}`, other)
		if len(r.Nodes) != 0 {
			t.Errorf("nodes %v, want none", nodeIDs(r))
		}
	})
	t.Run("\"*\" leaves the derived text out", func(t *testing.T) {
		r := run(t, `{"query_type": "traversal", "nodes": [{"id": "mr", "entity": "MergeRequest", "node_ids": [810], "columns": "*"}]}`, scoped)
		if _, ok := r.Nodes[0].Prop("diff"); ok {
			t.Errorf("\"*\" selected diff: %v", r.Nodes[0].Props)
		}
	})
}
