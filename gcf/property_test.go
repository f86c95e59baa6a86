package gcf_test

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

// propSeed is the fixed gopter seed; GCF_PROP_SEED replays another.
func propParams(t *testing.T) *gopter.TestParameters {
	seed := int64(20261121)
	if s := os.Getenv("GCF_PROP_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GCF_PROP_SEED: %v", err)
		}
		seed = n
	}
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 300
	return p
}

// Hard cases for strings and keys (§2.3 quoting triggers and more).
var nastyStrings = []string{
	"", "-", "~", "^", "true", "false", "123", "-0", "1e5", "01", "+1", ".5", "-.5", "0x10",
	" x", "x ", "   ", "#a", "# c", "@a", ".a", "a|b", "a,b", "a\"b", "a\\b", "a\nb", "\t", "\r",
	"\x00", "\x1f", "\u0085", "\u00a0x", "x\u2028", "\ufeff", "[a]: b", "ERR[404]: Not Found",
	"value[0] ok", "^{a}", "^{a,b}", "^{", "a>b", ">", "\u0bd7P", "1.\u0665", "plain", "hello world",
	"=x", "{}", "[0]", "key=value", "## x", "##! summary", "\u202e", "caf\u00e9", "😀", "a:b",
}

var nastyKeys = []string{"a", "b", "c", "id", "key", "_key", "", "a>b", "x y", "123", "a.b", "\u0bd7", "k|v", "@n", "name"}

type valueGen struct {
	r *rand.Rand
}

func (g *valueGen) scalar() any {
	switch g.r.IntN(9) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		ints := []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1, -(1 << 53)}
		return ints[g.r.IntN(len(ints))]
	case 3:
		fs := []float64{0.5, -2.25, 1e-6, 4e-7, 1e21, 5e18, 1e20, 3.141592653589793, 75, 1.5e300, -1e-300, 9007199254740993}
		return fs[g.r.IntN(len(fs))]
	case 4:
		return g.r.Int64N(1000) - 500
	default:
		return nastyStrings[g.r.IntN(len(nastyStrings))]
	}
}

func (g *valueGen) key() string { return nastyKeys[g.r.IntN(len(nastyKeys))] }

func (g *valueGen) object(depth int, keys []string) *gcf.Object {
	o := gcf.NewObject(4)
	if keys == nil {
		n := g.r.IntN(4)
		for range n {
			k := g.key()
			if !o.Has(k) {
				keys = append(keys, k)
				o.Set(k, nil)
			}
		}
		o = gcf.NewObject(4)
	}
	for _, k := range keys {
		if g.r.IntN(8) == 0 {
			continue // absent
		}
		o.Set(k, g.value(depth+1))
	}
	return o
}

func (g *valueGen) value(depth int) any {
	if depth > 4 {
		return g.scalar()
	}
	switch g.r.IntN(10) {
	case 0, 1:
		return g.object(depth, nil)
	case 2:
		// Table-like: objects sharing a key set, nested objects for flattening.
		keys := []string{"id", g.key()}
		n := g.r.IntN(4)
		a := make([]any, n)
		for i := range a {
			if g.r.IntN(10) == 0 {
				a[i] = g.scalar()
				continue
			}
			o := g.object(depth+1, keys)
			if g.r.IntN(2) == 0 {
				inner := g.object(depth+2, []string{"x", "y"})
				if g.r.IntN(6) == 0 {
					o.Set("n", nil)
				} else {
					o.Set("n", inner)
				}
			}
			a[i] = o
		}
		return a
	case 3:
		// Keyed-map-like.
		o := gcf.NewObject(3)
		for _, k := range []string{"m1", g.key(), "m3"} {
			if !o.Has(k) {
				o.Set(k, g.object(depth+1, []string{"v", "w"}))
			}
		}
		return o
	case 4:
		n := g.r.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(depth + 1)
		}
		return a
	case 5:
		n := g.r.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = g.scalar()
		}
		return a
	default:
		return g.scalar()
	}
}

func TestPropertyGenericRoundTrip(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("decode(encode(v)) == v and re-encode is byte-identical", prop.ForAll(func(seed uint64) string {
		g := &valueGen{r: rand.New(rand.NewPCG(seed, 7))}
		v := g.value(0)
		enc, err := gcf.MarshalValue(v, gcf.Options{})
		if err != nil {
			j, _ := gcf.AppendJSON(nil, v)
			return "encode " + string(j) + ": " + err.Error()
		}
		dec, err := gcf.UnmarshalValue(enc, gcf.Options{})
		if err != nil {
			return "decode:\n" + string(enc) + err.Error()
		}
		if !valueEqual(v, dec) {
			a, _ := gcf.AppendJSON(nil, v)
			b, _ := gcf.AppendJSON(nil, dec)
			return "value differs:\n" + string(enc) + "\n" + string(a) + "\n" + string(b)
		}
		again, err := gcf.MarshalValue(dec, gcf.Options{})
		if err != nil || !bytes.Equal(again, enc) {
			return "re-encode differs:\n" + string(enc) + "\n" + string(again)
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}

// responseGen builds random GraphResponses of all four query types.
type responseGen struct {
	r *rand.Rand
}

func (g *responseGen) value() graphresponse.Value {
	switch g.r.IntN(8) {
	case 0:
		return graphresponse.Null()
	case 1:
		return graphresponse.Bool(g.r.IntN(2) == 0)
	case 2:
		return graphresponse.Int(g.r.Int64() - math.MaxInt64/2)
	case 3:
		fs := []float64{0.5, 2.0, math.Copysign(0, -1), 1e-7, 1e22, 123.456}
		return graphresponse.Float(fs[g.r.IntN(len(fs))])
	case 4:
		return graphresponse.Array(graphresponse.String("a"), graphresponse.Int(1))
	default:
		return graphresponse.String(nastyStrings[g.r.IntN(len(nastyStrings))])
	}
}

var propKeys = []string{"name", "state", "title", "iid", "weird key", "a|b", "created_at"}

func (g *responseGen) props() []graphresponse.Member {
	var ms []graphresponse.Member
	for _, k := range propKeys {
		if g.r.IntN(2) == 0 {
			ms = append(ms, graphresponse.Member{Key: k, Value: g.value()})
		}
	}
	return ms
}

func (g *responseGen) response() *graphresponse.Response {
	qts := []string{"traversal", "neighbors", "path_finding", "aggregation"}
	r := &graphresponse.Response{FormatVersion: "5.0.1", QueryType: qts[g.r.IntN(len(qts))], Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	types := []string{"User", "Project", "MergeRequest"}
	n := g.r.IntN(7)
	seen := map[gcf.NodeRef]bool{}
	for range n {
		ref := gcf.NodeRef{Type: types[g.r.IntN(3)], ID: g.r.Int64N(5) * 1000003}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: ref.Type, ID: ref.ID, Props: g.props()})
	}
	opt := func() graphresponse.OptInt {
		if g.r.IntN(2) == 0 {
			return graphresponse.OptInt{}
		}
		return graphresponse.Some(g.r.Int64N(4))
	}
	for range g.r.IntN(6) {
		if len(r.Nodes) == 0 {
			break
		}
		a, b := r.Nodes[g.r.IntN(len(r.Nodes))], r.Nodes[g.r.IntN(len(r.Nodes))]
		e := graphresponse.Edge{From: a.Type, FromID: a.ID, To: b.Type, ToID: b.ID, Type: []string{"AUTHORED", "IN_PROJECT", ""}[g.r.IntN(3)], Depth: opt(), PathID: opt(), Step: opt()}
		r.Edges = append(r.Edges, e)
		if g.r.IntN(4) == 0 {
			r.Edges = append(r.Edges, e) // duplicated topology
		}
	}
	if g.r.IntN(2) == 0 {
		p := &graphresponse.Pagination{HasMore: g.r.IntN(2) == 0, Truncated: g.r.IntN(2) == 0}
		if g.r.IntN(2) == 0 {
			c := []string{"", "abc_-123", "x y"}[g.r.IntN(3)]
			p.NextCursor = &c
		}
		r.Pagination = p
	}
	if r.QueryType == "aggregation" {
		r.Nodes, r.Edges = []graphresponse.Node{}, []graphresponse.Edge{}
		r.GroupColumns = []graphresponse.GroupColumn{{Name: "u", Kind: "node", Node: "u", Entity: "User"}, {Name: "st", Kind: "property", Node: "mr", Property: "state"}}
		r.Columns = []graphresponse.Column{{Name: "cnt", Function: "count", Target: "mr"}, {Name: "avg_x", Function: "avg", Target: "mr", Property: "x"}}
		r.Rows = []graphresponse.Row{}
		for range g.r.IntN(4) {
			var row graphresponse.Row
			switch g.r.IntN(3) {
			case 0:
				row = append(row, graphresponse.Member{Key: "u", Value: graphresponse.NodeBucket("User", []string{"42", "007", "-0"}[g.r.IntN(3)], g.props())})
			case 1:
				row = append(row, graphresponse.Member{Key: "u", Value: graphresponse.Null()})
			}
			if g.r.IntN(3) > 0 {
				row = append(row, graphresponse.Member{Key: "st", Value: g.value()})
			}
			if g.r.IntN(3) > 0 {
				row = append(row, graphresponse.Member{Key: "cnt", Value: graphresponse.Int(g.r.Int64N(100))})
			}
			if g.r.IntN(3) > 0 {
				row = append(row, graphresponse.Member{Key: "avg_x", Value: graphresponse.Float(2.5)})
			}
			r.Rows = append(r.Rows, row)
		}
		if g.r.IntN(5) == 0 {
			r.Rows = nil
		}
	}
	return r
}

func TestPropertyResponseRoundTrip(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("Unmarshal(Marshal(r)) is equivalent to r", prop.ForAll(func(seed uint64) string {
		r := (&responseGen{r: rand.New(rand.NewPCG(seed, 11))}).response()
		out, err := gcf.Marshal(r, gcf.Options{})
		if err != nil {
			return "marshal: " + err.Error() + "\n" + string(graphresponse.Marshal(r))
		}
		if _, err := gcf.UnmarshalValue(out, gcf.Options{}); err != nil {
			return "not valid generic GCF: " + err.Error()
		}
		back, err := gcf.Unmarshal(out, gcf.Options{})
		if err != nil {
			return "unmarshal: " + err.Error() + "\n" + string(out)
		}
		if !equivalent(r, back) {
			return "not equivalent:\n" + string(out) + "\n" + string(graphresponse.Marshal(r)) + "\n" + string(graphresponse.Marshal(back))
		}
		again, err := gcf.Marshal(back, gcf.Options{})
		if err != nil || !bytes.Equal(again, out) {
			return "re-marshal differs:\n" + string(out) + "\n" + string(again)
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}

func TestPropertyGraphTopology(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("gcf-graph keeps node keys and deduplicated edges", prop.ForAll(func(seed uint64) string {
		rg := rand.New(rand.NewPCG(seed, 13))
		r := (&responseGen{r: rg}).response()
		gopts := gcf.GraphOptions{Scores: map[gcf.NodeRef]float64{}}
		for _, n := range r.Nodes {
			if rg.IntN(2) == 0 {
				gopts.Scores[gcf.NodeRef{Type: n.Type, ID: n.ID}] = []float64{0.125, 0.5, 0.9, 1, 0.625}[rg.IntN(5)]
			}
		}
		if len(r.Nodes) > 0 && rg.IntN(3) == 0 {
			gopts.Anchors = []gcf.NodeRef{{Type: r.Nodes[len(r.Nodes)-1].Type, ID: r.Nodes[len(r.Nodes)-1].ID}}
		}
		out, err := gcf.Marshal(r, gcf.Options{Profile: gcf.ProfileGraph, Graph: gopts})
		if r.QueryType == "aggregation" {
			if err == nil {
				return "aggregation accepted by gcf-graph"
			}
			return ""
		}
		// The direct writer and ToGraph + EncodeGraph agree byte for byte.
		g, gerr := gcf.ToGraph(r, gopts)
		if (gerr == nil) != (err == nil) {
			return "direct writer and ToGraph disagree on errors"
		}
		if gerr == nil {
			var b bytes.Buffer
			if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraph(g); err != nil || !bytes.Equal(b.Bytes(), out) {
				return "direct writer differs from ToGraph + EncodeGraph:\n" + string(out) + "\n" + b.String()
			}
		}
		if errors.Is(err, gcf.ErrUnrepresentable) && r.Pagination != nil && r.Pagination.NextCursor != nil {
			c := *r.Pagination.NextCursor
			if c == "" || strings.ContainsAny(c, " ") {
				return "" // cursors must fit the header grammar (§3.3.6)
			}
		}
		if err != nil {
			return "marshal: " + err.Error()
		}
		back, err := gcf.Unmarshal(out, gcf.Options{})
		if err != nil {
			return "unmarshal: " + err.Error() + "\n" + string(out)
		}
		nodeKeys := func(r *graphresponse.Response) []string {
			var ks []string
			for _, n := range r.Nodes {
				ks = append(ks, n.Type+":"+strconv.FormatInt(n.ID, 10))
			}
			slices.Sort(ks)
			return ks
		}
		edgeKeys := func(r *graphresponse.Response) []string {
			var ks []string
			for _, e := range r.Edges {
				ks = append(ks, e.From+":"+strconv.FormatInt(e.FromID, 10)+">"+e.To+":"+strconv.FormatInt(e.ToID, 10)+" "+e.Type)
			}
			slices.Sort(ks)
			return slices.Compact(ks)
		}
		if !slices.Equal(nodeKeys(r), nodeKeys(back)) || !slices.Equal(edgeKeys(r), edgeKeys(back)) {
			return "topology differs:\n" + string(out)
		}
		if back.QueryType != r.QueryType {
			return "query type lost"
		}
		// The decoded graph hashes to the header's pack root.
		dg, err := gcf.NewDecoder(bytes.NewReader(out), gcf.Options{}).DecodeGraph()
		if err != nil {
			return err.Error()
		}
		root, err := gcf.PackRoot(dg)
		if err != nil || root != dg.PackRoot {
			return "decoded root " + root + " != header " + dg.PackRoot
		}
		return ""
	}, gen.UInt64()))
	props.TestingRun(t)
}
