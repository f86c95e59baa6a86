package toon

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestCanonicalNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"0.0", "0"}, {"-0.0", "0"}, {"0e5", "0"}, {"-0e-5", "0"},
		{"42", "42"}, {"-7", "-7"},
		{"9007199254740993", "9007199254740993"},
		{"100000000000000000000", "100000000000000000000"},
		{"123456789012345678901234567890", "123456789012345678901234567890"},
		{"1.0", "1"}, {"1e6", "1000000"}, {"1E+6", "1000000"}, {"1.5000", "1.5"},
		{"0.000001", "0.000001"}, {"1e-6", "0.000001"}, {"1e-7", "1e-7"}, {"1.5e-7", "1.5e-7"},
		{"1e21", "1e+21"}, {"1e20", "100000000000000000000"}, {"12.5e19", "125000000000000000000"},
		{"1.25e21", "1.25e+21"}, {"-1E+03", "-1000"}, {"2.5e2", "250"}, {"3E-02", "0.03"},
		{"0.3333333333333333", "0.3333333333333333"}, {"5E+00", "5"}, {"1e-10", "1e-10"},
		{"123.456e-2", "1.23456"}, {"0.00012300", "0.000123"}, {"1e+0000000000000000000000000007", "10000000"},
		{"1e99999999999999999999999", "1e+99999999999999999999999"},
		{"-2.5e-99999999999999999999999", "-2.5e-99999999999999999999999"},
		{"0e99999999999999999999999", "0"},
	}
	for _, c := range cases {
		got, err := CanonicalNumber(c.in)
		if err != nil || got != c.want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", "+1", "01", "1.", ".5", "1e", "1e+", "0x10", "NaN", "1_000", " 1", "1 "} {
		if got, err := CanonicalNumber(bad); err == nil {
			t.Errorf("CanonicalNumber(%q) = %q, want an error", bad, got)
		}
	}
}

func TestFloatCanonical(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{1.0, "1"}, {-0.0, "0"}, {math.Copysign(0, -1), "0"}, {0.1, "0.1"}, {1e21, "1e+21"}, {1e-7, "1e-7"},
		{1.5e-7, "1.5e-7"}, {1e6, "1000000"}, {123456789.125, "123456789.125"}, {1e300, "1e+300"},
		{float32(0.1), "0.1"}, {float32(1e-7), "1e-7"}, {float32(16777216), "16777216"}, {float32(3.4e38), "3.4e+38"},
		{int8(-5), "-5"}, {uint64(math.MaxUint64), "18446744073709551615"}, {int64(math.MinInt64), "-9223372036854775808"},
	}
	for _, c := range cases {
		got, err := Marshal(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("Marshal(%T %v) = %q, %v; want %q", c.in, c.in, got, err, c.want)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		got, err := Marshal(Object{{"x", f}})
		if err != nil || string(got) != "x: null" {
			t.Errorf("Marshal(%v) = %q, %v; want x: null", f, got, err)
		}
	}
}

func TestQuoting(t *testing.T) {
	cases := []struct {
		in    string
		delim Delimiter
		want  string
	}{
		{"", Comma, `""`}, {"plain", Comma, "plain"}, {"Jordan NG", Comma, "Jordan NG"}, {"café", Comma, "café"},
		{" x", Comma, `" x"`}, {"x ", Comma, `"x "`}, {"\tx", Comma, `"\tx"`}, {"true", Comma, `"true"`},
		{"null", Comma, `"null"`}, {"False", Comma, "False"}, {"42", Comma, `"42"`}, {"-3.14", Comma, `"-3.14"`},
		{"05", Comma, `"05"`}, {"+1", Comma, `"+1"`}, {"1e-6", Comma, `"1e-6"`}, {"1.", Comma, "1."}, {".5", Comma, ".5"},
		{"a:b", Comma, `"a:b"`}, {`a"b`, Comma, `"a\"b"`}, {`a\b`, Comma, `"a\\b"`}, {"[x", Comma, `"[x"`},
		{"x}", Comma, `"x}"`}, {"a\nb", Comma, `"a\nb"`}, {"a\rb", Comma, `"a\rb"`}, {"\x01", Comma, `"\u0001"`},
		{"\x1f", Comma, `"\u001f"`}, {"\x7f", Comma, `"\u007f"`}, {"\u2028", Comma, `"\u2028"`},
		{"a\u0085b", Comma, `"a\u0085b"`}, {"é\u2029", Comma, `"é\u2029"`}, {"x\u202ey\u2069", Comma, `"x\u202ey\u2069"`},
		{"\ufeffbom", Comma, `"\ufeffbom"`}, {"\x1b[0m", Comma, `"\u001b[0m"`}, {"\u200fz", Comma, `"\u200fz"`},
		{"\u00a0\u2027\u202f", Comma, "\u00a0\u2027\u202f"}, {"-", Comma, `"-"`},
		{"-x", Comma, `"-x"`}, {"#", Comma, `"#"`}, {"#x", Comma, `"#x"`}, {"x#", Comma, "x#"},
		{"a,b", Comma, `"a,b"`}, {"a,b", Pipe, "a,b"}, {"a|b", Pipe, `"a|b"`}, {"a|b", Comma, "a|b"},
		{"a\tb", Tab, `"a\tb"`}, {"a\tb", Comma, `"a\tb"`},
	}
	for _, c := range cases {
		got, err := MarshalOptions([]any{c.in}, Options{Delimiter: c.delim})
		if err != nil {
			t.Fatal(err)
		}
		prefix := "[1]: "
		if c.delim != Comma {
			prefix = "[1" + string(rune(c.delim)) + "]: "
		}
		if string(got) != prefix+c.want {
			t.Errorf("%q with %q: got %q, want %q", c.in, rune(c.delim), got, prefix+c.want)
		}
		back, err := UnmarshalOptions(got, Options{Delimiter: c.delim})
		if err != nil {
			t.Errorf("%q with %q: decode %q: %v", c.in, rune(c.delim), got, err)
		} else if a, ok := back.([]any); !ok || len(a) != 1 || a[0] != c.in {
			t.Errorf("%q with %q: decoded %#v", c.in, rune(c.delim), back)
		}
	}
	keys := map[string]string{
		"a": "a", "_x.y": "_x.y", "A9_": "A9_", "9a": `"9a"`, "a-b": `"a-b"`, "": `""`, "a b": `"a b"`, "é": `"é"`,
	}
	for k, want := range keys {
		got, err := Marshal(Object{{k, 1}})
		if err != nil || string(got) != want+": 1" {
			t.Errorf("key %q: got %q, want %q", k, got, want+": 1")
		}
	}
}

func TestOptions(t *testing.T) {
	if _, err := MarshalOptions(1, Options{Delimiter: ';'}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("bad delimiter: %v", err)
	}
	if _, err := MarshalOptions(1, Options{IndentSize: -1}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("bad indent: %v", err)
	}
	if _, err := UnmarshalOptions([]byte("a: 1"), Options{IndentSize: -2}); !errors.Is(err, ErrInvalidOptions) {
		t.Errorf("bad decode indent: %v", err)
	}
	out, err := MarshalOptions(Object{{"a", Object{{"b", []any{1, 2}}}}}, Options{IndentSize: 3, Delimiter: Tab})
	if err != nil || string(out) != "a:\n   b[2\t]: 1\t2" {
		t.Errorf("got %q, %v", out, err)
	}
	v, err := UnmarshalOptions(out, Options{IndentSize: 3})
	if err != nil || !Equal(v, Object{{"a", Object{{"b", []any{1, 2}}}}}) {
		t.Errorf("decode: %s, %v", describe(v), err)
	}
}

type point struct {
	X   int               `json:"x"`
	Y   float64           `json:"y,omitempty"`
	Tag string            `json:"tag"`
	M   map[string]string `json:"m,omitempty"`
}

type textish struct{ v string }

func (t textish) MarshalText() ([]byte, error) { return []byte("T:" + t.v), nil }

func TestNormalization(t *testing.T) {
	when := time.Date(2026, 5, 8, 14, 47, 5, 123000000, time.UTC)
	in := map[string]any{
		"z":     1,
		"a":     []int{1, 2},
		"p":     point{X: 1, Tag: "t", M: map[string]string{"b": "2", "a": "1"}},
		"pp":    &point{X: 2, Y: 0.5},
		"nilp":  (*point)(nil),
		"when":  when,
		"text":  textish{"x"},
		"bytes": []byte("hi"),
		"num":   json.Number("1.50"),
		"nan":   math.NaN(),
	}
	got, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	want := "a[2]: 1,2\n" +
		"bytes: aGk=\n" +
		"nan: null\n" +
		"nilp: null\n" +
		"num: 1.5\n" +
		"p:\n  x: 1\n  tag: t\n  m:\n    a: \"1\"\n    b: \"2\"\n" +
		"pp:\n  x: 2\n  y: 0.5\n  tag: \"\"\n" +
		"text: \"T:x\"\n" +
		"when: \"2026-05-08T14:47:05.123Z\"\n" +
		"z: 1"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []any{make(chan int), func() {}, json.Number("1e"), struct{ F float64 }{math.Inf(1)},
		Object{{"a", 1}, {"a", 2}}, []any{Object{{"k", 1}, {"k", 1}}}} {
		if _, err := Marshal(bad); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("Marshal(%T): err = %v, want ErrUnsupportedType", bad, err)
		}
	}
	// Values already in the model are not copied.
	obj := Object{{"a", []any{json.Number("1"), "x"}}}
	n, err := normalize(obj)
	if err != nil || &n.(Object)[0] != &obj[0] {
		t.Errorf("normalize copied a model value")
	}
}

func TestEqual(t *testing.T) {
	a := Object{{"a", 1}, {"b", []any{"x", json.Number("1e-10")}}}
	b := Object{{"a", json.Number("1.0")}, {"b", []any{"x", json.Number("1E-10")}}}
	c := Object{{"b", []any{"x", 1e-10}}, {"a", 1}}
	if !Equal(a, b) || !EqualUnordered(a, b) {
		t.Error("a and b should be equal")
	}
	if Equal(a, c) || !EqualUnordered(a, c) {
		t.Error("a and c differ only in key order")
	}
	for _, pair := range [][2]any{{nil, false}, {"1", 1}, {[]any{}, Object{}}, {Object{{"a", nil}}, Object{{"b", nil}}},
		{[]any{1}, []any{1, 2}}, {true, false}, {make(chan int), make(chan int)}} {
		if Equal(pair[0], pair[1]) || EqualUnordered(pair[0], pair[1]) {
			t.Errorf("%v and %v should differ", pair[0], pair[1])
		}
	}
	if v, ok := a.Get("b"); !ok || v.([]any)[0] != "x" {
		t.Error("Get")
	}
	if _, ok := a.Get("zz"); ok {
		t.Error("Get of a missing key")
	}
}

func TestParseJSON(t *testing.T) {
	v, err := ParseJSON([]byte(` {"b": [1, 2.50, -0, 1e400, "\u00e9\ud83d\ude80\/"], "a": {"x": null, "y": true}, "": false} `))
	if err != nil {
		t.Fatal(err)
	}
	want := Object{
		{"b", []any{json.Number("1"), json.Number("2.5"), json.Number("0"), json.Number("1e+400"), "é🚀/"}},
		{"a", Object{{"x", nil}, {"y", true}}},
		{"", false},
	}
	if !Equal(v, want) {
		t.Errorf("got %s", describe(v))
	}
	for _, bad := range []string{``, `{`, `{"a":1,"a":2}`, `[1,]`, `01`, `"\x"`, "\"\xff\"", `{"a" 1}`, `nul`, `1 2`, `"a` + "\n" + `b"`} {
		_, err := ParseJSON([]byte(bad))
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseJSON(%q): err = %v, want *SyntaxError", bad, err)
		}
	}
	_, err = ParseJSON([]byte("{\n  \"a\": 1,\n  \"a\": 2}"))
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrDuplicateKey) || se.Line != 3 || se.Column != 3 {
		t.Errorf("duplicate key error = %#v", err)
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := ParseJSON([]byte(deep)); err == nil {
		t.Error("deep nesting accepted")
	}
}

func TestAppendJSON(t *testing.T) {
	v := Object{{"z", []any{1, "a<b>&\n", nil, true}}, {"a", Object{}}, {"e", []any{}}, {"n", Object{{"k", 1.5}}}}
	got, err := AppendJSON([]byte("x="), v)
	if err != nil || string(got) != `x={"z":[1,"a<b>&\n",null,true],"a":{},"e":[],"n":{"k":1.5}}` {
		t.Errorf("AppendJSON = %s, %v", got, err)
	}
	got, err = AppendJSONIndent(nil, v, "", "  ")
	want := "{\n  \"z\": [\n    1,\n    \"a<b>&\\n\",\n    null,\n    true\n  ],\n  \"a\": {},\n  \"e\": [],\n  \"n\": {\n    \"k\": 1.5\n  }\n}"
	if err != nil || string(got) != want {
		t.Errorf("AppendJSONIndent =\n%s\nwant\n%s", got, want)
	}
	if _, err := AppendJSON(nil, make(chan int)); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("AppendJSON(chan): %v", err)
	}
	// JSON → TOON → JSON keeps key order and values.
	src := `{"users":[{"id":1,"name":"Ada","tags":["a","b"]},{"id":2,"name":"Bob","tags":[]}],"meta":{"n":2}}`
	in, err := ParseJSON([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(text)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := AppendJSON(nil, back)
	if string(out) != src {
		t.Errorf("JSON round trip: %s", out)
	}
}

func syntaxErr(t *testing.T, input string, opts Options) *SyntaxError {
	t.Helper()
	_, err := UnmarshalOptions([]byte(input), opts)
	var se *SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("decode %q: err = %v, want *SyntaxError", input, err)
	}
	return se
}

func TestErrorLocations(t *testing.T) {
	cases := []struct {
		name      string
		input     string
		sentinel  error
		line, col int
	}{
		{"unterminated string", "a: 1\nb: \"xyz", ErrUnterminatedString, 2, 4},
		{"width mismatch", "t[2]{a,b}:\n  1,2\n  3", ErrWidthMismatch, 3, 3},
		{"blank line in a table", "t[2]{a}:\n  1\n\n  2", ErrBlankLine, 3, 1},
		{"comment lines before the error", "# one\n# two\na: \"x", ErrUnterminatedString, 3, 4},
		{"invalid escape", "k: \"a\\qb\"", ErrInvalidEscape, 1, 6},
		{"invalid utf-8", "a: ok\nb: \xff", ErrInvalidUTF8, 2, 4},
		{"duplicate key", "a: 1\na: 2", ErrDuplicateKey, 2, 1},
		{"delimiter mismatch", "t[1|]{a,b}:\n  1|2", ErrDelimiterMismatch, 1, 8},
		{"missing colon", "t[1]{a}\n  1", ErrMissingColon, 1, 8},
		{"trailing content", "[1]: 1\n\nx: 2", ErrTrailingContent, 3, 1},
		{"indentation", "a:\n   b: 1", ErrIndentation, 2, 1},
		{"length", "t[3]: 1,2", ErrLengthMismatch, 1, 7},
		{"structure", "a\nb", ErrStructure, 1, 1},
		{"header", "t[01]: 1", ErrHeader, 1, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			se := syntaxErr(t, c.input, Options{})
			if !errors.Is(se, c.sentinel) || se.Line != c.line || se.Column != c.col {
				t.Errorf("got %v (line %d, column %d), want %v at %d:%d", se, se.Line, se.Column, c.sentinel, c.line, c.col)
			}
			if !strings.HasPrefix(se.Error(), "toon: line ") {
				t.Errorf("message %q", se.Error())
			}
		})
	}
}

func TestLenient(t *testing.T) {
	cases := []struct{ in, want string }{
		{"key[]: 1,2", `{"key[]":"1,2"}`},
		{"a:\n   b: 1\n c: 2", `{"a":{"b":1},"c":2}`},
		{"a:\n   b: 1\n   c: 2", `{"a":{"b":1,"c":2}}`},
		{"a: 1\na: 2\nb: 3", `{"a":2,"b":3}`},
		{"t[3]{a,b}:\n  1\n\n  2,3,4", `{"t":[{"a":1,"b":null},{"a":2,"b":3}]}`},
		{"t[5]: 1,2", `{"t":[1,2]}`},
		{"a:\n  user\n  b: 1", `{"a":{"b":1}}`},
		{"m[2:]:\n  a: 1", `{"m[2:]":{"a":1}}`},
		{"m[2:]{v}:\n  a: 1\n  junk\n  a: 2", `{"m":{"a":{"v":2}}}`},
		{"\ta: 1", `{"a":1}`},
		{"[]\nx: 1", `{"x":1}`},
		{"[1]: a\nx: 1", `["a"]`},
		{"a: 1\n    b: 2", `{"a":1,"b":2}`},
	}
	for _, c := range cases {
		got, err := UnmarshalOptions([]byte(c.in), Options{Lenient: true})
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s := describe(got); s != c.want {
			t.Errorf("%q: got %s, want %s", c.in, s, c.want)
		}
	}
	got, err := UnmarshalOptions([]byte("a: \xff\xfe"), Options{Lenient: true})
	if err != nil || !Equal(got, Object{{"a", "\xff\xfe"}}) {
		t.Errorf("lenient invalid UTF-8: %v, %v", got, err)
	}
}

func TestDecodeValues(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `{}`},
		{"\n\n", `{}`},
		{"[]", `[]`},
		{"[0]:", `[]`},
		{"x", `"x"`},
		{"\"a:b\"", `"a:b"`},
		{"a: []", `{"a":[]}`},
		{"a[1]: []", `{"a":["[]"]}`},
		{"a[2]:\n  - []\n  -", `{"a":[[],{}]}`},
		{"a: x\r\nb: \"\\u00e9\\u00E9\"", `{"a":"x","b":"éé"}`},
		{"items[2]:\n  - a: 1\n    b: 2\n  - [2|]: x|y", `{"items":[{"a":1,"b":2},["x","y"]]}`},
		{"m[1:]{a{b,c}}:\n  \"k k\": 1,2", `{"m":{"k k":{"a":{"b":1,"c":2}}}}`},
		{"t[1]{a}:\n  x:y", `{"t":[],"x":"y"}`},
	}
	for _, c := range cases {
		got, err := UnmarshalOptions([]byte(c.in), Options{Lenient: strings.HasPrefix(c.in, "t[1]{a}")})
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if s := describe(got); s != c.want {
			t.Errorf("%q: got %s, want %s", c.in, s, c.want)
		}
	}
}

func TestDecoderReader(t *testing.T) {
	v, err := NewDecoder(strings.NewReader("a[2]: 1,2"), Options{}).Decode()
	if err != nil || !Equal(v, Object{{"a", []any{1, 2}}}) {
		t.Errorf("Decode = %v, %v", v, err)
	}
	boom := errors.New("boom")
	if _, err := NewDecoder(errReader{boom}, Options{}).Decode(); !errors.Is(err, boom) {
		t.Errorf("read error = %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// The canonical fast path must agree with the full computation.
func TestCanonicalFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	digits := func(n int, lead bool) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + rng.IntN(10))
		}
		if lead && n > 1 && b[0] == '0' {
			b[0] = '1'
		}
		return string(b)
	}
	for range 20000 {
		lit := digits(rng.IntN(24)+1, true) + "." + digits(rng.IntN(12)+1, false)
		if rng.IntN(3) == 0 {
			lit = "0." + strings.Repeat("0", rng.IntN(9)) + digits(rng.IntN(5)+1, false)
		}
		if rng.IntN(2) == 0 {
			lit = "-" + lit
		}
		neg, ip, frac, exp, ok := splitNumber(lit)
		if !ok {
			t.Fatalf("generated %q", lit)
		}
		got, _ := CanonicalNumber(lit)
		if want := canonicalDecimal(lit, neg, ip, frac, exp); got != want {
			t.Fatalf("CanonicalNumber(%q) = %q, full computation %q", lit, got, want)
		}
	}
}

func TestConvert(t *testing.T) {
	js := []byte(`{"b":[1,2],"a":{"x":"y: z"},"rows":[{"k":1.50,"v":null},{"k":2,"v":true}]}`)
	text, err := FromJSON(js, Options{Delimiter: Pipe})
	want := "b[2|]: 1|2\na:\n  x: \"y: z\"\nrows[2|]{k|v}:\n  1.5|null\n  2|true"
	if err != nil || string(text) != want {
		t.Fatalf("FromJSON = %q, %v", text, err)
	}
	back, err := ToJSON(text, Options{}, "")
	if err != nil || string(back) != `{"b":[1,2],"a":{"x":"y: z"},"rows":[{"k":1.5,"v":null},{"k":2,"v":true}]}` {
		t.Fatalf("ToJSON = %s, %v", back, err)
	}
	pretty, err := ToJSON([]byte("a[1]: x"), Options{}, "  ")
	if err != nil || string(pretty) != "{\n  \"a\": [\n    \"x\"\n  ]\n}" {
		t.Fatalf("ToJSON indent = %q, %v", pretty, err)
	}
	var se *SyntaxError
	if _, err := FromJSON([]byte(`{"a":`), Options{}); !errors.As(err, &se) || !errors.Is(err, ErrInvalidJSON) {
		t.Errorf("FromJSON(bad) = %v", err)
	}
	if _, err := ToJSON([]byte("a[2]: x"), Options{}, ""); !errors.Is(err, ErrLengthMismatch) {
		t.Errorf("ToJSON(bad) = %v", err)
	}
}

func TestDecodeOddItems(t *testing.T) {
	for in, want := range map[string]string{
		"a[2]:\n  - [x]\n  - [1]: y": `{"a":["[x]",["y"]]}`,
		"[x]":                        `"[x]"`,
	} {
		got, err := Unmarshal([]byte(in))
		if err != nil || describe(got) != want {
			t.Errorf("%q: %s, %v; want %s", in, describe(got), err, want)
		}
	}
	got, err := UnmarshalOptions([]byte("x\ny"), Options{Lenient: true})
	if o, ok := got.(Object); err != nil || !ok || o == nil || len(o) != 0 {
		t.Errorf("lenient scalars: %#v, %v", got, err)
	}
	if _, err := Unmarshal([]byte("a[1]:\n  - [2]{x}\n    1")); err == nil {
		t.Error("colon-less header item with rows accepted")
	}
}
