package markdown

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// Encoder writes Markdown renderings of GraphResponses to an io.Writer. It
// builds each document in a reused buffer and writes it through a
// bufio.Writer, flushing before Encode returns. The first write error
// sticks: every later call returns it. An Encoder is not safe for
// concurrent use.
type Encoder struct {
	w       *bufio.Writer
	buf     []byte
	lines   []byte
	altered int
	err     error
}

// NewEncoder returns an encoder writing to w. opts is reserved; see
// [Options].
func NewEncoder(w io.Writer, opts Options) *Encoder {
	_ = opts
	return &Encoder{w: bufio.NewWriter(w)}
}

// Marshal returns the Markdown rendering of r.
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Altered returns how many values, type names and keys the encoder has
// written with a ⟦U+XXXX⟧ marker since it was created, each counted once
// per time it was written.
func (e *Encoder) Altered() int { return e.altered }

// Encode writes the Markdown rendering of r and flushes.
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	d := doc{buf: e.buf[:0], lines: e.lines[:0]}
	d.response(r)
	e.buf, e.lines = d.buf, d.lines
	e.altered += d.altered
	if _, err := e.w.Write(d.buf); err != nil {
		e.err = err
		return err
	}
	if err := e.w.Flush(); err != nil {
		e.err = err
	}
	return e.err
}

// doc is the state of one rendering.
type doc struct {
	buf     []byte
	lines   []byte // the rows of the table being sorted, rendered (see [doc.sortedLines])
	altered int
}

// text appends s escaped for Markdown inline content.
func (d *doc) text(s string) {
	var changed bool
	d.buf, changed = appendText(d.buf, s)
	if changed {
		d.altered++
	}
}

func (d *doc) str(s string) { d.buf = append(d.buf, s...) }

func (d *doc) response(r *graphresponse.Response) {
	d.str("# Graph response")
	if r.QueryType != "" {
		d.str(" (")
		d.text(r.QueryType)
		d.str(")")
	}
	d.str("\n\n")
	d.summary(r)
	d.nodes(r.Nodes)
	d.edges(r.Edges)
	d.paths(r.Edges)
	if r.Rows != nil {
		d.rows(r)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func (d *doc) summary(r *graphresponse.Response) {
	d.str(plural(len(r.Nodes), "node", "nodes"))
	d.str(" · ")
	d.str(plural(len(r.Edges), "edge", "edges"))
	if r.Rows != nil {
		d.str(" · ")
		d.str(plural(len(r.Rows), "row", "rows"))
	}
	if p := r.Pagination; p != nil {
		d.str(" · has_more: ")
		d.buf = strconv.AppendBool(d.buf, p.HasMore)
		d.str(" · truncated: ")
		d.buf = strconv.AppendBool(d.buf, p.Truncated)
		if p.NextCursor != nil {
			d.str(" · next_cursor: ")
			if *p.NextCursor == "" {
				d.str("(empty)")
			} else {
				d.text(*p.NextCursor)
			}
		}
	}
	d.str("\n")
}

// row is one rendered table row with its sort key.
type row struct {
	edge     graphresponse.Edge // edges only
	id       int64              // nodes only
	from, to int                // the row's line: doc.lines[from:to]
}

// line returns r's rendered line.
func (d *doc) line(r row) []byte { return d.lines[r.from:r.to] }

// sortedLines moves the lines rendered since start out of the buffer into
// d.lines (rows hold their offsets from start), for sorting before they are
// written back; it allocates nothing once d.lines has grown.
func (d *doc) sortedLines(start int) {
	d.lines = append(d.lines[:0], d.buf[start:]...)
	d.buf = d.buf[:start]
}

func (d *doc) header(cells []string) {
	d.str("\n|")
	for _, c := range cells {
		d.str(" ")
		d.text(c)
		d.str(" |")
	}
	d.str("\n|")
	for range cells {
		d.str(" --- |")
	}
	d.str("\n")
}

// rowLine appends one table row of n cells, each appended by cell.
func (d *doc) rowLine(n int, cell func(i int)) {
	d.str("|")
	for i := range n {
		d.str(" ")
		cell(i)
		d.str(" |")
	}
	d.str("\n")
}

func (d *doc) nodes(nodes []graphresponse.Node) {
	byType := map[string][]int{}
	for i := range nodes {
		byType[nodes[i].Type] = append(byType[nodes[i].Type], i)
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		idx := byType[t]
		var keys []string
		seen := map[string]bool{}
		for _, i := range idx {
			for _, m := range nodes[i].Props {
				if !seen[m.Key] {
					seen[m.Key] = true
					keys = append(keys, m.Key)
				}
			}
		}
		slices.Sort(keys)
		rows := make([]row, 0, len(idx))
		start := len(d.buf)
		for _, i := range idx {
			n := &nodes[i]
			from := len(d.buf) - start
			d.rowLine(1+len(keys), func(c int) {
				if c == 0 {
					d.buf = strconv.AppendInt(d.buf, n.ID, 10)
					return
				}
				if v, ok := n.Prop(keys[c-1]); ok {
					d.value(v)
				}
			})
			rows = append(rows, row{id: n.ID, from: from, to: len(d.buf) - start})
		}
		d.sortedLines(start)
		slices.SortFunc(rows, func(a, b row) int {
			return cmp.Or(cmp.Compare(a.id, b.id), bytes.Compare(d.line(a), d.line(b)))
		})
		d.str("\n## Nodes: ")
		d.text(t)
		d.str(" (" + strconv.Itoa(len(rows)) + ")\n")
		d.header(append([]string{"id"}, keys...))
		for _, r := range rows {
			d.buf = append(d.buf, d.line(r)...)
		}
	}
}

func (d *doc) endpoint(typ string, id int64) {
	d.text(typ)
	d.str(":")
	d.buf = strconv.AppendInt(d.buf, id, 10)
}

func optCompare(a, b graphresponse.OptInt) int {
	return cmp.Or(cmp.Compare(b2i(a.Valid), b2i(b.Valid)), cmp.Compare(a.Value, b.Value))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func edgeCompare(a, b graphresponse.Edge) int {
	return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.FromID, b.FromID),
		cmp.Compare(a.To, b.To), cmp.Compare(a.ToID, b.ToID),
		optCompare(a.Depth, b.Depth), optCompare(a.PathID, b.PathID), optCompare(a.Step, b.Step))
}

func (d *doc) edges(edges []graphresponse.Edge) {
	byType := map[string][]graphresponse.Edge{}
	for _, e := range edges {
		byType[e.Type] = append(byType[e.Type], e)
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		es := byType[t]
		cols := []string{"source", "target"}
		var depth, path, step bool
		for _, e := range es {
			depth, path, step = depth || e.Depth.Valid, path || e.PathID.Valid, step || e.Step.Valid
		}
		opts := []func(e graphresponse.Edge) graphresponse.OptInt{}
		if depth {
			cols = append(cols, "depth")
			opts = append(opts, func(e graphresponse.Edge) graphresponse.OptInt { return e.Depth })
		}
		if path {
			cols = append(cols, "path")
			opts = append(opts, func(e graphresponse.Edge) graphresponse.OptInt { return e.PathID })
		}
		if step {
			cols = append(cols, "step")
			opts = append(opts, func(e graphresponse.Edge) graphresponse.OptInt { return e.Step })
		}
		rows := make([]row, 0, len(es))
		start := len(d.buf)
		for _, e := range es {
			from := len(d.buf) - start
			d.rowLine(len(cols), func(c int) {
				switch c {
				case 0:
					d.endpoint(e.From, e.FromID)
				case 1:
					d.endpoint(e.To, e.ToID)
				default:
					if o := opts[c-2](e); o.Valid {
						d.buf = strconv.AppendInt(d.buf, o.Value, 10)
					}
				}
			})
			rows = append(rows, row{edge: e, from: from, to: len(d.buf) - start})
		}
		d.sortedLines(start)
		slices.SortFunc(rows, func(a, b row) int {
			return cmp.Or(edgeCompare(a.edge, b.edge), bytes.Compare(d.line(a), d.line(b)))
		})
		d.str("\n## Edges: ")
		d.text(t)
		d.str(" (" + strconv.Itoa(len(rows)) + ")\n")
		d.header(cols)
		for _, r := range rows {
			d.buf = append(d.buf, d.line(r)...)
		}
	}
}

// paths writes the edges that carry a path id as one chain per path,
// hops in step order.
func (d *doc) paths(edges []graphresponse.Edge) {
	byPath := map[int64][]graphresponse.Edge{}
	for _, e := range edges {
		if e.PathID.Valid {
			byPath[e.PathID.Value] = append(byPath[e.PathID.Value], e)
		}
	}
	if len(byPath) == 0 {
		return
	}
	ids := make([]int64, 0, len(byPath))
	for id := range byPath {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	d.str("\n## Paths (" + strconv.Itoa(len(ids)) + ")\n\n")
	for _, id := range ids {
		es := byPath[id]
		slices.SortFunc(es, func(a, b graphresponse.Edge) int {
			// Steps first, in order; edges without a step after them.
			return cmp.Or(cmp.Compare(b2i(b.Step.Valid), b2i(a.Step.Valid)), cmp.Compare(a.Step.Value, b.Step.Value),
				edgeCompare(a, b), cmp.Compare(a.Type, b.Type))
		})
		d.str("- path ")
		d.buf = strconv.AppendInt(d.buf, id, 10)
		d.str(": ")
		for i, e := range es {
			if i == 0 {
				d.endpoint(e.From, e.FromID)
			} else if prev := es[i-1]; prev.To != e.From || prev.ToID != e.FromID {
				d.str(" · ")
				d.endpoint(e.From, e.FromID)
			}
			d.str(" -")
			d.text(e.Type)
			d.str("-> ")
			d.endpoint(e.To, e.ToID)
		}
		d.str("\n")
	}
}

// rows writes the aggregation rows in their order: group columns, then
// metric columns, then any other key in byte order.
func (d *doc) rows(r *graphresponse.Response) {
	var keys []string
	seen := map[string]bool{}
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for _, g := range r.GroupColumns {
		add(g.Name)
	}
	for _, c := range r.Columns {
		add(c.Name)
	}
	var extra []string
	for _, row := range r.Rows {
		for _, m := range row {
			if !seen[m.Key] {
				seen[m.Key] = true
				extra = append(extra, m.Key)
			}
		}
	}
	slices.Sort(extra)
	keys = append(keys, extra...)
	d.str("\n## Rows (" + strconv.Itoa(len(r.Rows)) + ")\n")
	if len(keys) == 0 {
		return
	}
	d.header(keys)
	for _, row := range r.Rows {
		d.rowLine(len(keys), func(c int) {
			if v, ok := row.Get(keys[c]); ok {
				d.cell(v)
			}
		})
	}
}

// cell writes an aggregation cell: a node bucket as Type:id, followed by
// its properties in key order, (key: value, …), when it has any.
func (d *doc) cell(v graphresponse.Value) {
	t, okT := v.Get("type")
	id, okID := v.Get("id")
	props, okP := v.Get("properties")
	if len(v.Members()) != 3 || !okT || !okID || !okP || t.Kind() != graphresponse.KindString ||
		id.Kind() != graphresponse.KindString || props.Kind() != graphresponse.KindObject {
		d.value(v)
		return
	}
	d.text(t.Str())
	d.str(":")
	d.text(id.Str())
	for i, m := range graphresponse.SortedMembers(props.Members()) {
		if i == 0 {
			d.str(" (")
		} else {
			d.str(", ")
		}
		d.text(m.Key)
		d.str(": ")
		d.value(m.Value)
	}
	if len(props.Members()) > 0 {
		d.str(")")
	}
}

// value writes v as its JSON text, strings without quotes.
func (d *doc) value(v graphresponse.Value) {
	switch v.Kind() {
	case graphresponse.KindString:
		d.text(v.Str())
	case graphresponse.KindArray, graphresponse.KindObject:
		d.text(string(graphresponse.AppendValueJSON(nil, v)))
	default:
		d.buf = graphresponse.AppendValueJSON(d.buf, v)
	}
}

// appendText appends s escaped so that it stays inline text inside a GFM
// table cell, heading or list item, and reports whether a code point was
// replaced by a marker.
func appendText(dst []byte, s string) ([]byte, bool) {
	changed := false
	lead := true // still at the start of s: block markers are escaped
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\ufffd"...)
			i++
			lead = false
			continue
		}
		switch {
		case r == '\n':
			dst = append(dst, "<br>"...)
		case textsafe.Forbidden(r) || r == textsafe.Open:
			dst = textsafe.AppendMarker(dst, r)
			changed = true
		case r == '\\' || r == '|' || r == '`' || r == '*' || r == '<' || r == '>' ||
			r == '[' || r == ']' || r == '~' || r == '&':
			dst = append(dst, '\\', byte(r))
		case r == '_':
			if i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1]) {
				dst = append(dst, '_')
			} else {
				dst = append(dst, '\\', '_')
			}
		case lead && (r == '#' || r == '-' || r == '+' || r == '='):
			dst = append(dst, '\\', byte(r))
		case lead && r >= '0' && r <= '9':
			// An ordered-list marker is up to nine digits then . or ).
			j := i
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			dst = append(dst, s[i:j]...)
			if j < len(s) && (s[j] == '.' || s[j] == ')') {
				dst = append(dst, '\\', s[j])
				j++
			}
			i = j
			lead = false
			continue
		default:
			dst = append(dst, s[i:i+n]...)
		}
		i += n
		lead = false
	}
	return dst, changed
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
