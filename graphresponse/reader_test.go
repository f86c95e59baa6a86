package graphresponse_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/graphresponse"
)

// readerCases are documents that reach every error path of the JSON layer:
// strings, escapes, surrogates, numbers, literals, nesting, keys.
var readerCases = []string{
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

// TestReaderOutcomes keeps what Unmarshal and UnmarshalValue make of each
// case, the value or the whole error (pointer, position, sentinel, detail),
// as a reviewed snapshot. It matches what the reader internal/jsonread
// replaced gave on every case: FuzzReaderMigration checked that, field for
// field, until the old reader was removed.
func TestReaderOutcomes(t *testing.T) {
	var b strings.Builder
	for _, in := range readerCases {
		fmt.Fprintf(&b, "input %q\n", in)
		r, err := graphresponse.Unmarshal([]byte(in))
		b.WriteString("  response " + outcome(t, err, func() []byte { return graphresponse.Marshal(r) }) + "\n")
		v, err := graphresponse.UnmarshalValue([]byte(in))
		b.WriteString("  value " + outcome(t, err, func() []byte { return graphresponse.AppendValueJSON(nil, v) }) + "\n")
	}
	snaps.WithConfig(snaps.Raw()).MatchSnapshot(t, b.String())
}

// outcome words a decode result: the error, which must be a
// *SyntaxError, or the re-encoded value.
func outcome(t *testing.T, err error, encode func() []byte) string {
	t.Helper()
	if err != nil {
		if _, ok := err.(*graphresponse.SyntaxError); !ok {
			t.Errorf("error %T (%v), want *graphresponse.SyntaxError", err, err)
		}
		return "error " + err.Error()
	}
	return string(encode())
}
