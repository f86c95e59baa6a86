package compilertest_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// granulesRE is a line of EXPLAIN indexes = 1 giving the granules an index left of those it
// was given.
var granulesRE = regexp.MustCompile(`Granules: (\d+)/(\d+)`)

// TestSeededEdgeReadsUseThePrimaryKey checks that an admin's edge scan seeded by a few ids, in
// the form the compiler writes it, reads only the granules of those ids: both edge tables are
// sorted by relationship type and the (kind, id) of the end they are read from, ahead of
// traversal_path (ontology edgeDDL, docs/duckdb.md "What each read costs"). When
// traversal_path led the key, a read without a scope prefix could not use the key past it and
// the primary key kept most of the table.
func TestSeededEdgeReadsUseThePrimaryKey(t *testing.T) {
	engine(t)
	if env.embedded == nil {
		t.Skip("the embedded engine is not open")
	}
	for _, tt := range []struct {
		table, sql string
	}{
		{"gl_edge", "SELECT t.target_id FROM gl_edge AS t FINAL PREWHERE t.relationship_kind = 'AUTHORED' AND t.source_kind = 'User' AND t.target_kind = 'MergeRequest' AND t.source_id IN (1, 2) WHERE t._deleted = false"},
		{"gl_edge_by_target", "SELECT t.source_id FROM gl_edge_by_target AS t FINAL PREWHERE t.relationship_kind = 'AUTHORED' AND t.source_kind = 'User' AND t.target_kind = 'MergeRequest' AND t.target_id IN (1, 2) WHERE t._deleted = false"},
	} {
		t.Run(tt.table, func(t *testing.T) {
			rows, err := executor.CollectRows(context.Background(), env.embedded, &compiler.Query{SQL: "EXPLAIN indexes = 1 " + tt.sql})
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, v := range rows.Values {
				s, _ := v[0].(string)
				lines = append(lines, s)
			}
			plan := strings.Join(lines, "\n")
			// The first Granules line is the primary key's.
			m := granulesRE.FindStringSubmatch(plan)
			if m == nil || !strings.Contains(plan, "PrimaryKey") {
				t.Fatalf("no primary key in the plan of %s\n%s", tt.table, plan)
			}
			kept, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			// Two ids of one kind and one relationship type: a granule or two per part.
			if total < 8 || kept*4 > total {
				t.Errorf("the primary key of %s kept %d of %d granules, want at most a quarter (of at least 8)\n%s", tt.table, kept, total, plan)
			}
		})
	}
}
