package gcf_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/tokens"
)

// TestTokenCounts reports the o200k_base and cl100k_base token counts of
// gcf and gcf-graph against compact raw JSON over the GOON conformance
// inputs, and checks that gcf is smaller than the JSON it encodes.
func TestTokenCounts(t *testing.T) {
	dir := conformance.Dir(t, "goon")
	files, err := filepath.Glob(filepath.Join(dir, "*.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	if len(files) < 50 {
		t.Fatalf("found %d GOON inputs, want at least 50", len(files))
	}
	counter := tokens.New()
	type totals struct{ json, gcf, jsonG, graph int }
	for _, enc := range []string{tokens.O200k, tokens.CL100k} {
		var tot totals
		cases, graphCases, skipped := 0, 0, 0
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := graphresponse.Unmarshal(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			generic, err := gcf.Marshal(r, gcf.Options{})
			if errors.Is(err, gcf.ErrUnrepresentable) {
				skipped++ // e.g. duplicate nodes, which D(r) cannot carry
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			raw := string(graphresponse.Marshal(r))
			nj, err := counter.Count(enc, raw)
			if err != nil {
				t.Fatal(err)
			}
			ng, err := counter.Count(enc, string(generic))
			if err != nil {
				t.Fatal(err)
			}
			tot.json += nj
			tot.gcf += ng
			cases++
			graph, err := gcf.Marshal(r, gcf.Options{Profile: gcf.ProfileGraph})
			if err != nil {
				continue // aggregations have no topology
			}
			nt, err := counter.Count(enc, string(graph))
			if err != nil {
				t.Fatal(err)
			}
			tot.jsonG += nj
			tot.graph += nt
			graphCases++
		}
		t.Logf("%s: %d inputs (%d skipped): json=%d gcf=%d (%.1f%%); %d graph inputs: json=%d gcf-graph=%d (%.1f%%)",
			enc, cases, skipped, tot.json, tot.gcf, pct(tot.gcf, tot.json), graphCases, tot.jsonG, tot.graph, pct(tot.graph, tot.jsonG))
		if tot.gcf >= tot.json {
			t.Errorf("%s: gcf (%d tokens) is not smaller than raw JSON (%d)", enc, tot.gcf, tot.json)
		}
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(b) }
