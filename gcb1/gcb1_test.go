package gcb1_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/graphgen"
)

// propParams returns gopter parameters with a fixed seed;
// GRAPHWIRE_PROP_SEED replays another.
func propParams(t *testing.T) *gopter.TestParameters {
	t.Helper()
	seed := int64(20261128)
	if s := os.Getenv("GRAPHWIRE_PROP_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GRAPHWIRE_PROP_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("seed %d", seed)
	p := gopter.DefaultTestParametersWithSeed(seed)
	p.MinSuccessfulTests = 300
	return p
}

// kept is what GCB1 carries of r (the package comment's mapping): edges
// with both ends among the nodes, their type knowing's name in upper case
// or REFERENCES, without depth, path or step; no pagination; the raw
// format version.
func kept(r *graphresponse.Response) *graphresponse.Response {
	out := &graphresponse.Response{FormatVersion: config.RawVersion(), QueryType: r.QueryType, Nodes: slices.Clone(r.Nodes), Edges: []graphresponse.Edge{}}
	if out.Nodes == nil {
		out.Nodes = []graphresponse.Node{}
	}
	has := func(typ string, id int64) bool {
		return slices.ContainsFunc(r.Nodes, func(n graphresponse.Node) bool { return n.Type == typ && n.ID == id })
	}
	for _, e := range r.Edges {
		if !has(e.From, e.FromID) || !has(e.To, e.ToID) {
			continue
		}
		typ := "REFERENCES"
		if _, ok := gcb1.ParseEdgeType(strings.ToLower(e.Type)); ok {
			typ = strings.ToUpper(strings.ToLower(e.Type))
		}
		out.Edges = append(out.Edges, graphresponse.Edge{From: e.From, FromID: e.FromID, To: e.To, ToID: e.ToID, Type: typ})
	}
	return out
}

func marshal(t testing.TB, r *graphresponse.Response) []byte {
	t.Helper()
	b, err := gcb1.Marshal(r, gcb1.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRoundTrip: what GCB1 keeps reads back equal, and a decoded payload
// encodes to the same bytes.
func TestRoundTrip(t *testing.T) {
	roundTrip := func(seed uint64) bool {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		qt := []string{graphresponse.QueryTraversal, graphresponse.QueryNeighbors, graphresponse.QueryPathFinding}[rng.IntN(3)]
		r := graphgen.Random(rng, graphgen.Options{QueryType: qt})
		// Half of the edges get a type knowing has, so both branches of the
		// edge type mapping are exercised.
		for i := range r.Edges {
			if rng.IntN(2) == 0 {
				r.Edges[i].Type = []string{"CALLS", "MEMBER_OF", "contains", "Deployed_By", "REFERENCES"}[rng.IntN(5)]
			}
		}
		b, err := gcb1.Marshal(r, gcb1.Options{})
		if err != nil {
			t.Logf("marshal: %v", err)
			return false
		}
		back, err := gcb1.Unmarshal(b, gcb1.Options{})
		if err != nil {
			t.Logf("unmarshal: %v", err)
			return false
		}
		if want := kept(r); !back.Equal(want) {
			t.Logf("differs:\n got %s\nwant %s", graphresponse.Marshal(back), graphresponse.Marshal(want))
			return false
		}
		// path_finding anchors distances on the step-0 edges, and steps are
		// not kept: re-encoding may pick other anchors.
		again, err := gcb1.Marshal(back, gcb1.Options{})
		if err != nil || (qt != graphresponse.QueryPathFinding && !bytes.Equal(again, b)) {
			t.Logf("re-encode differs: %v", err)
			return false
		}
		return true
	}
	props := gopter.NewProperties(propParams(t))
	props.Property("decode(encode(r)) == kept(r)", prop.ForAll(roundTrip, gen()))
	props.TestingRun(t)
}

// TestDeterminism: encoding twice, or an equal copy, gives the same bytes.
func TestDeterminism(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("encode is deterministic", prop.ForAll(func(seed uint64) bool {
		r := graphgen.Random(rand.New(rand.NewPCG(seed, 1)), graphgen.Options{QueryType: graphresponse.QueryTraversal})
		a, err1 := gcb1.Marshal(r, gcb1.Options{})
		c, err := graphresponse.Unmarshal(graphresponse.Marshal(r))
		if err != nil {
			return false
		}
		b, err2 := gcb1.Marshal(c, gcb1.Options{})
		return err1 == nil && err2 == nil && bytes.Equal(a, b)
	}, gen()))
	props.TestingRun(t)
}

func gen() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Uint64(), gopter.NoShrinker)
	}
}

// TestShuffledProperties: the signature sorts properties, so their order
// in the response does not change the bytes. Node and edge order is the
// response's (it carries the query's sort) and is kept, not canonicalised.
func TestShuffledProperties(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("property order does not matter", prop.ForAll(func(seed uint64) bool {
		rng := rand.New(rand.NewPCG(seed, 2))
		r := graphgen.Random(rng, graphgen.Options{QueryType: graphresponse.QueryNeighbors})
		a := marshal(t, r)
		for i := range r.Nodes {
			ps := slices.Clone(r.Nodes[i].Props)
			rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			r.Nodes[i].Props = ps
		}
		return bytes.Equal(a, marshal(t, r))
	}, gen()))
	props.TestingRun(t)
}

// TestSnapshots keeps the payload of every conformance input (aggregations
// are refused) with what it reads back as.
func TestSnapshots(t *testing.T) {
	in := conformance.GoonInputs(t)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range in {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run(name, func(t *testing.T) {
			r := in[name]
			b, err := gcb1.Marshal(r, gcb1.Options{})
			if r.QueryType == graphresponse.QueryAggregation {
				if !errors.Is(err, gcb1.ErrUnsupportedQuery) {
					t.Fatalf("aggregation: err %v, want ErrUnsupportedQuery", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, err := gcb1.Unmarshal(b, gcb1.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if want := kept(r); !back.Equal(want) {
				t.Fatalf("read back differs:\n got %s\nwant %s", graphresponse.Marshal(back), graphresponse.Marshal(want))
			}
			snaps.MatchSnapshot(t, len(b), hex.Dump(b))
		})
	}
}

// TestMapping checks the symbol and edge fields of a small response.
func TestMapping(t *testing.T) {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "File", ID: 1, Props: []graphresponse.Member{{Key: "path", Value: graphresponse.String("a.go")}}},
			{Type: "Definition", ID: 2, Props: []graphresponse.Member{{Key: "definition_type", Value: graphresponse.String("Method")}, {Key: "end_line", Value: graphresponse.Int(9)}}},
			{Type: "User", ID: 3},
		},
		Edges: []graphresponse.Edge{
			{From: "File", FromID: 1, To: "Definition", ToID: 2, Type: "DEFINES"},
			{From: "Definition", FromID: 2, To: "Definition", ToID: 2, Type: "CALLS", Depth: graphresponse.Some(1)},
			{From: "User", FromID: 3, To: "Project", ToID: 9, Type: "MEMBER_OF"},
		},
	}
	p, err := gcb1.FromResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	want := &gcb1.Payload{
		Tool: "traversal",
		Symbols: []gcb1.Symbol{
			{QualifiedName: "File:1", Kind: gcb1.KindFile, Score: 1, Provenance: gcb1.Structural, Signature: `{"path":"a.go"}`},
			{QualifiedName: "Definition:2", Kind: 3, Score: 1, Provenance: gcb1.Structural, Distance: 1, Signature: `{"definition_type":"Method","end_line":9}`},
			{QualifiedName: "User:3", Kind: gcb1.KindExternal, Score: 1, Provenance: gcb1.Structural},
		},
		Edges: []gcb1.Edge{{Source: 0, Target: 1, Type: gcb1.References}, {Source: 1, Target: 1, Type: 1}},
	}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("payload (-want +got):\n%s", diff)
	}
}

func TestAggregationRefused(t *testing.T) {
	_, err := gcb1.Marshal(&graphresponse.Response{QueryType: graphresponse.QueryAggregation}, gcb1.Options{})
	var ee *gcb1.EncodeError
	if !errors.As(err, &ee) || ee.Path != "/query_type" || !errors.Is(err, gcb1.ErrUnsupportedQuery) {
		t.Fatalf("err %v, want EncodeError at /query_type", err)
	}
}

// valid is a small payload: tool "t", tokens 1/2, one symbol "File:7", one
// edge 0→0 calls.
func valid() []byte {
	b, err := gcb1.MarshalPayload(&gcb1.Payload{
		Tool: "t", TokensUsed: 1, TokenBudget: 2,
		Symbols: []gcb1.Symbol{{QualifiedName: "File:7", Kind: 14, Score: 1, Provenance: 7, Signature: `{"a":1}`}},
		Edges:   []gcb1.Edge{{Type: 1}},
	})
	if err != nil {
		panic(err)
	}
	return b
}

// Offsets in valid(): magic 0-3, version 4, tool 5-6, tokens 7, 8, counts
// 9, 10, qname 11-17, kind 18, score 19-22, provenance 23, distance 24,
// signature 25-32, components 33-48, edge source 49, target 50, type 51,
// status 52; 53 bytes.
func patch(at int, b ...byte) []byte {
	v := valid()
	return append(v[:at:at], append(b, v[at+len(b):]...)...)
}

var decodeErrors = []struct {
	name    string
	in      []byte
	wantErr error
	offset  int
}{
	{"empty", nil, gcb1.ErrTruncated, 0},
	{"magic prefix", []byte("GC"), gcb1.ErrTruncated, 2},
	{"bad magic", []byte("GCB2\x01"), gcb1.ErrMagic, 0},
	{"json", []byte(`{"a":1}`), gcb1.ErrMagic, 0},
	{"no version", []byte("GCB1"), gcb1.ErrTruncated, 4},
	{"version 2", patch(4, 2), gcb1.ErrVersion, 4},
	{"version 0", patch(4, 0), gcb1.ErrVersion, 4},
	{"truncated tool", valid()[:6], gcb1.ErrTruncated, 6},
	{"tool runs past", []byte("GCB1\x01\x7f"), gcb1.ErrTruncated, 6},
	{"varint overflow", []byte("GCB1\x01\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02"), gcb1.ErrVarint, 6},
	{"varint 11 bytes", []byte("GCB1\x01\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"), gcb1.ErrVarint, 6},
	{"varint not shortest", []byte("GCB1\x01\x00\x81\x00"), gcb1.ErrVarint, 6},
	{"varint truncated", []byte("GCB1\x01\x00\x81"), gcb1.ErrTruncated, 7},
	{"huge symbol count", []byte("GCB1\x01\x00\x00\x00\xff\xff\xff\xff\x0f\x00"), gcb1.ErrTruncated, 14},
	{"counts exceed input", patch(9, 2), gcb1.ErrTruncated, 53},
	{"kind 0", patch(18, 0), gcb1.ErrEnum, 18},
	{"kind 19", patch(18, 19), gcb1.ErrEnum, 18},
	{"provenance 0", patch(23, 0), gcb1.ErrEnum, 23},
	{"provenance 8", patch(23, 8), gcb1.ErrEnum, 23},
	{"source out of range", patch(49, 1), gcb1.ErrIndex, 49},
	{"target out of range", patch(50, 5), gcb1.ErrIndex, 50},
	{"edge type 0", patch(51, 0), gcb1.ErrEnum, 51},
	{"edge type 39", patch(51, 39), gcb1.ErrEnum, 51},
	{"status 3", patch(52, 3), gcb1.ErrEnum, 52},
	{"truncated component", valid()[:40], gcb1.ErrTruncated, 40},
	{"truncated edge", valid()[:52], gcb1.ErrTruncated, 52},
	{"trailing", append(valid(), 0), gcb1.ErrTrailing, 53},
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range decodeErrors {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcb1.UnmarshalPayload(tt.in)
			var se *gcb1.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, tt.wantErr) || se.Offset != tt.offset {
				t.Fatalf("err %v, want %v at offset %d", err, tt.wantErr, tt.offset)
			}
		})
	}
}

// TestMappingErrors: well-formed payloads that are not responses.
func TestMappingErrors(t *testing.T) {
	sym := func(q, sig string) []byte {
		b, err := gcb1.MarshalPayload(&gcb1.Payload{Tool: "t", Symbols: []gcb1.Symbol{{QualifiedName: q, Kind: 1, Provenance: 1, Signature: sig}}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name   string
		in     []byte
		offset int
	}{
		{"qname without id", sym("pkg.Func", ""), 11},
		{"id not decimal", sym("File:07", ""), 11},
		{"id overflows", sym("File:9223372036854775808", ""), 11},
		{"signature not JSON", sym("File:1", "func f()"), 11 + 7 + 7},
		{"signature not an object", sym("File:1", "[1]"), 11 + 7 + 7},
		{"signature names id", sym("File:1", `{"id":1}`), 11 + 7 + 7},
		{"aggregation", func() []byte { b, _ := gcb1.MarshalPayload(&gcb1.Payload{Tool: "aggregation"}); return b }(), 5},
		{"status added", patch(52, 1), 52},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcb1.Unmarshal(tt.in, gcb1.Options{})
			var se *gcb1.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, gcb1.ErrMapping) || se.Offset != tt.offset {
				t.Fatalf("err %v, want ErrMapping at offset %d", err, tt.offset)
			}
		})
	}
	if _, err := gcb1.Unmarshal(valid(), gcb1.Options{}); err != nil {
		t.Fatalf("valid payload: %v", err)
	}
}

func TestEncodePayloadErrors(t *testing.T) {
	ok := gcb1.Symbol{QualifiedName: "a", Kind: 1, Provenance: 1}
	tests := []struct {
		name string
		p    gcb1.Payload
		path string
	}{
		{"kind 0", gcb1.Payload{Symbols: []gcb1.Symbol{{Provenance: 1}}}, "/symbols/0/kind"},
		{"provenance 8", gcb1.Payload{Symbols: []gcb1.Symbol{ok, {Kind: 1, Provenance: 8}}}, "/symbols/1/provenance"},
		{"source", gcb1.Payload{Symbols: []gcb1.Symbol{ok}, Edges: []gcb1.Edge{{Source: 1, Type: 1}}}, "/edges/0/source"},
		{"target", gcb1.Payload{Symbols: []gcb1.Symbol{ok}, Edges: []gcb1.Edge{{Target: -1, Type: 1}}}, "/edges/0/target"},
		{"type", gcb1.Payload{Symbols: []gcb1.Symbol{ok}, Edges: []gcb1.Edge{{Type: 39}}}, "/edges/0/type"},
		{"status", gcb1.Payload{Symbols: []gcb1.Symbol{ok}, Edges: []gcb1.Edge{{Type: 1, Status: 3}}}, "/edges/0/status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcb1.MarshalPayload(&tt.p)
			var ee *gcb1.EncodeError
			if !errors.As(err, &ee) || ee.Path != tt.path || !errors.Is(err, gcb1.ErrUnencodable) {
				t.Fatalf("err %v, want ErrUnencodable at %s", err, tt.path)
			}
		})
	}
}

type faultyWriter struct{ n int }

var errWrite = errors.New("disk full")

func (w *faultyWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errWrite
}

// TestFaultyWriter: the first write error is returned and sticks; the
// encoder writes a payload in one call.
func TestFaultyWriter(t *testing.T) {
	w := &faultyWriter{}
	e := gcb1.NewEncoder(w, gcb1.Options{})
	r := &graphresponse.Response{QueryType: graphresponse.QueryTraversal, Nodes: []graphresponse.Node{{Type: "A", ID: 1}}}
	if err := e.Encode(r); !errors.Is(err, errWrite) {
		t.Fatalf("first: %v", err)
	}
	if err := e.Encode(r); !errors.Is(err, errWrite) || w.n != 1 {
		t.Fatalf("second: %v after %d writes", err, w.n)
	}
}

func TestDecoderReadError(t *testing.T) {
	_, err := gcb1.NewDecoder(&faultyReader{}, gcb1.Options{}).Decode()
	if !errors.Is(err, errWrite) {
		t.Fatalf("err %v, want the read error unchanged", err)
	}
}

type faultyReader struct{}

func (faultyReader) Read([]byte) (int, error) { return 0, errWrite }
