package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

var decodeSeeds = []string{
	`{}`,
	`{"a":1,"b":[true,false,null,"x"],"c":{"d":-1.5e3}}`,
	`{"s":"tab\there \u00e9 \ud83c\udf89 \ud800 \/ \\ \" \b\f\n\r"}`,
	`{"n":[0,-0,12.50,1E+2,9223372036854775808]}`,
	` {"a" : [ ] , "b" : { } } `,
}

// errorSeeds reach every error the DSL reader reports, with line and
// character-column positions after multi-byte text. They once seeded the
// comparison with the reader decode replaced; FuzzDecode keeps them.
var errorSeeds = []string{
	"", " ", "[]", "{", "{\n  \"é\": 1,\n  \"a\" 2}", `{"a":1,}`, `{"a":1 "b":2}`, `{"a":[1 2]}`, `{"a":[1,`,
	`{"a":tru}`, `{"a":nul}`, `{"a":-}`, `{"a":-x}`, `{"a":1.}`, `{"a":1.x}`, `{"a":1e}`, `{"a":1e+}`, `{"a":01}`,
	`{"a":.5}`, `{"a":+1}`, `{"a":"\q"}`, `{"a":"\u12x4"}`, `{"a":"\ud800\u12"}`, `{"a":"\ud800\u0041"}`,
	`{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\\\"}", `{"a":"abc`, `{"a":"ab\`,
	`{"a":1,"a":2}`, `{"x/y~z":{"k":1,"k":2}}`, `{"a":1} x`, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"a":{"b":[{"c":"é☃ \t"}]}}`, "{\"a\":\"\xff\"}", `{"a":1}` + strings.Repeat(" ", 3),
}

// FuzzDecode: the strict reader agrees with encoding/json on every document both accept,
// and fails only with *Error.
func FuzzDecode(f *testing.F) {
	for _, s := range append(decodeSeeds, errorSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decode(data, MaxQueryBytes)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want map[string]any
		if err := d.Decode(&want); err != nil {
			t.Fatalf("decode accepted %q that encoding/json rejects: %v", data, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decode(%q) = %#v, encoding/json = %#v", data, got, want)
		}
	})
}

func TestDecodeRejects(t *testing.T) {
	for _, s := range []string{`{"a":01}`, `{"a":1,}`, `{"a":"\x01"}`, `{"a":tru}`, `{"a":1} x`, `{"a":"\q"}`, `{"a":.5}`, `{"a":1.}`, `{'a':1}`} {
		if _, err := decode([]byte(s), MaxQueryBytes); !errors.Is(err, ErrParse) {
			t.Errorf("decode(%q) = %v, want PARSE_ERROR", s, err)
		}
	}
}

// TestCompileQueryLimit: Options.MaxQueryBytes moves the bound of the DSL text both ways; 0
// keeps the default. The query is valid, padded with trailing white space to n bytes.
func TestCompileQueryLimit(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	padded := func(n int) []byte {
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`
		return []byte(q + strings.Repeat(" ", n-len(q)))
	}
	admin := &Caller{Admin: true}
	for _, tc := range []struct {
		limit, size int
		refused     bool
	}{
		{0, MaxQueryBytes, false},
		{0, MaxQueryBytes + 1, true},
		{200, 200, false},
		{200, 201, true},
		{2 * MaxQueryBytes, MaxQueryBytes + 1, false},
		{2 * MaxQueryBytes, 2*MaxQueryBytes + 1, true},
	} {
		c, err := New(ont, Options{MaxQueryBytes: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Compile(padded(tc.size), admin)
		if got := errors.Is(err, ErrLimitExceeded); got != tc.refused {
			t.Errorf("limit %d, %d bytes: err %v, want refused %v", tc.limit, tc.size, err, tc.refused)
		}
	}
}
