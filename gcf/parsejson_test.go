package gcf_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/gcf"
)

// parseJSONCases reach every error ParseJSON reports, and the precedence
// between several faults in one string.
var parseJSONCases = []string{
	"", " ", "{", "[", `{"a" 1}`, `{"a":1 "b":2}`, `{"a":1`, `[1 2]`, `[1,`, `{1:2}`, `{"a":1,}`, `[tru]`, `[nul]`, `[fals]`,
	`[-]`, `[-x]`, `[1.]`, `[1.x]`, `[1e]`, `[1e+]`, `[01]`, `[1.5.3]`, `[1e5e5]`, `[-0]`, `[1.50]`, `[1e400]`, `[.5]`, `[+1]`,
	`[9223372036854775808]`, `[-9223372036854775809]`, `[x]`,
	`["\q"]`, `["\u12x4"]`, `["\ud800\u12"]`, `["\ud800\u0041"]`, `["\ud800"]`, `["\udc00"]`, `["\udc00\ud800"]`, `["\ud83d\ude80"]`,
	"[\"\x01\"]", "[\"\t\"]", "[\"\\", `["abc`, `["ab\`, "[\"\xff\"]",
	"[\"a\xff\\q\"]", "[\"\\q\x01\"]", "[\"\xff\x01\"]", `["\q`, "[\"\xff", "[\"\\\x01\"]", `{"a\q":1}`,
	`{"a":1,"a":2}`, `{"a":1} x`, `x`, "{\n  \"é\": [1,\n  @]}",
	strings.Repeat("[", 10002) + strings.Repeat("]", 10002),
}

// TestParseJSONOutcomes keeps what ParseJSON makes of each case, the value
// or the whole error (position, sentinel, detail), as a reviewed snapshot.
// It matches what the reader internal/jsonread replaced gave on
// every case: FuzzReaderMigration checked that, field for field, until
// the old reader was removed.
func TestParseJSONOutcomes(t *testing.T) {
	var b strings.Builder
	for _, in := range parseJSONCases {
		b.WriteString("input " + quoteCase(in) + "\n")
		v, err := gcf.ParseJSON([]byte(in))
		if err != nil {
			if _, ok := err.(*gcf.SyntaxError); !ok {
				t.Errorf("ParseJSON(%s): error %T, want *gcf.SyntaxError", quoteCase(in), err)
			}
			b.WriteString("  error " + err.Error() + "\n")
			continue
		}
		out, err := gcf.AppendJSON(nil, v)
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
