package toon

import (
	"reflect"
	"strings"
	"testing"
)

// jsonMigrationSeeds reach every error ParseJSON reports.
var jsonMigrationSeeds = []string{
	"", " ", "{", "[", `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1`, `[1 2]`, `[1,`, `{1:2}`, `{"a":1,}`, `[tru]`, `[nul]`, `[fals]`,
	`[-]`, `[-x]`, `[1.]`, `[1.x]`, `[1e]`, `[1e+]`, `[01]`, `[1.5.3]`, `[1e5e5]`, `[-0]`, `[1.50]`, `[1e400]`, `[.5]`, `[+1]`,
	`["\q"]`, `["\u12x4"]`, `["\ud800\u12"]`, `["\ud800\u0041"]`, `["\ud800"]`, `["\udc00\ud800"]`, "[\"\x01\"]", "[\"\\", `["abc`,
	`["ab\`, "[\"\xff\"]", "[\"a\xff\\q\"]", "[\"\\q\x01\"]", `{"a":1,"a":2}`, `{"a":1} x`, `x`, "{\n  \"é\": [1,\n  @]}",
	`{"b":[1,2.50,-0,1e400,"\u00e9\ud83d\ude80\/"],"a":{"x":null,"y":true},"":false}`,
	strings.Repeat("[", 10002) + strings.Repeat("]", 10002),
}

// FuzzReaderMigration checks that ParseJSON on internal/jsonread reads
// exactly as the reader it replaced (oldreader_test.go): the same value, or
// the same *SyntaxError field for field.
func FuzzReaderMigration(f *testing.F) {
	for _, s := range jsonMigrationSeeds {
		f.Add([]byte(s))
	}
	for _, fx := range loadFixtures(f) {
		f.Add([]byte(fx.test.Input))
		f.Add([]byte(fx.test.Expected))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseJSON(data)
		want, wantErr := oldParseJSON(data)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("ParseJSON(%q):\n new %#v, %#v\n old %#v, %#v", data, got, err, want, wantErr)
		}
	})
}
