package gcf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/internal/conformance"
)

// checkFastDecodeGraph reports whether the fast graph decoder took src, and
// fails the test if it took it with a result (document or warnings) other
// than the strict decoder's.
func checkFastDecodeGraph(t *testing.T, src string) bool {
	t.Helper()
	lim := Limits{}.withDefaults()
	fast, ok := fastDecodeGraph(src, lim)
	if !ok {
		return false
	}
	d := &Decoder{lim: lim}
	strict, err := d.decodeBytes(src)
	if err != nil {
		t.Fatalf("fast path accepted what the strict decoder rejects (%v):\n%q", err, src)
	}
	if diff := cmp.Diff(strict, fast); diff != "" {
		t.Fatalf("fast and strict decoders differ (-strict +fast):\n%s\non\n%q", diff, src)
	}
	strictWarn := d.Warnings()
	f := &Decoder{lim: lim}
	if _, err := f.decodeDocument(src); err != nil {
		t.Fatalf("decodeDocument: %v", err)
	}
	if diff := cmp.Diff(strictWarn, f.Warnings()); diff != "" {
		t.Fatalf("warnings differ (-strict +fast):\n%s\non\n%q", diff, src)
	}
	return true
}

// fastGraphSeeds are payloads for the fast graph decoder: EncodeGraph output
// and hand-made near misses of the layout it takes.
func fastGraphSeeds(t testing.TB) []string {
	seeds := []string{
		"GCF profile=graph tool=t symbols=2 edges=1\n## targets\n@0 fn pkg.A 0.50 lsp\n@1 method pkg.B -1.25 ast\n## edges [1]\n@1<@0 calls added\n",
		"GCF profile=graph x_ext=1\n## mygroup [2]\n@0 fn a 1.00 p\n@1 fn b 1.00 p\n## distance_4\n@2 type c 0.00 p\n## edges\n@0<@2 uses\n## related\n@3 var d 0.10 p\n",
		"GCF profile=graph\n## targets [3]\n@0 fn a 1.00 p\n@1 fn b 1.00 p\n",
		"GCF profile=graph\n## targets\n@0 fn a 1.00 p\n@1 function a 1.00 p\n",
		"GCF profile=graph\n## targets\n@0 fn a 1.00 p\n@2 fn b 1.00 p\n",
		"GCF profile=graph\n## targets\n@0 fn a 1.00 p\n## edges [1]\n@0<@1 calls\n",
		"GCF profile=graph session=true\n## targets\n@0 fn a 1.00 p\n@1  # previously transmitted\n",
		"GCF profile=graph unchanged=true pack_root=sha256:00\n",
		"GCF profile=graph\n## targets\n@0 fn a 1.00 p\n##! summary symbols=1\n",
		"GCF profile=graph symbols=9\n## targets\n@0 fn a 1.00 p\n",
		"GCF profile=graph\n## edges [0]\n## edges [0]\n",
		"GCF profile=graph\n## targets [?]\n@0 fn a 1.00 p\n",
		"GCF profile=graph\n## targets\n@00 fn a 1.00 p\n",
		"GCF profile=graph\n## targets\n@0 fn a 1.0 p\n",
		"GCF profile=graph tool=a tool=b\n## targets\n@0 fn a 1.00 p\n",
	}
	for i, n := range []int{1, 7, 60} {
		var b bytes.Buffer
		g := fuzzSymbolGraph(uint64(i), n, n)
		if err := NewEncoder(&b, Options{}).EncodeGraph(g); err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, b.String())
	}
	return seeds
}

// fuzzSymbolGraph builds a seeded graph of n symbols and up to m edges with
// every kind abbreviation, groups and edge statuses.
func fuzzSymbolGraph(seed uint64, n, m int) *Graph {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &Graph{Tool: "search", Budget: 100, Extra: []Field{{Key: "x_run", Value: "1"}}}
	for i := range n {
		k := kindTable[r.IntN(len(kindTable))]
		g.Symbols = append(g.Symbols, Symbol{Kind: k[1], Name: fmt.Sprintf("pkg%d.S%d", i%5, i),
			Score: float64(r.IntN(20000)-10000) / 100, Provenance: "lsp", Distance: r.IntN(4)})
	}
	for range m {
		a, c := r.IntN(n), r.IntN(n)
		g.Edges = append(g.Edges, Edge{Source: g.Symbols[a].Name, Target: g.Symbols[c].Name,
			Type: []string{"calls", "imports"}[r.IntN(2)], Status: []string{"", "added", "removed"}[r.IntN(3)]})
	}
	return g
}

// TestFastDecodeGraphSeeds checks every seed and that the encoder's own
// output takes the fast path (so the benchmark measures it).
func TestFastDecodeGraphSeeds(t *testing.T) {
	seeds := fastGraphSeeds(t)
	for i, s := range seeds {
		ok := checkFastDecodeGraph(t, s)
		if wantFast := i < 2 || i >= len(seeds)-3; wantFast && !ok {
			t.Errorf("seed %d not taken by the fast path:\n%q", i, s)
		}
	}
}

// TestFastDecodeGraphConformance checks every graph-profile payload in the
// GCF conformance cases against the strict decoder.
func TestFastDecodeGraphConformance(t *testing.T) {
	dir := conformance.Dir(t, "gcf")
	n, fast := 0, 0
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, s := range graphPayloads(v, nil) {
			n++
			if checkFastDecodeGraph(t, s) {
				fast++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || fast == 0 {
		t.Fatalf("%d graph payloads, %d taken by the fast path", n, fast)
	}
	t.Logf("%d graph payloads, %d taken by the fast path", n, fast)
}

// graphPayloads collects every string in v that starts like a graph payload.
func graphPayloads(v any, dst []string) []string {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "GCF profile=graph") {
			dst = append(dst, x)
		}
	case []any:
		for _, e := range x {
			dst = graphPayloads(e, dst)
		}
	case map[string]any:
		for _, e := range x {
			dst = graphPayloads(e, dst)
		}
	}
	return dst
}

// FuzzFastDecodeGraph checks that the fast graph decoder accepts only input
// the strict decoder accepts, with an equal document and warnings.
func FuzzFastDecodeGraph(f *testing.F) {
	for _, s := range fastGraphSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkFastDecodeGraph(t, src)
	})
}

// TestSplitSpaces compares splitSpaces with strings.Split on seeded strings
// rich in spaces and in the bytes next to a space in value ('!', 0x1F,
// 0xA0), whose word-at-a-time test must not confuse them with it.
func TestSplitSpaces(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	alphabet := []byte{' ', ' ', '!', 0x1F, 0xA0, 'a', '@', '<', 0xFF}
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		want := strings.Split(s, " ")
		for _, size := range []int{1, 3, 5, 64} {
			dst := make([]string, size)
			got, n := splitSpaces(s, dst)
			if n != len(want) {
				t.Fatalf("splitSpaces(%q) has %d fields, want %d", s, n, len(want))
			}
			if diff := cmp.Diff(want[:min(n, size)], got); diff != "" {
				t.Fatalf("splitSpaces(%q, %d) (-want +got):\n%s", s, size, diff)
			}
		}
	}
}
