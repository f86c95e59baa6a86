package gcf_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/gcf"
)

func TestScalarEncoding(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"bare", "hello world", "hello world"},
		{"empty", "", `""`},
		{"literal true", "true", `"true"`},
		{"numeric", "42", `"42"`},
		{"numeric-like", "+.5", `"+.5"`},
		{"unicode digit stays bare", "1.\u0665", "1.\u0665"},
		{"leading space", " x", `" x"`},
		{"nbsp inside", "a\u00a0b", "\"a\u00a0b\""},
		{"c1 control", "a\u0085b", `"a\u0085b"`},
		{"line separators", "a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"bidi controls", "\u202eevil\u2066\u200f", `"\u202eevil\u2066\u200f"`},
		{"byte-order mark inside", "a\ufeffb", `"a\ufeffb"`},
		{"escape and vertical tab", "a\x1b[2Jb\vc", `"a\u001b[2Jb\u000bc"`},
		{"pipe", "a|b", `"a|b"`},
		{"comma", "a,b", `"a,b"`},
		{"array marker", "x[1]: y", `"x[1]: y"`},
		{"bracket without colon", "x[1] y", "x[1] y"},
		{"hash", "#x", `"#x"`},
		{"control escapes", "a\x01\b\f\n\r\t", `"a\u0001\b\f\n\r\t"`},
		{"slash literal, del escaped", "/\x7f", `"/\u007f"`},
		{"int64 min", int64(math.MinInt64), "-9223372036854775808"},
		{"float plain", 0.000001, "0.000001"},
		{"float exponent", 4e-7, "4e-7"},
		{"integral float", 75.0, "75"},
		{"float 2^53", float64(1 << 53), "9.007199254740992e+15"},
		{"negative zero", math.Copysign(0, -1), "0"},
		{"null", nil, "-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := gcf.MarshalValue(tt.v, gcf.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := strings.TrimSuffix(strings.TrimPrefix(string(out), "GCF profile=generic\n="), "\n")
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
			back, err := gcf.UnmarshalValue(out, gcf.Options{})
			if err != nil || !valueEqual(tt.v, back) {
				t.Errorf("round trip: %v %v", back, err)
			}
		})
	}
}

func TestEncodeErrors(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		wantErr error
		path    string
	}{
		{"NaN", map[string]any{"a": []any{math.NaN()}}, gcf.ErrNonFinite, "/a/0"},
		{"uint64", map[string]any{"n": uint64(math.MaxUint64)}, gcf.ErrOutOfRange, "/n"},
		{"bad utf8", map[string]any{"s": "\xff"}, gcf.ErrInvalidUTF8, "/s"},
		{"unsupported", map[string]any{"c": make(chan int)}, gcf.ErrUnsupportedType, "/c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcf.MarshalValue(tt.v, gcf.Options{})
			var ee *gcf.EncodeError
			if !errors.Is(err, tt.wantErr) || !errors.As(err, &ee) || ee.Path != tt.path {
				t.Fatalf("got %v, want %v at %s", err, tt.wantErr, tt.path)
			}
		})
	}
}

func TestDecodeErrorPositions(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *gcf.SyntaxError
	}{
		{"bad escape", "GCF profile=generic\nv=\"a\\x\"\n", &gcf.SyntaxError{Line: 2, Column: 5, Err: gcf.ErrInvalidEscape}},
		{"count deficit points at header", "GCF profile=generic\n\n## r [3]{a}\n1\n", &gcf.SyntaxError{Line: 3, Column: 1, Err: gcf.ErrCountMismatch}},
		{"missing header", "", &gcf.SyntaxError{Line: 1, Column: 1, Err: gcf.ErrMissingHeader}},
		{"huge count", "GCF profile=generic\n## r [1099511627776]{a}\n", &gcf.SyntaxError{Line: 2, Column: 6, Err: gcf.ErrLimit}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcf.UnmarshalValue([]byte(tt.in), gcf.Options{})
			var se *gcf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("got %v", err)
			}
			if se.Line != tt.want.Line || se.Column != tt.want.Column || se.Err != tt.want.Err {
				t.Errorf("got line %d column %d %v, want line %d column %d %v", se.Line, se.Column, se.Err, tt.want.Line, tt.want.Column, tt.want.Err)
			}
			if !strings.HasPrefix(err.Error(), "gcf: ") || gcf.Code(err) != tt.want.Err.Error() {
				t.Errorf("message %q, code %q", err, gcf.Code(err))
			}
		})
	}
}

func TestLimits(t *testing.T) {
	nested := func(depth int) string {
		var b strings.Builder
		b.WriteString("GCF profile=generic\n")
		for i := range depth {
			b.WriteString(strings.Repeat("  ", i) + "## k\n")
		}
		return b.String()
	}
	fields := func(n int) string {
		names := make([]string, n)
		cells := make([]string, n)
		for i := range names {
			names[i] = "f" + strconv.Itoa(i)
			cells[i] = "1"
		}
		return "GCF profile=generic\n## r [1]{" + strings.Join(names, ",") + "}\n" + strings.Join(cells, "|") + "\n"
	}
	tests := []struct {
		name    string
		in      string
		wantErr error
	}{
		{"depth below", nested(63), nil},
		{"depth above", nested(70), gcf.ErrLimit},
		{"fields at limit", fields(4096), nil},
		{"fields above", fields(4097), gcf.ErrLimit},
		{"line above", "GCF profile=generic\nv=" + strings.Repeat("x", 1<<20) + "\n", gcf.ErrLimit},
		{"count 2^40", "GCF profile=generic\n## r [1099511627776]{a}\n1\n", gcf.ErrLimit},
		{"count at limit", "GCF profile=generic\n## r [1048576]{a}\n", gcf.ErrCountMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcf.UnmarshalValue([]byte(tt.in), gcf.Options{})
			if !errors.Is(err, tt.wantErr) && !(tt.wantErr == nil && err == nil) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
		})
	}
	deep := any(int64(1))
	for range 100 {
		deep = []any{deep}
	}
	if _, err := gcf.MarshalValue(deep, gcf.Options{}); !errors.Is(err, gcf.ErrLimit) {
		t.Errorf("encoding 100 levels: %v, want limit_exceeded", err)
	}
}

func TestDeterminism(t *testing.T) {
	build := func(seed int) map[string]any {
		m := map[string]any{}
		keys := []string{"zeta", "alpha", "mid", "b", "a|b"}
		for i := range keys {
			k := keys[(i+seed)%len(keys)]
			m[k] = map[string]any{"x": int64(len(k)), "y": k}
		}
		return m
	}
	first, err := gcf.MarshalValue(build(0), gcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		got, err := gcf.MarshalValue(build(i), gcf.Options{})
		if err != nil || !bytes.Equal(got, first) {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, first)
		}
	}
}

func TestValueStream(t *testing.T) {
	var b bytes.Buffer
	s := gcf.NewValueStream(&b, gcf.Options{Tool: "export"})
	steps := []error{
		s.WriteKV("title", "report"),
		s.BeginTable("rows", []string{"id", "a,b"}),
		s.WriteRow(int64(1), "x"),
		s.WriteRow(int64(2), gcf.Absent),
		s.BeginKeyed("hosts", []string{"key", "cpu"}),
		s.WriteRow("web", "k1", 0.5),
		s.BeginItems("items"),
		s.WriteItem(map[string]any{"n": int64(1)}),
		s.WriteItem("s"),
		s.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	want := `GCF profile=generic tool=export
title=report
## rows [?]{id,"a,b"}
1|x
2|~
## hosts [?:]{_key,key,cpu}
web|k1|0.5
## items [?]
@0 {}
  n=1
@1 =s
##! summary counts=2,1,2
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	v, err := gcf.UnmarshalValue(b.Bytes(), gcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := gcf.AppendJSON(nil, v)
	wantJSON := `{"title":"report","rows":[{"id":1,"a,b":"x"},{"id":2}],"hosts":{"web":{"key":"k1","cpu":0.5}},"items":[{"n":1},"s"]}`
	if string(got) != wantJSON {
		t.Errorf("decoded %s", got)
	}
	tests := []struct {
		name    string
		do      func(s *gcf.ValueStream) error
		wantErr error
	}{
		{"row outside table", func(s *gcf.ValueStream) error { return s.WriteRow(int64(1)) }, gcf.ErrStreamState},
		{"object cell", func(s *gcf.ValueStream) error {
			_ = s.BeginTable("t", []string{"a"})
			return s.WriteRow([]any{1})
		}, gcf.ErrStreamSchema},
		{"path field", func(s *gcf.ValueStream) error { return s.BeginTable("t", []string{"a>b"}) }, gcf.ErrStreamSchema},
		{"kv after section", func(s *gcf.ValueStream) error {
			_ = s.BeginItems("i")
			return s.WriteKV("k", 1)
		}, gcf.ErrStreamState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.do(gcf.NewValueStream(&bytes.Buffer{}, gcf.Options{})); !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestStreamEncoderState(t *testing.T) {
	s := gcf.NewStreamEncoder(&bytes.Buffer{}, gcf.StreamHeader{}, gcf.Options{})
	if err := s.WriteNode(gcf.Symbol{Kind: "fn", Name: "a", Score: 1, Provenance: "p", Distance: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteNode(gcf.Symbol{Kind: "fn", Name: "b", Score: 1, Provenance: "p", Distance: 1}); !errors.Is(err, gcf.ErrStreamState) {
		t.Errorf("lower distance: %v", err)
	}
	if err := s.WriteEdge(gcf.Edge{Source: "a", Target: "zz", Type: "calls"}); !errors.Is(err, gcf.ErrDanglingEdge) {
		t.Errorf("dangling: %v", err)
	}
	if err := s.WriteEdge(gcf.Edge{Source: "a", Target: "a", Type: "calls"}); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteNode(gcf.Symbol{Kind: "fn", Name: "c", Score: 1, Provenance: "p", Distance: 2}); !errors.Is(err, gcf.ErrStreamState) {
		t.Errorf("node after edge: %v", err)
	}
}

func TestSessions(t *testing.T) {
	g := func(names ...string) *gcf.Graph {
		out := &gcf.Graph{}
		for i, n := range names {
			out.Symbols = append(out.Symbols, gcf.Symbol{Kind: "type", Name: n, Score: 0.5, Provenance: "p", Distance: i})
		}
		if len(names) > 1 {
			out.Edges = []gcf.Edge{{Source: names[1], Target: names[0], Type: "uses"}}
		}
		return out
	}
	prod := gcf.NewSession(gcf.Options{Limits: gcf.Limits{MaxSessionSymbols: 3}})
	cons := gcf.NewConsumerSession(gcf.Options{})
	for i, in := range []*gcf.Graph{g("a", "b"), g("b", "a"), g("a", "c")} {
		var b bytes.Buffer
		if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraphSession(in, prod); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		dec, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeGraph()
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		res, err := cons.Resolve(dec)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		want, _ := gcf.PackRoot(in)
		if got, _ := gcf.PackRoot(res); got != want {
			t.Errorf("call %d: resolved root %s, want %s", i, got, want)
		}
	}
	if prod.Len() != 3 {
		t.Errorf("session remembers %d, want 3", prod.Len())
	}
	clone := prod.Clone()
	if err := gcf.NewEncoder(&bytes.Buffer{}, gcf.Options{}).EncodeGraphSession(g("d"), prod); !errors.Is(err, gcf.ErrLimit) {
		t.Errorf("over the session limit: %v", err)
	}
	if prod.Len() != 3 || clone.Len() != 3 {
		t.Errorf("failed call changed the session")
	}
	bad := &gcf.Graph{Session: true, Refs: []gcf.Ref{{ID: 99}}}
	if _, err := cons.Resolve(bad); !errors.Is(err, gcf.ErrUnresolvedReference) {
		t.Errorf("unknown ref: %v", err)
	}
}

func TestSetDiffApply(t *testing.T) {
	row := func(id int64, v string) *gcf.Object {
		o := gcf.NewObject(2)
		o.Set("id", id)
		o.Set("v", v)
		return o
	}
	base := &gcf.Set{Name: "t", Key: "id", Fields: []string{"id", "v"}, Rows: []*gcf.Object{row(1, "a"), row(2, "b"), row(3, "c")}}
	next := &gcf.Set{Name: "t", Key: "id", Fields: []string{"id", "v"}, Rows: []*gcf.Object{row(2, "B"), row(3, "c"), row(4, "d")}}
	d, err := gcf.DiffSets(base, next)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeSetDelta(d); err != nil {
		t.Fatal(err)
	}
	dd, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeSetDelta()
	if err != nil {
		t.Fatal(err)
	}
	_, root, err := gcf.ApplySetDelta(base, dd, dd.NewRoot)
	want, _ := gcf.SetPackRoot(next)
	if err != nil || root != want {
		t.Fatalf("root %s (%v), want %s", root, err, want)
	}
	if _, _, err := gcf.ApplySetDelta(next, dd, dd.NewRoot); !errors.Is(err, gcf.ErrBaseMismatch) {
		t.Errorf("wrong base: %v", err)
	}
}

func TestMarshalIgnoresPropertyOrder(t *testing.T) {
	r := workedResponse(t)
	want := map[gcf.Profile][]byte{}
	for _, p := range []gcf.Profile{gcf.ProfileGeneric, gcf.ProfileGraph} {
		out, err := gcf.Marshal(r, gcf.Options{Profile: p})
		if err != nil {
			t.Fatal(err)
		}
		want[p] = out
	}
	for i := range r.Nodes {
		slices.Reverse(r.Nodes[i].Props)
	}
	for p, w := range want {
		got, err := gcf.Marshal(r, gcf.Options{Profile: p})
		if err != nil || !bytes.Equal(got, w) {
			t.Errorf("profile %d: output depends on property order (%v)", p, err)
		}
	}
}

// TestGraphEndpoints pins how edge endpoints resolve (§2.6.5 step 2): by
// name when it is unique, by kind and name otherwise.
func TestGraphEndpoints(t *testing.T) {
	syms := []gcf.Symbol{
		{Kind: "function", Name: "p.A", Score: 0.9, Provenance: "lsp"},
		{Kind: "type", Name: "p.A", Score: 0.8, Provenance: "lsp"},
		{Kind: "function", Name: "p.B", Score: 0.7, Provenance: "lsp"},
	}
	tests := []struct {
		name    string
		symbols []gcf.Symbol
		edges   []gcf.Edge
		want    string // the edges section
		wantErr error
	}{
		{name: "unique name", symbols: syms, edges: []gcf.Edge{{Source: "p.B", Target: "p.B", Type: "calls"}},
			want: "## edges [1]\n@2<@2 calls\n"},
		{name: "kind picks one of two", symbols: syms, edges: []gcf.Edge{{Source: "p.A", SourceKind: "type", Target: "p.B", Type: "uses"}, {Source: "p.A", SourceKind: "fn", Target: "p.B", Type: "calls"}},
			want: "## edges [2]\n@2<@0 calls\n@2<@1 uses\n"},
		{name: "equal edges keep their order", symbols: syms, edges: []gcf.Edge{{Source: "p.B", Target: "p.B", Type: "calls", Status: "removed"}, {Source: "p.B", Target: "p.B", Type: "calls", Status: "added"}},
			want: "## edges [2]\n@2<@2 calls removed\n@2<@2 calls added\n"},
		{name: "ambiguous name", symbols: syms, edges: []gcf.Edge{{Source: "p.A", Target: "p.B", Type: "calls"}}, wantErr: gcf.ErrAmbiguousEndpoint},
		{name: "unknown name", symbols: syms, edges: []gcf.Edge{{Source: "p.C", Target: "p.B", Type: "calls"}}, wantErr: gcf.ErrDanglingEdge},
		{name: "kind matches no symbol", symbols: syms, edges: []gcf.Edge{{Source: "p.B", SourceKind: "type", Target: "p.B", Type: "calls"}}, wantErr: gcf.ErrDanglingEdge},
		{name: "duplicate symbol", symbols: append(slices.Clone(syms), gcf.Symbol{Kind: "fn", Name: "p.B", Score: 0.1, Provenance: "ast"}), wantErr: gcf.ErrDuplicateSymbol},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := gcf.NewEncoder(&buf, gcf.Options{}).EncodeGraph(&gcf.Graph{Symbols: tt.symbols, Edges: tt.edges})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			_, edges, _ := strings.Cut(buf.String(), "## edges")
			if got := "## edges" + edges; got != tt.want {
				t.Errorf("edges section:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}
