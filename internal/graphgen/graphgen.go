// Package graphgen generates random GraphResponses for property tests and
// benchmarks.
//
// [Random] builds one response from a seeded source, so a failing case
// replays from its seed; [Response] wraps it as a gopter generator. The
// generators are deliberately nasty (specs/goon.md §5.2): identifiers drawn
// partly from small pools to force collisions, every tier and long-text key,
// full-range ids, duplicate nodes and edges, edges at several depths, path
// edges with and without steps, all scalar kinds with their extremes,
// arbitrary Unicode with control characters, datetime look-alikes, strings
// around the truncation limits, and aggregation rows with odd node cells.
package graphgen

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/leanovate/gopter"

	"github.com/graphwire/graphwire/graphresponse"
)

// Options tunes [Random]. The zero value gives small, varied responses.
type Options struct {
	// MaxNodes and MaxEdges bound the sizes; 0 means 12 and 16.
	MaxNodes, MaxEdges int
	// IdentifierOnly restricts strings used as identifiers to
	// [A-Za-z_][A-Za-z0-9_]*, which every generated identifier already is;
	// it is here for symmetry with future options.
	IdentifierOnly bool
	// NoNonFinite leaves NaN and ±Inf out of float values.
	NoNonFinite bool
	// NoComposite leaves arrays and objects out of property values.
	NoComposite bool
	// QueryType fixes the query type when not empty.
	QueryType string
}

// Response returns a gopter generator of responses built by [Random].
func Response(opts Options) gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		seed := p.Rng.Uint64()
		r := Random(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), opts)
		return gopter.NewGenResult(r, gopter.NoShrinker)
	}
}

// Tier and long-text keys of GOON's property order, plus the truncation
// keys, so that collisions with them are frequent.
var keyPool = []string{
	"iid", "username", "name", "full_path", "path", "uuid",
	"state", "status", "visibility_level",
	"created_at", "updated_at", "merged_at", "closed_at",
	"title", "description", "body", "note",
	"Capital", "date_only", "score", "draft", "x", "a_b",
}

var typePool = []string{"User", "Group", "Project", "MergeRequest", "Note", "Pipeline", "user", "Z"}
var edgeTypePool = []string{"AUTHORED", "MEMBER_OF", "CONTAINS", "IN_PROJECT", "HAS_NOTE"}

// Ident returns an identifier [A-Za-z_][A-Za-z0-9_]{0,15}, half of the time
// from pool.
func Ident(rng *rand.Rand, pool []string) string {
	if len(pool) > 0 && rng.IntN(2) == 0 {
		return pool[rng.IntN(len(pool))]
	}
	const first = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_"
	const rest = first + "0123456789"
	n := rng.IntN(16)
	b := []byte{first[rng.IntN(len(first))]}
	for range n {
		b = append(b, rest[rng.IntN(len(rest))])
	}
	return string(b)
}

// ID returns an id over the full int64 range, often small.
func ID(rng *rand.Rand) int64 {
	switch rng.IntN(6) {
	case 0:
		return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1 << 53, 1<<53 + 1, -(1<<53 + 1)}[rng.IntN(7)]
	case 1:
		return int64(rng.Uint64())
	default:
		return int64(rng.IntN(20))
	}
}

var specialStrings = []string{
	"true", "false", "null", "True", "NULL", "", " ", "a b", `say "hi"`, `back\slash`, "line\nbreak",
	"cr\rret", "tab\there", "\x00\x01\x1f\x7f", "\u0085\u2028\u2029", "😀 emoji", "naïve", "<&>",
	"2026-05-08 22:55:58.467450", "2026-05-08 22:55:58", "2026-05-08T22:55:58Z", "2026-05-08",
	"2026-02-30 10:00:00", "2026-05-08 24:00:00", "2026-05-08 22:55:58Z", "2026-5-8 1:2:3",
	"2026-05-08  22:55:58", "2026-05-08\t22:55:58", "2024-02-29 00:00:00", "2023-02-29 00:00:00",
	"0000-02-29 00:00:00", "2026-05-08 23:59:60", "2026-05-08 22:55:58.", "-0", "007", "+7", "1e5",
	"a=b", "x:y", "-", "...", `\n`, `\"`, "eyJrIjoxfQ",
}

// String returns a nasty string.
func String(rng *rand.Rand) string {
	switch rng.IntN(8) {
	case 0, 1:
		return specialStrings[rng.IntN(len(specialStrings))]
	case 2:
		// Around the truncation limits.
		n := []int{196, 197, 198, 199, 200, 201, 202, 996, 997, 998, 999, 1000, 1001, 1003}[rng.IntN(14)]
		unit := []string{"x", "é", "😀", "a\"", "\n"}[rng.IntN(5)]
		return repeatRunes(unit, n)
	case 3:
		return Ident(rng, nil)
	default:
		var b strings.Builder
		for range rng.IntN(12) {
			switch rng.IntN(6) {
			case 0:
				b.WriteRune(rune(rng.IntN(0x20)))
			case 1:
				b.WriteRune([]rune{0x7f, 0x85, 0x2028, 0x1F600, 0xFFFD, '"', '\\', ' '}[rng.IntN(8)])
			case 2:
				b.WriteRune(rune(0x80 + rng.IntN(0x3000)))
			default:
				b.WriteByte(byte(0x20 + rng.IntN(0x5f)))
			}
		}
		return b.String()
	}
}

func repeatRunes(unit string, n int) string {
	rs := []rune(strings.Repeat(unit, n))
	return string(rs[:n])
}

// Scalar returns a random scalar value.
func Scalar(rng *rand.Rand, opts Options) graphresponse.Value {
	switch rng.IntN(10) {
	case 0:
		return graphresponse.Null()
	case 1:
		return graphresponse.Bool(rng.IntN(2) == 0)
	case 2:
		return graphresponse.Int([]int64{math.MinInt64, math.MaxInt64, 0, -1, 42}[rng.IntN(5)])
	case 3:
		return graphresponse.Int(int64(rng.Uint64()))
	case 4:
		return graphresponse.Uint(math.MaxInt64 + 1 + rng.Uint64N(math.MaxInt64))
	case 5:
		fs := []float64{math.Copysign(0, -1), 0, 2, -3, 1.5, 5e-324, 2.2250738585072014e-308, 1e300, -1e-300, 1e21, 1e-7, 0.1, 123456789.125}
		if !opts.NoNonFinite && rng.IntN(5) == 0 {
			return graphresponse.Float([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}[rng.IntN(3)])
		}
		return graphresponse.Float(fs[rng.IntN(len(fs))])
	case 6:
		return graphresponse.Float(math.Float64frombits(rng.Uint64() & 0x7fefffffffffffff))
	default:
		return graphresponse.String(String(rng))
	}
}

// Value returns a scalar, or sometimes a small array or object.
func Value(rng *rand.Rand, opts Options, depth int) graphresponse.Value {
	if opts.NoComposite || depth > 1 || rng.IntN(12) != 0 {
		return Scalar(rng, opts)
	}
	if rng.IntN(2) == 0 {
		vs := make([]graphresponse.Value, rng.IntN(3))
		for i := range vs {
			vs[i] = Value(rng, opts, depth+1)
		}
		return graphresponse.Array(vs...)
	}
	return graphresponse.Object(Props(rng, opts, depth+1)...)
}

// Props returns properties with unique keys, never "type" or "id".
func Props(rng *rand.Rand, opts Options, depth int) []graphresponse.Member {
	n := rng.IntN(6)
	seen := map[string]bool{"type": true, "id": true}
	var out []graphresponse.Member
	for range n {
		k := Ident(rng, keyPool)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, graphresponse.Member{Key: k, Value: Value(rng, opts, depth)})
	}
	return out
}

func opt(rng *rand.Rand, max int64, min int64) graphresponse.OptInt {
	if rng.IntN(2) == 0 {
		return graphresponse.OptInt{}
	}
	return graphresponse.Some(min + rng.Int64N(max))
}

// Random builds one response.
func Random(rng *rand.Rand, opts Options) *graphresponse.Response {
	maxNodes, maxEdges := opts.MaxNodes, opts.MaxEdges
	if maxNodes == 0 {
		maxNodes = 12
	}
	if maxEdges == 0 {
		maxEdges = 16
	}
	qt := opts.QueryType
	if qt == "" {
		qt = []string{"traversal", "neighbors", "path_finding", "aggregation", "traversal", "", Ident(rng, nil)}[rng.IntN(7)]
	}
	r := &graphresponse.Response{FormatVersion: "5.0.1", QueryType: qt, Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	if qt != graphresponse.QueryAggregation || rng.IntN(4) == 0 {
		type key struct {
			t  string
			id int64
		}
		seen := map[key]bool{}
		for range rng.IntN(maxNodes + 1) {
			if len(r.Nodes) > 0 && rng.IntN(8) == 0 {
				r.Nodes = append(r.Nodes, r.Nodes[rng.IntN(len(r.Nodes))]) // identical duplicate
				continue
			}
			n := graphresponse.Node{Type: Ident(rng, typePool), ID: ID(rng), Props: Props(rng, opts, 0)}
			if seen[key{n.Type, n.ID}] {
				continue
			}
			seen[key{n.Type, n.ID}] = true
			r.Nodes = append(r.Nodes, n)
		}
		for range rng.IntN(maxEdges + 1) {
			if len(r.Edges) > 0 && rng.IntN(6) == 0 {
				e := r.Edges[rng.IntN(len(r.Edges))]
				if rng.IntN(2) == 0 {
					e.Depth = opt(rng, 3, 1)
				}
				r.Edges = append(r.Edges, e)
				continue
			}
			e := graphresponse.Edge{
				From: Ident(rng, typePool), FromID: ID(rng), To: Ident(rng, typePool), ToID: ID(rng),
				Type: Ident(rng, edgeTypePool),
			}
			if len(r.Nodes) > 1 && rng.IntN(2) == 0 {
				a, b := r.Nodes[rng.IntN(len(r.Nodes))], r.Nodes[rng.IntN(len(r.Nodes))]
				e.From, e.FromID, e.To, e.ToID = a.Type, a.ID, b.Type, b.ID
			}
			if qt == graphresponse.QueryPathFinding {
				e.PathID, e.Step = opt(rng, 4, 0), opt(rng, 4, 0)
			} else {
				e.Depth = opt(rng, 3, 1)
			}
			r.Edges = append(r.Edges, e)
		}
	}
	if qt == graphresponse.QueryAggregation {
		aggregation(rng, r, opts)
	}
	if rng.IntN(3) > 0 {
		p := &graphresponse.Pagination{HasMore: rng.IntN(2) == 0, Truncated: rng.IntN(2) == 0}
		if rng.IntN(2) == 0 {
			c := []string{"", "eyJrIjoxfQ", "abc-_123"}[rng.IntN(3)]
			p.NextCursor = &c
		}
		r.Pagination = p
	}
	return r
}

func aggregation(rng *rand.Rand, r *graphresponse.Response, opts Options) {
	r.Columns = []graphresponse.Column{}
	r.GroupColumns = []graphresponse.GroupColumn{}
	names := map[string]bool{}
	uniq := func(pool []string) string {
		for {
			n := Ident(rng, pool)
			if !names[n] {
				names[n] = true
				return n
			}
		}
	}
	for range rng.IntN(3) {
		g := graphresponse.GroupColumn{Name: uniq([]string{"u", "g", "p", "state", "u_state", "title"}), Node: Ident(rng, []string{"u", "g", "p"})}
		if rng.IntN(2) == 0 {
			g.Kind = graphresponse.GroupKindNode
			if rng.IntN(2) == 0 {
				g.Entity = Ident(rng, typePool)
			}
		} else {
			g.Kind = graphresponse.GroupKindProperty
			if rng.IntN(2) == 0 {
				g.Property = Ident(rng, []string{"state", g.Name})
			}
		}
		r.GroupColumns = append(r.GroupColumns, g)
	}
	for range rng.IntN(3) {
		c := graphresponse.Column{
			Name:     uniq([]string{"total", "count", "latest", "name"}),
			Function: []string{"count", "sum", "avg", "min", "max", "collect"}[rng.IntN(6)],
			Target:   Ident(rng, []string{"u", "mr", "v"}),
		}
		if rng.IntN(2) == 0 {
			c.Property = Ident(rng, keyPool)
		}
		r.Columns = append(r.Columns, c)
	}
	if rng.IntN(6) == 0 {
		r.GroupColumns = nil // absent
	}
	if rng.IntN(8) == 0 {
		r.Columns = nil
	}
	if rng.IntN(6) == 0 {
		return // rows absent
	}
	r.Rows = []graphresponse.Row{}
	for range rng.IntN(6) {
		row := graphresponse.Row{}
		for _, g := range r.GroupColumns {
			if rng.IntN(8) == 0 {
				continue // missing key
			}
			var v graphresponse.Value
			switch {
			case rng.IntN(6) == 0:
				v = graphresponse.Null()
			case g.Kind == graphresponse.GroupKindNode:
				id := []string{"7", "07", "+7", "-3", "x1", strconv.FormatInt(ID(rng), 10)}[rng.IntN(6)]
				v = graphresponse.NodeBucket(Ident(rng, typePool), id, Props(rng, Options{NoComposite: true, NoNonFinite: opts.NoNonFinite}, 1))
			default:
				v = Scalar(rng, opts)
			}
			row = append(row, graphresponse.Member{Key: g.Name, Value: v})
		}
		for _, c := range r.Columns {
			if rng.IntN(8) == 0 {
				continue
			}
			row = append(row, graphresponse.Member{Key: c.Name, Value: Scalar(rng, opts)})
		}
		if rng.IntN(5) == 0 {
			k := "zz_" + Ident(rng, nil)
			if _, ok := row.Get(k); !ok {
				row = append(row, graphresponse.Member{Key: k, Value: Scalar(rng, opts)})
			}
		}
		r.Rows = append(r.Rows, row)
	}
}

// Graph returns a deterministic traversal response with n nodes and m
// edges, for benchmarks: realistic SDLC-like properties, ids spread over a
// few types.
func Graph(seed uint64, n, m int) *graphresponse.Response {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	types := []string{"User", "Project", "MergeRequest", "Group", "Pipeline"}
	r := &graphresponse.Response{FormatVersion: "5.0.1", QueryType: graphresponse.QueryTraversal,
		Nodes: make([]graphresponse.Node, 0, n), Edges: make([]graphresponse.Edge, 0, m),
		Pagination: &graphresponse.Pagination{}}
	for i := range n {
		t := types[i%len(types)]
		id := int64(1000 + i)
		props := []graphresponse.Member{
			{Key: "name", Value: graphresponse.String(t + " " + strconv.Itoa(i))},
			{Key: "state", Value: graphresponse.String([]string{"active", "merged", "closed", "opened"}[rng.IntN(4)])},
			{Key: "created_at", Value: graphresponse.String("2026-05-08 22:55:58.467450")},
			{Key: "iid", Value: graphresponse.Int(int64(rng.IntN(5000)))},
			{Key: "draft", Value: graphresponse.Bool(rng.IntN(2) == 0)},
			{Key: "title", Value: graphresponse.String("Fix \"auth\" flow in module " + strconv.Itoa(rng.IntN(100)))},
		}
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: t, ID: id, Props: props})
	}
	rels := []string{"AUTHORED", "MEMBER_OF", "CONTAINS", "IN_PROJECT"}
	for range m {
		a, b := r.Nodes[rng.IntN(n)], r.Nodes[rng.IntN(n)]
		r.Edges = append(r.Edges, graphresponse.Edge{From: a.Type, FromID: a.ID, To: b.Type, ToID: b.ID, Type: rels[rng.IntN(len(rels))]})
	}
	return r
}

// unsafeRunes are the classes of code points the LLM formats must never
// write raw (internal/textsafe): C0 controls, DEL, C1 controls (NEL
// included), the line and paragraph separators, bidirectional controls and
// marks, and the byte-order mark, plus the marker brackets themselves.
var unsafeRunes = []rune{
	0x00, 0x01, 0x07, 0x08, '\t', '\n', 0x0b, 0x0c, '\r', 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f,
	0x80, 0x85, 0x8d, 0x9b, 0x9f, 0x2028, 0x2029, 0x061c, 0x200e, 0x200f,
	0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff,
	0x27e6, 0x27e7,
}

// delimiters are pieces of the formats' own syntax: GOON sections, groups
// and pairs, GCF sections and cells, GCX headers and comments, TOON tables,
// and marker look-alikes.
var delimiters = []string{
	"@nodes", "@edges", "User(2):", "1 name=x", " ", "=", "\"", "\\", ":", ",", "|", "#", "# ", "## ",
	"GCX1 tool=x fields=a", "[", "]", "{", "}", "-", "~", "^", "@0 ", "U+2028", "⟦U+0041⟧", "⟦U+", "\\u2028",
	"é", "😀", "\u00a0", "\u200b",
}

// Hostile returns a non-empty string mixing ordinary text, the formats'
// delimiters and the code points LLM formats must never write raw. It
// always starts with "v ", so no format prints it bare as a number,
// boolean or identifier, and it has at most 180 code points, under every
// truncation limit.
func Hostile(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("v ")
	for range rng.IntN(9) {
		switch rng.IntN(4) {
		case 0, 1:
			b.WriteRune(unsafeRunes[rng.IntN(len(unsafeRunes))])
		case 2:
			b.WriteString(delimiters[rng.IntN(len(delimiters))])
		default:
			b.WriteString(Ident(rng, nil))
		}
	}
	return b.String()
}

// HostileResponse returns a traversal response whose string property
// values come from [Hostile]. With hostileNames the node types and
// property keys are hostile too; otherwise they are identifiers. Node
// (type, id) pairs are unique.
func HostileResponse(rng *rand.Rand, hostileNames bool) *graphresponse.Response {
	r := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     graphresponse.QueryTraversal,
		Nodes:         []graphresponse.Node{},
		Edges:         []graphresponse.Edge{},
	}
	name := func(pool []string) string {
		if hostileNames && rng.IntN(2) == 0 {
			return Hostile(rng)
		}
		return pool[rng.IntN(len(pool))]
	}
	for i := range 1 + rng.IntN(5) {
		n := graphresponse.Node{Type: name(typePool), ID: int64(i + 1)}
		seen := map[string]bool{}
		for range rng.IntN(5) {
			k := name(keyPool)
			if seen[k] {
				continue
			}
			seen[k] = true
			n.Props = append(n.Props, graphresponse.Member{Key: k, Value: graphresponse.String(Hostile(rng))})
		}
		r.Nodes = append(r.Nodes, n)
	}
	return r
}
