package gcf

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// slowGeneric is the general gcf path: D(r) through the generic encoder.
func slowGeneric(t *testing.T, r *graphresponse.Response) []byte {
	t.Helper()
	doc, err := documentOf(r)
	if err != nil {
		t.Fatalf("documentOf: %v", err)
	}
	g := genEncoder{maxDepth: 64, maxElems: 1 << 20}
	if err := g.root(doc); err != nil {
		t.Fatalf("encode: %v", err)
	}
	return g.buf
}

func checkDirect(t *testing.T, name string, r *graphresponse.Response) {
	t.Helper()
	fast, ok := appendResponseGeneric(nil, r, &genScratch{})
	if !ok {
		return
	}
	if slow := slowGeneric(t, r); !bytes.Equal(fast, slow) {
		t.Errorf("%s: direct writer differs:\n%s\ngeneral path:\n%s", name, fast, slow)
	}
}

// TestDirectGeneric checks the direct gcf writer against the general path
// on the GOON inputs and on random responses.
func TestDirectGeneric(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(conformance.Dir(t, "goon"), "*.input.json"))
	if len(files) == 0 {
		t.Fatal("no GOON inputs")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		checkDirect(t, filepath.Base(f), r)
	}
	strs := []string{"", "-", "true", "12", "a|b", " x", "#h", "ok", "x\ny", "ERR[1]: z", "\u00a0"}
	keys := []string{"name", "b", "a", "weird key", "a,b", "Z", "_x", "1"}
	rng := rand.New(rand.NewPCG(1, 2))
	opt := func() graphresponse.OptInt {
		if rng.IntN(2) == 0 {
			return graphresponse.OptInt{}
		}
		return graphresponse.Some(rng.Int64N(3))
	}
	for i := range 3000 {
		r := &graphresponse.Response{QueryType: strs[rng.IntN(len(strs))]}
		types := []string{"User", "Project", "a b", "x|y"}
		for range rng.IntN(8) {
			n := graphresponse.Node{Type: types[rng.IntN(len(types))], ID: rng.Int64N(6) - 2}
			for _, k := range keys {
				if rng.IntN(3) != 0 {
					continue
				}
				var v graphresponse.Value
				switch rng.IntN(5) {
				case 0:
					v = graphresponse.Null()
				case 1:
					v = graphresponse.Int(rng.Int64())
				case 2:
					v = graphresponse.Float([]float64{0.5, 1e21, math.Copysign(0, -1), 3}[rng.IntN(4)])
				case 3:
					v = graphresponse.Bool(true)
				default:
					v = graphresponse.String(strs[rng.IntN(len(strs))])
				}
				n.Props = append(n.Props, graphresponse.Member{Key: k, Value: v})
			}
			r.Nodes = append(r.Nodes, n)
		}
		for range rng.IntN(6) {
			r.Edges = append(r.Edges, graphresponse.Edge{From: types[rng.IntN(4)], FromID: rng.Int64N(9), To: strs[rng.IntN(len(strs))], Type: strs[rng.IntN(len(strs))], Depth: opt(), PathID: opt(), Step: opt()})
		}
		if rng.IntN(2) == 0 {
			c := strs[rng.IntN(len(strs))]
			r.Pagination = &graphresponse.Pagination{HasMore: true, NextCursor: &c}
		}
		if (&genScratch{}).hasDuplicateNodes(r) {
			continue
		}
		checkDirect(t, "random "+string(rune('0'+i%10)), r)
	}
}
