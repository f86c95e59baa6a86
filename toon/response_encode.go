package toon

import (
	"fmt"
	"math"
	"strconv"

	"github.com/graphwire/graphwire/graphresponse"
)

// encodeResponse writes the rendering of r: the bytes of encoding
// [ShapeResponse] of r, without building the node and edge tables as
// objects. Those sections are written straight from the response, in the
// form the encoder gives the shaped value (§7.3): node tables under
// "nodes" and nested edge tables under "edges", every one a table whose
// fields are the keys of its first row. The other members are shaped and
// encoded as usual. TestDirectRendering holds the two paths to the same
// bytes.
func (e *Encoder) encodeResponse(r *graphresponse.Response) error {
	if r == nil {
		return fmt.Errorf("toon: %w: nil response", ErrInvalidResponse)
	}
	var plain, paths []*graphresponse.Edge
	for i := range r.Edges {
		if r.Edges[i].PathID.Valid {
			paths = append(paths, &r.Edges[i])
		} else {
			plain = append(plain, &r.Edges[i])
		}
	}
	hasColumns := len(r.GroupColumns)+len(r.Columns) > 0
	empty := len(r.Nodes) == 0 && len(plain) == 0 && len(paths) == 0 && !hasColumns && r.Rows == nil
	// The members that can fail are built first, as ShapeResponse does.
	var cols, rows []any
	if hasColumns {
		var err error
		if cols, err = descriptorTable(r); err != nil {
			return err
		}
	}
	if r.Rows != nil {
		var err error
		if rows, err = rowTable(r); err != nil {
			return err
		}
	}
	if err := e.setup(); err != nil {
		return err
	}
	e.started = false
	e.field("query_type", r.QueryType, 0, false, 1)
	if p := r.Pagination; p != nil {
		if p.HasMore {
			e.field("has_more", true, 0, false, 1)
		}
		if p.Truncated {
			e.field("truncated", true, 0, false, 1)
		}
		if p.NextCursor != nil {
			e.field("next_cursor", *p.NextCursor, 0, false, 1)
		}
	}
	if len(r.Nodes) > 0 || empty {
		e.nodeSection(r.Nodes)
	}
	if len(plain) > 0 {
		e.edgeSection(plain)
	}
	if len(paths) > 0 {
		e.field("paths", pathTable(paths), 0, false, 1)
	}
	if hasColumns {
		e.field("columns", cols, 0, false, 1)
	}
	if rows != nil {
		e.field("rows", rows, 0, false, 1)
	}
	e.flush()
	return e.err
}

// nodeSection writes the "nodes" member: one table per node type.
func (e *Encoder) nodeSection(nodes []graphresponse.Node) {
	types, groups := groupNodes(nodes)
	e.line(0)
	e.buf = appendKey(e.buf, "nodes")
	e.buf = append(e.buf, ':')
	for i, typ := range types {
		if e.err != nil {
			return
		}
		e.line(1)
		e.buf = appendKey(e.buf, typ)
		e.nodeRows(groups[i], 2)
	}
}

// nodeRows writes the table of one node type from its header on: id, the
// property columns, and _props when needed (see nodeTable).
func (e *Encoder) nodeRows(nodes []*graphresponse.Node, child int) {
	cols, needProps := nodeColumns(nodes)
	shape := make([]field, 0, len(cols)+2)
	shape = append(shape, field{key: "id"})
	for _, c := range cols {
		shape = append(shape, field{key: c})
	}
	if needProps {
		shape = append(shape, field{key: "_props"})
	}
	e.header(len(nodes), false, shape)
	pad, delim, q := child*e.indent, e.delim, e.quote
	buf := e.buf
	for _, n := range nodes {
		if e.w != nil && len(buf) >= flushSize {
			e.buf = buf
			e.flush()
			if e.err != nil {
				return
			}
			buf = e.buf
		}
		buf = append(buf, '\n')
		buf = appendSpaces(buf, pad)
		buf = appendID(buf, n.ID)
		for _, c := range cols {
			buf = append(buf, delim)
			if pv, ok := n.Prop(c); ok {
				buf = appendShapeValue(buf, pv, q)
			} else {
				buf = append(buf, "null"...)
			}
		}
		if needProps {
			buf = append(buf, delim)
			buf = appendPrimitive(buf, propsJSON(n.Props, nodeReserved), q)
		}
	}
	e.buf = buf
}

// edgeSection writes the "edges" member: tables nested by relationship
// type, source type and target type (see edgeTables).
func (e *Encoder) edgeSection(edges []*graphresponse.Edge) {
	keys, groups := groupEdges(edges)
	e.line(0)
	e.buf = appendKey(e.buf, "edges")
	e.buf = append(e.buf, ':')
	for i, k := range keys {
		if e.err != nil {
			return
		}
		newType := i == 0 || keys[i-1].typ != k.typ
		if newType {
			e.line(1)
			e.buf = appendKey(e.buf, k.typ)
			e.buf = append(e.buf, ':')
		}
		if newType || keys[i-1].from != k.from {
			e.line(2)
			e.buf = appendKey(e.buf, k.from)
			e.buf = append(e.buf, ':')
		}
		e.line(3)
		e.buf = appendKey(e.buf, k.to)
		e.edgeRows(groups[i], 4)
	}
}

// edgeRows writes one edge table from its header on: from_id, to_id, and
// depth and step when some edge has them (see edgeRows).
func (e *Encoder) edgeRows(edges []*graphresponse.Edge, child int) {
	hasDepth, hasStep := false, false
	for _, ed := range edges {
		hasDepth = hasDepth || ed.Depth.Valid
		hasStep = hasStep || ed.Step.Valid
	}
	shape := make([]field, 2, 4)
	shape[0].key, shape[1].key = "from_id", "to_id"
	if hasDepth {
		shape = append(shape, field{key: "depth"})
	}
	if hasStep {
		shape = append(shape, field{key: "step"})
	}
	e.header(len(edges), false, shape)
	pad, delim := child*e.indent, e.delim
	buf := e.buf
	for _, ed := range edges {
		if e.w != nil && len(buf) >= flushSize {
			e.buf = buf
			e.flush()
			if e.err != nil {
				return
			}
			buf = e.buf
		}
		buf = append(buf, '\n')
		buf = appendSpaces(buf, pad)
		buf = appendID(buf, ed.FromID)
		buf = append(buf, delim)
		buf = appendID(buf, ed.ToID)
		if hasDepth {
			buf = append(buf, delim)
			buf = appendOptInt(buf, ed.Depth)
		}
		if hasStep {
			buf = append(buf, delim)
			buf = appendOptInt(buf, ed.Step)
		}
	}
	e.buf = buf
}

// appendID appends an id cell. The shaped value holds ids as decimal
// strings, which always look like numbers (or start with '-'), so the
// encoder always quotes them, and digits need no escapes.
func appendID(dst []byte, id int64) []byte {
	dst = append(dst, '"')
	dst = strconv.AppendInt(dst, id, 10)
	return append(dst, '"')
}

// appendOptInt appends the cell of optInt(o): null or the integer.
func appendOptInt(dst []byte, o graphresponse.OptInt) []byte {
	if !o.Valid {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, o.Value, 10)
}

// appendShapeValue appends the cell of shapeValue(v) as the encoder writes
// it.
func appendShapeValue(dst []byte, v graphresponse.Value, q quoteSet) []byte {
	switch v.Kind() {
	case graphresponse.KindNull:
		return append(dst, "null"...)
	case graphresponse.KindBool:
		if v.Bool() {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case graphresponse.KindInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case graphresponse.KindUint:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case graphresponse.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(dst, "null"...)
		}
		return appendFloat(dst, f)
	case graphresponse.KindString:
		return appendString(dst, v.Str(), q)
	}
	return appendString(dst, string(appendNestedJSON(nil, v)), q)
}

// appendString appends a string cell, quoted when q requires it.
func appendString(dst []byte, s string, q quoteSet) []byte {
	if q.needsQuote(s) {
		return appendQuoted(dst, s)
	}
	return append(dst, s...)
}
