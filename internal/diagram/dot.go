package diagram

import (
	"fmt"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
)

// AppendDOT appends r drawn as a Graphviz DOT digraph to dst.
func AppendDOT(dst []byte, r *graphresponse.Response) []byte {
	g := build(r)
	dst = fmt.Appendf(dst, "// graphwire %s result: %d nodes, %d edges\n", safeComment(r.QueryType), len(g.nodes), len(g.edges))
	dst = append(dst, "digraph graphwire {\n\trankdir=LR;\n\tnode [shape=box];\n"...)
	for _, n := range g.nodes {
		dst = append(dst, '\t')
		dst = appendDOTID(dst, n.key)
		dst = append(dst, " [label="...)
		dst = appendDOTLines(dst, n.lines)
		dst = append(dst, "];\n"...)
	}
	for _, e := range g.edges {
		dst = append(dst, '\t')
		dst = appendDOTID(dst, g.nodes[e.from].key)
		dst = append(dst, " -> "...)
		dst = appendDOTID(dst, g.nodes[e.to].key)
		dst = append(dst, " [label="...)
		dst = appendDOTLines(dst, []string{e.label})
		dst = append(dst, "];\n"...)
	}
	return append(dst, "}\n"...)
}

// appendDOTID appends a node's DOT id, "Type:ID" quoted.
func appendDOTID(dst []byte, k nodeKey) []byte {
	return appendDOTLines(dst, []string{fmt.Sprintf("%s:%d", k.typ, k.id)})
}

// appendDOTLines appends lines as one quoted DOT string, the lines joined by \n (a centred
// line break in a label).
func appendDOTLines(dst []byte, lines []string) []byte {
	dst = append(dst, '"')
	for i, l := range lines {
		if i > 0 {
			dst = append(dst, `\n`...)
		}
		for _, r := range l {
			switch {
			case r == '"' || r == '\\':
				dst = append(dst, '\\', byte(r))
			case isControl(r):
				// A backslash of its own, so Graphviz shows \uXXXX rather than reading an escape.
				dst = append(dst, '\\')
				dst = appendCode(dst, r)
			default:
				dst = utf8.AppendRune(dst, r)
			}
		}
	}
	return append(dst, '"')
}

// safeComment keeps a comment on its line: only letters, digits and '_' of s.
func safeComment(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b = append(b, c)
		}
	}
	if len(b) == 0 {
		return "query"
	}
	return string(b)
}
