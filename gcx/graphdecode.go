package gcx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// sectionError is a graph-level decoding error: it names the section, row
// and field and wraps [ErrSchema].
type sectionError struct {
	index int // section index
	msg   string
}

func (e *sectionError) Error() string { return "gcx: schema violation: " + e.msg }
func (e *sectionError) Unwrap() error { return ErrSchema }

func schemaErr(i int, s *Section, row int, field, format string, args ...any) error {
	where := "section " + strconv.Itoa(i)
	if s != nil {
		where += " (" + s.Tool + ")"
	}
	if row >= 0 {
		where += ", row " + strconv.Itoa(row)
	}
	if field != "" {
		where += ", field " + strconv.Quote(field)
	}
	return &sectionError{index: i, msg: where + ": " + fmt.Sprintf(format, args...)}
}

// DecodeGraph turns the sections of a graph payload back into a
// GraphResponse (spec §12.2). Property and cell values come back as
// strings, format_version is the current RAW format version and pagination
// is always present. Errors wrap [ErrSchema] and name the section, row and
// field.
func DecodeGraph(sections []Section) (*graphresponse.Response, error) {
	if len(sections) == 0 {
		return nil, schemaErr(0, nil, -1, "", "no section")
	}
	r := &graphresponse.Response{
		FormatVersion: config.RawVersion(),
		Nodes:         []graphresponse.Node{},
		Edges:         []graphresponse.Edge{},
		Pagination:    &graphresponse.Pagination{},
	}
	first := &sections[0]
	r.QueryType = first.Meta["query_type"]
	for _, k := range []string{"has_more", "truncated"} {
		v, ok := first.Meta[k]
		if !ok || v == "false" {
			continue
		}
		if v != "true" {
			return nil, schemaErr(0, first, -1, "", "meta %s=%q is not a boolean", k, v)
		}
		if k == "has_more" {
			r.Pagination.HasMore = true
		} else {
			r.Pagination.Truncated = true
		}
	}
	if c, ok := first.Meta["next_cursor"]; ok {
		r.Pagination.NextCursor = &c
	}
	nn, ne := 0, 0
	for i := range sections {
		switch sections[i].Tool {
		case toolNodes:
			nn += len(sections[i].Rows)
		case toolEdges, toolPaths:
			ne += len(sections[i].Rows)
		}
	}
	r.Nodes = make([]graphresponse.Node, 0, nn)
	r.Edges = make([]graphresponse.Edge, 0, ne)
	var cols *columnSet
	seenRows := false
	for i := range sections {
		s := &sections[i]
		if v, ok := s.Meta["rows"]; ok {
			if n, err := strconv.Atoi(v); err != nil || n != len(s.Rows) {
				return nil, schemaErr(i, s, -1, "", "meta rows=%q but %d rows", v, len(s.Rows))
			}
		}
		var err error
		switch s.Tool {
		case toolNodes:
			r.Nodes, err = decodeNodes(r.Nodes, i, s)
		case toolEdges, toolPaths:
			r.Edges, err = decodeEdges(r.Edges, i, s)
		case toolColumns:
			if cols != nil || seenRows {
				return nil, schemaErr(i, s, -1, "", "graph.columns must come once, before graph.rows")
			}
			cols, err = decodeColumns(i, s)
			if err == nil {
				r.Columns, r.GroupColumns = cols.metrics, cols.groups
			}
		case toolRows:
			if seenRows {
				return nil, schemaErr(i, s, -1, "", "graph.rows repeated")
			}
			seenRows = true
			if cols == nil {
				cols = &columnSet{}
			}
			r.Rows, err = decodeRows(i, s, cols)
		default:
			return nil, schemaErr(i, s, -1, "", "unknown tool")
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// fieldIndexes maps the names of s.Fields to their positions. It rejects a
// field that is neither required nor optional, and a missing required one.
func fieldIndexes(i int, s *Section, required, optional []string) (map[string]int, error) {
	at := make(map[string]int, len(s.Fields))
	for j, f := range s.Fields {
		if !slices.Contains(required, f) && !slices.Contains(optional, f) {
			return nil, schemaErr(i, s, -1, f, "unexpected field")
		}
		at[f] = j
	}
	for _, f := range required {
		if _, ok := at[f]; !ok {
			return nil, schemaErr(i, s, -1, f, "missing field")
		}
	}
	return at, nil
}

func parseID(i int, s *Section, row int, field, cell string) (int64, error) {
	n, err := strconv.ParseInt(cell, 10, 64)
	if err != nil {
		return 0, schemaErr(i, s, row, field, "%q is not a decimal int64", cell)
	}
	return n, nil
}

func parseOpt(i int, s *Section, row int, field, cell string) (graphresponse.OptInt, error) {
	if cell == "" {
		return graphresponse.OptInt{}, nil
	}
	n, err := parseID(i, s, row, field, cell)
	return graphresponse.Some(n), err
}

// parseProps parses a _props cell: a JSON object whose values are strings.
func parseProps(i int, s *Section, row int, field, cell string) ([]graphresponse.Member, error) {
	if cell == "" {
		return nil, nil
	}
	v, err := graphresponse.UnmarshalValue([]byte(cell))
	if err != nil || v.Kind() != graphresponse.KindObject {
		return nil, schemaErr(i, s, row, field, "not a JSON object")
	}
	ms := v.Members()
	for _, m := range ms {
		if m.Value.Kind() != graphresponse.KindString {
			return nil, schemaErr(i, s, row, field, "value of %q is not a string", m.Key)
		}
	}
	return ms, nil
}

func decodeNodes(nodes []graphresponse.Node, i int, s *Section) ([]graphresponse.Node, error) {
	typ, typed := s.Meta["type"]
	idAt := indexOf(s.Fields, "id")
	if idAt < 0 {
		return nil, schemaErr(i, s, -1, "id", "missing field")
	}
	typeAt := -1
	if !typed {
		if typeAt = indexOf(s.Fields, "type"); typeAt < 0 {
			return nil, schemaErr(i, s, -1, "type", "missing field")
		}
	}
	propsAt := indexOf(s.Fields, "_props")
	// One backing array holds the column properties of every node.
	arena := make([]graphresponse.Member, 0, len(s.Rows)*len(s.Fields))
	for r, row := range s.Rows {
		id, err := parseID(i, s, r, "id", row[idAt])
		if err != nil {
			return nil, err
		}
		n := graphresponse.Node{Type: typ, ID: id}
		if !typed {
			n.Type = row[typeAt]
		}
		start := len(arena)
		for j, f := range s.Fields {
			if j == idAt || j == typeAt || j == propsAt || row[j] == "" {
				continue
			}
			arena = append(arena, graphresponse.Member{Key: f, Value: graphresponse.String(row[j])})
		}
		if len(arena) > start {
			n.Props = arena[start:len(arena):len(arena)]
		}
		if propsAt >= 0 {
			extra, err := parseProps(i, s, r, "_props", row[propsAt])
			if err != nil {
				return nil, err
			}
			for _, m := range extra {
				if j := indexOf(s.Fields, m.Key); j >= 0 && j != idAt && j != typeAt && j != propsAt {
					return nil, schemaErr(i, s, r, "_props", "key %q is also a field", m.Key)
				}
				n.Props = append(n.Props, m)
			}
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func decodeEdges(edges []graphresponse.Edge, i int, s *Section) ([]graphresponse.Edge, error) {
	var at map[string]int
	var err error
	typ, typed := s.Meta["type"]
	switch {
	case s.Tool == toolPaths:
		at, err = fieldIndexes(i, s, []string{"path_id", "step", "from", "from_id", "type", "to", "to_id"}, []string{"depth"})
		typed = false
	case typed:
		if _, ok := s.Meta["from"]; !ok {
			return nil, schemaErr(i, s, -1, "", "typed edge section without from=")
		}
		if _, ok := s.Meta["to"]; !ok {
			return nil, schemaErr(i, s, -1, "", "typed edge section without to=")
		}
		at, err = fieldIndexes(i, s, []string{"from_id", "to_id"}, []string{"depth", "step"})
	default:
		at, err = fieldIndexes(i, s, []string{"from", "from_id", "type", "to", "to_id"}, []string{"depth", "step"})
	}
	if err != nil {
		return nil, err
	}
	for r, row := range s.Rows {
		var e graphresponse.Edge
		if typed {
			e.Type, e.From, e.To = typ, s.Meta["from"], s.Meta["to"]
		} else {
			e.Type, e.From, e.To = row[at["type"]], row[at["from"]], row[at["to"]]
		}
		if e.FromID, err = parseID(i, s, r, "from_id", row[at["from_id"]]); err != nil {
			return nil, err
		}
		if e.ToID, err = parseID(i, s, r, "to_id", row[at["to_id"]]); err != nil {
			return nil, err
		}
		for _, o := range []struct {
			name string
			dst  *graphresponse.OptInt
		}{{"depth", &e.Depth}, {"path_id", &e.PathID}, {"step", &e.Step}} {
			if j, ok := at[o.name]; ok {
				if *o.dst, err = parseOpt(i, s, r, o.name, row[j]); err != nil {
					return nil, err
				}
			}
		}
		edges = append(edges, e)
	}
	return edges, nil
}

// columnSet holds the decoded aggregation descriptors.
type columnSet struct {
	groups  []graphresponse.GroupColumn
	metrics []graphresponse.Column
}

func decodeColumns(i int, s *Section) (*columnSet, error) {
	at, err := fieldIndexes(i, s, []string{"name", "kind", "function", "alias", "property", "entity"}, nil)
	if err != nil {
		return nil, err
	}
	cs := &columnSet{}
	for r, row := range s.Rows {
		get := func(f string) string { return row[at[f]] }
		switch k := get("kind"); k {
		case "metric":
			cs.metrics = append(cs.metrics, graphresponse.Column{
				Name: get("name"), Function: get("function"), Target: get("alias"), Property: get("property"),
			})
		case graphresponse.GroupKindNode, graphresponse.GroupKindProperty:
			cs.groups = append(cs.groups, graphresponse.GroupColumn{
				Name: get("name"), Kind: k, Node: get("alias"), Property: get("property"), Entity: get("entity"),
			})
		default:
			return nil, schemaErr(i, s, r, "kind", "unknown kind %q", k)
		}
	}
	return cs, nil
}

// rowPart is how the rows decoder reads one declared column.
type rowPart struct {
	name     string
	node     bool
	entity   string
	at       int      // property and metric: field index
	typeAt   int      // node: P.type or -1
	idAt     int      // node: P.id
	propsAt  int      // node: P._props or -1
	propAt   []int    // node: field indexes of properties
	propKeys []string // node: their keys
}

func decodeRows(i int, s *Section, cs *columnSet) ([]graphresponse.Row, error) {
	fields := s.Fields
	skip := 0
	if fields[0] == "#" {
		skip = 1
		fields = fields[1:]
	}
	pos := 0
	var parts []rowPart
	take := func(name string) error {
		if pos >= len(fields) {
			return schemaErr(i, s, -1, "", "no field left for column %q", name)
		}
		parts = append(parts, rowPart{name: name, at: pos + skip})
		pos++
		return nil
	}
	for _, g := range cs.groups {
		if g.Kind == graphresponse.GroupKindProperty {
			if err := take(g.Name); err != nil {
				return nil, err
			}
			continue
		}
		if pos >= len(fields) {
			return nil, schemaErr(i, s, -1, "", "no field left for node column %q", g.Name)
		}
		dot := strings.IndexByte(fields[pos], '.')
		if dot < 0 {
			return nil, schemaErr(i, s, -1, fields[pos], "node column %q needs P.id fields", g.Name)
		}
		prefix := fields[pos][:dot+1]
		p := rowPart{name: g.Name, node: true, entity: g.Entity, typeAt: -1, idAt: -1, propsAt: -1}
		for ; pos < len(fields) && strings.HasPrefix(fields[pos], prefix); pos++ {
			j := pos + skip
			switch key := fields[pos][len(prefix):]; key {
			case "type":
				p.typeAt = j
			case "id":
				p.idAt = j
			case "_props":
				p.propsAt = j
			default:
				p.propAt = append(p.propAt, j)
				p.propKeys = append(p.propKeys, key)
			}
		}
		if p.idAt < 0 {
			return nil, schemaErr(i, s, -1, prefix+"id", "missing field")
		}
		parts = append(parts, p)
	}
	groupFields := pos
	for _, c := range cs.metrics {
		if err := take(c.Name); err != nil {
			return nil, err
		}
	}
	if pos != len(fields) {
		return nil, schemaErr(i, s, -1, fields[pos], "field matches no column")
	}
	if g, err := strconv.Atoi(s.Meta["groups"]); err != nil || g != groupFields {
		return nil, schemaErr(i, s, -1, "", "meta groups=%q but %d group fields", s.Meta["groups"], groupFields)
	}
	rows := make([]graphresponse.Row, len(s.Rows))
	for r, cells := range s.Rows {
		row := make(graphresponse.Row, 0, len(parts))
		for _, p := range parts {
			var v graphresponse.Value
			switch {
			case !p.node:
				if c := cells[p.at]; c != "" {
					v = graphresponse.String(c)
				}
			case cells[p.idAt] != "":
				typ := p.entity
				if p.typeAt >= 0 {
					typ = cells[p.typeAt]
				}
				props := []graphresponse.Member{}
				for k, j := range p.propAt {
					if cells[j] != "" {
						props = append(props, graphresponse.Member{Key: p.propKeys[k], Value: graphresponse.String(cells[j])})
					}
				}
				if p.propsAt >= 0 {
					extra, err := parseProps(i, s, r, s.Fields[p.propsAt], cells[p.propsAt])
					if err != nil {
						return nil, err
					}
					for _, m := range extra {
						if slices.Contains(p.propKeys, m.Key) {
							return nil, schemaErr(i, s, r, s.Fields[p.propsAt], "key %q is also a field", m.Key)
						}
						props = append(props, m)
					}
				}
				v = graphresponse.NodeBucket(typ, cells[p.idAt], props)
			}
			row = setMember(row, p.name, v)
		}
		rows[r] = row
	}
	return rows, nil
}

// setMember sets key in row: a repeated column name keeps its first
// position and the later column's value.
func setMember(row graphresponse.Row, key string, v graphresponse.Value) graphresponse.Row {
	for j := range row {
		if row[j].Key == key {
			row[j].Value = v
			return row
		}
	}
	return append(row, graphresponse.Member{Key: key, Value: v})
}
