package jsonread_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/internal/jsonread"
)

// walk reads any value generically, so the tests reach every reader path.
func walk(r *jsonread.Reader) (any, error) {
	c, ok := r.Peek()
	if !ok {
		return nil, r.Unexpected(jsonread.WantValue)
	}
	switch {
	case c == '{':
		var ms [][2]any
		err := r.Object(func(key string, _ int) error {
			v, err := walk(r)
			ms = append(ms, [2]any{key, v})
			return err
		})
		return ms, err
	case c == '[':
		var a []any
		err := r.Array(func(int) error {
			v, err := walk(r)
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return r.String()
	case c == 't':
		return true, r.Literal("true")
	case c == 'f':
		return false, r.Literal("false")
	case c == 'n':
		return nil, r.Literal("null")
	}
	lit, isFloat, err := r.Number()
	if err != nil {
		return nil, err
	}
	return [2]any{string(lit), isFloat}, nil
}

func read(data string, opts jsonread.Options) (any, error) {
	r := jsonread.New([]byte(data), opts)
	r.SkipSpace()
	v, err := walk(r)
	if err != nil {
		return nil, err
	}
	return v, r.End()
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"object order kept", `{"b":1,"a":[true,null]}`, [][2]any{{"b", [2]any{"1", false}}, {"a", []any{true, nil}}}},
		{"numbers", `[-0,2.5,1e3,-1E-2]`, []any{[2]any{"-0", false}, [2]any{"2.5", true}, [2]any{"1e3", true}, [2]any{"-1E-2", true}}},
		{"escapes", `"a\"\\\/\b\f\n\r\t\u00e9\ud834\udd1e"`, "a\"\\/\b\f\n\r\té\U0001D11E"},
		{"lone surrogate reads as U+FFFD", `"\ud800x"`, "\uFFFDx"},
		{"utf-8 kept", `"é☃"`, "é☃"},
		{"whitespace", " \t\r\n[ 1 , 2 ] \n", []any{[2]any{"1", false}, [2]any{"2", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(tt.in, jsonread.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts jsonread.Options
		want jsonread.Error
	}{
		{"end", `[1,`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindEnd, Offset: 3, Pointer: "/1", Detail: "unexpected end of input"}},
		{"character", `{"a":x}`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindChar, Offset: 5, Pointer: "/a", Detail: "unexpected character 'x'"}},
		{"trailing", `1 2`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindTrailing, Offset: 2, Detail: "unexpected data after the document"}},
		{"duplicate key", `{"a/b":1,"a/b":2}`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindDuplicateKey, Offset: 9, Pointer: "/a~1b", Detail: `"a/b"`}},
		{"unterminated", `["ab`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindUnterminated, Offset: 1, Pointer: "/0", Detail: "unterminated string"}},
		{"control", "[\"a\x01\"]", jsonread.Options{}, jsonread.Error{Kind: jsonread.KindControl, Offset: 3, Pointer: "/0", Detail: "control character in string"}},
		{"escape", `"a\q"`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindEscape, Offset: 2, Detail: `invalid escape \q`}},
		{"unicode escape", `"\u12"`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindUnicodeEscape, Offset: 1, Detail: `invalid \u escape`}},
		{"lone surrogate rejected", `"x\udc00"`, jsonread.Options{RejectLoneSurrogates: true}, jsonread.Error{Kind: jsonread.KindLoneSurrogate, Offset: 2, Detail: "lone surrogate escape"}},
		{"utf-8", "\"\xff\"", jsonread.Options{}, jsonread.Error{Kind: jsonread.KindUTF8, Offset: 1, Detail: "invalid UTF-8"}},
		{"fraction", `1.x`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindNumber, Offset: 0, Detail: "digit expected after decimal point"}},
		{"exponent", `{"n":[1e+]}`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindNumber, Offset: 6, Pointer: "/n/0", Detail: "digit expected in exponent"}},
		{"leading zero", `01`, jsonread.Options{}, jsonread.Error{Kind: jsonread.KindTrailing, Offset: 1, Detail: "unexpected data after the document"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(tt.in, tt.opts)
			var e *jsonread.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not a *jsonread.Error", err, err)
			}
			if diff := cmp.Diff(tt.want, *e); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	sentinel := errors.New("mine")
	var got jsonread.Fault
	_, err := read(`{"a":1,"a":2}`, jsonread.Options{Errorf: func(f jsonread.Fault) error {
		got = f
		return sentinel
	}})
	want := jsonread.Fault{Kind: jsonread.KindDuplicateKey, Offset: 7, Start: 7, At: 10, Detail: `"a"`}
	if err != sentinel || got != want {
		t.Errorf("got %v, fault %+v; want the caller's error for %+v", err, got, want)
	}
}

// TestFaults checks what each fault tells a caller beyond the default
// error: what the grammar wanted, the token's start and where reading
// stopped, from which the callers build their own messages.
func TestFaults(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want jsonread.Fault
	}{
		{"value at end", `[1,`, jsonread.Fault{Kind: jsonread.KindEnd, Want: jsonread.WantValue, Offset: 3, Start: 3, At: 3, Detail: "unexpected end of input"}},
		{"key", `{1:2}`, jsonread.Fault{Kind: jsonread.KindChar, Want: jsonread.WantKey, Offset: 1, Start: 1, At: 1, Detail: "unexpected character '1'"}},
		{"colon", `{"a" 1}`, jsonread.Fault{Kind: jsonread.KindChar, Want: jsonread.WantColon, Offset: 5, Start: 5, At: 5, Detail: "unexpected character '1'"}},
		{"object next", `{"a":1`, jsonread.Fault{Kind: jsonread.KindEnd, Want: jsonread.WantObjectNext, Offset: 6, Start: 6, At: 6, Detail: "unexpected end of input"}},
		{"array next", `[1 2]`, jsonread.Fault{Kind: jsonread.KindChar, Want: jsonread.WantArrayNext, Offset: 3, Start: 3, At: 3, Detail: "unexpected character '2'"}},
		{"trailing", `1 2`, jsonread.Fault{Kind: jsonread.KindTrailing, Want: jsonread.WantEnd, Offset: 2, Start: 2, At: 2, Detail: "unexpected data after the document"}},
		{"literal", `[nul]`, jsonread.Fault{Kind: jsonread.KindLiteral, Want: jsonread.WantValue, Offset: 1, Start: 1, At: 1, Detail: "unexpected character 'n'"}},
		{"minus alone", `-x`, jsonread.Fault{Kind: jsonread.KindChar, Want: jsonread.WantValue, Offset: 1, Start: 1, At: 1, Detail: "unexpected character 'x'"}},
		{"fraction", `[1.x]`, jsonread.Fault{Kind: jsonread.KindNumber, Want: jsonread.WantFractionDigit, Offset: 1, Start: 1, At: 3, Detail: "digit expected after decimal point"}},
		{"exponent", `[1e+]`, jsonread.Fault{Kind: jsonread.KindNumber, Want: jsonread.WantExponentDigit, Offset: 1, Start: 1, At: 4, Detail: "digit expected in exponent"}},
		{"unterminated", `["ab`, jsonread.Fault{Kind: jsonread.KindUnterminated, Offset: 1, Start: 1, At: 4, Detail: "unterminated string"}},
		{"escape at end", `["ab\`, jsonread.Fault{Kind: jsonread.KindEscapeEnd, Offset: 1, Start: 1, At: 4, Detail: "unterminated string"}},
		{"control", "[\"a\x01\"]", jsonread.Fault{Kind: jsonread.KindControl, Offset: 3, Start: 1, At: 3, Detail: "control character in string"}},
		{"escape", `["a\q"]`, jsonread.Fault{Kind: jsonread.KindEscape, Offset: 3, Start: 1, At: 5, Detail: `invalid escape \q`}},
		{"unicode escape", `["\u12"]`, jsonread.Fault{Kind: jsonread.KindUnicodeEscape, Offset: 2, Start: 1, At: 4, Detail: `invalid \u escape`}},
		{"second unicode escape", `["\ud800\u12"]`, jsonread.Fault{Kind: jsonread.KindUnicodeEscape, Offset: 8, Start: 1, At: 10, Detail: `invalid \u escape`}},
		{"utf-8", "[\"a\\n\xff\"]", jsonread.Fault{Kind: jsonread.KindUTF8, Offset: 5, Start: 1, At: 5, Detail: "invalid UTF-8"}},
		{"first fault in a string wins", "[\"\\q\x01\"]", jsonread.Fault{Kind: jsonread.KindEscape, Offset: 2, Start: 1, At: 4, Detail: `invalid escape \q`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got jsonread.Fault
			_, err := read(tt.in, jsonread.Options{Errorf: func(f jsonread.Fault) error {
				got = f
				return errors.New("fault")
			}})
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWrongType(t *testing.T) {
	r := jsonread.New([]byte(`"s"`), jsonread.Options{})
	err := r.Object(func(string, int) error { return nil })
	var e *jsonread.Error
	if !errors.As(err, &e) || e.Kind != jsonread.KindType || e.Detail != "want an object" {
		t.Errorf("Object on a string: %v, want a KindType error", err)
	}
}

func TestNumberToken(t *testing.T) {
	tests := []struct {
		in, token     string
		isFloat, ok   bool
		offsetAfterOK int
	}{
		{"0]", "0", false, true, 1},
		{"-12.5e+3,", "-12.5e+3", true, true, 8},
		{"1E2", "1E2", true, true, 3},
		{"01", "01", false, false, 0},
		{"1.5.3]", "1.5.3", false, false, 0},
		{"1e5e5", "1e5e5", false, false, 0},
		{"1.]", "1.", false, false, 0},
		{"1e+", "1e+", false, false, 0},
		{"-x", "-", false, false, 0},
		{"+1", "+1", false, false, 0},
		{".5", ".5", false, false, 0},
	}
	for _, tt := range tests {
		calls := 0
		r := jsonread.New([]byte(tt.in), jsonread.Options{Errorf: func(jsonread.Fault) error { calls++; return errors.New("fault") }})
		token, isFloat, ok := r.NumberToken()
		if string(token) != tt.token || isFloat != tt.isFloat || ok != tt.ok || r.Offset() != tt.offsetAfterOK || calls != 0 {
			t.Errorf("NumberToken(%q) = %q, %v, %v, offset %d, %d faults; want %q, %v, %v, offset %d, no fault",
				tt.in, token, isFloat, ok, r.Offset(), calls, tt.token, tt.isFloat, tt.ok, tt.offsetAfterOK)
		}
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncd\n\nx")
	tests := []struct{ off, line, col int }{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {6, 3, 1}, {7, 4, 1}, {8, 4, 2}}
	for _, tt := range tests {
		if line, col := jsonread.Position(data, tt.off); line != tt.line || col != tt.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x\u00e9",true,null]}`, `"\ud800"`, `[1,`, `{"a":1,"a":2}`, "\"\xff\""} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, reject bool) {
		_, err := read(string(data), jsonread.Options{RejectLoneSurrogates: reject})
		if err == nil {
			return
		}
		var e *jsonread.Error
		if !errors.As(err, &e) || e.Kind == 0 || e.Offset < 0 || e.Offset > len(data) {
			t.Fatalf("error %v is not a positioned *jsonread.Error", err)
		}
	})
}
