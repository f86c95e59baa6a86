package diagram

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
)

// AppendMermaid appends r drawn as a Mermaid flowchart to dst. Nodes are named n0, n1, … in
// order of first appearance; their labels carry the type and id.
func AppendMermaid(dst []byte, r *graphresponse.Response) []byte {
	g := build(r)
	dst = fmt.Appendf(dst, "%%%% graphwire %s result: %d nodes, %d edges\n", safeComment(r.QueryType), len(g.nodes), len(g.edges))
	dst = append(dst, "flowchart LR\n"...)
	for i, n := range g.nodes {
		dst = fmt.Appendf(dst, "  n%d[", i)
		dst = appendMermaidLines(dst, n.lines)
		dst = append(dst, "]\n"...)
	}
	for _, e := range g.edges {
		dst = fmt.Appendf(dst, "  n%d -->|", e.from)
		dst = appendMermaidLines(dst, []string{e.label})
		dst = fmt.Appendf(dst, "| n%d\n", e.to)
	}
	return dst
}

// mermaidPlain are the punctuation characters a quoted Mermaid label shows as they are.
const mermaidPlain = " .,:-_/+=*@!?'()[]{}~^$%"

// appendMermaidLines appends lines as one quoted Mermaid label, the lines joined by <br/>.
func appendMermaidLines(dst []byte, lines []string) []byte {
	dst = append(dst, '"')
	for i, l := range lines {
		if i > 0 {
			dst = append(dst, "<br/>"...)
		}
		for _, r := range l {
			switch {
			case isControl(r):
				dst = appendCode(dst, r)
			case r < utf8.RuneSelf && strings.ContainsRune(mermaidPlain, r),
				unicode.IsLetter(r), unicode.IsDigit(r), r >= utf8.RuneSelf && unicode.IsGraphic(r) && !unicode.IsSpace(r) && !unicode.Is(unicode.Bidi_Control, r):
				dst = utf8.AppendRune(dst, r)
			default:
				dst = append(dst, '#')
				dst = strconv.AppendInt(dst, int64(r), 10)
				dst = append(dst, ';')
			}
		}
	}
	return append(dst, '"')
}
