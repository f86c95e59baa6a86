package graphresponse

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/graphwire/graphwire/internal/conformance"
)

// migrationSeeds are documents that reach every error path of the JSON
// layer: strings, escapes, surrogates, numbers, literals, nesting, keys.
var migrationSeeds = []string{
	`{"format_version":"1","query_type":"t","nodes":[{"type":"A","id":"1","p":[1,-0,2.5e3,{"a":null}]}],"edges":[]}`,
	`{"format_version":"1","query_type":"t","nodes":[],"edges":[],"pagination":{"has_more":{},"truncated":false}}`,
	`{"format_version":"1","query_type":"t","nodes":[],"edges":[{"from":"A","from_id":"1","to":"B","to_id":"x","type":"R"}]}`,
	`{"format_version":"1","format_version":"2"}`,
	`{"a/b~c":[0,1,2,3,{"x":"\ud800\udc00\ud800","y":"\uD834\u0041","z":"\u12"}]}`,
	`{"a":"\q"}`, `{"a":"` + "\x01" + `"}`, `{"a":"` + "\xff" + `"}`, `{"a":"\`, `{"a":"abc`,
	`{"a":1.}`, `{"a":1e}`, `{"a":-}`, `{"a":01}`, `{"a":1e999}`, `{"a":18446744073709551615}`,
	`{"a":tru}`, `{"a":nul}`, `[1,2,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":1} x`, ``, `   `,
	`{"rows":[{"n":[[[[[[[[[[]]]]]]]]]]}]}`,
}

// FuzzReaderMigration checks that the reader on internal/jsonread decodes
// exactly as the reader it replaced (oldreader_test.go): the same response
// or value, or the same *SyntaxError field for field.
func FuzzReaderMigration(f *testing.F) {
	for _, s := range migrationSeeds {
		f.Add([]byte(s))
	}
	if root, err := conformance.Root(); err == nil {
		paths, _ := filepath.Glob(filepath.Join(root, "goon", "*.input.json"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Unmarshal(data)
		want, wantErr := oldUnmarshal(data)
		if !reflect.DeepEqual(got, want) || !sameError(err, wantErr) {
			t.Fatalf("Unmarshal(%q):\n new %#v, %#v\n old %#v, %#v", data, got, err, want, wantErr)
		}
		gv, err := UnmarshalValue(data)
		wv, wantErr := oldUnmarshalValue(data)
		if !reflect.DeepEqual(gv, wv) || !sameError(err, wantErr) {
			t.Fatalf("UnmarshalValue(%q):\n new %#v, %#v\n old %#v, %#v", data, gv, err, wv, wantErr)
		}
	})
}

func sameError(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	sa, ok1 := a.(*SyntaxError)
	sb, ok2 := b.(*SyntaxError)
	return ok1 && ok2 && *sa == *sb
}
