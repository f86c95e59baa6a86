package parity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNeighborsKeepReadableCenter: user 800 was loaded live, then tombstoned by a later load;
// its AUTHORED edge to merge request 812 stays. The neighbors of 812 have no live neighbor,
// but 812 itself is readable: the answer holds 812 and no edge (the edge's other end is
// deleted, so the edge is not followed, as in a traversal).
func TestNeighborsKeepReadableCenter(t *testing.T) {
	q := `{"query_type": "neighbors", "nodes": [{"id": "mr", "entity": "MergeRequest", "node_ids": [812]}],
		"neighbors": {"direction": "both"}}`
	r := run(t, q, scoped)
	if diff := cmp.Diff([]string{"MergeRequest:812"}, nodeIDs(r)); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
	if len(r.Edges) != 0 {
		t.Errorf("edges %v, want none: the author is deleted", edgeKeys(r))
	}
	// The traversal counterpart agrees: no AUTHORED edge from a live user.
	tr := run(t, `{"query_type": "traversal",
		"nodes": [{"id": "u", "entity": "User"}, {"id": "mr", "entity": "MergeRequest", "node_ids": [812]}],
		"relationships": [{"type": "AUTHORED", "from": "u", "to": "mr"}]}`, scoped)
	if len(tr.Nodes) != 0 || len(tr.Edges) != 0 {
		t.Errorf("traversal: nodes %v edges %v, want none", nodeIDs(tr), edgeKeys(tr))
	}
	// A caller who may not read 812 gets nothing, not even the center.
	if r := run(t, q, other); len(r.Nodes) != 0 || len(r.Edges) != 0 {
		t.Errorf("unreadable center: nodes %v edges %v, want none", nodeIDs(r), edgeKeys(r))
	}
	// Neither does a center that does not exist.
	if r := run(t, `{"query_type": "neighbors", "nodes": [{"id": "mr", "entity": "MergeRequest", "node_ids": [899]}],
		"neighbors": {"direction": "both"}}`, admin); len(r.Nodes) != 0 {
		t.Errorf("missing center: nodes %v, want none", nodeIDs(r))
	}
}

// TestNeighborsCenterWithNeighbors: with a live neighbor the center comes once, with the edge.
func TestNeighborsCenterWithNeighbors(t *testing.T) {
	r := run(t, `{"query_type": "neighbors", "nodes": [{"id": "d", "entity": "Definition", "node_ids": [500, 501]}],
		"neighbors": {"direction": "outgoing", "rel_types": ["CALLS"]}}`, admin)
	if diff := cmp.Diff([]string{"Definition:500", "Definition:501", "Definition:502"}, nodeIDs(r)); diff != "" {
		t.Errorf("nodes (-want +got):\n%s", diff)
	}
}
