package orbit_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestEdgePropertyFilter is Orbit's edge-property case: code-graph edges carry the project
// (and branch) they were indexed for, and a relationship filter on project_id or branch keeps
// only those edges. The test adds decoy CALLS edges (every seeded call of one project
// reversed, where no such edge exists) under the same traversal_path and between the same
// definitions, but with another project_id and branch, and tombstones them when it ends; the
// filtered answer must be exactly the edges stored with the named value, decoys excluded.
func TestEdgePropertyFilter(t *testing.T) {
	e := engine(t)
	project := plain(t, "SELECT toString(min(project_id)) FROM gl_edge "+live+" AND relationship_kind = 'CALLS' AND project_id != 0")[0][0].(string)
	version := plain(t, "SELECT toString(max(_version) + 1) FROM gl_edge")[0][0].(string)
	// The decoys are read first and written as values: an INSERT … SELECT over the graph's
	// tables is not what a Distributed table (a cluster) takes. The clean-up is registered
	// first, so that a write that fails half-way is undone too.
	t.Cleanup(func() {
		if err := e.Exec(context.Background(), "INSERT INTO gl_edge SELECT * REPLACE (_version + 1 AS _version, true AS _deleted) FROM (SELECT * FROM gl_edge "+live+" AND project_id = 424242)"); err != nil {
			t.Error(err)
		}
	})
	decoys := plain(t, "SELECT traversal_path, relationship_kind, target_kind, toString(target_id), source_kind, toString(source_id) FROM gl_edge "+live+
		" AND relationship_kind = 'CALLS' AND source_kind = 'Definition' AND target_kind = 'Definition' AND project_id = "+project+
		" AND (traversal_path, target_kind, target_id, source_kind, source_id) NOT IN (SELECT traversal_path, source_kind, source_id, target_kind, target_id FROM gl_edge "+live+" AND relationship_kind = 'CALLS')")
	if len(decoys) == 0 {
		t.Fatal("no CALLS edge of the project has no reverse edge: nothing to make a decoy of")
	}
	var values []string
	for _, r := range decoys {
		values = append(values, fmt.Sprintf("('%s', '%s', '%s', %s, '%s', %s, 424242, 'decoy', %s, false)", r[0], r[1], r[2], r[3], r[4], r[5], version))
	}
	if err := e.Exec(t.Context(), "INSERT INTO gl_edge (traversal_path, relationship_kind, source_kind, source_id, target_kind, target_id, project_id, branch, _version, _deleted) VALUES "+
		strings.Join(values, ", ")); err != nil {
		t.Fatal(err)
	}
	defs := "AND source_id IN (SELECT id FROM gl_definition " + live + " AND project_id = " + project + ")"
	all := plain(t, "SELECT count() FROM ("+edgeSQL("CALLS", "Definition", "gl_definition", "Definition", "gl_definition", defs)+")")[0][0]
	mine := plain(t, "SELECT count() FROM ("+edgeSQL("CALLS", "Definition", "gl_definition", "Definition", "gl_definition", defs+" AND project_id = "+project)+")")[0][0]
	if all == mine {
		t.Fatalf("no decoy edge was added (%v CALLS edges): the filter would prove nothing", all)
	}
	node := `{"id":"a","entity":"Definition","filters":{"project_id":` + project + `}},{"id":"b","entity":"Definition"}`
	runExamples(t, []example{{
		name:    "calls of one project, by edge project_id",
		query:   `{"query_type":"traversal","nodes":[` + node + `],"relationships":[{"type":"CALLS","from":"a","to":"b","filters":{"project_id":` + project + `}}],"limit":1000}`,
		oracle:  edgeSQL("CALLS", "Definition", "gl_definition", "Definition", "gl_definition", defs+" AND project_id = "+project),
		extract: edges,
	}, {
		name:    "the decoys, by edge branch",
		query:   `{"query_type":"traversal","nodes":[` + node + `],"relationships":[{"type":"CALLS","from":"a","to":"b","filters":{"branch":"decoy"}}],"limit":1000}`,
		oracle:  edgeSQL("CALLS", "Definition", "gl_definition", "Definition", "gl_definition", defs+" AND branch = 'decoy'"),
		extract: edges,
	}})
}
