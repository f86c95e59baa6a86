package parity_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSmokeSetRelationships runs, over the fixture, queries of the shapes of the smoke-set
// queries graphwire refused with NO_MATCHING_RELATIONSHIP: the pairs Orbit's edge files have
// and our ontology lacked (Vulnerability –HAS_FINDING→ VulnerabilityOccurrence,
// Job –AUTO_CANCELED_BY→ Job, Project –CONTAINS→ Branch). Each must compile, run and find
// the fixture's edge.
func TestSmokeSetRelationships(t *testing.T) {
	tests := []struct {
		name, query string
		nodes       []string
	}{
		{"vulnerability to its occurrences", `{"query_type": "traversal",
			"nodes": [{"id": "v", "entity": "Vulnerability", "filters": {"state": "detected"}, "columns": ["title", "severity"]},
			          {"id": "o", "entity": "VulnerabilityOccurrence", "columns": ["name", "severity"]}],
			"relationships": [{"type": "HAS_FINDING", "from": "v", "to": "o"}], "limit": 10}`,
			[]string{"Vulnerability:900", "VulnerabilityOccurrence:910"}},
		{"vulnerability occurrence chain to the project", `{"query_type": "traversal",
			"nodes": [{"id": "p", "entity": "Project", "node_ids": [100]}, {"id": "v", "entity": "Vulnerability"},
			          {"id": "o", "entity": "VulnerabilityOccurrence"}],
			"relationships": [{"type": "IN_PROJECT", "from": "v", "to": "p"}, {"type": "HAS_FINDING", "from": "v", "to": "o"}]}`,
			[]string{"Project:100", "Vulnerability:900", "VulnerabilityOccurrence:910"}},
		{"job auto-canceled by a job", `{"query_type": "traversal",
			"nodes": [{"id": "j", "entity": "Job", "filters": {"status": "canceled"}}, {"id": "by", "entity": "Job"}],
			"relationships": [{"type": "AUTO_CANCELED_BY", "from": "j", "to": "by"}]}`,
			[]string{"Job:920", "Job:921"}},
		{"project contains branch (cookbook)", `{"query_type": "traversal",
			"nodes": [{"id": "f", "entity": "File", "filters": {"path": {"contains": "chdb"}}},
			          {"id": "b", "entity": "Branch", "columns": ["name", "is_default"]},
			          {"id": "p", "entity": "Project", "columns": ["name", "full_path"]}],
			"relationships": [{"type": "ON_BRANCH", "from": "f", "to": "b"}, {"type": "CONTAINS", "from": "p", "to": "b"}],
			"limit": 100}`,
			[]string{"Branch:930", "File:702", "Project:100"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, tt.query, scoped)
			if diff := cmp.Diff(tt.nodes, nodeIDs(r)); diff != "" {
				t.Errorf("nodes (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("aggregation over occurrences by severity", func(t *testing.T) {
		r := run(t, `{"query_type": "aggregation",
			"nodes": [{"id": "v", "entity": "Vulnerability", "filters": {"state": "detected"}}, {"id": "o", "entity": "VulnerabilityOccurrence"}],
			"relationships": [{"type": "HAS_FINDING", "from": "v", "to": "o"}],
			"group_by": ["o.severity"], "aggregations": [{"count": "v", "as": "vulns"}], "limit": 10}`, scoped)
		if len(r.Rows) != 1 {
			t.Fatalf("rows %v, want one (critical)", r.Rows)
		}
		if v, _ := r.Rows[0].Get("vulns"); v.Int() != 1 {
			t.Errorf("row %v, want vulns 1", r.Rows[0])
		}
	})
}
