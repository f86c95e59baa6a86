package graphresponse

import (
	"slices"
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
	v, k := MapStrings(v, true, func(s string) (string, bool) {
		if utf8.ValidString(s) {
			return s, false
		}
		return strings.ToValidUTF8(s, "\uFFFD"), true
	})
	*n += k
	return v
}

// MapStrings returns v with every string in it, at any depth (object keys too when keys is
// set), replaced by what f returns for it when f reports a change, and how many strings f
// changed. The arrays and objects on the way to a changed string are copied, never changed
// in place; a value f changes nothing in is returned as it is, without allocating.
func MapStrings(v Value, keys bool, f func(string) (string, bool)) (Value, int) {
	switch v.kind {
	case KindString:
		if s, ok := f(v.s); ok {
			return String(s), 1
		}
	case KindArray:
		var out []Value
		n := 0
		for i, e := range v.c.arr {
			g, k := MapStrings(e, keys, f)
			if k == 0 {
				continue
			}
			if out == nil {
				out = slices.Clone(v.c.arr)
			}
			out[i], n = g, n+k
		}
		if out != nil {
			return Array(out...), n
		}
	case KindObject:
		var out []Member
		n := 0
		for i, m := range v.c.obj {
			key, k := m.Key, 0
			if keys {
				if s, ok := f(key); ok {
					key, k = s, 1
				}
			}
			g, kv := MapStrings(m.Value, keys, f)
			if k += kv; k == 0 {
				continue
			}
			if out == nil {
				out = slices.Clone(v.c.obj)
			}
			out[i], n = Member{Key: key, Value: g}, n+k
		}
		if out != nil {
			return Object(out...), n
		}
	}
	return v, 0
}
