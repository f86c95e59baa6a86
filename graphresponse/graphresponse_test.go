package graphresponse_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/internal/schema"
)

func node(props string) string {
	return `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"T","id":"1"` + props + `}],"edges":[]}`
}

func TestNumberClassification(t *testing.T) {
	tests := []struct {
		lit  string
		want graphresponse.Value
	}{
		{"2.0", graphresponse.Float(2)},
		{"-0", graphresponse.Float(math.Copysign(0, -1))},
		{"-0.0", graphresponse.Float(math.Copysign(0, -1))},
		{"0", graphresponse.Int(0)},
		{"1e3", graphresponse.Float(1000)},
		{"1E3", graphresponse.Float(1000)},
		{"9223372036854775807", graphresponse.Int(math.MaxInt64)},
		{"-9223372036854775808", graphresponse.Int(math.MinInt64)},
		{"9223372036854775808", graphresponse.Uint(1 << 63)},
		{"18446744073709551615", graphresponse.Uint(math.MaxUint64)},
		{"18446744073709551616", graphresponse.Float(18446744073709551616)},
		{"-9223372036854775809", graphresponse.Float(-9223372036854775809)},
	}
	for _, tt := range tests {
		r, err := graphresponse.Unmarshal([]byte(node(`,"x":` + tt.lit)))
		if err != nil {
			t.Fatalf("%s: %v", tt.lit, err)
		}
		got, _ := r.Nodes[0].Prop("x")
		if !got.Equal(tt.want) {
			t.Errorf("%s decoded as %#v, want %#v", tt.lit, got, tt.want)
		}
	}
}

func TestIDs(t *testing.T) {
	for _, id := range []string{"9007199254740993", "-9007199254740993", "9223372036854775807", "-9223372036854775808", "0"} {
		doc := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"T","id":"` + id + `"}],"edges":[{"from":"T","from_id":"` + id + `","to":"T","to_id":"` + id + `","type":"R"}]}`
		r, err := graphresponse.Unmarshal([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if out := string(graphresponse.Marshal(r)); out != doc {
			t.Errorf("id %s does not survive:\n%s\n%s", id, out, doc)
		}
	}
}

func TestAbsentVersusEmpty(t *testing.T) {
	base := `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[]`
	for _, key := range []string{"columns", "group_columns", "rows"} {
		empty, err := graphresponse.Unmarshal([]byte(base + `,"` + key + `":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		absent, err := graphresponse.Unmarshal([]byte(base + `}`))
		if err != nil {
			t.Fatal(err)
		}
		if empty.Equal(absent) {
			t.Errorf("%s: empty equals absent", key)
		}
		if !strings.Contains(string(graphresponse.Marshal(empty)), `"`+key+`":[]`) || strings.Contains(string(graphresponse.Marshal(absent)), key) {
			t.Errorf("%s: presence not kept on encode", key)
		}
	}
	withPag, _ := graphresponse.Unmarshal([]byte(base + `,"pagination":{"has_more":false,"truncated":false,"next_cursor":""}}`))
	if withPag.Pagination == nil || withPag.Pagination.NextCursor == nil || *withPag.Pagination.NextCursor != "" {
		t.Errorf("pagination with empty cursor: %+v", withPag.Pagination)
	}
	e, _ := graphresponse.Unmarshal([]byte(`{"format_version":"5.0.1","query_type":"path_finding","nodes":[],"edges":[{"from":"A","from_id":"1","to":"B","to_id":"2","type":"R","path_id":0,"step":0}]}`))
	if got := e.Edges[0]; !got.PathID.Valid || !got.Step.Valid || got.Depth.Valid {
		t.Errorf("edge optionals: %+v", got)
	}
}

func TestExactBytes(t *testing.T) {
	in := `{"edges":[{"type":"AUTHORED","to_id":"42","to":"MergeRequest","from_id":"1","from":"User","depth":1}],` +
		`"nodes":[{"zeta":2.0,"id":"1","alpha":"<a&b>","type":"User","mid":null,"neg":-0.0,"big":1e21,"tiny":1e-7,"n":3,"ctl":"a\u0001\n"}],` +
		`"query_type":"traversal","format_version":"5.0.1","pagination":{"next_cursor":"c","truncated":true,"has_more":false}}`
	want := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","alpha":"<a&b>","big":1e+21,"ctl":"a\u0001\n","mid":null,"n":3,"neg":-0.0,"tiny":1e-7,"zeta":2.0}],` +
		`"edges":[{"from":"User","from_id":"1","to":"MergeRequest","to_id":"42","type":"AUTHORED","depth":1}],"pagination":{"has_more":false,"truncated":true,"next_cursor":"c"}}`
	r, err := graphresponse.Unmarshal([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(graphresponse.Marshal(r)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestRowOrder(t *testing.T) {
	in := `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],` +
		`"columns":[{"name":"n","function":"count","target":"u"}],"group_columns":[{"name":"g","kind":"node","node":"g"}],` +
		`"rows":[{"zz":1,"n":2,"aa":3,"g":{"properties":{"b":1,"a":2},"id":"07","type":"G"}}]}`
	want := `"rows":[{"g":{"type":"G","id":"07","properties":{"a":2,"b":1}},"n":2,"aa":3,"zz":1}]`
	r, err := graphresponse.Unmarshal([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(graphresponse.Marshal(r)); !strings.Contains(got, want) {
		t.Errorf("got %s\nwant it to contain %s", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		pointer   string
		line, col int
		err       error
	}{
		{"unknown top-level key", `{"format_version":"5.0.1","bogus":1}`, "/bogus", 1, 27, graphresponse.ErrUnknownKey},
		{"malformed id", `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"T","id":"x1"}],"edges":[]}`, "/nodes/0/id", 1, 78, graphresponse.ErrInvalidID},
		{"missing key", `{"format_version":"5.0.1","query_type":"traversal","nodes":[]}`, "", 1, 1, graphresponse.ErrMissingKey},
		{"edge unknown key", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[{"from":"A","from_id":"1","to":"B","to_id":"2","type":"R","weight":1}]}`, "/edges/0/weight", 1, 122, graphresponse.ErrUnknownKey},
		{"depth zero", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[{"from":"A","from_id":"1","to":"B","to_id":"2","type":"R","depth":0}]}`, "/edges/0/depth", 1, 130, graphresponse.ErrInvalidValue},
		{"syntax on line 3", "{\n\"format_version\":\"5.0.1\",\n\"nodes\": [,]}", "/nodes/0", 3, 11, graphresponse.ErrSyntax},
		{"duplicate key", `{"format_version":"5.0.1","format_version":"5.0.1"}`, "/format_version", 1, 27, graphresponse.ErrDuplicateKey},
		{"trailing data", node(``) + `x`, "", 1, 95, graphresponse.ErrSyntax},
		// A composite where a boolean or an integer belongs is the wrong
		// type, not too deep, and every type error points at the value.
		{"has_more object", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[],"pagination":{"has_more":{},"truncated":false}}`, "/pagination/has_more", 1, 91, graphresponse.ErrType},
		{"truncated string", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[],"pagination":{"has_more":false,"truncated":"yes"}}`, "/pagination/truncated", 1, 109, graphresponse.ErrType},
		{"depth array", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[{"from":"A","from_id":"1","to":"B","to_id":"2","type":"R","depth":[1]}]}`, "/edges/0/depth", 1, 130, graphresponse.ErrInvalidValue},
		{"pointer escaping", `{"format_version":"5.0.1","query_type":"t","nodes":[],"edges":[],"rows":[{"a/b~c":tru}]}`, "/rows/0/a~1b~0c", 1, 83, graphresponse.ErrSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := graphresponse.Unmarshal([]byte(tt.in))
			var se *graphresponse.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			if se.Pointer != tt.pointer || se.Line != tt.line || se.Column != tt.col || !errors.Is(err, tt.err) {
				t.Errorf("got %s (pointer %q line %d col %d), want pointer %q line %d col %d %v", se, se.Pointer, se.Line, se.Column, tt.pointer, tt.line, tt.col, tt.err)
			}
		})
	}
}

func validator(t *testing.T) *schema.Validator {
	t.Helper()
	v, err := schema.New(config.QueryResponseSchema())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSchemaIDMatchesRawMajor(t *testing.T) {
	id := validator(t).ID()
	major, _, _ := strings.Cut(config.RawVersion(), ".")
	if !strings.HasSuffix(id, "/v"+major) {
		t.Errorf("schema $id %q does not end in /v%s (RAW_OUTPUT_FORMAT_VERSION %s)", id, major, config.RawVersion())
	}
	var s map[string]any
	if err := json.Unmarshal(config.QueryResponseSchema(), &s); err != nil || s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("schema draft: %v %v", s["$schema"], err)
	}
}

func TestRawOutputValidates(t *testing.T) {
	v := validator(t)
	dir := conformance.Dir(t, "goon")
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.json"))
	more, _ := filepath.Glob(filepath.Join("..", "goon", "testdata", "*.input.json"))
	inputs = append(inputs, more...)
	if len(inputs) < 62 {
		t.Fatalf("found %d inputs", len(inputs))
	}
	for _, p := range inputs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if err := v.Validate(graphresponse.Marshal(r)); err != nil {
			t.Errorf("%s: raw output does not validate: %v", p, err)
		}
	}
	params := gopter.DefaultTestParametersWithSeed(7)
	params.MinSuccessfulTests = 300
	props := gopter.NewProperties(params)
	for _, qt := range []string{"traversal", "aggregation", "path_finding", "neighbors"} {
		props.Property("raw output of random "+qt+" validates", prop.ForAll(func(r *graphresponse.Response) string {
			if err := v.Validate(graphresponse.Marshal(r)); err != nil {
				return err.Error()
			}
			return ""
		}, graphgen.Response(graphgen.Options{QueryType: qt, NoComposite: true, NoNonFinite: true})))
	}
	props.TestingRun(t)
}
