package e2e

import (
	"strings"
	"testing"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// The seed titles merge requests 2–16 with the hostile strings, among them
// line separators, NEL, ESC, form feed, bidi controls and a BOM.
const hostileTitles = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4,5,6,7,8,9,10,11,12,13,14,15,16],"columns":["title"]}],"limit":50}`

// TestServedTextIsSafe checks, through the real server, that no LLM format
// as served writes a line-splitting, terminal or bidi control raw, that
// altered_values counts what was changed, and that the raw JSON keeps every
// value as stored.
func TestServedTextIsSafe(t *testing.T) {
	c := server(t, engine(t), nil)
	ctx := as(t, admin)
	rawResp := raw(t, c, ctx, hostileTitles)
	hostile := 0
	for _, n := range rawResp.Nodes {
		if v, ok := n.Prop("title"); ok && v.Kind() == graphresponse.KindString && forbiddenAt(v.Str(), nil) >= 0 {
			hostile++
		}
	}
	if hostile < 3 {
		t.Fatalf("the seeded graph holds %d hostile titles in the raw JSON, want at least 3", hostile)
	}
	for fname, enum := range llmFormats {
		req := &pb.ExecuteQueryRequest{Query: hostileTitles, Format: pb.ResponseFormat_RESPONSE_FORMAT_LLM, LlmFormat: enum}
		resp, err := c.ExecuteQuery(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", fname, err)
		}
		text := resp.GetFormattedText()
		if i := forbiddenAt(text, keepStructural(fname)); i >= 0 {
			t.Errorf("%s: raw control at byte %d: %q", fname, i, text[max(0, i-20):min(len(text), i+20)])
		}
		altered := resp.GetMetadata().GetAlteredValues()
		// gcf, gcf-graph and toon escape inside quotes and xml as character
		// references (nothing altered). goon and gcx keep their own escapes
		// for TAB and LF, and markdown writes LF as <br>, but they
		// substitute markers for the three titles with separators, ESC, bidi
		// controls and BOM, and count every value they changed.
		switch fname {
		case formatter.GOON, formatter.GCX, formatter.Markdown:
			if altered < 3 || altered > int64(hostile) {
				t.Errorf("%s: altered_values %d, want 3..%d", fname, altered, hostile)
			}
		default:
			if altered != 0 {
				t.Errorf("%s: altered_values %d, want 0 (the format escapes)", fname, altered)
			}
		}
		// The streamed answer carries the same count.
		got, md, _ := readStream(t, ctx, c, req)
		if got != text || md.GetAlteredValues() != altered {
			t.Errorf("%s: stream gives %d bytes and altered_values %d, unary %d and %d", fname, len(got), md.GetAlteredValues(), len(text), altered)
		}
	}
	// Raw JSON is never altered: U+2028 stays as stored.
	resp, err := c.ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: hostileTitles})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.GetResultJson(), "line\u2028separator") || resp.GetMetadata().GetAlteredValues() != 0 {
		t.Errorf("raw JSON changed a value or reports altered_values %d", resp.GetMetadata().GetAlteredValues())
	}
}

// forbiddenAt returns the byte offset of the first code point of s that
// text safety forbids and keep does not allow, or -1.
func forbiddenAt(s string, keep func(rune) bool) int {
	for i, r := range s {
		if textsafe.Forbidden(r) && (keep == nil || !keep(r)) {
			return i
		}
	}
	return -1
}

// keepStructural allows what a format itself writes between values: every
// format breaks lines with LF, and gcx separates cells with TAB.
func keepStructural(format string) func(rune) bool {
	return func(r rune) bool { return r == '\n' || (format == formatter.GCX && r == '\t') }
}
