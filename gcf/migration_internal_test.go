package gcf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/internal/conformance"
)

// jsonMigrationSeeds reach every error ParseJSON reports, and the
// precedence between several faults in one string.
var jsonMigrationSeeds = []string{
	"", " ", "{", "[", `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1`, `[1 2]`, `[1,`, `{1:2}`, `{"a":1,}`, `[tru]`, `[nul]`, `[fals]`,
	`[-]`, `[-x]`, `[1.]`, `[1.x]`, `[1e]`, `[1e+]`, `[01]`, `[1.5.3]`, `[1e5e5]`, `[-0]`, `[1.50]`, `[1e400]`, `[.5]`, `[+1]`,
	`[9223372036854775808]`, `[-9223372036854775809]`, `[x]`,
	`["\q"]`, `["\u12x4"]`, `["\ud800\u12"]`, `["\ud800\u0041"]`, `["\ud800"]`, `["\udc00"]`, `["\udc00\ud800"]`, `["\ud83d\ude80"]`,
	"[\"\x01\"]", "[\"\t\"]", "[\"\\", `["abc`, `["ab\`, "[\"\xff\"]",
	"[\"a\xff\\q\"]", "[\"\\q\x01\"]", "[\"\xff\x01\"]", `["\q`, "[\"\xff", "[\"\\\x01\"]", `{"a\q":1}`,
	`{"a":1,"a":2}`, `{"a":1} x`, `x`, "{\n  \"é\": [1,\n  @]}",
	strings.Repeat("[", 10002) + strings.Repeat("]", 10002),
}

// FuzzReaderMigration checks that ParseJSON on internal/jsonread reads
// exactly as the reader it replaced (oldreader_internal_test.go): the same
// value, or the same *SyntaxError field for field.
func FuzzReaderMigration(f *testing.F) {
	for _, s := range jsonMigrationSeeds {
		f.Add([]byte(s))
	}
	if root, err := conformance.Root(); err == nil {
		paths, _ := filepath.Glob(filepath.Join(root, "gcf", "*", "*.json"))
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseJSON(data)
		want, wantErr := oldParseJSON(data)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("ParseJSON(%q):\n new %#v, %#v\n old %#v, %#v", data, got, err, want, wantErr)
		}
	})
}
