package gcx_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// goonInputs returns the RAW GraphResponses of the GOON conformance folder
// by case name.
func goonInputs(t testing.TB) map[string]*graphresponse.Response {
	t.Helper()
	dir := conformance.Dir(t, "goon")
	out := map[string]*graphresponse.Response{}
	for _, path := range glob(t, filepath.Join(dir, "*.input.json")) {
		r, err := graphresponse.Unmarshal(readFile(t, path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[strings.TrimSuffix(filepath.Base(path), ".input.json")] = r
	}
	return out
}

// TestCorpusRoundTrip encodes every GOON conformance input (spec §15.4)
// and checks both round-trip properties of §13.2.
func TestCorpusRoundTrip(t *testing.T) {
	inputs := goonInputs(t)
	if len(inputs) < 62 {
		t.Fatalf("found %d GOON inputs, want at least 62", len(inputs))
	}
	for name, r := range inputs {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // the codec keeps no shared state; -race checks it
			enc, err := gcx.Marshal(r, gcx.Options{})
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			checkRoundTrip(t, r, enc)
		})
	}
}

// snapshotCases are the fixture responses that cover every query shape.
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

// TestSnapshots keeps the GCX1 form of every query shape as a reviewed
// snapshot.
func TestSnapshots(t *testing.T) {
	inputs := goonInputs(t)
	for _, name := range snapshotCases {
		t.Run(name, func(t *testing.T) {
			r, ok := inputs[name]
			if !ok {
				t.Fatalf("GOON input %s not found", name)
			}
			got, err := gcx.Marshal(r, gcx.Options{})
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			back, err := gcx.Unmarshal(got, gcx.Options{})
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			// Raw keeps TABs; the default pretty printer would align them
			// away. The decoded response follows the payload.
			snaps.WithConfig(snaps.Raw()).MatchSnapshot(t, string(got), "decoded: "+string(graphresponse.AppendJSON(nil, back)))
		})
	}
}
