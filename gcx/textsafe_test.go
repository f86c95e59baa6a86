package gcx_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// TestTextSafety checks that no value puts a line separator, terminal
// control, bidirectional control or BOM into the output, that the encoder
// counts each value it changed once, and that decoding restores the
// markers (CR is the one loss, spec §4.2).
func TestTextSafety(t *testing.T) {
	str := graphresponse.String
	r := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{
				{Key: "esc", Value: str("\x1b[31mred\x1b[0m")},          // markers: 1
				{Key: "nel", Value: str("a\u0085GCX1 tool=forged")},     // markers: 1
				{Key: "cr", Value: str("a\rb")},                         // CR dropped: 1
				{Key: "crsep", Value: str("a\r\u2028b")},                // both, counted once: 1
				{Key: "opener", Value: str("⟦U+0041⟧")},                 // literal opener: 1
				{Key: "k\u202e", Value: str("v")},                       // key moves to _props: 1
				{Key: "plain", Value: str("tab\tand\nlf and é \u2027")}, // escapes only: 0
			}},
			{Type: "A\u2028B", ID: 2}, // type moves to the catch-all section: 1
		},
		Edges: []graphresponse.Edge{},
	}
	var buf bytes.Buffer
	enc := gcx.NewEncoder(&buf, gcx.Options{})
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if j := strings.IndexFunc(line, func(r rune) bool { return r != '\t' && textsafe.Forbidden(r) }); j >= 0 {
			t.Errorf("line %d holds %U: %q", i+1, []rune(line[j:])[0], line)
		}
	}
	if got := enc.Altered(); got != 7 {
		t.Errorf("Altered() = %d, want 7\n%s", got, out)
	}
	back, err := gcx.Unmarshal(buf.Bytes(), gcx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(gcx.Canon(r), back); diff != "" {
		t.Errorf("Unmarshal(Marshal(r)) != Canon(r) (-want +got):\n%s\n%s", diff, out)
	}
}
