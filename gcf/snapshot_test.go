package gcf_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/gcf"
)

// snapshotCases are the GOON inputs covering every query shape.
var snapshotCases = []string{
	"snapshot_aggregation_node_grouped",
	"snapshot_aggregation_property_grouped",
	"snapshot_aggregation_ungrouped",
	"snapshot_pagination",
	"snapshot_path_finding",
	"snapshot_search",
	"snapshot_traversal",
	"extra_path_finding_multi_paths",
	"unit_variable_length_traversal_edges_carry_depth",
	"unit_empty_response_emits_section_markers",
}

// TestSnapshots keeps the gcf and gcf-graph forms of every query shape as
// reviewed snapshots, and checks the gcf round trip on each.
func TestSnapshots(t *testing.T) {
	for _, name := range snapshotCases {
		t.Run(name, func(t *testing.T) {
			r := loadResponse(t, goonInput(t, name))
			generic, err := gcf.Marshal(r, gcf.Options{})
			if err != nil {
				t.Fatalf("Marshal gcf: %v", err)
			}
			back, err := gcf.Unmarshal(generic, gcf.Options{})
			if err != nil {
				t.Fatalf("Unmarshal gcf: %v", err)
			}
			if !equivalent(r, back) {
				t.Errorf("gcf round trip not equivalent")
			}
			graph, err := gcf.Marshal(r, gcf.Options{Profile: gcf.ProfileGraph})
			switch {
			case errors.Is(err, gcf.ErrUnsupportedQuery):
				graph = []byte("unsupported_query\n")
			case err != nil:
				t.Fatalf("Marshal gcf-graph: %v", err)
			default:
				if _, err := gcf.Unmarshal(graph, gcf.Options{}); err != nil {
					t.Fatalf("Unmarshal gcf-graph: %v", err)
				}
			}
			again, _ := gcf.Marshal(r, gcf.Options{})
			if !bytes.Equal(again, generic) {
				t.Errorf("Marshal is not deterministic")
			}
			snaps.WithConfig(snaps.Raw()).MatchSnapshot(t, "gcf:\n"+string(generic)+"\ngcf-graph:\n"+string(graph))
		})
	}
}
