package gcx_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

type tokenCounter struct {
	name  string
	codec tokenizer.Codec
}

func tokenCounters(t testing.TB) []tokenCounter {
	t.Helper()
	var out []tokenCounter
	for _, enc := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		c, err := tokenizer.Get(enc)
		if err != nil {
			t.Fatalf("tokenizer %s: %v", enc, err)
		}
		out = append(out, tokenCounter{string(enc), c})
	}
	return out
}

func (c tokenCounter) count(t testing.TB, b []byte) int {
	t.Helper()
	n, err := c.codec.Count(string(b))
	if err != nil {
		t.Fatalf("%s count: %v", c.name, err)
	}
	return n
}

// TestTokensGraph reports the tokens of the gcx format against compact RAW
// JSON (graphresponse.Marshal) for every GOON conformance input, and
// checks that gcx costs fewer tokens over the corpus as a whole.
func TestTokensGraph(t *testing.T) {
	inputs := goonInputs(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range inputs {
			if !yield(n) {
				return
			}
		}
	})
	counters := tokenCounters(t)
	var report strings.Builder
	fmt.Fprintf(&report, "%-60s %8s %8s %8s %8s\n", "case", "json-o2", "gcx-o2", "json-cl", "gcx-cl")
	totals := make([][2]int, len(counters))
	for _, name := range names {
		r := inputs[name]
		js := graphresponse.Marshal(r)
		gx, err := gcx.Marshal(r, gcx.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&report, "%-60s", name)
		for i, c := range counters {
			j, g := c.count(t, js), c.count(t, gx)
			totals[i][0] += j
			totals[i][1] += g
			fmt.Fprintf(&report, " %8d %8d", j, g)
		}
		report.WriteByte('\n')
	}
	fmt.Fprintf(&report, "%-60s %8d %8d %8d %8d\n", "TOTAL", totals[0][0], totals[0][1], totals[1][0], totals[1][1])
	t.Logf("tokens, compact RAW JSON vs gcx, %d GOON inputs:\n%s", len(names), report.String())
	for i, c := range counters {
		if totals[i][1] >= totals[i][0] {
			t.Errorf("%s: gcx %d tokens, JSON %d: gcx should be smaller over the corpus", c.name, totals[i][1], totals[i][0])
		}
	}
}

// TestTokensToolResponses reports the tokens of the generic fallback
// against compact JSON for the 20 GCX tool responses and checks them, and
// the JSON baseline, against MANIFEST.tsv.
func TestTokensToolResponses(t *testing.T) {
	dir := conformance.Dir(t, "gcx")
	lines := strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(dir, "MANIFEST.tsv")))), "\n")
	col := map[string]int{}
	for i, h := range strings.Split(lines[0], "\t") {
		col[h] = i
	}
	counters := tokenCounters(t)
	var report strings.Builder
	fmt.Fprintf(&report, "%-28s %8s %8s %8s %8s\n", "case", "json-o2", "gcx-o2", "json-cl", "gcx-cl")
	n := 0
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		name := f[col["case"]]
		c, v := readCase(t, filepath.Join(dir, "cases", name+".yaml"))
		gx, err := gcx.MarshalValue(c.Tool, v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		js := readFile(t, filepath.Join(dir, "golden", "json", name+".json"))
		fmt.Fprintf(&report, "%-28s", name)
		for _, tc := range []struct {
			counter tokenCounter
			json    string
			gcx     string
		}{{counters[0], "json_o200k", "generic_o200k"}, {counters[1], "json_cl100k", "generic_cl100k"}} {
			j, g := tc.counter.count(t, js), tc.counter.count(t, gx)
			fmt.Fprintf(&report, " %8d %8d", j, g)
			if want, _ := strconv.Atoi(f[col[tc.json]]); j != want {
				t.Errorf("%s: %s JSON tokens %d, manifest says %d", name, tc.counter.name, j, want)
			}
			if want, _ := strconv.Atoi(f[col[tc.gcx]]); g != want {
				t.Errorf("%s: %s generic tokens %d, manifest says %d", name, tc.counter.name, g, want)
			}
		}
		report.WriteByte('\n')
		n++
	}
	if n < 20 {
		t.Errorf("manifest lists %d cases, want 20", n)
	}
	t.Logf("tokens, compact JSON vs gcx generic, %d tool responses:\n%s", n, report.String())
}
