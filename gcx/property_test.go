package gcx_test

import (
	"errors"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// propertySeed is the fixed seed of the property tests;
// GRAPHWIRE_PROPERTY_SEED replays another one.
func propertySeed(t *testing.T) int64 {
	seed := int64(20261121)
	if s := os.Getenv("GRAPHWIRE_PROPERTY_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GRAPHWIRE_PROPERTY_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d", seed)
	return seed
}

func pick[T any](rng *rand.Rand, list []T) T { return list[rng.Intn(len(list))] }

// Text pools with the characters that stress the codec: TAB, LF, CR,
// backslash, "#", a GCX prefix and non-ASCII.
var (
	cellPool = []string{"", "a", "Jordan NG", "x\ty", "line1\nline2", "crlf\r\nend", "\r", "back\\slash", "#7", "GCX2 a",
		"GCX1 tool=y fields=z", "été ✓", " lead", "trail ", "\\#", "a=b,c", `{"json":1}`, "\\"}
	typePool  = []string{"User", "MergeRequest", "Project", "", "Legal Entity", `a\b`, "T\r", "#x", "GCX2", "é", "a,b"}
	keyPool   = []string{"name", "state", "id", "type", "_props", "a b", "x,y", "", "a.b", "#", "size", "tax id", "é"}
	aliasPool = []string{"count(p)", "avg age", "", "a.b", "x", "x", "total", "n~2", "#"}
)

func genText(rng *rand.Rand) string {
	if rng.Intn(4) == 0 {
		return pick(rng, cellPool) + pick(rng, cellPool)
	}
	return pick(rng, cellPool)
}

func genValue(rng *rand.Rand, depth int) graphresponse.Value {
	switch rng.Intn(12) {
	case 0:
		return graphresponse.Null()
	case 1:
		return graphresponse.Bool(rng.Intn(2) == 0)
	case 2:
		return graphresponse.Int(rng.Int63n(2000) - 1000)
	case 3:
		return graphresponse.Uint(math.MaxUint64 - uint64(rng.Intn(10)))
	case 4:
		return graphresponse.Float(pick(rng, []float64{1e21, 1e-7, math.Copysign(0, -1), math.NaN(), 1e6, 2.5, -0.1, math.Inf(1), 123456789.125}))
	case 5:
		if depth < 2 {
			n := rng.Intn(3)
			vs := make([]graphresponse.Value, n)
			for i := range vs {
				vs[i] = genValue(rng, depth+1)
			}
			return graphresponse.Array(vs...)
		}
	case 6:
		if depth < 2 {
			return graphresponse.Object(genMembers(rng, depth+1)...)
		}
	}
	return graphresponse.String(genText(rng))
}

// genMembers returns members with unique keys.
func genMembers(rng *rand.Rand, depth int) []graphresponse.Member {
	var ms []graphresponse.Member
	for _, k := range keyPool {
		if rng.Intn(4) == 0 {
			ms = append(ms, graphresponse.Member{Key: k, Value: genValue(rng, depth)})
		}
	}
	rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	return ms
}

func genOpt(rng *rand.Rand) graphresponse.OptInt {
	if rng.Intn(2) == 0 {
		return graphresponse.OptInt{}
	}
	return graphresponse.Some(rng.Int63n(5))
}

// genResponse builds a random GraphResponse covering spec §15.4: unsafe and
// empty type names, reserved and unsafe property keys, awkward strings and
// floats, optional edge integers, duplicate and unsafe aggregation names,
// null node groups, missing metric cells and pagination with a cursor.
func genResponse(rng *rand.Rand) *graphresponse.Response {
	r := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     pick(rng, []string{graphresponse.QueryTraversal, graphresponse.QueryAggregation, graphresponse.QueryPathFinding, graphresponse.QueryNeighbors}),
	}
	for range rng.Intn(8) {
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: pick(rng, typePool), ID: rng.Int63n(1<<62) - 1<<61, Props: genMembers(rng, 0)})
	}
	for range rng.Intn(8) {
		r.Edges = append(r.Edges, graphresponse.Edge{
			From: pick(rng, typePool), FromID: rng.Int63n(100), To: pick(rng, typePool), ToID: rng.Int63n(100),
			Type: pick(rng, []string{"AUTHORED", "IN_PROJECT", "a b", "", "T\r"}), Depth: genOpt(rng), PathID: genOpt(rng), Step: genOpt(rng),
		})
	}
	if rng.Intn(2) == 0 {
		genAggregation(rng, r)
	}
	if rng.Intn(2) == 0 {
		p := &graphresponse.Pagination{HasMore: rng.Intn(2) == 0, Truncated: rng.Intn(2) == 0}
		if rng.Intn(2) == 0 {
			p.NextCursor = ptr(pick(rng, []string{"eyJoIjoiYWQyMTczMWM5MTZm", "", "a=b", "é"}))
		}
		r.Pagination = p
	}
	return r
}

func genAggregation(rng *rand.Rand, r *graphresponse.Response) {
	nodeNames := map[string]bool{}
	for range rng.Intn(3) {
		g := graphresponse.GroupColumn{Name: pick(rng, aliasPool), Kind: graphresponse.GroupKindProperty, Node: "n", Property: pick(rng, []string{"", "severity"})}
		if rng.Intn(2) == 0 {
			// A node column never shares its name with another column:
			// the row could not hold both values, and the later column
			// would win on decoding (spec §13.2 step 6).
			g.Name = pick(rng, []string{"u", "avg u", "g.x", "v\r"})
			if nodeNames[g.Name] {
				continue
			}
			g.Kind = graphresponse.GroupKindNode
			g.Entity = pick(rng, []string{"", "User", "U\r"})
			nodeNames[g.Name] = true
		}
		r.GroupColumns = append(r.GroupColumns, g)
	}
	for range rng.Intn(3) {
		r.Columns = append(r.Columns, graphresponse.Column{Name: pick(rng, aliasPool), Function: pick(rng, []string{"count", "avg", "collect"}), Target: "n", Property: pick(rng, []string{"", "age"})})
	}
	if rng.Intn(4) == 0 {
		if rng.Intn(2) == 0 {
			r.Columns = []graphresponse.Column{}
		}
		if rng.Intn(2) == 0 {
			r.GroupColumns = []graphresponse.GroupColumn{}
		}
	}
	if rng.Intn(5) == 0 {
		return // rows absent
	}
	r.Rows = []graphresponse.Row{}
	names := map[string]bool{}
	var order []string
	for _, g := range r.GroupColumns {
		if !names[g.Name] {
			names[g.Name] = true
			order = append(order, g.Name)
		}
	}
	for _, c := range r.Columns {
		if !names[c.Name] {
			names[c.Name] = true
			order = append(order, c.Name)
		}
	}
	for range rng.Intn(5) {
		var row graphresponse.Row
		for _, name := range order {
			if rng.Intn(5) == 0 {
				continue // missing cell
			}
			v := genValue(rng, 1)
			if nodeNames[name] {
				v = graphresponse.Null()
				if rng.Intn(4) > 0 {
					v = graphresponse.NodeBucket(pick(rng, []string{"User", "Project", "", "U\r"}), pick(rng, []string{"1", "42", "", "\r", "#7", "GCX2 a"}), genMembers(rng, 1))
				}
			}
			row = append(row, graphresponse.Member{Key: name, Value: v})
		}
		r.Rows = append(r.Rows, row)
	}
}

// genResponseGen adapts genResponse to gopter, driven by its random source.
func genResponseGen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(genResponse(p.Rng), gopter.NoShrinker)
	}
}

func TestPropertyGraphRoundTrip(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(propertySeed(t))
	params.MinSuccessfulTests = 10000
	if testing.Short() {
		params.MinSuccessfulTests = 500
	}
	props := gopter.NewProperties(params)
	props.Property("Unmarshal(Marshal(r)) == Canon(r) and re-encoding is identical", prop.ForAll(
		func(r *graphresponse.Response) (bool, error) {
			enc, err := gcx.Marshal(r, gcx.Options{})
			if err != nil {
				return false, err
			}
			again, err := gcx.Marshal(r, gcx.Options{})
			if err != nil || string(again) != string(enc) {
				return false, errors.New("encoding twice gave different bytes")
			}
			back, err := gcx.Unmarshal(enc, gcx.Options{})
			if err != nil {
				return false, err
			}
			if diff := responseDiff(back, gcx.Canon(r)); diff != "" {
				return false, errors.New("decoded != Canon (-canon +got):\n" + diff + "\npayload " + strconv.Quote(string(enc)))
			}
			re, err := gcx.Marshal(back, gcx.Options{})
			if err != nil {
				return false, err
			}
			if string(re) != string(enc) {
				return false, errors.New("re-encoding differs:\n" + strconv.Quote(string(re)) + "\n" + strconv.Quote(string(enc)))
			}
			return true, nil
		},
		genResponseGen(),
	))
	props.TestingRun(t)
}

// genSection builds a random section the encoder accepts: safe names,
// unique fields, meta without reserved keys, and cells with every byte
// class that needs escaping or guarding.
func genSection(rng *rand.Rand) gcx.Section {
	names := []string{"id", "name", "a.b", "é", "x-y", "#", "GCX1", "v", "k=v"}
	rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	s := gcx.Section{Tool: pick(rng, []string{"x", "graph.nodes", "tool_request", "é"}), Fields: names[:1+rng.Intn(5)]}
	if rng.Intn(2) == 0 {
		s.Meta = map[string]string{}
		for range rng.Intn(4) {
			s.Meta[pick(rng, []string{"rows", "type", "a", "é", "z-z"})] = pick(rng, []string{"", "1", "a=b", "x,y", "ü"})
		}
	}
	for range rng.Intn(6) {
		row := make([]string, rng.Intn(len(s.Fields)+1))
		for i := range row {
			row[i] = genText(rng)
		}
		if len(s.Fields) == 1 && (len(row) == 0 || strings.ReplaceAll(row[0], "\r", "") == "") {
			row = []string{"filled"} // a blank one-field row is refused by design
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

// logical is what decoding s must give: rows padded, CR removed.
func logical(s gcx.Section) gcx.Section {
	out := gcx.Section{Tool: s.Tool, Fields: s.Fields, Meta: s.Meta}
	for _, row := range s.Rows {
		p := make([]string, len(s.Fields))
		for i, c := range row {
			p[i] = strings.ReplaceAll(c, "\r", "")
		}
		out.Rows = append(out.Rows, p)
	}
	return out
}

func TestPropertySectionRoundTrip(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(propertySeed(t))
	params.MinSuccessfulTests = 2000
	props := gopter.NewProperties(params)
	gen := func(p *gopter.GenParameters) *gopter.GenResult {
		n := 1 + p.Rng.Intn(3)
		secs := make([]gcx.Section, n)
		for i := range secs {
			secs[i] = genSection(p.Rng)
		}
		return gopter.NewGenResult(secs, gopter.NoShrinker)
	}
	props.Property("UnmarshalSections(MarshalSections(s)) == s", prop.ForAll(
		func(secs []gcx.Section) (bool, error) {
			enc, err := gcx.MarshalSections(secs...)
			if err != nil {
				return false, err
			}
			got, err := gcx.UnmarshalSections(enc)
			if err != nil {
				return false, err
			}
			want := make([]gcx.Section, len(secs))
			for i, s := range secs {
				want[i] = logical(s)
			}
			if diff := cmp.Diff(want, got, sectionOpts); diff != "" {
				return false, errors.New(diff)
			}
			again, err := gcx.MarshalSections(got...)
			if err != nil || string(again) != string(enc) {
				return false, errors.New("re-encoding the decoded sections differs")
			}
			return true, nil
		},
		gopter.Gen(gen),
	))
	props.TestingRun(t)
}
