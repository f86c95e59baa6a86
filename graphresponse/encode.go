package graphresponse

import (
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Marshal returns the raw JSON encoding of r (specs/goon.md §2.7): compact,
// no trailing newline, fixed keys in declaration order, node properties and
// bucket properties sorted by key, ids as decimal strings, floats always
// recognisable as floats. The output is byte-stable for equal responses.
func Marshal(r *Response) []byte { return AppendJSON(nil, r) }

// Encode writes the raw JSON encoding of r to w in one write.
func Encode(w io.Writer, r *Response) error {
	_, err := w.Write(AppendJSON(nil, r))
	return err
}

// AppendJSON appends the raw JSON encoding of r to dst.
func AppendJSON(dst []byte, r *Response) []byte {
	dst = append(dst, `{"format_version":`...)
	dst = AppendQuotedJSON(dst, r.FormatVersion)
	dst = append(dst, `,"query_type":`...)
	dst = AppendQuotedJSON(dst, r.QueryType)
	dst = append(dst, `,"nodes":[`...)
	for i := range r.Nodes {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendNode(dst, &r.Nodes[i])
	}
	dst = append(dst, `],"edges":[`...)
	for i := range r.Edges {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendEdge(dst, &r.Edges[i])
	}
	dst = append(dst, ']')
	if r.Columns != nil {
		dst = append(dst, `,"columns":[`...)
		for i, c := range r.Columns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendColumn(dst, c)
		}
		dst = append(dst, ']')
	}
	if r.GroupColumns != nil {
		dst = append(dst, `,"group_columns":[`...)
		for i, g := range r.GroupColumns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendGroupColumn(dst, g)
		}
		dst = append(dst, ']')
	}
	if r.Rows != nil {
		dst = append(dst, `,"rows":[`...)
		for i, row := range r.Rows {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendRow(dst, row, r.GroupColumns, r.Columns)
		}
		dst = append(dst, ']')
	}
	if p := r.Pagination; p != nil {
		dst = append(dst, `,"pagination":{"has_more":`...)
		dst = strconv.AppendBool(dst, p.HasMore)
		dst = append(dst, `,"truncated":`...)
		dst = strconv.AppendBool(dst, p.Truncated)
		if p.NextCursor != nil {
			dst = append(dst, `,"next_cursor":`...)
			dst = AppendQuotedJSON(dst, *p.NextCursor)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendNode(dst []byte, n *Node) []byte {
	dst = append(dst, `{"type":`...)
	dst = AppendQuotedJSON(dst, n.Type)
	dst = append(dst, `,"id":"`...)
	dst = strconv.AppendInt(dst, n.ID, 10)
	dst = append(dst, '"')
	for _, m := range SortedMembers(n.Props) {
		dst = append(dst, ',')
		dst = AppendQuotedJSON(dst, m.Key)
		dst = append(dst, ':')
		dst = AppendValueJSON(dst, m.Value)
	}
	return append(dst, '}')
}

func appendEdge(dst []byte, e *Edge) []byte {
	dst = append(dst, `{"from":`...)
	dst = AppendQuotedJSON(dst, e.From)
	dst = append(dst, `,"from_id":"`...)
	dst = strconv.AppendInt(dst, e.FromID, 10)
	dst = append(dst, `","to":`...)
	dst = AppendQuotedJSON(dst, e.To)
	dst = append(dst, `,"to_id":"`...)
	dst = strconv.AppendInt(dst, e.ToID, 10)
	dst = append(dst, `","type":`...)
	dst = AppendQuotedJSON(dst, e.Type)
	if e.Depth.Valid {
		dst = append(dst, `,"depth":`...)
		dst = strconv.AppendInt(dst, e.Depth.Value, 10)
	}
	if e.PathID.Valid {
		dst = append(dst, `,"path_id":`...)
		dst = strconv.AppendInt(dst, e.PathID.Value, 10)
	}
	if e.Step.Valid {
		dst = append(dst, `,"step":`...)
		dst = strconv.AppendInt(dst, e.Step.Value, 10)
	}
	return append(dst, '}')
}

func appendColumn(dst []byte, c Column) []byte {
	dst = append(dst, `{"name":`...)
	dst = AppendQuotedJSON(dst, c.Name)
	dst = append(dst, `,"function":`...)
	dst = AppendQuotedJSON(dst, c.Function)
	dst = append(dst, `,"target":`...)
	dst = AppendQuotedJSON(dst, c.Target)
	if c.Property != "" {
		dst = append(dst, `,"property":`...)
		dst = AppendQuotedJSON(dst, c.Property)
	}
	return append(dst, '}')
}

func appendGroupColumn(dst []byte, g GroupColumn) []byte {
	dst = append(dst, `{"name":`...)
	dst = AppendQuotedJSON(dst, g.Name)
	dst = append(dst, `,"kind":`...)
	dst = AppendQuotedJSON(dst, g.Kind)
	dst = append(dst, `,"node":`...)
	dst = AppendQuotedJSON(dst, g.Node)
	if g.Property != "" {
		dst = append(dst, `,"property":`...)
		dst = AppendQuotedJSON(dst, g.Property)
	}
	if g.Entity != "" {
		dst = append(dst, `,"entity":`...)
		dst = AppendQuotedJSON(dst, g.Entity)
	}
	return append(dst, '}')
}

// RowOrder returns the cells of row in raw-JSON order: group-column names in
// order, then column names in order (each once, when present), then the other
// keys sorted by byte order.
func RowOrder(row Row, groups []GroupColumn, cols []Column) []Member {
	out := make([]Member, 0, len(row))
	used := make([]bool, len(row))
	take := func(name string) {
		for i, m := range row {
			if !used[i] && m.Key == name {
				used[i] = true
				out = append(out, m)
				return
			}
		}
	}
	for _, g := range groups {
		take(g.Name)
	}
	for _, c := range cols {
		take(c.Name)
	}
	start := len(out)
	for i, m := range row {
		if !used[i] {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out[start:], func(a, b Member) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return out
}

func appendRow(dst []byte, row Row, groups []GroupColumn, cols []Column) []byte {
	dst = append(dst, '{')
	for i, m := range RowOrder(row, groups, cols) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendQuotedJSON(dst, m.Key)
		dst = append(dst, ':')
		dst = appendCell(dst, m.Value)
	}
	return append(dst, '}')
}

// appendCell writes a row cell. A node bucket keeps the key order type, id,
// properties with its properties sorted; any other value is written as is.
func appendCell(dst []byte, v Value) []byte {
	if !isBucket(v) {
		return AppendValueJSON(dst, v)
	}
	t, _ := v.Get("type")
	id, _ := v.Get("id")
	props, _ := v.Get("properties")
	dst = append(dst, `{"type":`...)
	dst = AppendQuotedJSON(dst, t.Str())
	dst = append(dst, `,"id":`...)
	dst = AppendQuotedJSON(dst, id.Str())
	dst = append(dst, `,"properties":{`...)
	for i, m := range SortedMembers(props.Members()) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendQuotedJSON(dst, m.Key)
		dst = append(dst, ':')
		dst = AppendValueJSON(dst, m.Value)
	}
	return append(dst, "}}"...)
}

// isBucket reports whether v has exactly the shape of a node bucket.
func isBucket(v Value) bool {
	ms := v.Members()
	if len(ms) != 3 {
		return false
	}
	t, ok1 := v.Get("type")
	id, ok2 := v.Get("id")
	p, ok3 := v.Get("properties")
	return ok1 && ok2 && ok3 && t.Kind() == KindString && id.Kind() == KindString && p.Kind() == KindObject
}

// AppendValueJSON appends the JSON encoding of v: integers in decimal, floats
// by [AppendFloatJSON], non-finite floats as null, objects in member order.
func AppendValueJSON(dst []byte, v Value) []byte {
	switch v.Kind() {
	case KindNull:
		return append(dst, "null"...)
	case KindBool:
		return strconv.AppendBool(dst, v.Bool())
	case KindInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case KindUint:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case KindFloat:
		return AppendFloatJSON(dst, v.Float())
	case KindString:
		return AppendQuotedJSON(dst, v.Str())
	case KindArray:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendValueJSON(dst, e)
		}
		return append(dst, ']')
	case KindObject:
		dst = append(dst, '{')
		for i, m := range v.Members() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendQuotedJSON(dst, m.Key)
			dst = append(dst, ':')
			dst = AppendValueJSON(dst, m.Value)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// AppendFloatJSON appends f as the shortest text that reads back to the same
// float64, in the ECMAScript style encoding/json uses (exponent outside
// [1e-6, 1e21)), with ".0" added when the text would otherwise read as an
// integer: 2.0, -0.0, 1e+21, 1e-7. NaN and ±Inf are written as null.
func AppendFloatJSON(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as ECMAScript does.
		n := len(dst)
		if n-start >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
		return dst
	}
	for _, c := range dst[start:] {
		if c == '.' {
			return dst
		}
	}
	return append(dst, ".0"...)
}

const hexDigits = "0123456789abcdef"

// AppendQuotedJSON appends s as a JSON string: ", \ and control characters
// escaped (\n, \r, \t, \b, \f or \u00XX), everything else, including
// non-ASCII and <, >, &, written as is. Invalid UTF-8 becomes U+FFFD.
func AppendQuotedJSON(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
