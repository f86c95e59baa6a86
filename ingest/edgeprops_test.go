package ingest_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ingest"
)

// TestIndexEdgeProperties: an index writes its scope's project_id and branch on the code-graph
// edges (CALLS, DEFINES), and the defaults on an edge type that does not declare them
// (CONTAINS).
func TestIndexEdgeProperties(t *testing.T) {
	e, w := setup(t)
	if _, err := ingest.IndexGraph(t.Context(), w, fileGraph("a", 3), ingest.IndexOptions{Scope: scope, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	rows, err := executor.CollectRows(t.Context(), e, &compiler.Query{SQL: "SELECT relationship_kind, project_id, branch, count() FROM gl_edge FINAL WHERE NOT _deleted GROUP BY ALL ORDER BY ALL"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{"CALLS", int64(1), "main", int64(2)}, {"CONTAINS", int64(0), "", int64(1)}, {"DEFINES", int64(1), "main", int64(3)}}
	if diff := cmp.Diff(want, rows.Values); diff != "" {
		t.Errorf("edges by kind, project and branch (-want +got):\n%s", diff)
	}
}
