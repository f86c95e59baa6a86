package compiler

import (
	"reflect"
	"strings"
	"testing"
)

// migrationSeeds reach every error the DSL reader reports, with line and
// character-column positions after multi-byte text.
var migrationSeeds = []string{
	"", " ", "[]", "{", "{\n  \"é\": 1,\n  \"a\" 2}", `{"a":1,}`, `{"a":1 "b":2}`, `{"a":[1 2]}`, `{"a":[1,`,
	`{"a":tru}`, `{"a":nul}`, `{"a":-}`, `{"a":-x}`, `{"a":1.}`, `{"a":1.x}`, `{"a":1e}`, `{"a":1e+}`, `{"a":01}`,
	`{"a":.5}`, `{"a":+1}`, `{"a":"\q"}`, `{"a":"\u12x4"}`, `{"a":"\ud800\u12"}`, `{"a":"\ud800\u0041"}`,
	`{"a":"\ud800"}`, `{"a":"\udc00\ud800"}`, "{\"a\":\"\x01\"}", "{\"a\":\"\\\"}", `{"a":"abc`, `{"a":"ab\`,
	`{"a":1,"a":2}`, `{"x/y~z":{"k":1,"k":2}}`, `{"a":1} x`, `{"a":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}`,
	`{"a":{"b":[{"c":"é☃ \t"}]}}`, "{\"a\":\"\xff\"}", `{"a":1}` + strings.Repeat(" ", 3),
}

// FuzzReaderMigration checks that decode on internal/jsonread reads exactly
// as the reader it replaced (oldreader_test.go): the same tree, or the same
// *Error field for field (path, reason and message with its position).
func FuzzReaderMigration(f *testing.F) {
	for _, s := range append(migrationSeeds, decodeSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decode(data)
		want, wantErr := oldDecode(data)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("decode(%q):\n new %#v, %#v\n old %#v, %#v", data, got, err, want, wantErr)
		}
	})
}
