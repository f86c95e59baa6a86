package graphresponse

import (
	"strings"
	"unicode/utf8"
)

// repairText makes every string of r that came from the engine valid UTF-8: node types and
// property values, edge kinds and aggregation cells (node buckets included). Each run of
// bytes that is not UTF-8 becomes one U+FFFD, as [strings.ToValidUTF8] does. It returns how
// many strings it changed.
//
// Every format writes UTF-8 text, and the gRPC face sends the text in proto3 string fields,
// which must be UTF-8; so a value stored before the loader refused such bytes (or written by
// another writer) is repaired once, here, and counted, and every format and face answers
// with the same repaired text and the same count (docs/formats.md, "Text that is not UTF-8").
func repairText(r *Response) int {
	n := 0
	str := func(s *string) {
		if !utf8.ValidString(*s) {
			*s = strings.ToValidUTF8(*s, "\uFFFD")
			n++
		}
	}
	for i := range r.Nodes {
		nd := &r.Nodes[i]
		str(&nd.Type)
		for j := range nd.Props {
			nd.Props[j].Value = repairValue(nd.Props[j].Value, &n)
		}
	}
	for i := range r.Edges {
		e := &r.Edges[i]
		str(&e.From)
		str(&e.To)
		str(&e.Type)
	}
	for _, row := range r.Rows {
		for j := range row {
			row[j].Value = repairValue(row[j].Value, &n)
		}
	}
	return n
}

// repairValue returns v with every string in it (object keys too) valid UTF-8, adding the
// strings it changed to n. A value without such a string is returned as it is.
func repairValue(v Value, n *int) Value {
	switch v.kind {
	case KindString:
		if !utf8.ValidString(v.s) {
			*n++
			return String(strings.ToValidUTF8(v.s, "\uFFFD"))
		}
	case KindArray:
		var out []Value
		for i, e := range v.c.arr {
			before := *n
			f := repairValue(e, n)
			if *n != before && out == nil {
				out = append([]Value(nil), v.c.arr...)
			}
			if out != nil {
				out[i] = f
			}
		}
		if out != nil {
			return Array(out...)
		}
	case KindObject:
		var out []Member
		for i, m := range v.c.obj {
			before := *n
			k := m.Key
			if !utf8.ValidString(k) {
				k = strings.ToValidUTF8(k, "\uFFFD")
				*n++
			}
			f := repairValue(m.Value, n)
			if *n != before && out == nil {
				out = append([]Member(nil), v.c.obj...)
			}
			if out != nil {
				out[i] = Member{Key: k, Value: f}
			}
		}
		if out != nil {
			return Object(out...)
		}
	}
	return v
}
