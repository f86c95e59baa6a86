package toon

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"
)

// parseJSONCases reach every error ParseJSON reports.
var parseJSONCases = []string{
	"", " ", "{", "[", `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1`, `[1 2]`, `[1,`, `{1:2}`, `{"a":1,}`, `[tru]`, `[nul]`, `[fals]`,
	`[-]`, `[-x]`, `[1.]`, `[1.x]`, `[1e]`, `[1e+]`, `[01]`, `[1.5.3]`, `[1e5e5]`, `[-0]`, `[1.50]`, `[1e400]`, `[.5]`, `[+1]`,
	`["\q"]`, `["\u12x4"]`, `["\ud800\u12"]`, `["\ud800\u0041"]`, `["\ud800"]`, `["\udc00\ud800"]`, "[\"\x01\"]", "[\"\\", `["abc`,
	`["ab\`, "[\"\xff\"]", "[\"a\xff\\q\"]", "[\"\\q\x01\"]", `{"a":1,"a":2}`, `{"a":1} x`, `x`, "{\n  \"é\": [1,\n  @]}",
	`{"b":[1,2.50,-0,1e400,"\u00e9\ud83d\ude80\/"],"a":{"x":null,"y":true},"":false}`,
	strings.Repeat("[", 10002) + strings.Repeat("]", 10002),
}

// TestParseJSONOutcomes keeps what ParseJSON makes of each case, the value
// or the whole error (position, sentinel, message), as a reviewed snapshot.
// It matches what the reader internal/jsonread replaced gave on
// every case: FuzzReaderMigration checked that, field for field, until
// the old reader was removed.
func TestParseJSONOutcomes(t *testing.T) {
	var b strings.Builder
	for _, in := range parseJSONCases {
		b.WriteString("input " + quoteCase(in) + "\n")
		v, err := ParseJSON([]byte(in))
		if err != nil {
			if _, ok := err.(*SyntaxError); !ok {
				t.Errorf("ParseJSON(%s): error %T, want *SyntaxError", quoteCase(in), err)
			}
			b.WriteString("  error " + err.Error() + "\n")
			continue
		}
		out, err := AppendJSON(nil, v)
		if err != nil {
			t.Fatalf("AppendJSON of ParseJSON(%s): %v", quoteCase(in), err)
		}
		b.WriteString("  value " + string(out) + "\n")
	}
	snaps.WithConfig(snaps.Raw()).MatchSnapshot(t, b.String())
}

// quoteCase quotes a case, shortening one too long to read.
func quoteCase(s string) string {
	if len(s) > 80 {
		return fmt.Sprintf("%q… (%d bytes)", s[:40], len(s))
	}
	return fmt.Sprintf("%q", s)
}
