package xmlgraph

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// maxDepth bounds the nesting of array and object values the decoder
// follows, so hostile input cannot exhaust the stack.
const maxDepth = 64

// Decoder reads XML documents from an io.Reader. It is not safe for
// concurrent use.
type Decoder struct {
	r *errReader
}

// NewDecoder returns a decoder reading from r. opts is reserved; see
// [Options].
func NewDecoder(r io.Reader, opts Options) *Decoder {
	_ = opts
	return &Decoder{r: &errReader{r: r}}
}

// Unmarshal reads the XML document data back into a response.
func Unmarshal(data []byte, opts Options) (*graphresponse.Response, error) {
	return NewDecoder(bytes.NewReader(data), opts).Decode()
}

// errReader remembers the error of the underlying reader, so that an I/O
// error passes through unchanged instead of being reported as malformed
// XML.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// Decode reads one whole document, up to the end of the input.
func (d *Decoder) Decode() (resp *graphresponse.Response, err error) {
	p := &parser{x: xml.NewDecoder(d.r), in: d.r}
	p.x.Strict = true
	defer func() {
		// No panic crosses the package boundary.
		if v := recover(); v != nil {
			resp, err = nil, &SyntaxError{Line: p.line, Column: p.col, Err: ErrMalformed, Msg: "internal error"}
		}
	}()
	return p.document()
}

// parser walks the token stream. line and col are the position of the
// start of the token last returned by next.
type parser struct {
	x         *xml.Decoder
	in        *errReader
	line, col int
	depth     int
}

func (p *parser) errorf(err error, msg string) error {
	return &SyntaxError{Line: p.line, Column: p.col, Err: err, Msg: msg}
}

// token returns the next token with its position, mapping decoder errors.
func (p *parser) token() (xml.Token, error) {
	p.line, p.col = p.pos()
	t, err := p.x.Token()
	if err == nil {
		return t, nil
	}
	if p.in.err != nil && errors.Is(err, p.in.err) {
		return nil, err // I/O, unchanged
	}
	var se *xml.SyntaxError
	line, col := p.pos()
	if errors.As(err, &se) {
		return nil, &SyntaxError{Line: line, Column: col, Err: ErrMalformed, Msg: se.Msg}
	}
	if err == io.EOF {
		return nil, io.EOF // callers decide whether the end may come here
	}
	return nil, &SyntaxError{Line: line, Column: col, Err: ErrMalformed, Msg: err.Error()}
}

// pos is the decoder's position; encoding/xml reports column 0 just
// after a line feed it has read ahead, which is column 1 of that line.
func (p *parser) pos() (line, col int) {
	line, col = p.x.InputPos()
	return line, max(col, 1)
}

// eof is the error for an input that ends before the document does.
func (p *parser) eof() error {
	line, col := p.pos()
	return &SyntaxError{Line: line, Column: col, Err: ErrMalformed, Msg: "unexpected end of input"}
}

// next returns the next start or end element, skipping comments,
// processing instructions and whitespace. Other text is an error.
func (p *parser) next() (xml.Token, error) {
	for {
		t, err := p.token()
		if err == io.EOF {
			return nil, p.eof()
		}
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			if t.Name.Space != Namespace {
				return nil, p.errorf(ErrElement, "element "+name(t.Name)+" is not in namespace "+Namespace)
			}
			return t, nil
		case xml.EndElement:
			return t, nil
		case xml.CharData:
			if len(bytes.TrimLeft(t, " \t\r\n")) != 0 {
				return nil, p.errorf(ErrElement, "text outside a value")
			}
		case xml.Directive:
			return nil, p.errorf(ErrElement, "a DOCTYPE or other directive")
		}
	}
}

func name(n xml.Name) string {
	if n.Space == "" {
		return "<" + n.Local + ">"
	}
	return "<" + n.Local + "> (" + n.Space + ")"
}

// child returns the next child start element of the current element, or
// ok false at its end tag.
func (p *parser) child() (xml.StartElement, bool, error) {
	t, err := p.next()
	if err != nil {
		return xml.StartElement{}, false, err
	}
	if s, ok := t.(xml.StartElement); ok {
		return s, true, nil
	}
	return xml.StartElement{}, false, nil
}

// expect returns the next child, which must be named local.
func (p *parser) expect(local string) (xml.StartElement, error) {
	s, ok, err := p.child()
	if err != nil {
		return s, err
	}
	if !ok {
		return s, p.errorf(ErrElement, "missing <"+local+">")
	}
	if s.Name.Local != local {
		return s, p.errorf(ErrElement, "<"+s.Name.Local+"> where <"+local+"> belongs")
	}
	return s, nil
}

// attrs checks the attributes of s against the allowed names and returns
// them by name. Namespace declarations are allowed and ignored.
func (p *parser) attrs(s xml.StartElement, required []string, optional ...string) (map[string]string, error) {
	out := make(map[string]string, len(s.Attr))
	for _, a := range s.Attr {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue
		}
		if a.Name.Space != "" {
			return nil, p.errorf(ErrAttribute, "unknown attribute "+a.Name.Space+":"+a.Name.Local+" on <"+s.Name.Local+">")
		}
		known := false
		for _, n := range required {
			known = known || n == a.Name.Local
		}
		for _, n := range optional {
			known = known || n == a.Name.Local
		}
		if !known {
			return nil, p.errorf(ErrAttribute, "unknown attribute "+a.Name.Local+" on <"+s.Name.Local+">")
		}
		if _, dup := out[a.Name.Local]; dup {
			return nil, p.errorf(ErrAttribute, "duplicate attribute "+a.Name.Local+" on <"+s.Name.Local+">")
		}
		out[a.Name.Local] = textsafe.Restore(a.Value)
	}
	for _, n := range required {
		if _, ok := out[n]; !ok {
			return nil, p.errorf(ErrAttribute, "<"+s.Name.Local+"> needs attribute "+n)
		}
	}
	return out, nil
}

func (p *parser) int64Attr(a map[string]string, elem, key string) (int64, error) {
	v, err := strconv.ParseInt(a[key], 10, 64)
	if err != nil {
		return 0, p.errorf(ErrAttribute, "<"+elem+"> "+key+"="+strconv.Quote(a[key])+" is not an int64")
	}
	return v, nil
}

func (p *parser) optAttr(a map[string]string, elem, key string) (graphresponse.OptInt, error) {
	if _, ok := a[key]; !ok {
		return graphresponse.OptInt{}, nil
	}
	v, err := p.int64Attr(a, elem, key)
	return graphresponse.Some(v), err
}

func (p *parser) boolAttr(a map[string]string, elem, key string) (bool, error) {
	switch a[key] {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, p.errorf(ErrAttribute, "<"+elem+"> "+key+"="+strconv.Quote(a[key])+" is not true or false")
}

func (p *parser) document() (*graphresponse.Response, error) {
	t, err := p.next()
	if err != nil {
		return nil, err
	}
	root, ok := t.(xml.StartElement)
	if !ok || root.Name.Local != "graph_response" {
		return nil, p.errorf(ErrElement, "the document element must be <graph_response>")
	}
	a, err := p.attrs(root, []string{"format_version", "query_type"})
	if err != nil {
		return nil, err
	}
	r := &graphresponse.Response{FormatVersion: a["format_version"], QueryType: a["query_type"]}
	if r.Nodes, err = p.nodes(); err != nil {
		return nil, err
	}
	if r.Edges, err = p.edges(); err != nil {
		return nil, err
	}
	// The optional sections, in schema order.
	order := []string{"columns", "group_columns", "rows", "pagination"}
	at := 0
	for {
		s, ok, err := p.child()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		i := at
		for i < len(order) && order[i] != s.Name.Local {
			i++
		}
		if i == len(order) {
			return nil, p.errorf(ErrElement, "<"+s.Name.Local+"> is not allowed here")
		}
		at = i + 1
		switch s.Name.Local {
		case "columns":
			err = p.columns(s, r)
		case "group_columns":
			err = p.groupColumns(s, r)
		case "rows":
			err = p.rows(s, r)
		case "pagination":
			err = p.pagination(s, r)
		}
		if err != nil {
			return nil, err
		}
	}
	// Only comments, processing instructions and whitespace may follow.
	for {
		t, err := p.token()
		if err == io.EOF {
			return r, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.CharData:
			if len(bytes.TrimLeft(t, " \t\r\n")) == 0 {
				continue
			}
		case xml.Comment, xml.ProcInst:
			continue
		}
		return nil, p.errorf(ErrTrailing, "")
	}
}

// section reads a section element: its start tag must come next and have
// no attributes; each child named item is passed to f.
func (p *parser) section(local, item string, f func(s xml.StartElement) error) error {
	s, err := p.expect(local)
	if err != nil {
		return err
	}
	return p.items(s, item, f)
}

func (p *parser) items(s xml.StartElement, item string, f func(s xml.StartElement) error) error {
	if _, err := p.attrs(s, nil); err != nil {
		return err
	}
	for {
		c, ok, err := p.child()
		if err != nil || !ok {
			return err
		}
		if c.Name.Local != item {
			return p.errorf(ErrElement, "<"+c.Name.Local+"> inside <"+s.Name.Local+">, want <"+item+">")
		}
		if err := f(c); err != nil {
			return err
		}
	}
}

// empty reads the end tag of an element that has no children.
func (p *parser) empty(s xml.StartElement) error {
	c, ok, err := p.child()
	if err != nil {
		return err
	}
	if ok {
		return p.errorf(ErrElement, "<"+c.Name.Local+"> inside <"+s.Name.Local+">, which has no children")
	}
	return nil
}

func (p *parser) nodes() ([]graphresponse.Node, error) {
	out := []graphresponse.Node{}
	err := p.section("nodes", "node", func(s xml.StartElement) error {
		a, err := p.attrs(s, []string{"type", "id"})
		if err != nil {
			return err
		}
		n := graphresponse.Node{Type: a["type"]}
		if n.ID, err = p.int64Attr(a, "node", "id"); err != nil {
			return err
		}
		seen := map[string]bool{}
		// The node's attributes are checked above; items sees its name only.
		err = p.items(xml.StartElement{Name: s.Name}, "property", func(c xml.StartElement) error {
			m, err := p.keyed(c, seen, "type", "id")
			if err != nil {
				return err
			}
			n.Props = append(n.Props, m)
			return nil
		})
		out = append(out, n)
		return err
	})
	return out, err
}

func (p *parser) edges() ([]graphresponse.Edge, error) {
	out := []graphresponse.Edge{}
	err := p.section("edges", "edge", func(s xml.StartElement) error {
		a, err := p.attrs(s, []string{"from", "from_id", "to", "to_id", "type"}, "depth", "path_id", "step")
		if err != nil {
			return err
		}
		e := graphresponse.Edge{From: a["from"], To: a["to"], Type: a["type"]}
		if e.FromID, err = p.int64Attr(a, "edge", "from_id"); err != nil {
			return err
		}
		if e.ToID, err = p.int64Attr(a, "edge", "to_id"); err != nil {
			return err
		}
		if e.Depth, err = p.optAttr(a, "edge", "depth"); err != nil {
			return err
		}
		if e.PathID, err = p.optAttr(a, "edge", "path_id"); err != nil {
			return err
		}
		if e.Step, err = p.optAttr(a, "edge", "step"); err != nil {
			return err
		}
		out = append(out, e)
		return p.empty(s)
	})
	return out, err
}

func (p *parser) columns(s xml.StartElement, r *graphresponse.Response) error {
	r.Columns = []graphresponse.Column{}
	return p.items(s, "column", func(c xml.StartElement) error {
		a, err := p.attrs(c, []string{"name", "function", "target"}, "property")
		if err != nil {
			return err
		}
		r.Columns = append(r.Columns, graphresponse.Column{Name: a["name"], Function: a["function"], Target: a["target"], Property: a["property"]})
		return p.empty(c)
	})
}

func (p *parser) groupColumns(s xml.StartElement, r *graphresponse.Response) error {
	r.GroupColumns = []graphresponse.GroupColumn{}
	return p.items(s, "group_column", func(c xml.StartElement) error {
		a, err := p.attrs(c, []string{"name", "kind", "node"}, "property", "entity")
		if err != nil {
			return err
		}
		r.GroupColumns = append(r.GroupColumns, graphresponse.GroupColumn{Name: a["name"], Kind: a["kind"], Node: a["node"], Property: a["property"], Entity: a["entity"]})
		return p.empty(c)
	})
}

func (p *parser) rows(s xml.StartElement, r *graphresponse.Response) error {
	r.Rows = []graphresponse.Row{}
	return p.items(s, "row", func(c xml.StartElement) error {
		row := graphresponse.Row{}
		seen := map[string]bool{}
		err := p.items(c, "cell", func(cell xml.StartElement) error {
			m, err := p.keyed(cell, seen)
			if err != nil {
				return err
			}
			row = append(row, m)
			return nil
		})
		r.Rows = append(r.Rows, row)
		return err
	})
}

func (p *parser) pagination(s xml.StartElement, r *graphresponse.Response) error {
	a, err := p.attrs(s, []string{"has_more", "truncated"}, "next_cursor")
	if err != nil {
		return err
	}
	pg := &graphresponse.Pagination{}
	if pg.HasMore, err = p.boolAttr(a, "pagination", "has_more"); err != nil {
		return err
	}
	if pg.Truncated, err = p.boolAttr(a, "pagination", "truncated"); err != nil {
		return err
	}
	if c, ok := a["next_cursor"]; ok {
		pg.NextCursor = &c
	}
	r.Pagination = pg
	return p.empty(s)
}

// keyed reads a property, cell or member: a value with a key that must
// not be in seen (which it joins) nor in reserved.
func (p *parser) keyed(s xml.StartElement, seen map[string]bool, reserved ...string) (graphresponse.Member, error) {
	a, err := p.attrs(s, []string{"key", "type"})
	if err != nil {
		return graphresponse.Member{}, err
	}
	k := a["key"]
	if seen[k] {
		return graphresponse.Member{}, p.errorf(ErrAttribute, "<"+s.Name.Local+"> key "+strconv.Quote(k)+" repeats")
	}
	for _, r := range reserved {
		if k == r {
			return graphresponse.Member{}, p.errorf(ErrAttribute, "<"+s.Name.Local+"> key "+strconv.Quote(k)+" names a node field")
		}
	}
	seen[k] = true
	v, err := p.value(s, a["type"])
	return graphresponse.Member{Key: a["key"], Value: v}, err
}

// value reads the content of a value element of type typ, up to its end
// tag.
func (p *parser) value(s xml.StartElement, typ string) (graphresponse.Value, error) {
	line, col := p.line, p.col
	bad := func(msg string) error {
		return &SyntaxError{Line: line, Column: col, Err: ErrValue, Msg: "<" + s.Name.Local + " type=\"" + typ + "\">: " + msg}
	}
	switch typ {
	case "array", "object":
		if p.depth >= maxDepth {
			return graphresponse.Value{}, bad("values nest deeper than " + strconv.Itoa(maxDepth))
		}
		p.depth++
		defer func() { p.depth-- }()
		var elems []graphresponse.Value
		var members []graphresponse.Member
		seen := map[string]bool{}
		for {
			c, ok, err := p.child()
			if err != nil {
				return graphresponse.Value{}, err
			}
			if !ok {
				break
			}
			switch {
			case typ == "array" && c.Name.Local == "item":
				a, err := p.attrs(c, []string{"type"})
				if err != nil {
					return graphresponse.Value{}, err
				}
				v, err := p.value(c, a["type"])
				if err != nil {
					return graphresponse.Value{}, err
				}
				elems = append(elems, v)
			case typ == "object" && c.Name.Local == "member":
				m, err := p.keyed(c, seen)
				if err != nil {
					return graphresponse.Value{}, err
				}
				members = append(members, m)
			default:
				return graphresponse.Value{}, p.errorf(ErrElement, "<"+c.Name.Local+"> inside a value of type "+typ)
			}
		}
		if typ == "array" {
			return graphresponse.Array(elems...), nil
		}
		return graphresponse.Object(members...), nil
	case "null", "bool", "int", "float", "string":
	default:
		return graphresponse.Value{}, p.errorf(ErrAttribute, "type="+strconv.Quote(typ)+" is not null, bool, int, float, string, array or object")
	}
	text, err := p.text()
	if err != nil {
		return graphresponse.Value{}, err
	}
	switch typ {
	case "null":
		if text != "" {
			return graphresponse.Value{}, bad("null has no text")
		}
		return graphresponse.Null(), nil
	case "bool":
		switch text {
		case "true":
			return graphresponse.Bool(true), nil
		case "false":
			return graphresponse.Bool(false), nil
		}
		return graphresponse.Value{}, bad(strconv.Quote(text) + " is not true or false")
	case "int":
		if i, err := strconv.ParseInt(text, 10, 64); err == nil && canonicalInt(text) {
			return graphresponse.Int(i), nil
		}
		if u, err := strconv.ParseUint(text, 10, 64); err == nil && canonicalInt(text) {
			return graphresponse.Uint(u), nil
		}
		return graphresponse.Value{}, bad(strconv.Quote(text) + " is not a decimal integer in the int64 or uint64 range")
	case "float":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || !floatText(text) {
			return graphresponse.Value{}, bad(strconv.Quote(text) + " is not a finite decimal float")
		}
		return graphresponse.Float(f), nil
	}
	return graphresponse.String(textsafe.Restore(text)), nil
}

// canonicalInt reports whether s is an optional minus and decimal digits
// (no plus sign, no underscores).
func canonicalInt(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// floatText reports whether s is a decimal float literal: digits, sign,
// point and exponent only (no hex, underscores, Inf or NaN).
func floatText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return s != ""
}

// text reads the character data of a scalar value up to its end tag.
func (p *parser) text() (string, error) {
	var b []byte
	for {
		t, err := p.token()
		if err == io.EOF {
			return "", p.eof()
		}
		if err != nil {
			return "", err
		}
		switch t := t.(type) {
		case xml.CharData:
			b = append(b, t...)
		case xml.EndElement:
			return string(b), nil
		case xml.StartElement:
			return "", p.errorf(ErrElement, "<"+t.Name.Local+"> inside a scalar value")
		case xml.Directive:
			return "", p.errorf(ErrElement, "a directive inside a value")
		}
	}
}
