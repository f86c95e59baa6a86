package xmlgraph

import (
	"bufio"
	"bytes"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// Encoder writes XML documents to an io.Writer. It builds each document in
// a reused buffer and writes it through a bufio.Writer, flushing before
// Encode returns. The first write error sticks: every later call returns
// it. An Encoder is not safe for concurrent use.
type Encoder struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewEncoder returns an encoder writing to w. opts is reserved; see
// [Options].
func NewEncoder(w io.Writer, opts Options) *Encoder {
	_ = opts
	return &Encoder{w: bufio.NewWriter(w)}
}

// Marshal returns the XML document of r.
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Encode writes the XML document of r, ending in a newline, and flushes.
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	e.buf = appendResponse(e.buf[:0], r)
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = err
		return err
	}
	if err := e.w.Flush(); err != nil {
		e.err = err
	}
	return e.err
}

func appendResponse(dst []byte, r *graphresponse.Response) []byte {
	dst = append(dst, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<graph_response xmlns="`+Namespace+`"`...)
	dst = appendAttr(dst, "format_version", r.FormatVersion)
	dst = appendAttr(dst, "query_type", r.QueryType)
	dst = append(dst, ">\n"...)
	if len(r.Nodes) == 0 {
		dst = append(dst, "  <nodes/>\n"...)
	} else {
		dst = append(dst, "  <nodes>\n"...)
		for i := range r.Nodes {
			dst = appendNode(dst, &r.Nodes[i])
		}
		dst = append(dst, "  </nodes>\n"...)
	}
	if len(r.Edges) == 0 {
		dst = append(dst, "  <edges/>\n"...)
	} else {
		dst = append(dst, "  <edges>\n"...)
		for i := range r.Edges {
			dst = appendEdge(dst, &r.Edges[i])
		}
		dst = append(dst, "  </edges>\n"...)
	}
	if r.Columns != nil {
		dst = open(dst, "columns", len(r.Columns))
		for _, c := range r.Columns {
			dst = append(dst, "    <column"...)
			dst = appendAttr(dst, "name", c.Name)
			dst = appendAttr(dst, "function", c.Function)
			dst = appendAttr(dst, "target", c.Target)
			if c.Property != "" {
				dst = appendAttr(dst, "property", c.Property)
			}
			dst = append(dst, "/>\n"...)
		}
		dst = closeTag(dst, "columns", len(r.Columns))
	}
	if r.GroupColumns != nil {
		dst = open(dst, "group_columns", len(r.GroupColumns))
		for _, g := range r.GroupColumns {
			dst = append(dst, "    <group_column"...)
			dst = appendAttr(dst, "name", g.Name)
			dst = appendAttr(dst, "kind", g.Kind)
			dst = appendAttr(dst, "node", g.Node)
			if g.Property != "" {
				dst = appendAttr(dst, "property", g.Property)
			}
			if g.Entity != "" {
				dst = appendAttr(dst, "entity", g.Entity)
			}
			dst = append(dst, "/>\n"...)
		}
		dst = closeTag(dst, "group_columns", len(r.GroupColumns))
	}
	if r.Rows != nil {
		dst = open(dst, "rows", len(r.Rows))
		for _, row := range r.Rows {
			if len(row) == 0 {
				dst = append(dst, "    <row/>\n"...)
				continue
			}
			dst = append(dst, "    <row>\n"...)
			for _, m := range graphresponse.RowOrder(row, r.GroupColumns, r.Columns) {
				dst = appendValue(dst, "cell", m.Key, true, m.Value, 6)
			}
			dst = append(dst, "    </row>\n"...)
		}
		dst = closeTag(dst, "rows", len(r.Rows))
	}
	if p := r.Pagination; p != nil {
		dst = append(dst, "  <pagination has_more=\""...)
		dst = strconv.AppendBool(dst, p.HasMore)
		dst = append(dst, "\" truncated=\""...)
		dst = strconv.AppendBool(dst, p.Truncated)
		dst = append(dst, '"')
		if p.NextCursor != nil {
			dst = appendAttr(dst, "next_cursor", *p.NextCursor)
		}
		dst = append(dst, "/>\n"...)
	}
	return append(dst, "</graph_response>\n"...)
}

func open(dst []byte, name string, n int) []byte {
	dst = append(dst, "  <"...)
	dst = append(dst, name...)
	if n == 0 {
		return append(dst, "/>\n"...)
	}
	return append(dst, ">\n"...)
}

func closeTag(dst []byte, name string, n int) []byte {
	if n == 0 {
		return dst
	}
	dst = append(dst, "  </"...)
	dst = append(dst, name...)
	return append(dst, ">\n"...)
}

func appendNode(dst []byte, n *graphresponse.Node) []byte {
	dst = append(dst, "    <node"...)
	dst = appendAttr(dst, "type", n.Type)
	dst = append(dst, ` id="`...)
	dst = strconv.AppendInt(dst, n.ID, 10)
	if len(n.Props) == 0 {
		return append(dst, "\"/>\n"...)
	}
	dst = append(dst, "\">\n"...)
	for _, m := range graphresponse.SortedMembers(n.Props) {
		dst = appendValue(dst, "property", m.Key, true, m.Value, 6)
	}
	return append(dst, "    </node>\n"...)
}

func appendEdge(dst []byte, e *graphresponse.Edge) []byte {
	dst = append(dst, "    <edge"...)
	dst = appendAttr(dst, "from", e.From)
	dst = append(dst, ` from_id="`...)
	dst = strconv.AppendInt(dst, e.FromID, 10)
	dst = append(dst, '"')
	dst = appendAttr(dst, "to", e.To)
	dst = append(dst, ` to_id="`...)
	dst = strconv.AppendInt(dst, e.ToID, 10)
	dst = append(dst, '"')
	dst = appendAttr(dst, "type", e.Type)
	for _, o := range []struct {
		name string
		v    graphresponse.OptInt
	}{{"depth", e.Depth}, {"path_id", e.PathID}, {"step", e.Step}} {
		if o.v.Valid {
			dst = append(dst, ' ')
			dst = append(dst, o.name...)
			dst = append(dst, `="`...)
			dst = strconv.AppendInt(dst, o.v.Value, 10)
			dst = append(dst, '"')
		}
	}
	return append(dst, "/>\n"...)
}

const spaces = "                                                                "

func indent(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}

// appendValue writes one value element: <name key="k" type="t">text</name>,
// with array items and object members on their own lines below it.
func appendValue(dst []byte, name, key string, keyed bool, v graphresponse.Value, depth int) []byte {
	dst = indent(dst, depth)
	dst = append(dst, '<')
	dst = append(dst, name...)
	if keyed {
		dst = appendAttr(dst, "key", key)
	}
	dst = append(dst, ` type="`...)
	kind := v.Kind()
	if kind == graphresponse.KindFloat && (math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0)) {
		kind = graphresponse.KindNull // as the raw JSON writes them
	}
	switch kind {
	case graphresponse.KindNull:
		return append(dst, "null\"/>\n"...)
	case graphresponse.KindBool:
		dst = append(dst, "bool\">"...)
		dst = strconv.AppendBool(dst, v.Bool())
	case graphresponse.KindInt:
		dst = append(dst, "int\">"...)
		dst = strconv.AppendInt(dst, v.Int(), 10)
	case graphresponse.KindUint:
		dst = append(dst, "int\">"...)
		dst = strconv.AppendUint(dst, v.Uint(), 10)
	case graphresponse.KindFloat:
		dst = append(dst, "float\">"...)
		dst = graphresponse.AppendFloatJSON(dst, v.Float())
	case graphresponse.KindString:
		if v.Str() == "" {
			return append(dst, "string\"/>\n"...)
		}
		dst = append(dst, "string\">"...)
		dst = appendEscaped(dst, v.Str(), false)
	case graphresponse.KindArray, graphresponse.KindObject:
		elems, members := v.Elems(), v.Members()
		if kind == graphresponse.KindArray {
			dst = append(dst, "array"...)
		} else {
			dst = append(dst, "object"...)
		}
		if len(elems) == 0 && len(members) == 0 {
			return append(dst, "\"/>\n"...)
		}
		dst = append(dst, "\">\n"...)
		for _, e := range elems {
			dst = appendValue(dst, "item", "", false, e, depth+2)
		}
		for _, m := range members {
			dst = appendValue(dst, "member", m.Key, true, m.Value, depth+2)
		}
		dst = indent(dst, depth)
	}
	dst = append(dst, "</"...)
	dst = append(dst, name...)
	return append(dst, ">\n"...)
}

func appendAttr(dst []byte, name, value string) []byte {
	dst = append(dst, ' ')
	dst = append(dst, name...)
	dst = append(dst, `="`...)
	dst = appendEscaped(dst, value, true)
	return append(dst, '"')
}

// xmlChar reports whether XML 1.0 can carry r, raw or as a character
// reference (the Char production, XML 1.0 §2.2).
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

const hexDigits = "0123456789ABCDEF"

// appendEscaped appends s as XML text (attr false) or as the inside of a
// double-quoted attribute value (attr true); see the package comment.
func appendEscaped(dst []byte, s string, attr bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '<' && c != '&' && c != '>' && c != '"' && c != 0x7f {
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n == 1:
			dst = append(dst, "\ufffd"...)
		case r == '<':
			dst = append(dst, "&lt;"...)
		case r == '&':
			dst = append(dst, "&amp;"...)
		case r == '>':
			dst = append(dst, "&gt;"...)
		case r == '"':
			if attr {
				dst = append(dst, "&quot;"...)
			} else {
				dst = append(dst, '"')
			}
		case r == '\n' && !attr:
			dst = append(dst, '\n')
		case r == textsafe.Open || !xmlChar(r):
			dst = textsafe.AppendMarker(dst, r)
		case textsafe.Forbidden(r) || r == '\n':
			dst = append(dst, "&#x"...)
			dst = appendHex(dst, r)
			dst = append(dst, ';')
		default:
			dst = append(dst, s[i-n:i]...)
		}
	}
	return dst
}

func appendHex(dst []byte, r rune) []byte {
	digits := 1
	for r>>(4*digits) != 0 {
		digits++
	}
	for i := digits - 1; i >= 0; i-- {
		dst = append(dst, hexDigits[r>>(4*i)&15])
	}
	return dst
}
