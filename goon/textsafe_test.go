package goon_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// TestTextSafety checks that no value, key or type puts a line separator,
// terminal control, bidirectional control or BOM into the output, that
// the encoder counts each string it changed, and that the decoder
// restores the markers.
func TestTextSafety(t *testing.T) {
	str := graphresponse.String
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{
				{Key: "a_sep", Value: str("x\u2028@edges\u2029y")}, // marked: 1
				{Key: "b_nel", Value: str("x\u0085User(9):")},      // marked: 1
				{Key: "c_bidi", Value: str("\u202eabc\u2066")},     // marked: 1
				{Key: "d_bom", Value: str("\ufeffbom")},            // marked: 1
				{Key: "e_esc", Value: str("\x1b[2Jx")},             // dropped by §3.7: 1
				{Key: "f_open", Value: str("⟦U+2028⟧")},            // literal opener: 1
				{Key: "g_plain", Value: str("tab\tlf\ncr\r é")},    // escapes only: 0
				{Key: "h\nforged", Value: str("v")},                // key marked: 1
			}},
			{Type: "Evil\u2028Type", ID: 2}, // group header marked: 1
		},
		Edges: []graphresponse.Edge{},
	}
	var buf bytes.Buffer
	enc := goon.NewEncoder(&buf, goon.Options{Version: "1.0.0"})
	if err := enc.Encode(r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && textsafe.Forbidden(r) }); i >= 0 {
		t.Errorf("output holds %U at byte %d:\n%s", []rune(out[i:])[0], i, out)
	}
	for _, want := range []string{
		`a_sep="x⟦U+2028⟧@edges⟦U+2029⟧y"`, `b_nel="x⟦U+0085⟧User(9):"`, `c_bidi="⟦U+202E⟧abc⟦U+2066⟧"`,
		`d_bom="⟦U+FEFF⟧bom"`, `e_esc="[2Jx"`, `f_open="⟦U+27E6⟧U+2028⟧"`, `g_plain="tab\tlf\ncr\r é"`,
		`h⟦U+000A⟧forged=v`, "\nEvil⟦U+2028⟧Type(1):\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if got := enc.Altered(); got != 8 {
		t.Errorf("Altered() = %d, want 8", got)
	}
	back, err := goon.Unmarshal(buf.Bytes(), goon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// GOON sorts nodes by type: "Evil…" comes before "User".
	if len(back.Nodes) != 2 || back.Nodes[0].Type != "Evil\u2028Type" || back.Nodes[1].Type != "User" {
		t.Fatalf("decoded nodes %+v", back.Nodes)
	}
	for _, m := range r.Nodes[0].Props {
		want := m.Value.Str()
		if m.Key == "e_esc" {
			want = "[2Jx" // §3.7 drops C0 controls: the one loss
		}
		if v, ok := back.Nodes[1].Prop(m.Key); !ok || v.Str() != want {
			t.Errorf("%q decoded as %v (present %v), want %q", m.Key, v, ok, want)
		}
	}
}
