package diagram

import (
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
)

// MaxValueRunes is the longest property value a label shows; longer ones are cut and end
// with "…".
const MaxValueRunes = 48

// nodeKey identifies a node: its type and id.
type nodeKey struct {
	typ string
	id  int64
}

// node is one box to draw: its key and label lines, unescaped.
type node struct {
	key   nodeKey
	lines []string
}

// graph is what both notations draw: the boxes in order of first appearance (the response's
// nodes, then edge ends that are not among them) and the edges in response order.
type graph struct {
	nodes []node
	index map[nodeKey]int
	edges []edge
}

type edge struct {
	from, to int
	label    string
}

func build(r *graphresponse.Response) *graph {
	g := &graph{index: map[nodeKey]int{}}
	add := func(k nodeKey, lines []string) int {
		if i, ok := g.index[k]; ok {
			return i
		}
		g.index[k] = len(g.nodes)
		g.nodes = append(g.nodes, node{key: k, lines: lines})
		return len(g.nodes) - 1
	}
	for _, n := range r.Nodes {
		lines := []string{n.Type + " " + strconv.FormatInt(n.ID, 10)}
		for _, m := range n.Props {
			lines = append(lines, m.Key+": "+cut(valueText(m.Value)))
		}
		add(nodeKey{n.Type, n.ID}, lines)
	}
	for _, e := range r.Edges {
		from := add(nodeKey{e.From, e.FromID}, []string{e.From + " " + strconv.FormatInt(e.FromID, 10)})
		to := add(nodeKey{e.To, e.ToID}, []string{e.To + " " + strconv.FormatInt(e.ToID, 10)})
		label := e.Type
		switch {
		case e.PathID.Valid && e.Step.Valid:
			label += fmt.Sprintf(" (path %d, step %d)", e.PathID.Value, e.Step.Value)
		case e.Depth.Valid:
			label += fmt.Sprintf(" (depth %d)", e.Depth.Value)
		}
		g.edges = append(g.edges, edge{from: from, to: to, label: label})
	}
	return g
}

// valueText is a property value as a label shows it: strings as they are, numbers and
// booleans as in JSON, lists and objects in brackets and braces.
func valueText(v graphresponse.Value) string {
	switch v.Kind() {
	case graphresponse.KindNull:
		return "null"
	case graphresponse.KindBool:
		return strconv.FormatBool(v.Bool())
	case graphresponse.KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case graphresponse.KindUint:
		return strconv.FormatUint(v.Uint(), 10)
	case graphresponse.KindFloat:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case graphresponse.KindString:
		return v.Str()
	case graphresponse.KindArray:
		b := []byte{'['}
		for i, e := range v.Elems() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, valueText(e)...)
		}
		return string(append(b, ']'))
	case graphresponse.KindObject:
		b := []byte{'{'}
		for i, m := range v.Members() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, m.Key+": "+valueText(m.Value)...)
		}
		return string(append(b, '}'))
	}
	return ""
}

// cut shortens s to MaxValueRunes runes.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= MaxValueRunes {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxValueRunes-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// isControl reports the characters no label writes raw: C0 and C1 controls, DEL and the
// Unicode line and paragraph separators.
func isControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// appendCode appends the visible form of a control character, \uXXXX.
func appendCode(dst []byte, r rune) []byte {
	return fmt.Appendf(dst, `\u%04X`, r)
}
