package parity_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
)

// The fixture's code graph: project 100 (1/10/100/) has parse 500 → lower 501 → emit 502 by
// CALLS; project 101 (1/11/101/) has its own parse 600 and emit 602, and a decoy CALLS edge
// 501 → 602 stored under 101's path although 501 lives in project 100. Orbit joins code-graph
// edges to their ends on id and traversal_path, so the decoy leads nowhere: not in a path, a
// walk, a traversal or a neighborhood. (A load refuses such an edge, so the fixture loads it
// with a copy of 501 under 101's path, which testdata/later deletes.)

func TestBoundEdgesPathFinding(t *testing.T) {
	for _, caller := range []string{"admin", "scoped"} {
		t.Run(caller, func(t *testing.T) {
			c := admin
			if caller == "scoped" {
				c = scoped
			}
			r := run(t, `{"query_type": "path_finding",
				"nodes": [{"id": "s", "entity": "Definition", "filters": {"name": "parse"}},
				          {"id": "e", "entity": "Definition", "filters": {"name": "emit"}}],
				"path": {"type": "shortest", "from": "s", "to": "e", "max_depth": 3, "rel_types": ["CALLS"]},
				"limit": 10}`, c)
			if diff := cmp.Diff([][]int64{{500, 501, 502}}, paths(t, r)); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBoundEdgesPathFindingAnyType(t *testing.T) {
	// With every relationship type, the CALLS edges bind while others would not.
	r := run(t, `{"query_type": "path_finding",
		"nodes": [{"id": "s", "entity": "Definition", "node_ids": [501]},
		          {"id": "e", "entity": "Definition", "node_ids": [502, 602]}],
		"path": {"type": "shortest", "from": "s", "to": "e", "max_depth": 2, "rel_types": ["*"]}}`, admin)
	if diff := cmp.Diff([][]int64{{501, 502}}, paths(t, r)); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

func TestBoundEdgesTraversal(t *testing.T) {
	for name, q := range map[string]string{
		"outgoing": `{"query_type": "traversal",
			"nodes": [{"id": "a", "entity": "Definition", "node_ids": [501]}, {"id": "b", "entity": "Definition"}],
			"relationships": [{"type": "CALLS", "from": "a", "to": "b"}]}`,
		"incoming from the far side": `{"query_type": "traversal",
			"nodes": [{"id": "a", "entity": "Definition", "filters": {"name": "lower"}}, {"id": "b", "entity": "Definition", "node_ids": [502, 602]}],
			"relationships": [{"type": "CALLS", "from": "a", "to": "b"}]}`,
		"mixed types": `{"query_type": "traversal",
			"nodes": [{"id": "a", "entity": "Definition", "node_ids": [501]}, {"id": "b", "entity": "Definition"}],
			"relationships": [{"type": "*", "from": "a", "to": "b"}]}`,
		"variable length": `{"query_type": "traversal",
			"nodes": [{"id": "a", "entity": "Definition", "node_ids": [500]}, {"id": "b", "entity": "Definition", "node_ids": [502, 602]}],
			"relationships": [{"type": "CALLS", "from": "a", "to": "b", "hops": [1, 3]}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := run(t, q, scoped)
			for _, id := range nodeIDs(r) {
				if id == "Definition:602" {
					t.Errorf("the decoy edge was followed: nodes %v, edges %v", nodeIDs(r), edgeKeys(r))
				}
			}
			if len(r.Edges) == 0 {
				t.Errorf("no edges: the bound edge to 502 should be followed")
			}
		})
	}
}

// TestBoundEdgesWalkSharedSteps is the variable-length walk of TestBoundEdgesTraversal
// compiled with the fixture's table sizes, where its steps share one edge scan over every
// readable Definition (docs/compiler.md, "SQL shapes", rule 7): the decoy must stay
// unfollowed there too, and the answer must be the one of separate steps.
func TestBoundEdgesWalkSharedSteps(t *testing.T) {
	engine(t)
	q := `{"query_type": "traversal",
		"nodes": [{"id": "a", "entity": "Definition", "node_ids": [500]}, {"id": "b", "entity": "Definition", "node_ids": [502, 602]}],
		"relationships": [{"type": "CALLS", "from": "a", "to": "b", "hops": [1, 3]}]}`
	for _, caller := range []*compiler.Caller{admin, scoped} {
		c, err := env.sized.Compile([]byte(q), caller)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(c.SQL, "h0e") {
			t.Fatalf("the sized compiler did not share the walk's steps:\n%s", c.SQL)
		}
		got, want := runWith(t, env.sized, q, caller), run(t, q, caller)
		if diff := cmp.Diff(edgeKeys(want), edgeKeys(got)); diff != "" {
			t.Errorf("caller %s: edges of shared steps (-separate +shared):\n%s", caller.Subject, diff)
		}
		if len(got.Edges) == 0 {
			t.Errorf("caller %s: no edges: the bound walk to 502 should be followed", caller.Subject)
		}
		for _, id := range nodeIDs(got) {
			if id == "Definition:602" {
				t.Errorf("caller %s: the decoy edge was followed: nodes %v, edges %v", caller.Subject, nodeIDs(got), edgeKeys(got))
			}
		}
	}
}

func TestBoundEdgesAggregation(t *testing.T) {
	r := run(t, `{"query_type": "aggregation",
		"nodes": [{"id": "a", "entity": "Definition", "node_ids": [501]}, {"id": "b", "entity": "Definition"}],
		"relationships": [{"type": "CALLS", "from": "a", "to": "b"}],
		"aggregations": [{"count": "b", "as": "callees"}]}`, admin)
	if len(r.Rows) != 1 {
		t.Fatalf("rows %v, want one", r.Rows)
	}
	v, ok := r.Rows[0].Get("callees")
	if got := v.Int(); !ok || got != 1 {
		t.Errorf("callees of 501 = %v, want 1 (502; the decoy to 602 is not followed)", r.Rows[0])
	}
}

func TestBoundEdgesNeighbors(t *testing.T) {
	r := run(t, `{"query_type": "neighbors",
		"nodes": [{"id": "c", "entity": "Definition", "node_ids": [501]}],
		"neighbors": {"direction": "both", "rel_types": ["CALLS"]}}`, admin)
	want := []string{"Definition:500-CALLS->Definition:501", "Definition:501-CALLS->Definition:502"}
	if diff := cmp.Diff(want, edgeKeys(r)); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	// From the decoy's far end: 602's only incoming edge is the decoy.
	r = run(t, `{"query_type": "neighbors",
		"nodes": [{"id": "c", "entity": "Definition", "node_ids": [602]}],
		"neighbors": {"direction": "incoming", "rel_types": ["CALLS"]}}`, admin)
	if len(r.Edges) != 0 {
		t.Errorf("edges %v, want none", edgeKeys(r))
	}
}
