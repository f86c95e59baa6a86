package gcx_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/internal/conformance"
)

// conformanceSkips lists conformance cases this codec does not pass, each
// with its reason. It is empty: every case passes. An entry that matches
// no case fails the run.
var conformanceSkips = map[string]string{}

// runner tracks the cases seen, so that skips must match and minimum
// counts hold.
type runner struct {
	t     *testing.T
	seen  map[string]bool
	count map[string]int
}

func newRunner(t *testing.T) *runner {
	r := &runner{t: t, seen: map[string]bool{}, count: map[string]int{}}
	t.Cleanup(func() {
		for name, reason := range conformanceSkips {
			if !r.seen[name] {
				t.Errorf("skip entry %q (%s) matches no conformance case", name, reason)
			}
		}
	})
	return r
}

// run runs one case unless it is in the skip map.
func (r *runner) run(kind, name string, f func(t *testing.T)) {
	id := kind + "/" + name
	r.seen[id] = true
	r.count[kind]++
	r.t.Run(id, func(t *testing.T) {
		if reason, ok := conformanceSkips[id]; ok {
			t.Skip(reason)
		}
		f(t)
	})
}

func (r *runner) atLeast(kind string, n int) {
	if r.count[kind] < n {
		r.t.Errorf("%s: found %d cases, want at least %d", kind, r.count[kind], n)
	}
}

type encodeVector struct {
	Name     string `json:"name"`
	Pitfall  bool   `json:"pitfall"`
	Sections []struct {
		Header struct {
			Tool   string            `json:"tool"`
			Fields []string          `json:"fields"`
			Meta   map[string]string `json:"meta"`
		} `json:"header"`
		Comments []string   `json:"comments_before_rows"`
		Rows     [][]string `json:"rows"`
	} `json:"sections"`
	ExpectedGCX string     `json:"expected_gcx"`
	EncodeError bool       `json:"encode_error"`
	DecodesTo   decodedSet `json:"decodes_to"`
}

type decodedSet struct {
	Sections []jsonSection `json:"sections"`
	Error    bool          `json:"error"`
	Stage    string        `json:"error_stage"`
}

// encodeDepartures are the encode.json vectors where graphwire departs from
// gcx-go on purpose (spec Appendix A.1): the bytes it writes instead, or
// the error it returns.
var encodeDepartures = map[string]struct {
	want    string
	wantErr error
}{
	"pitfall_hash_leading_first_cell":  {want: "GCX1 tool=x fields=id,v\n\\#123\ta\nb\tc\n"},
	"pitfall_tag_leading_first_cell":   {want: "GCX1 tool=x fields=id,v\n\\GCX1 tool=y fields=z\ta\n"},
	"pitfall_single_field_empty_value": {wantErr: gcx.ErrBlankRow},
	"pitfall_space_in_meta_value":      {wantErr: gcx.ErrUnsafeName},
	"pitfall_comma_in_field_name":      {wantErr: gcx.ErrUnsafeName},
	"pitfall_backslash_in_field_name":  {wantErr: gcx.ErrUnsafeName},
	"pitfall_meta_key_tool":            {wantErr: gcx.ErrReservedKey},
}

func TestConformance(t *testing.T) {
	dir := conformance.Dir(t, "gcx")
	r := newRunner(t)
	testEncodeVectors(t, r, dir)
	testEncodeAnyVectors(t, r, dir)
	testDecodeVectors(t, r, dir)
	testStringify(t, r, dir)
	testGoldens(t, r, dir)
	testCases(t, r, dir)
	testManifest(t, r, dir)
	r.atLeast("encode", 19)
	r.atLeast("encode_any", 13)
	r.atLeast("decode", 29)
	r.atLeast("stringify", 21)
	r.atLeast("golden", 40)
	r.atLeast("case", 20)
	r.atLeast("manifest", 20)
}

func testEncodeVectors(t *testing.T, r *runner, dir string) {
	var vs []encodeVector
	readJSON(t, filepath.Join(dir, "vectors", "encode.json"), &vs)
	for _, v := range vs {
		r.run("encode", v.Name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := gcx.NewEncoder(&buf, gcx.Options{})
			var err error
			var logical []gcx.Section
			for _, s := range v.Sections {
				if err = enc.WriteHeader(s.Header.Tool, s.Header.Fields, s.Header.Meta); err != nil {
					break
				}
				for _, c := range s.Comments {
					if err = enc.WriteComment(c); err != nil {
						break
					}
				}
				ls := gcx.Section{Tool: s.Header.Tool, Fields: s.Header.Fields, Meta: s.Header.Meta}
				for _, row := range s.Rows {
					if err = enc.WriteRow(row...); err != nil {
						break
					}
					padded := make([]string, len(s.Header.Fields))
					for i, c := range row {
						padded[i] = strings.ReplaceAll(c, "\r", "")
					}
					ls.Rows = append(ls.Rows, padded)
				}
				if err != nil {
					break
				}
				logical = append(logical, ls)
			}
			want, wantErr := v.ExpectedGCX, error(nil)
			if v.EncodeError {
				wantErr = gcx.ErrTooManyCells
			}
			if d, ok := encodeDepartures[v.Name]; ok {
				t.Logf("departs from gcx-go (spec Appendix A.1)")
				want, wantErr = d.want, d.wantErr
			}
			if wantErr != nil {
				if !errors.Is(err, wantErr) {
					t.Fatalf("error = %v, want %v", err, wantErr)
				}
				// The error sticks.
				if err2 := enc.WriteRow("z"); !errors.Is(err2, wantErr) {
					t.Errorf("error after failure = %v, want %v", err2, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("encode: %v", err)
			}
			if got := buf.String(); got != want {
				t.Fatalf("bytes:\n got %q\nwant %q", got, want)
			}
			got, err := gcx.UnmarshalSections(buf.Bytes())
			if err != nil {
				t.Fatalf("decode own output: %v", err)
			}
			if diff := cmp.Diff(logical, got, sectionOpts); diff != "" {
				t.Errorf("decode own output (-want +got):\n%s", diff)
			}
			if !v.Pitfall {
				if diff := cmp.Diff(toSections(v.DecodesTo.Sections), got, sectionOpts); diff != "" {
					t.Errorf("decode differs from gcx-go (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// encodeAnyDepartures are the encode_any.json vectors where the generic
// fallback departs from gcx-go (spec Appendix A.2).
var encodeAnyDepartures = map[string]string{
	"nested_html_chars":            "GCX1 tool=x fields=attrs,id,top\n{\"html\":\"<b>&</b>\"}\tx\t<b>\n",
	"pitfall_null_scalar":          "GCX1 tool=x fields=#,value\n1\t\n",
	"pitfall_empty_object":         "GCX1 tool=x fields=value\n{}\n",
	"pitfall_null_in_scalar_array": "GCX1 tool=x fields=#,value rows=3\n1\ta\n2\t\n3\tb\n",
}

func testEncodeAnyVectors(t *testing.T, r *runner, dir string) {
	var vs []struct {
		Name        string          `json:"name"`
		Pitfall     bool            `json:"pitfall"`
		Tool        string          `json:"tool"`
		Input       json.RawMessage `json:"input_json"`
		ExpectedGCX string          `json:"expected_gcx"`
		DecodesTo   decodedSet      `json:"decodes_to"`
	}
	readJSON(t, filepath.Join(dir, "vectors", "encode_any.json"), &vs)
	for _, v := range vs {
		r.run("encode_any", v.Name, func(t *testing.T) {
			want := v.ExpectedGCX
			if d, ok := encodeAnyDepartures[v.Name]; ok {
				t.Logf("departs from gcx-go (spec Appendix A.2)")
				want = d
			}
			var buf bytes.Buffer
			if err := gcx.NewEncoder(&buf, gcx.Options{}).EncodeValue(v.Tool, v.Input); err != nil {
				t.Fatalf("EncodeValue: %v", err)
			}
			if got := buf.String(); got != want {
				t.Fatalf("bytes:\n got %q\nwant %q", got, want)
			}
			got, err := gcx.UnmarshalSections(buf.Bytes())
			if err != nil {
				t.Fatalf("decode own output: %v", err)
			}
			if _, departs := encodeAnyDepartures[v.Name]; !departs {
				if diff := cmp.Diff(toSections(v.DecodesTo.Sections), got, sectionOpts); diff != "" {
					t.Errorf("decode (-want +got):\n%s", diff)
				}
			}
			if v.Name == "nested_html_chars" {
				buf.Reset()
				if err := gcx.NewEncoder(&buf, gcx.Options{EscapeHTML: true}).EncodeValue(v.Tool, v.Input); err != nil {
					t.Fatal(err)
				}
				if got := buf.String(); got != v.ExpectedGCX {
					t.Errorf("EscapeHTML bytes:\n got %q\nwant %q", got, v.ExpectedGCX)
				}
			}
			// MarshalValue is the same section with default options.
			b, err := gcx.MarshalValue(v.Tool, v.Input)
			if err != nil || string(b) != want {
				t.Errorf("MarshalValue = %q, %v; want %q", b, err, want)
			}
		})
	}
}

// decodeDepartures are the decode.json vectors where graphwire departs
// from gcx-go (spec Appendix A.3): the sentinel, stage and sections it
// gives instead.
var decodeDepartures = map[string]struct {
	err      error
	stage    string
	sections []gcx.Section
}{
	"duplicate_header_keys_last_wins": {err: gcx.ErrDuplicateKey, stage: "header"},
	"pitfall_GCX10_prefix":            {err: gcx.ErrVersion, stage: "header"},
	"pitfall_no_space_after_tag":      {err: gcx.ErrVersion, stage: "header"},
	"pitfall_other_version_section_read_as_rows": {err: gcx.ErrVersion, stage: "next_section_header", sections: []gcx.Section{
		{Tool: "a", Fields: []string{"x"}, Rows: [][]string{{"1"}}},
	}},
}

// stageOf classifies a decoding error like the vectors do.
func stageOf(err error, sections []gcx.Section) string {
	switch {
	case err == nil:
		return ""
	case len(sections) == 0:
		return "header"
	case errors.Is(err, gcx.ErrTooManyCells):
		return "row"
	default:
		return "next_section_header"
	}
}

func testDecodeVectors(t *testing.T, r *runner, dir string) {
	var vs []struct {
		Name    string     `json:"name"`
		Payload string     `json:"payload"`
		Result  decodedSet `json:"gcx_go_result"`
	}
	readJSON(t, filepath.Join(dir, "vectors", "decode.json"), &vs)
	for _, v := range vs {
		r.run("decode", v.Name, func(t *testing.T) {
			want, wantStage := toSections(v.Result.Sections), v.Result.Stage
			var wantErr error
			if d, ok := decodeDepartures[v.Name]; ok {
				t.Logf("departs from gcx-go (spec Appendix A.3)")
				want, wantStage, wantErr = d.sections, d.stage, d.err
			}
			got, err := gcx.UnmarshalSections([]byte(v.Payload))
			if (err != nil) != (wantStage != "") {
				t.Fatalf("error = %v, want stage %q", err, wantStage)
			}
			if err != nil {
				var se *gcx.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
				}
				if stage := stageOf(err, got); stage != wantStage {
					t.Errorf("stage = %q (%v), want %q", stage, err, wantStage)
				}
				if wantErr != nil && !errors.Is(err, wantErr) {
					t.Errorf("error = %v, want %v", err, wantErr)
				}
			}
			if diff := cmp.Diff(want, got, sectionOpts); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
}

func testStringify(t *testing.T, r *runner, dir string) {
	var vs []struct {
		Literal string `json:"go_literal"`
	}
	readJSON(t, filepath.Join(dir, "vectors", "stringify.json"), &vs)
	// The Go value behind each go_literal and the cell text of spec
	// Appendix B (graphwire column).
	tests := map[string]struct {
		v    any
		want string
	}{
		"nil":                         {nil, ""},
		`"a b"`:                       {"a b", "a b"},
		"true":                        {true, "true"},
		"false":                       {false, "false"},
		"-42":                         {int(-42), "-42"},
		"9007199254740993":            {int64(9007199254740993), "9007199254740993"},
		"18446744073709551615":        {uint64(18446744073709551615), "18446744073709551615"},
		"1.0":                         {float64(1.0), "1"},
		"0.1":                         {float64(0.1), "0.1"},
		"1.5e300":                     {float64(1.5e300), "1.5e+300"},
		"1e21":                        {float64(1e21), "1e+21"},
		"1e20":                        {float64(1e20), "100000000000000000000"},
		"0.000001":                    {float64(0.000001), "0.000001"},
		"0.0000001":                   {float64(0.0000001), "1e-7"},
		"-0.0 (negative zero)":        {negZero(), "0"},
		"float32(0.1)":                {float32(0.1), "0.1"},
		`[]byte("ab")`:                {[]byte("ab"), "YWI="},
		`json.Number("1.0")`:          {json.Number("1.0"), "1"},
		"int8(7)":                     {int8(7), "7"},
		`[]string{"a","b"}`:           {[]string{"a", "b"}, `["a","b"]`},
		`map[string]int{"b":2,"a":1}`: {map[string]int{"b": 2, "a": 1}, `{"a":1,"b":2}`},
	}
	if len(vs) != len(tests) {
		t.Errorf("stringify.json holds %d literals, the table %d", len(vs), len(tests))
	}
	for _, v := range vs {
		r.run("stringify", v.Literal, func(t *testing.T) {
			tt, ok := tests[v.Literal]
			if !ok {
				t.Fatalf("literal %q is not in the table: fixture drift", v.Literal)
			}
			got, err := gcx.FormatCell(tt.v)
			if err != nil || got != tt.want {
				t.Errorf("FormatCell(%#v) = %q, %v; want %q", tt.v, got, err, tt.want)
			}
		})
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}

func testGoldens(t *testing.T, r *runner, dir string) {
	for _, path := range glob(t, filepath.Join(dir, "golden", "*", "*.gcx")) {
		name := filepath.Base(filepath.Dir(path)) + "/" + strings.TrimSuffix(filepath.Base(path), ".gcx")
		r.run("golden", name, func(t *testing.T) {
			data := readFile(t, path)
			var want []jsonSection
			readJSON(t, strings.TrimSuffix(path, ".gcx")+".decoded.json", &want)
			got, err := gcx.UnmarshalSections(data)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := cmp.Diff(toSections(want), got, sectionOpts); diff != "" {
				t.Fatalf("decode (-want +got):\n%s", diff)
			}
			again, err := gcx.MarshalSections(got...)
			if err != nil {
				t.Fatalf("re-encode: %v", err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs:\n got %q\nwant %q", again, data)
			}
			// The streaming decoder agrees with UnmarshalSections.
			d := gcx.NewDecoder(bytes.NewReader(data), gcx.Options{})
			var streamed []gcx.Section
			for {
				s, err := d.ReadSection()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("stream: %v", err)
				}
				streamed = append(streamed, s)
			}
			if diff := cmp.Diff(got, streamed, sectionOpts); diff != "" {
				t.Errorf("streaming decode (-unmarshal +stream):\n%s", diff)
			}
			// AppendJSON gives the decoded.json content.
			var back []jsonSection
			if err := json.Unmarshal(gcx.AppendJSON(nil, got...), &back); err != nil {
				t.Fatalf("AppendJSON output: %v", err)
			}
			if diff := cmp.Diff(want, back, sectionOpts); diff != "" {
				t.Errorf("AppendJSON (-want +got):\n%s", diff)
			}
		})
	}
}

// caseFile is one cases/*.yaml tool response.
type caseFile struct {
	Tool        string `yaml:"tool"`
	Description string `yaml:"description"`
	Input       string `yaml:"input"`
}

func readCase(t testing.TB, path string) (caseFile, any) {
	t.Helper()
	var c caseFile
	if err := yaml.Unmarshal(readFile(t, path), &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := json.NewDecoder(strings.NewReader(c.Input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s input: %v", path, err)
	}
	return c, v
}

func testCases(t *testing.T, r *runner, dir string) {
	for _, path := range glob(t, filepath.Join(dir, "cases", "*.yaml")) {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		r.run("case", name, func(t *testing.T) {
			c, v := readCase(t, path)
			var buf bytes.Buffer
			if err := gcx.NewEncoder(&buf, gcx.Options{}).EncodeValue(c.Tool, v); err != nil {
				t.Fatalf("EncodeValue: %v", err)
			}
			if want := readFile(t, filepath.Join(dir, "golden", "generic", name+".gcx")); !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("generic:\n got %q\nwant %q", buf.Bytes(), want)
			}
			js, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if want := readFile(t, filepath.Join(dir, "golden", "json", name+".json")); !bytes.Equal(js, want) {
				t.Errorf("json baseline:\n got %s\nwant %s", js, want)
			}
		})
	}
}

func testManifest(t *testing.T, r *runner, dir string) {
	lines := strings.Split(strings.TrimSpace(string(readFile(t, filepath.Join(dir, "MANIFEST.tsv")))), "\n")
	header := strings.Split(lines[0], "\t")
	col := map[string]int{}
	for i, h := range header {
		col[h] = i
	}
	for _, line := range lines[1:] {
		f := strings.Split(line, "\t")
		name := f[col["case"]]
		r.run("manifest", name, func(t *testing.T) {
			for _, g := range []struct{ path, size, sum string }{
				{filepath.Join(dir, "golden", "json", name+".json"), "json_bytes", ""},
				{filepath.Join(dir, "golden", "generic", name+".gcx"), "generic_bytes", "generic_sha256"},
				{filepath.Join(dir, "golden", "shaped", name+".gcx"), "shaped_bytes", "shaped_sha256"},
			} {
				data := readFile(t, g.path)
				if want := f[col[g.size]]; strconv.Itoa(len(data)) != want {
					t.Errorf("%s: %d bytes, manifest says %s", g.path, len(data), want)
				}
				if g.sum == "" {
					continue
				}
				sum := sha256.Sum256(data)
				if got, want := hex.EncodeToString(sum[:]), f[col[g.sum]]; got != want {
					t.Errorf("%s: sha256 %s, manifest says %s", g.path, got, want)
				}
			}
		})
	}
}
