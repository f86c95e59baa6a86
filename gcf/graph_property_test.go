package gcf_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/gcf"
)

// randomGraph builds a valid graph: kinds from the table and unknown bare
// kinds, ASCII names, scores with midpoints, distances 0–6, statuses.
func randomGraph(r *rand.Rand) *gcf.Graph {
	kinds := []string{"function", "fn", "type", "interface", "package", "widget", "Custom_Kind"}
	scores := []float64{0.125, 0.625, 0.5, 1, 0, 0.999, 0.005, 0.335}
	g := &gcf.Graph{Tool: "t"}
	seen := map[string]bool{}
	for range r.IntN(9) {
		name := "pkg.N" + strconv.Itoa(r.IntN(12))
		if seen[name] {
			continue
		}
		seen[name] = true
		g.Symbols = append(g.Symbols, gcf.Symbol{Kind: kinds[r.IntN(len(kinds))], Name: name,
			Score: scores[r.IntN(len(scores))], Provenance: []string{"lsp", "ast"}[r.IntN(2)], Distance: r.IntN(7)})
	}
	edgeSeen := map[string]bool{}
	for range r.IntN(8) {
		if len(g.Symbols) == 0 {
			break
		}
		a, b := g.Symbols[r.IntN(len(g.Symbols))], g.Symbols[r.IntN(len(g.Symbols))]
		typ := []string{"calls", "imports", "references"}[r.IntN(3)]
		if k := a.Name + ">" + b.Name + " " + typ; !edgeSeen[k] {
			edgeSeen[k] = true
			g.Edges = append(g.Edges, gcf.Edge{Source: a.Name, Target: b.Name, Type: typ, Status: []string{"", "added", "removed", "unchanged"}[r.IntN(4)]})
		}
	}
	return g
}

// quantized returns g with scores as a consumer decodes them.
func quantized(g *gcf.Graph) *gcf.Graph {
	q := *g
	q.Symbols = slices.Clone(g.Symbols)
	for i := range q.Symbols {
		q.Symbols[i].Score = gcf.Quantize(q.Symbols[i].Score)
	}
	return &q
}

func rootOf(t *testing.T, g *gcf.Graph) string {
	root, err := gcf.PackRoot(g)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func TestPropertyGraphRoundTrip(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("graph encode, decode, delta, session and stream agree on pack roots", prop.ForAll(func(seed uint64) string {
		r := rand.New(rand.NewPCG(seed, 17))
		base, next := randomGraph(r), randomGraph(r)
		var b bytes.Buffer
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraph(base); err != nil {
			return "encode: " + err.Error()
		}
		wire := b.String()
		dec, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeGraph()
		if err != nil {
			return "decode: " + err.Error() + "\n" + wire
		}
		if rootOf(t, dec) != rootOf(t, quantized(base)) {
			return "decoded root differs from the quantized input:\n" + wire
		}
		// Delta from base to next, over the wire, applied to base.
		qb, qn := quantized(base), quantized(next)
		d, err := gcf.Delta(qb, qn)
		if err != nil {
			return "delta: " + err.Error()
		}
		b.Reset()
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeDelta(d); err != nil {
			return "encode delta: " + err.Error()
		}
		dd, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeDelta()
		if err != nil {
			return "decode delta: " + err.Error()
		}
		res, err := gcf.ApplyDelta(qb, dd)
		if err != nil {
			return "apply delta: " + err.Error()
		}
		if rootOf(t, res) != rootOf(t, qn) {
			return "applied delta does not reach the new root"
		}
		// A session sequence resolves to the same graphs.
		prod, cons := gcf.NewSession(gcf.Options{}), gcf.NewConsumerSession(gcf.Options{})
		for _, g := range []*gcf.Graph{base, next, base} {
			b.Reset()
			if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraphSession(g, prod); err != nil {
				return "session encode: " + err.Error()
			}
			sg, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeGraph()
			if err != nil {
				return "session decode: " + err.Error()
			}
			rg, err := cons.Resolve(sg)
			if err != nil {
				return "resolve: " + err.Error()
			}
			if rootOf(t, rg) != rootOf(t, quantized(g)) {
				return "resolved session payload differs"
			}
		}
		// The stream encoder's output decodes to the same graph.
		b.Reset()
		se := gcf.NewStreamEncoder(&b, gcf.StreamHeader{}, gcf.Options{})
		syms := slices.Clone(base.Symbols)
		slices.SortStableFunc(syms, func(x, y gcf.Symbol) int { return x.Distance - y.Distance })
		for _, s := range syms {
			if err := se.WriteNode(s); err != nil {
				return "stream node: " + err.Error()
			}
		}
		for _, e := range base.Edges {
			if err := se.WriteEdge(e); err != nil {
				return "stream edge: " + err.Error()
			}
		}
		if err := se.Close(); err != nil {
			return "stream close: " + err.Error()
		}
		sg, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeGraph()
		if err != nil {
			return "stream decode: " + err.Error()
		}
		if rootOf(t, sg) != rootOf(t, quantized(base)) {
			return "stream payload differs"
		}
		return ""
	}, gen.UInt64()))
	props.Property("ApplySetDelta(base, DiffSets(base, next)) reaches SetPackRoot(next)", prop.ForAll(func(seed uint64) string {
		r := rand.New(rand.NewPCG(seed, 19))
		mk := func() *gcf.Set {
			s := &gcf.Set{Name: "rows", Key: "id", Fields: []string{"id", "v", "w"}}
			used := map[int64]bool{}
			for range r.IntN(8) {
				id := r.Int64N(10)
				if used[id] {
					continue
				}
				used[id] = true
				o := gcf.NewObject(3)
				o.Set("id", id)
				o.Set("v", []any{nil, "x", "1001", int64(3), 2.5, true}[r.IntN(6)])
				if r.IntN(3) > 0 {
					o.Set("w", "a|b")
				}
				s.Rows = append(s.Rows, o)
			}
			return s
		}
		base, next := mk(), mk()
		d, err := gcf.DiffSets(base, next)
		if err != nil {
			return err.Error()
		}
		var b bytes.Buffer
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeSetDelta(d); err != nil {
			return err.Error()
		}
		dd, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeSetDelta()
		if err != nil {
			return "decode: " + err.Error()
		}
		_, root, err := gcf.ApplySetDelta(base, dd, dd.NewRoot)
		want, _ := gcf.SetPackRoot(next)
		if err != nil || root != want {
			return "apply: " + root + " want " + want
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}
