package xmlgraph_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/internal/textsafe"
	"github.com/graphwire/graphwire/xmlgraph"
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

func genSeed() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Uint64(), gopter.NoShrinker)
	}
}

func marshal(t testing.TB, r *graphresponse.Response) []byte {
	t.Helper()
	b, err := xmlgraph.Marshal(r, xmlgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hostile returns a response whose every string (types, keys, values,
// cursor, query type, column names) comes from graphgen.Hostile, with a
// ⟦ marker look-alike, XML's forbidden code points and invalid UTF-8
// mixed in.
func hostile(rng *rand.Rand) *graphresponse.Response {
	h := func() string {
		s := graphgen.Hostile(rng)
		switch rng.IntN(5) {
		case 0:
			s += "\ufffe\uffff⟦U+0041⟧]]>&amp;<!--"
		case 1:
			s += "\r\n \t"
		}
		return s
	}
	r := graphgen.HostileResponse(rng, true)
	r.QueryType = h()
	for i := range 3 {
		r.Edges = append(r.Edges, graphresponse.Edge{From: h(), FromID: int64(i), To: h(), ToID: -int64(i), Type: h(), Depth: graphresponse.Some(1)})
	}
	r.Columns = []graphresponse.Column{{Name: "c", Function: h(), Target: h(), Property: h()}}
	r.GroupColumns = []graphresponse.GroupColumn{{Name: "g", Kind: "node", Node: h(), Entity: h()}}
	r.Rows = []graphresponse.Row{{{Key: "g", Value: graphresponse.NodeBucket(h(), h(), []graphresponse.Member{{Key: h(), Value: graphresponse.String(h())}})}, {Key: h(), Value: graphresponse.String(h())}}}
	cur := h()
	r.Pagination = &graphresponse.Pagination{HasMore: true, NextCursor: &cur}
	return r
}

func roundTrip(r *graphresponse.Response) string {
	out, err := xmlgraph.Marshal(r, xmlgraph.Options{})
	if err != nil {
		return err.Error()
	}
	back, err := xmlgraph.Unmarshal(out, xmlgraph.Options{})
	if err != nil {
		return err.Error() + "\n" + string(out)
	}
	if !back.Equal(r) {
		return fmt.Sprintf("round trip differs:\n%s\n%s\n%s", graphresponse.Marshal(r), graphresponse.Marshal(back), out)
	}
	return ""
}

func TestPropertyRoundTrip(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("decode(encode(r)) == r", prop.ForAll(roundTrip, graphgen.Response(graphgen.Options{})))
	props.Property("decode(encode(r)) == r for aggregations", prop.ForAll(roundTrip, graphgen.Response(graphgen.Options{QueryType: graphresponse.QueryAggregation})))
	props.Property("decode(encode(r)) == r for path finding", prop.ForAll(roundTrip, graphgen.Response(graphgen.Options{QueryType: graphresponse.QueryPathFinding})))
	props.Property("hostile strings round-trip and no unsafe code point is written raw", prop.ForAll(func(seed uint64) string {
		r := hostile(rand.New(rand.NewPCG(seed, 11)))
		if msg := roundTrip(r); msg != "" {
			return msg
		}
		out, _ := xmlgraph.Marshal(r, xmlgraph.Options{})
		if i := bytes.IndexFunc(out, func(c rune) bool { return textsafe.Forbidden(c) && c != '\n' || c == 0xfffe || c == 0xffff }); i >= 0 {
			return fmt.Sprintf("raw %U at byte %d:\n%s", []rune(string(out[i:]))[0], i, out)
		}
		return ""
	}, genSeed()))
	props.Property("encode twice gives the same bytes", prop.ForAll(func(r *graphresponse.Response) bool {
		a, err1 := xmlgraph.Marshal(r, xmlgraph.Options{})
		b, err2 := xmlgraph.Marshal(r, xmlgraph.Options{})
		return err1 == nil && err2 == nil && bytes.Equal(a, b)
	}, graphgen.Response(graphgen.Options{})))
	props.Property("node property order does not matter", prop.ForAll(func(r *graphresponse.Response, seed uint64) bool {
		a, _ := xmlgraph.Marshal(r, xmlgraph.Options{})
		rng := rand.New(rand.NewPCG(seed, 13))
		s := *r
		s.Nodes = append([]graphresponse.Node(nil), r.Nodes...)
		for i := range s.Nodes {
			p := append([]graphresponse.Member(nil), s.Nodes[i].Props...)
			rng.Shuffle(len(p), func(a, b int) { p[a], p[b] = p[b], p[a] })
			s.Nodes[i].Props = p
		}
		b, _ := xmlgraph.Marshal(&s, xmlgraph.Options{})
		return bytes.Equal(a, b)
	}, graphgen.Response(graphgen.Options{}), genSeed()))
	props.TestingRun(t)
}

// TestSchemaValidation validates the documents of every goon/testdata
// input, of random and of hostile responses against
// config/schemas/graph_response.xsd with libxml2's xmllint. Without
// xmllint it skips with the reason, except under CI=true, where it fails.
func TestSchemaValidation(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("xmllint is required under CI=true (Debian package libxml2-utils; .ci/run installs it)")
		}
		t.Skip("xmllint not found: install libxml2-utils to validate against the XSD")
	}
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	xsd := filepath.Join(root, "config", "schemas", "graph_response.xsd")
	dir := t.TempDir()
	var files []string
	write := func(name string, r *graphresponse.Response) {
		p := filepath.Join(dir, name+".xml")
		if err := os.WriteFile(p, marshal(t, r), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	for name, r := range conformance.GoonInputs(t) {
		write(name, r)
	}
	rng := rand.New(rand.NewPCG(20261128, 1))
	for i := range 150 {
		write("random_"+strconv.Itoa(i), graphgen.Random(rng, graphgen.Options{}))
		write("hostile_"+strconv.Itoa(i), hostile(rng))
	}
	out, err := exec.Command(xmllint, append([]string{"--noout", "--nonet", "--schema", xsd}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
	if n := bytes.Count(out, []byte(" validates\n")); n != len(files) {
		t.Fatalf("xmllint validated %d of %d documents:\n%s", n, len(files), out)
	}

	// The schema is not vacuous: it rejects a document that breaks it.
	bad := filepath.Join(dir, "bad.xml")
	doc := bytes.Replace(marshal(t, conformance.GoonInputs(t)["traversal_multi_hop"]), []byte(` id="`), []byte(` id="x`), 1)
	if err := os.WriteFile(bad, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--nonet", "--schema", xsd, bad).CombinedOutput(); err == nil {
		t.Fatalf("xmllint accepted an id that is not a long:\n%s", out)
	}
}

// TestSnapshots snapshots the document of every goon/testdata input.
func TestSnapshots(t *testing.T) {
	for name, r := range conformance.GoonInputs(t) {
		t.Run(name, func(t *testing.T) {
			out := marshal(t, r)
			back, err := xmlgraph.Unmarshal(out, xmlgraph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !back.Equal(r) {
				t.Errorf("round trip differs:\n%s\n%s", graphresponse.Marshal(r), graphresponse.Marshal(back))
			}
			snaps.MatchSnapshot(t, string(out))
		})
	}
}

// TestKinds checks that the kinds and absences the brief names survive:
// int against float against string, bool, null, absent against empty.
func TestKinds(t *testing.T) {
	empty := ""
	s := graphresponse.String
	r := &graphresponse.Response{
		FormatVersion: "5.0.1", QueryType: graphresponse.QueryAggregation,
		Nodes: []graphresponse.Node{{Type: "T", ID: -9223372036854775808, Props: []graphresponse.Member{
			{Key: "i", Value: graphresponse.Int(2)}, {Key: "f", Value: graphresponse.Float(2)}, {Key: "s", Value: s("2")},
			{Key: "b", Value: graphresponse.Bool(true)}, {Key: "sb", Value: s("true")}, {Key: "n", Value: graphresponse.Null()},
			{Key: "sn", Value: s("null")}, {Key: "e", Value: s("")}, {Key: "u", Value: graphresponse.Uint(18446744073709551615)},
			{Key: "z", Value: graphresponse.Float(-0.0 * 1)}, {Key: "ws", Value: s("  \n ")},
		}}},
		Edges:        []graphresponse.Edge{{From: "T", FromID: 1, To: "T", ToID: 2, Type: "R", PathID: graphresponse.Some(0), Step: graphresponse.Some(0)}},
		Columns:      []graphresponse.Column{},
		GroupColumns: nil,
		Rows:         []graphresponse.Row{{}, {{Key: "n", Value: graphresponse.Null()}}},
		Pagination:   &graphresponse.Pagination{NextCursor: &empty},
	}
	if msg := roundTrip(r); msg != "" {
		t.Fatal(msg)
	}
	back, err := xmlgraph.Unmarshal(marshal(t, r), xmlgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back.GroupColumns != nil || back.Columns == nil || back.Pagination.NextCursor == nil || *back.Pagination.NextCursor != "" {
		t.Errorf("absent and empty sections confused: columns %v, group columns %v, cursor %v", back.Columns, back.GroupColumns, back.Pagination.NextCursor)
	}
	for _, key := range []string{"i", "f", "s", "b", "sb", "n", "sn", "e", "u"} {
		want, _ := r.Nodes[0].Prop(key)
		got, _ := back.Nodes[0].Prop(key)
		if !got.Equal(want) {
			t.Errorf("%s: got %#v, want %#v", key, got, want)
		}
	}
}

const head = `<graph_response xmlns="urn:graphwire:graph_response:1" format_version="1" query_type="q">`

// decodeErrors are malformed or invalid documents with the error each
// gives; FuzzDecode seeds from them too.
var decodeErrors = []struct {
	name string
	in   string
	want *xmlgraph.SyntaxError
}{
	{"empty", "", &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrMalformed}},
	{"not xml", "{}", &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrElement}},
	{"wrong root", `<response xmlns="urn:graphwire:graph_response:1"/>`, &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrElement}},
	{"no namespace", `<graph_response format_version="1" query_type="q"><nodes/><edges/></graph_response>`, &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrElement}},
	{"missing attribute", `<graph_response xmlns="urn:graphwire:graph_response:1" query_type="q"/>`, &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrAttribute}},
	{"unknown attribute", head + "\n<nodes/><edges/><pagination has_more=\"true\" truncated=\"false\" more=\"1\"/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 17, Err: xmlgraph.ErrAttribute}},
	{"missing edges", head + "\n<nodes/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 9, Err: xmlgraph.ErrElement}},
	{"sections out of order", head + "<nodes/><edges/><rows/><columns/></graph_response>", &xmlgraph.SyntaxError{Line: 1, Column: 113, Err: xmlgraph.ErrElement}},
	{"bad id", head + "\n<nodes>\n  <node type=\"T\" id=\"1.5\"/></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 3, Column: 3, Err: xmlgraph.ErrAttribute}},
	{"id overflow", head + "<nodes/><edges><edge from=\"a\" from_id=\"9223372036854775808\" to=\"b\" to_id=\"1\" type=\"R\"/></edges></graph_response>", &xmlgraph.SyntaxError{Line: 1, Column: 105, Err: xmlgraph.ErrAttribute}},
	{"bad int", head + "<nodes><node type=\"T\" id=\"1\">\n <property key=\"k\" type=\"int\">1.0</property></node></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 2, Err: xmlgraph.ErrValue}},
	{"bad float", head + "<nodes><node type=\"T\" id=\"1\">\n <property key=\"k\" type=\"float\">NaN</property></node></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 2, Err: xmlgraph.ErrValue}},
	{"bad bool", head + "<nodes><node type=\"T\" id=\"1\">\n <property key=\"k\" type=\"bool\">1</property></node></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 2, Err: xmlgraph.ErrValue}},
	{"unknown type", head + "<nodes><node type=\"T\" id=\"1\">\n <property key=\"k\" type=\"date\">1</property></node></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 2, Err: xmlgraph.ErrAttribute}},
	{"duplicate property", head + "<nodes><node type=\"T\" id=\"1\"><property key=\"k\" type=\"null\"/>\n<property key=\"k\" type=\"null\"/></node></nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 2, Column: 1, Err: xmlgraph.ErrAttribute}},
	{"text in a section", head + "<nodes>x</nodes><edges/></graph_response>", &xmlgraph.SyntaxError{Line: 1, Column: 97, Err: xmlgraph.ErrElement}},
	{"truncated", head + "<nodes>", &xmlgraph.SyntaxError{Line: 1, Column: 97, Err: xmlgraph.ErrMalformed}},
	{"mismatched tag", head + "<nodes></edges>", &xmlgraph.SyntaxError{Line: 1, Column: 105, Err: xmlgraph.ErrMalformed}},
	{"trailing element", head + "<nodes/><edges/></graph_response>\n<x/>", &xmlgraph.SyntaxError{Line: 2, Column: 1, Err: xmlgraph.ErrTrailing}},
	{"doctype", `<!DOCTYPE x [<!ENTITY a "b">]>` + head, &xmlgraph.SyntaxError{Line: 1, Column: 1, Err: xmlgraph.ErrElement}},
	{"other encoding", `<?xml version="1.0" encoding="ISO-8859-1"?>` + head, &xmlgraph.SyntaxError{Line: 1, Column: 44, Err: xmlgraph.ErrMalformed}},
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range decodeErrors {
		t.Run(tt.name, func(t *testing.T) {
			_, err := xmlgraph.Unmarshal([]byte(tt.in), xmlgraph.Options{})
			var se *xmlgraph.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want a *SyntaxError", err, err)
			}
			if !errors.Is(err, tt.want.Err) {
				t.Errorf("error %v, want sentinel %v", err, tt.want.Err)
			}
			if se.Line != tt.want.Line || se.Column != tt.want.Column {
				t.Errorf("error at %d:%d, want %d:%d (%v)", se.Line, se.Column, tt.want.Line, tt.want.Column, err)
			}
		})
	}
}

// errReader fails after its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestDecodeIOErrorPassesThrough(t *testing.T) {
	errBroken := errors.New("connection reset")
	_, err := xmlgraph.NewDecoder(&errReader{data: []byte(head + "<nodes>"), err: errBroken}, xmlgraph.Options{}).Decode()
	if !errors.Is(err, errBroken) {
		t.Fatalf("Decode = %v, want the reader's error", err)
	}
	var se *xmlgraph.SyntaxError
	if errors.As(err, &se) {
		t.Fatalf("an I/O error was reported as a syntax error: %v", err)
	}
}

// failWriter accepts limit bytes, then fails every write.
type failWriter struct {
	buf   bytes.Buffer
	limit int
}

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	room := w.limit - w.buf.Len()
	if room >= len(p) {
		return w.buf.Write(p)
	}
	if room > 0 {
		w.buf.Write(p[:room])
		return room, errDiskFull
	}
	return 0, errDiskFull
}

func TestFailingWriter(t *testing.T) {
	r := graphgen.Graph(1, 300, 400)
	full := marshal(t, r)
	for _, limit := range []int{0, 1, 4095, 4096, 10000, len(full) - 1} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			w := &failWriter{limit: limit}
			e := xmlgraph.NewEncoder(w, xmlgraph.Options{})
			if err := e.Encode(r); !errors.Is(err, errDiskFull) {
				t.Fatalf("Encode = %v, want %v", err, errDiskFull)
			}
			if err := e.Encode(r); !errors.Is(err, errDiskFull) {
				t.Fatalf("second Encode = %v, want the sticky %v", err, errDiskFull)
			}
			if !bytes.HasPrefix(full, w.buf.Bytes()) {
				t.Errorf("written bytes are not a prefix of the full output")
			}
		})
	}
}

func TestEscapes(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a<b>&c\"", `a&lt;b&gt;&amp;c"`},
		{"tab\tcr\rlf\n", "tab&#x9;cr&#xD;lf\n"},
		{"nul\x00", "nul⟦U+0000⟧"},
		{"nel\u0085 ls\u2028 rlo\u202e bom\ufeff", "nel&#x85; ls&#x2028; rlo&#x202E; bom&#xFEFF;"},
		{"\ufffe\uffff", "⟦U+FFFE⟧⟦U+FFFF⟧"},
		{"⟦U+0041⟧", "⟦U+27E6⟧U+0041⟧"},
		{"bad\xffutf8", "bad\ufffdutf8"},
	}
	for _, tt := range tests {
		r := &graphresponse.Response{Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{{Key: "k", Value: graphresponse.String(tt.in)}}}}}
		out := string(marshal(t, r))
		want := `<property key="k" type="string">` + tt.want + "</property>"
		if !strings.Contains(out, want) {
			t.Errorf("%q: got\n%s\nwant %s", tt.in, out, want)
		}
	}
	got := string(marshal(t, &graphresponse.Response{QueryType: "a\"\n\t<&"}))
	if want := `query_type="a&quot;&#xA;&#x9;&lt;&amp;"`; !strings.Contains(got, want) {
		t.Errorf("attribute escapes: got\n%s\nwant %s", got, want)
	}
}

func TestDecodeAcceptsOtherSpellings(t *testing.T) {
	// Another tool's serialisation: a prefix, CDATA, comments, attribute
	// quotes and entity spellings all differ, the data does not.
	doc := `<?xml version="1.0"?>
<!-- written elsewhere -->
<g:graph_response xmlns:g="urn:graphwire:graph_response:1" query_type='t' format_version='1'>
  <g:nodes><g:node id="01" type="U"><g:property type="string" key="k"><![CDATA[<b>]]>&#x3C;&lt;</g:property></g:node></g:nodes>
  <g:edges></g:edges>
</g:graph_response>
<?pi after?>
`
	r, err := xmlgraph.Unmarshal([]byte(doc), xmlgraph.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format_version":"1","query_type":"t","nodes":[{"type":"U","id":"1","k":"<b><<"}],"edges":[]}`
	if diff := cmp.Diff(want, string(graphresponse.Marshal(r))); diff != "" {
		t.Error(diff)
	}
}
