package markdown_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/markdown"
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

func marshal(t *testing.T, r *graphresponse.Response) []byte {
	t.Helper()
	b, err := markdown.Marshal(r, markdown.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// splitRow splits a GFM table row into its cells the way the tables
// extension does: on every | not escaped by a backslash, after dropping
// the leading and trailing pipe.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			cur.WriteByte(c)
			cur.WriteByte(line[i+1])
			i++
		case c == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if rest := strings.TrimSpace(cur.String()); rest != "" {
		cells = append(cells, rest) // no closing pipe
	}
	return cells
}

// ownHeading matches the headings the encoder writes itself.
var ownHeading = regexp.MustCompile(`^(# Graph response( \(.*\))?|## (Nodes|Edges): .* \(\d+\)|## (Paths|Rows) \(\d+\))$`)

// checkStructure parses out as GFM blocks and reports the first line
// that a value broke: every table row has its header's cell count, every
// heading is one the encoder writes, and every other line is a blank,
// the summary or a path item.
func checkStructure(out []byte) string {
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	width := -1
	for i, line := range lines {
		switch {
		case line == "":
			width = -1
		case strings.HasPrefix(line, "|"):
			cells := splitRow(line)
			if width < 0 {
				width = len(cells)
				if i+1 >= len(lines) || len(splitRow(lines[i+1])) != width || !strings.HasPrefix(lines[i+1], "| ---") {
					return fmt.Sprintf("line %d: table header without its delimiter row: %q", i+1, line)
				}
				continue
			}
			if len(cells) != width {
				return fmt.Sprintf("line %d: %d cells, want %d: %q", i+1, len(cells), width, line)
			}
		case regexp.MustCompile(`^ {0,3}#{1,6}([ \t]|$)`).MatchString(line):
			if !ownHeading.MatchString(line) {
				return fmt.Sprintf("line %d: heading the encoder did not write: %q", i+1, line)
			}
		case strings.HasPrefix(line, "- path "), i == 2:
		default:
			return fmt.Sprintf("line %d: unexpected line: %q", i+1, line)
		}
	}
	return ""
}

func TestPropertyStructure(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	check := func(r *graphresponse.Response) string {
		out, err := markdown.Marshal(r, markdown.Options{})
		if err != nil {
			return err.Error()
		}
		if msg := checkStructure(out); msg != "" {
			return msg + "\n" + string(out)
		}
		return ""
	}
	props.Property("random responses keep every row's cell count and write no foreign heading", prop.ForAll(func(r *graphresponse.Response) string {
		return check(r)
	}, graphgen.Response(graphgen.Options{})))
	props.Property("hostile names and values too", prop.ForAll(func(seed uint64) string {
		rng := rand.New(rand.NewPCG(seed, 5))
		r := graphgen.HostileResponse(rng, true)
		// Hostile relationship types, endpoints, paths and rows as well.
		for i := range 1 + rng.IntN(4) {
			r.Edges = append(r.Edges, graphresponse.Edge{From: graphgen.Hostile(rng), FromID: int64(i), To: graphgen.Hostile(rng),
				ToID: int64(i + 1), Type: graphgen.Hostile(rng), PathID: graphresponse.Some(0), Step: graphresponse.Some(int64(i))})
		}
		k := graphgen.Hostile(rng)
		r.Rows = []graphresponse.Row{{{Key: k, Value: graphresponse.String(graphgen.Hostile(rng))}},
			{{Key: k, Value: graphresponse.NodeBucket(graphgen.Hostile(rng), graphgen.Hostile(rng),
				[]graphresponse.Member{{Key: graphgen.Hostile(rng), Value: graphresponse.String(graphgen.Hostile(rng))}})}}}
		cur := graphgen.Hostile(rng)
		r.QueryType = graphgen.Hostile(rng)
		r.Pagination = &graphresponse.Pagination{NextCursor: &cur}
		return check(r)
	}, genSeed()))
	props.TestingRun(t)
}

// TestHostileValues pins the escapes of values that would break a table,
// start a block or inject HTML.
func TestHostileValues(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"pipe", "a|b", `a\|b`},
		{"newline", "a\nb", "a<br>b"},
		{"carriage return", "a\r\nb", "a⟦U+000D⟧<br>b"},
		{"backslash before pipe", `a\|b`, `a\\\|b`},
		{"trailing backslash", `a\`, `a\\`},
		{"heading", "# h", `\# h`},
		{"heading after newline", "x\n# h", `x<br># h`},
		{"quote", "> q", `\> q`},
		{"list dash", "- x", `\- x`},
		{"list plus", "+ x", `\+ x`},
		{"setext", "===", `\===`},
		{"ordered list", "12. x", `12\. x`},
		{"date is not a list", "2026-05-08", "2026-05-08"},
		{"backticks", "`code`", "\\`code\\`"},
		{"html", "<script>", `\<script\>`},
		{"entity", "&lt;", `\&lt;`},
		{"link", "[a](b)", `\[a\](b)`},
		{"emphasis", "*a* _b_ c_d", `\*a\* \_b\_ c_d`},
		{"escape", "\x1b[31m", "⟦U+001B⟧\\[31m"},
		{"marker bracket", "⟦U+0041⟧", "⟦U+27E6⟧U+0041⟧"},
		{"tab", "a\tb", "a⟦U+0009⟧b"},
		{"line separator", "a\u2028b", "a⟦U+2028⟧b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &graphresponse.Response{Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{{Key: "v", Value: graphresponse.String(tt.in)}}}}}
			out := marshal(t, r)
			want := "| 1 | " + tt.want + " |\n"
			if !bytes.HasSuffix(out, []byte(want)) {
				t.Errorf("got\n%s\nwant last line %q", out, want)
			}
			if msg := checkStructure(out); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func genSeed() gopter.Gen {
	return func(p *gopter.GenParameters) *gopter.GenResult {
		return gopter.NewGenResult(p.Rng.Uint64(), gopter.NoShrinker)
	}
}

func TestPropertyDeterministic(t *testing.T) {
	props := gopter.NewProperties(propParams(t))
	props.Property("encode twice gives the same bytes", prop.ForAll(func(r *graphresponse.Response) bool {
		a, err1 := markdown.Marshal(r, markdown.Options{})
		b, err2 := markdown.Marshal(r, markdown.Options{})
		return err1 == nil && err2 == nil && bytes.Equal(a, b)
	}, graphgen.Response(graphgen.Options{})))
	props.Property("shuffling nodes and edges changes nothing", prop.ForAll(func(r *graphresponse.Response, seed uint64) string {
		a, err := markdown.Marshal(r, markdown.Options{})
		if err != nil {
			return err.Error()
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		s := *r
		s.Nodes = append([]graphresponse.Node(nil), r.Nodes...)
		s.Edges = append([]graphresponse.Edge(nil), r.Edges...)
		rng.Shuffle(len(s.Nodes), func(i, j int) { s.Nodes[i], s.Nodes[j] = s.Nodes[j], s.Nodes[i] })
		rng.Shuffle(len(s.Edges), func(i, j int) { s.Edges[i], s.Edges[j] = s.Edges[j], s.Edges[i] })
		for i := range s.Nodes {
			props := append([]graphresponse.Member(nil), s.Nodes[i].Props...)
			rng.Shuffle(len(props), func(a, b int) { props[a], props[b] = props[b], props[a] })
			s.Nodes[i].Props = props
		}
		b, err := markdown.Marshal(&s, markdown.Options{})
		if err != nil {
			return err.Error()
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("before:\n%s\nafter:\n%s", a, b)
		}
		return ""
	}, graphgen.Response(graphgen.Options{}), genSeed()))
	props.TestingRun(t)
}

// TestSnapshots snapshots the rendering of every query shape of
// goon/testdata (traversal, variable length, neighbours, path finding,
// aggregations by node and by property, pagination, empty answers).
func TestSnapshots(t *testing.T) {
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "goon", "testdata", "*.input.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no inputs under goon/testdata: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".input.json"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			r, err := graphresponse.Unmarshal(data)
			if err != nil {
				t.Fatal(err)
			}
			out := marshal(t, r)
			if msg := checkStructure(out); msg != "" {
				t.Error(msg)
			}
			snaps.MatchSnapshot(t, string(out))
		})
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

// TestFailingWriter checks that the encoder stops at the first write
// error, returns it from then on, and leaves a correct prefix.
func TestFailingWriter(t *testing.T) {
	r := graphgen.Graph(1, 300, 400)
	full := marshal(t, r)
	for _, limit := range []int{0, 1, 4095, 4096, 10000, len(full) - 1} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			w := &failWriter{limit: limit}
			e := markdown.NewEncoder(w, markdown.Options{})
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

// TestAltered counts the values written with a marker.
func TestAltered(t *testing.T) {
	s := graphresponse.String
	r := &graphresponse.Response{Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{
		{Key: "a", Value: s("x\x1by")}, {Key: "b", Value: s("line\nbreak")}, {Key: "c", Value: s("⟦")}, {Key: "d", Value: s("plain")},
	}}}}
	var b bytes.Buffer
	e := markdown.NewEncoder(&b, markdown.Options{})
	if err := e.Encode(r); err != nil {
		t.Fatal(err)
	}
	if got := e.Altered(); got != 2 {
		t.Errorf("Altered = %d, want 2\n%s", got, b.Bytes())
	}
}
