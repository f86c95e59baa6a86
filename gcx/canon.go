package gcx

import (
	"cmp"
	"slices"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// Canon returns the response that decoding the GCX1 form of r gives back
// (spec §13.2): values become their cell text as strings, empty ones are
// dropped, CR is removed, nodes are ordered by section, edges by group, and
// pagination and format_version are filled in. It reads r without changing
// it; tests use it to state the round trip.
//
// Known asymmetry: when two aggregation columns share a name (after CR
// removal), the row holds one value for both and the later column's
// reading of it wins (spec §13.2 step 6). When one of them is a node
// column, re-encoding the decoded response can give other bytes, or fail
// with [ErrInvalidResponse] if the later column turned the bucket into a
// string. Query aliases are unique in practice, so only hand-made
// responses meet this; the property tests keep node column names unique.
func Canon(r *graphresponse.Response) *graphresponse.Response {
	out := &graphresponse.Response{
		FormatVersion: config.RawVersion(),
		QueryType:     r.QueryType,
		Nodes:         []graphresponse.Node{},
		Edges:         []graphresponse.Edge{},
		Pagination:    &graphresponse.Pagination{},
	}
	if p := r.Pagination; p != nil {
		c := *p
		if p.NextCursor != nil {
			cur := *p.NextCursor
			c.NextCursor = &cur
		}
		out.Pagination = &c
	}
	_, groups, rest := nodeOrder(r.Nodes)
	for _, idx := range append(groups, rest) {
		for _, i := range idx {
			n := r.Nodes[i]
			out.Nodes = append(out.Nodes, graphresponse.Node{Type: cellText(n.Type), ID: n.ID, Props: canonProps(n.Props)})
		}
	}
	// Edges: typed groups sorted by (type, from, to), mixed, then paths.
	type keyed struct {
		k edgeKey
		e graphresponse.Edge
	}
	var typed []keyed
	var mixed, paths []graphresponse.Edge
	for _, e := range r.Edges {
		c := e
		c.Type, c.From, c.To = cellText(e.Type), cellText(e.From), cellText(e.To)
		_, ok1 := typeName(e.Type)
		_, ok2 := typeName(e.From)
		_, ok3 := typeName(e.To)
		switch {
		case e.PathID.Valid:
			paths = append(paths, c)
		case ok1 && ok2 && ok3:
			typed = append(typed, keyed{edgeKey{c.Type, c.From, c.To}, c})
		default:
			mixed = append(mixed, c)
		}
	}
	slices.SortStableFunc(typed, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.k.typ, b.k.typ), cmp.Compare(a.k.from, b.k.from), cmp.Compare(a.k.to, b.k.to))
	})
	for _, t := range typed {
		out.Edges = append(out.Edges, t.e)
	}
	out.Edges = append(append(out.Edges, mixed...), paths...)
	for _, c := range r.Columns {
		out.Columns = append(out.Columns, graphresponse.Column{
			Name: cellText(c.Name), Function: cellText(c.Function), Target: cellText(c.Target), Property: cellText(c.Property),
		})
	}
	for _, g := range r.GroupColumns {
		out.GroupColumns = append(out.GroupColumns, graphresponse.GroupColumn{
			Name: cellText(g.Name), Kind: g.Kind, Node: cellText(g.Node), Property: cellText(g.Property), Entity: cellText(g.Entity),
		})
	}
	if r.Rows == nil {
		return out
	}
	out.Rows = make([]graphresponse.Row, len(r.Rows))
	for i, row := range r.Rows {
		c := graphresponse.Row{}
		for _, g := range r.GroupColumns {
			v, _ := row.Get(g.Name)
			if g.Kind == graphresponse.GroupKindNode {
				bk, err := nodeBucket(v)
				if err != nil || bk.null {
					c = setMember(c, cellText(g.Name), graphresponse.Null())
					continue
				}
				c = setMember(c, cellText(g.Name), graphresponse.NodeBucket(bk.typ, bk.id, canonProps(bk.props)))
				continue
			}
			c = setMember(c, cellText(g.Name), canonScalar(v))
		}
		for _, m := range r.Columns {
			v, _ := row.Get(m.Name)
			c = setMember(c, cellText(m.Name), canonScalar(v))
		}
		out.Rows[i] = c
	}
	return out
}

// canonScalar is the decoded form of a property or metric cell.
func canonScalar(v graphresponse.Value) graphresponse.Value {
	if !valueNonEmpty(v) {
		return graphresponse.Null()
	}
	return graphresponse.String(string(appendValueCell(nil, v)))
}

// canonProps keeps the properties with non-empty cell text, as strings.
func canonProps(props []graphresponse.Member) []graphresponse.Member {
	out := []graphresponse.Member{}
	for _, m := range props {
		if valueNonEmpty(m.Value) {
			out = append(out, graphresponse.Member{Key: m.Key, Value: graphresponse.String(string(appendValueCell(nil, m.Value)))})
		}
	}
	return out
}
