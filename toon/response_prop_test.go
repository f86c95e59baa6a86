package toon

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
)

// nastyResponse generates the GraphResponses of gcx spec §15.4: unsafe and
// empty type names, odd ids in node buckets, reserved and unsafe property
// keys, strings with TAB, LF, CR, backslash, '#' and non-ASCII, extreme
// floats, json-like nested values, optional depth/path_id/step, duplicate and
// unsafe aggregation names, null groups, missing cells and cursors.
func nastyResponse(rng *rand.Rand) *graphresponse.Response {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	typeName := func() string {
		return pick("User", "MergeRequest", "Project", "Legal Entity", "", "a,b", "#T", "T:x", "9x", "Ünïcode", "x\ty", "User")
	}
	str := func() string {
		return pick("plain", "", " ", "tab\there", "line\nbreak", "cr\r", "\r", `back\slash`, "#hash", "-dash", "café 🚀",
			"a,b", "a|b", "42", "true", "null", "say \"hi\"", "x: y", "[1]", "{}", "2026-05-08 14:47:05")
	}
	scalar := func() graphresponse.Value {
		switch rng.IntN(9) {
		case 0:
			return graphresponse.Null()
		case 1:
			return graphresponse.Bool(rng.IntN(2) == 0)
		case 2:
			return graphresponse.Int(rng.Int64() - rng.Int64())
		case 3:
			return graphresponse.Uint(math.MaxUint64 - uint64(rng.IntN(10)))
		case 4:
			return graphresponse.Float([]float64{1e21, 1e-7, math.Copysign(0, -1), math.NaN(), math.Inf(1), 1e6, 0.1, 2}[rng.IntN(8)])
		default:
			return graphresponse.String(str())
		}
	}
	value := func() graphresponse.Value {
		switch rng.IntN(8) {
		case 0:
			return graphresponse.Array(scalar(), scalar())
		case 1:
			return graphresponse.Object(graphresponse.Member{Key: "z", Value: scalar()}, graphresponse.Member{Key: "a", Value: graphresponse.Array()})
		default:
			return scalar()
		}
	}
	props := func(keys ...string) []graphresponse.Member {
		var out []graphresponse.Member
		seen := map[string]bool{}
		for range rng.IntN(6) {
			k := pick(keys...)
			if !seen[k] {
				seen[k] = true
				out = append(out, graphresponse.Member{Key: k, Value: value()})
			}
		}
		return out
	}
	nodeKeys := []string{"name", "state", "iid", "title", "_props", "a b", "x,y", "", "é", "back\\slash", "tab\tkey", "id"}
	r := &graphresponse.Response{FormatVersion: "1.2.0", QueryType: pick("traversal", "neighbors", "path_finding", "aggregation", "")}
	for range rng.IntN(10) {
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: typeName(), ID: rng.Int64N(1000) - 10, Props: props(nodeKeys...)})
	}
	opt := func() graphresponse.OptInt {
		if rng.IntN(2) == 0 {
			return graphresponse.OptInt{}
		}
		return graphresponse.Some(int64(rng.IntN(4)))
	}
	for range rng.IntN(10) {
		e := graphresponse.Edge{From: typeName(), FromID: rng.Int64N(100), To: typeName(), ToID: rng.Int64N(100),
			Type: pick("AUTHORED", "IN_PROJECT", "", "HAS A", "a,b"), Depth: opt(), Step: opt()}
		if rng.IntN(3) == 0 {
			e.PathID = opt()
		}
		r.Edges = append(r.Edges, e)
	}
	if rng.IntN(2) == 0 {
		names := []string{"u", "u", "count(p)", "avg age", "", "x.y", "n~2", "#", "total"}
		nodeNames := []string{"n", "m node", "n-1", "ü"}
		for i := range rng.IntN(3) {
			// A node-kind column owns its row key: no other column shares it.
			g := graphresponse.GroupColumn{Name: pick(names...), Kind: pick("node", "property"), Node: pick("u", "p", "")}
			if g.Kind == "node" {
				g.Name = nodeNames[i]
			}
			if rng.IntN(2) == 0 {
				g.Entity = pick("User", "Project")
			}
			if g.Kind == "property" && rng.IntN(2) == 0 {
				g.Property = "state"
			}
			r.GroupColumns = append(r.GroupColumns, g)
		}
		for range rng.IntN(3) {
			r.Columns = append(r.Columns, graphresponse.Column{Name: pick(names...), Function: pick("count", "avg", "collect", ""), Target: pick("u", "")})
		}
		if rng.IntN(5) > 0 {
			r.Rows = []graphresponse.Row{}
			for range rng.IntN(5) {
				var row graphresponse.Row
				used := map[string]bool{}
				add := func(k string, v graphresponse.Value) {
					if !used[k] && rng.IntN(6) > 0 {
						used[k] = true
						row = append(row, graphresponse.Member{Key: k, Value: v})
					}
				}
				for _, g := range r.GroupColumns {
					switch {
					case rng.IntN(5) == 0:
						add(g.Name, graphresponse.Null())
					case g.Kind == "node":
						id := pick("7", "", "#7", "GCX2 a", "\r", strconv.Itoa(rng.IntN(1e6)))
						add(g.Name, graphresponse.NodeBucket(pick("User", "Project", "a b"), id, props("name", "type", "id", "_props", "a b", "state")))
					default:
						add(g.Name, scalar())
					}
				}
				for _, c := range r.Columns {
					if c.Function == "collect" {
						add(c.Name, graphresponse.Array(scalar(), scalar()))
					} else {
						add(c.Name, scalar())
					}
				}
				r.Rows = append(r.Rows, row)
			}
		}
	}
	if rng.IntN(2) == 0 {
		p := &graphresponse.Pagination{HasMore: rng.IntN(2) == 0, Truncated: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			c := pick("eyJrIjoxfQ", "", "abc-_123")
			p.NextCursor = &c
		}
		r.Pagination = p
	}
	return r
}

// reorder returns a copy of r with every node's properties shuffled and the
// nodes of different types interleaved differently (nodes of one type keep
// their relative order).
func reorder(r *graphresponse.Response, rng *rand.Rand) *graphresponse.Response {
	c := *r
	rank := map[string]int{}
	c.Nodes = make([]graphresponse.Node, len(r.Nodes))
	for i, n := range r.Nodes {
		n.Props = slices.Clone(n.Props)
		rng.Shuffle(len(n.Props), func(a, b int) { n.Props[a], n.Props[b] = n.Props[b], n.Props[a] })
		c.Nodes[i] = n
		if _, ok := rank[n.Type]; !ok {
			rank[n.Type] = rng.IntN(1000)
		}
	}
	slices.SortStableFunc(c.Nodes, func(a, b graphresponse.Node) int { return rank[a.Type] - rank[b.Type] })
	return &c
}

// checkResponseProperties asserts §7.7: strict Unmarshal of the rendering
// equals the shaped value, rendering twice gives the same bytes, and
// shuffling properties or interleaving node types does not change them.
func checkResponseProperties(r *graphresponse.Response, seed uint64) string {
	shape, err := ShapeResponse(r)
	if err != nil {
		return "ShapeResponse: " + err.Error()
	}
	out, err := MarshalResponse(r, Options{})
	if err != nil {
		return "MarshalResponse: " + err.Error()
	}
	if msg := layoutProblem(out, Options{}); msg != "" {
		return msg + "\n" + string(out)
	}
	back, err := Unmarshal(out)
	if err != nil {
		return "strict Unmarshal: " + err.Error() + "\n" + string(out)
	}
	if !Equal(back, shape) {
		return "decoded rendering differs from the shaped value\n got: " + describe(back) + "\nwant: " + describe(shape)
	}
	if again, _ := MarshalResponse(r, Options{}); !bytes.Equal(again, out) {
		return "rendering twice differs"
	}
	if other, _ := MarshalResponse(reorder(r, rand.New(rand.NewPCG(seed, 99))), Options{}); !bytes.Equal(other, out) {
		return "reordering properties or node types changed the bytes\n" + string(out) + "\n---\n" + string(other)
	}
	for _, opts := range []Options{{Delimiter: Tab}, {Delimiter: Pipe, IndentSize: 4}} {
		alt, err := MarshalResponse(r, opts)
		if err != nil {
			return "MarshalResponse with options: " + err.Error()
		}
		if v, err := UnmarshalOptions(alt, Options{IndentSize: opts.IndentSize}); err != nil || !Equal(v, shape) {
			return "rendering with other options does not decode to the shape"
		}
	}
	return ""
}

// TestResponseProperty runs the §7.7 property over 10,000 deterministic
// nasty responses.
func TestResponseProperty(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for i := range n {
		seed := uint64(i)
		r := nastyResponse(rand.New(rand.NewPCG(seed, 2026)))
		if msg := checkResponseProperties(r, seed); msg != "" {
			t.Fatalf("response %d: %s\nraw: %s", i, msg, graphresponse.Marshal(r))
		}
	}
}

// TestPropertyResponses runs the same properties under gopter with the
// shared graphgen generator.
func TestPropertyResponses(t *testing.T) {
	props := gopter.NewProperties(propertyParams(t))
	props.Property("rendering is deterministic and decodes to the shaped value", prop.ForAll(
		func(r *graphresponse.Response) string {
			return checkResponseProperties(r, uint64(len(r.Nodes)))
		},
		graphgen.Response(graphgen.Options{}),
	))
	props.Property("large responses too", prop.ForAll(
		func(r *graphresponse.Response) string {
			return checkResponseProperties(r, 5)
		},
		graphgen.Response(graphgen.Options{MaxNodes: 60, MaxEdges: 80}),
	))
	props.TestingRun(t)
}
