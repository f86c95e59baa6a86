package toon

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/graphwire/graphwire/graphresponse"
)

// tokenRow holds the token counts of one response in one tokenizer.
type tokenRow struct {
	json, toon, rawToon int
}

func countTokens(t *testing.T, codec tokenizer.Codec, r *graphresponse.Response) tokenRow {
	t.Helper()
	raw := graphresponse.Marshal(r)
	shaped, err := MarshalResponse(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// §7.6: TOON of the RAW GraphResponse as is, key order kept.
	rawValue, err := ParseJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	rawToon, err := Marshal(rawValue)
	if err != nil {
		t.Fatal(err)
	}
	var row tokenRow
	for _, c := range []struct {
		dst  *int
		text []byte
	}{{&row.json, raw}, {&row.toon, shaped}, {&row.rawToon, rawToon}} {
		n, err := codec.Count(string(c.text))
		if err != nil {
			t.Fatal(err)
		}
		*c.dst = n
	}
	return row
}

func pct(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*float64(a-b)/float64(b))
}

// TestTokenCounts reports o200k_base and cl100k_base token counts of the
// toon rendering against compact raw JSON (graphresponse.Marshal), and of
// TOON applied to the raw JSON as is, over the GOON conformance inputs, the
// §7.4 example and the 500-node/200-edge benchmark graph. Run with -v to see
// the table.
func TestTokenCounts(t *testing.T) {
	if testing.Short() {
		t.Skip("token counting loads two vocabularies; skipped with -short")
	}
	type input struct {
		name string
		r    *graphresponse.Response
	}
	var corpus []input
	for _, f := range goonInputs(t) {
		corpus = append(corpus, input{strings.TrimSuffix(filepath.Base(f), ".input.json"), readResponse(t, f)})
	}
	extras := []input{
		{"spec §7.4 traversal", readResponse(t, "testdata/graph_traversal.json")},
		{"bench graph 500 nodes / 200 edges", benchGraph(500, 200)},
	}
	for _, enc := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		codec, err := tokenizer.Get(enc)
		if err != nil {
			t.Fatalf("tokenizer %s: %v", enc, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\n%s\n%-58s %8s %8s %8s %8s\n", enc, "input", "json", "toon", "Δ", "raw-toon")
		var total tokenRow
		for _, in := range corpus {
			row := countTokens(t, codec, in.r)
			total.json += row.json
			total.toon += row.toon
			total.rawToon += row.rawToon
			fmt.Fprintf(&b, "%-58.58s %8d %8d %8s %8d\n", in.name, row.json, row.toon, pct(row.toon, row.json), row.rawToon)
		}
		fmt.Fprintf(&b, "%-58s %8d %8d %8s %8d\n", fmt.Sprintf("TOTAL over %d GOON inputs", len(corpus)), total.json, total.toon, pct(total.toon, total.json), total.rawToon)
		for _, in := range extras {
			row := countTokens(t, codec, in.r)
			fmt.Fprintf(&b, "%-58s %8d %8d %8s %8d\n", in.name, row.json, row.toon, pct(row.toon, row.json), row.rawToon)
			if in.r.Nodes != nil && len(in.r.Nodes) >= 500 && row.toon >= row.json {
				t.Errorf("%s: toon rendering (%d tokens) is not smaller than compact JSON (%d)", in.name, row.toon, row.json)
			}
		}
		t.Log(b.String())
	}
}
