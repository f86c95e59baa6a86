package toon

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// UnmarshalResponse reads a TOON rendering of a GraphResponse (spec §7.3)
// back into a [graphresponse.Response], as far as the rendering carries it.
// opts is used as by [UnmarshalOptions]: IndentSize and Lenient apply, the
// Delimiter is ignored (every header names its own) and the zero Options
// decodes strictly. It is the inverse of [MarshalResponse] in this sense:
// for every response r that MarshalResponse accepts and whose nodes have no
// property named "id" or "type" (the model rules those out),
// MarshalResponse(UnmarshalResponse(MarshalResponse(r))) is
// MarshalResponse(r), byte for byte.
//
// A document that is not valid TOON fails with the decoder's [*SyntaxError].
// A valid document that is not a §7.3 shape fails with an error wrapping
// [ErrInvalidResponse] that names the offending member as a JSON Pointer into
// the decoded document (for example /nodes/User/2/id): unknown or misplaced
// root members (they must come in the §7.3 order), values of the wrong type,
// ids that are not decimal int64 strings, a has_more or truncated other than
// true, a path edge without path_id, depth, path_id or step that is not an
// int64, node property columns or _props keys that break the column rules of gcx
// spec §11.5 or name "id" or "type", _props that is not the JSON text of an
// object of strings, descriptor rows of an unknown kind or with group
// columns after metrics, row keys that name no declared column, and node
// buckets with fields but no id, an empty id or a null type.
//
// # What comes back
//
//   - query_type, the node ids and types, the edge endpoints, types, depth,
//     path_id and step, the column descriptors and the number of rows come
//     back unchanged, and so does every string and boolean in a property
//     column, a bucket field or a row cell. Numbers keep their value (see
//     below for their kind).
//   - A node bucket without an n.type field takes the column's entity, which
//     is what the encoder left out.
//   - Pagination is non-nil when has_more, truncated or next_cursor is in the
//     document, and then carries exactly those. A pagination that was present
//     with has_more and truncated false and no cursor is not carried: it comes
//     back nil.
//   - Nodes and Edges are always non-nil (possibly empty). GroupColumns and
//     Columns are both non-nil when the document has columns or rows (an
//     aggregation), and nil otherwise. Rows is non-nil exactly when the
//     document has rows.
//   - FormatVersion is not carried by the rendering and is left empty; a
//     caller that knows it sets it on the result.
//
// # What is lost
//
//   - Node order: nodes come back grouped by type, types in ascending byte
//     order, in response order within a type. Edges without path_id come back
//     grouped by relationship type, source type and target type (each in
//     ascending byte order, response order within a group), followed by the
//     path edges in response order.
//   - Numbers: a number whose canonical text is an integer comes back as an
//     int64 when it fits, else as a uint64 when that fits, so an integral
//     float (2.0) comes back as the integer 2; every other number comes back
//     as a float64. NaN and ±Inf were written as null and come back absent
//     (null in a row cell).
//   - Null and empty properties: a node property that is null, non-finite or
//     missing is null in the table and comes back absent; a property whose
//     cell text is empty for every node of its type ("" or only CRs) has no
//     column and is lost. The same holds for the properties of node buckets.
//   - Nested values: lists and maps were written as their compact JSON text
//     and come back as that string.
//   - _props: properties under unsafe or reserved keys come back as strings
//     holding their gcx cell text (numbers and booleans become their text,
//     CRs are dropped, empty texts are lost).
//   - Row cells: every declared column is present in every row; a null cell,
//     and a declared column the row lacked, come back as null. Row keys that
//     were not declared columns are not carried. A node bucket whose id had
//     empty cell text comes back as null, and a bucket without properties
//     comes back with an empty properties object; members of a bucket other
//     than type, id and properties are not carried.
//   - Empty names: a descriptor field that was empty is null and comes back
//     as the empty string, which is the same thing in the model.
//
// UnmarshalResponse is safe for concurrent use.
func UnmarshalResponse(data []byte, opts Options) (*graphresponse.Response, error) {
	v, err := UnmarshalOptions(data, opts)
	if err != nil {
		return nil, err
	}
	return unshapeResponse(v)
}

// DecodeResponse reads r to EOF and decodes it with [UnmarshalResponse]
// under the decoder's options. Read errors are returned unchanged.
func (d *Decoder) DecodeResponse() (*graphresponse.Response, error) {
	data, err := io.ReadAll(d.r)
	if err != nil {
		return nil, err
	}
	return UnmarshalResponse(data, d.opts)
}

// responseKeys are the root members of the §7.3 shape, in their order.
var responseKeys = [...]string{"query_type", "has_more", "truncated", "next_cursor", "nodes", "edges", "paths", "columns", "rows"}

// invalidAt reports a shape error at the JSON Pointer made of path.
func invalidAt(err error, path ...string) error {
	if len(path) == 0 {
		return fmt.Errorf("toon: %w: %v", ErrInvalidResponse, err)
	}
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return fmt.Errorf("toon: %w: %s: %v", ErrInvalidResponse, b.String(), err)
}

// typeName names the JSON type of a decoded value for messages.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case Object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func wantErr(want string, got any) error {
	return fmt.Errorf("want %s, got %s", want, typeName(got))
}

// unshapeResponse inverts [ShapeResponse].
func unshapeResponse(v any) (*graphresponse.Response, error) {
	root, ok := v.(Object)
	if !ok {
		return nil, invalidAt(wantErr("an object", v))
	}
	r := &graphresponse.Response{Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	last, hasQueryType := -1, false
	pagination := func() *graphresponse.Pagination {
		if r.Pagination == nil {
			r.Pagination = &graphresponse.Pagination{}
		}
		return r.Pagination
	}
	for _, m := range root {
		rank := slices.Index(responseKeys[:], m.Key)
		if rank < 0 {
			return nil, invalidAt(errors.New("unknown member; the §7.3 members are query_type, has_more, truncated, next_cursor, nodes, edges, paths, columns and rows"), m.Key)
		}
		if rank <= last {
			return nil, invalidAt(fmt.Errorf("member after %q; §7.3 members come in the order query_type, has_more, truncated, next_cursor, nodes, edges, paths, columns, rows", responseKeys[last]), m.Key)
		}
		last = rank
		var err error
		switch m.Key {
		case "query_type":
			s, ok := m.Value.(string)
			if !ok {
				return nil, invalidAt(wantErr("a string", m.Value), m.Key)
			}
			r.QueryType, hasQueryType = s, true
		case "has_more", "truncated":
			if b, ok := m.Value.(bool); !ok || !b {
				return nil, invalidAt(errors.New("want true; a false flag is left out of the rendering"), m.Key)
			}
			if m.Key == "has_more" {
				pagination().HasMore = true
			} else {
				pagination().Truncated = true
			}
		case "next_cursor":
			s, ok := m.Value.(string)
			if !ok {
				return nil, invalidAt(wantErr("a string", m.Value), m.Key)
			}
			pagination().NextCursor = &s
		case "nodes":
			r.Nodes, err = unshapeNodes(m.Value)
		case "edges":
			r.Edges, err = unshapeEdges(r.Edges, m.Value)
		case "paths":
			r.Edges, err = unshapePaths(r.Edges, m.Value)
		case "columns":
			r.GroupColumns, r.Columns, err = unshapeDescriptors(m.Value)
		case "rows":
			if r.GroupColumns == nil {
				r.GroupColumns, r.Columns = []graphresponse.GroupColumn{}, []graphresponse.Column{}
			}
			r.Rows, err = unshapeRows(m.Value, r.GroupColumns, r.Columns)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasQueryType {
		return nil, invalidAt(errors.New("missing query_type"))
	}
	return r, nil
}

// cellValue maps a primitive table cell back to a response value: null,
// booleans and strings as themselves, numbers by [numberValue].
func cellValue(v any) (graphresponse.Value, error) {
	switch x := v.(type) {
	case nil:
		return graphresponse.Null(), nil
	case bool:
		return graphresponse.Bool(x), nil
	case string:
		return graphresponse.String(x), nil
	case json.Number:
		return numberValue(string(x))
	}
	return graphresponse.Value{}, wantErr("a primitive value", v)
}

// numberValue maps canonical number text to an int64 when it is an integer
// that fits, then to a uint64, and otherwise to a finite float64. Integral
// floats therefore come back as integers; the canonical text, and so the
// re-rendering, is the same.
func numberValue(t string) (graphresponse.Value, error) {
	if !strings.ContainsAny(t, ".eE") {
		if n, err := strconv.ParseInt(t, 10, 64); err == nil {
			return graphresponse.Int(n), nil
		}
		if u, err := strconv.ParseUint(t, 10, 64); err == nil {
			return graphresponse.Uint(u), nil
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return graphresponse.Value{}, fmt.Errorf("number %s is out of the float64 range", t)
	}
	return graphresponse.Float(f), nil
}

// idValue parses an id cell: a string holding a decimal int64.
func idValue(v any) (int64, error) {
	s, ok := v.(string)
	if !ok {
		return 0, wantErr("a string holding a decimal int64", v)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not a decimal int64", strconv.Quote(s))
	}
	return n, nil
}

// optIntValue parses a depth, path_id or step cell: null (absent) or an
// int64. The ranges the raw JSON decoder enforces (depth ≥ 1, path_id and
// step ≥ 0) are not checked, as the encoder does not check them either.
func optIntValue(v any) (graphresponse.OptInt, error) {
	if v == nil {
		return graphresponse.OptInt{}, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return graphresponse.OptInt{}, wantErr("an integer or null", v)
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return graphresponse.OptInt{}, fmt.Errorf("want an int64 or null, got %s", n)
	}
	return graphresponse.Some(i), nil
}

// propsValue restores the members of a _props cell: null, or the compact
// JSON text of an object mapping unsafe or reserved keys to strings. A key
// that would have had its own column is rejected, so _props never repeats
// a column.
func propsValue(v any, reserved func(string) bool) ([]graphresponse.Member, error) {
	if v == nil {
		return nil, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, wantErr("the JSON text of an object, or null", v)
	}
	j, err := ParseJSON([]byte(s))
	if err != nil {
		// Not wrapped: the position is inside the cell, not the document.
		var se *SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not JSON (column %d: %v)", se.Column, se.Err)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	o, ok := j.(Object)
	if !ok {
		return nil, fmt.Errorf("want the JSON text of an object, got the text of %s", typeName(j))
	}
	out := make([]graphresponse.Member, 0, len(o))
	for _, m := range o {
		if fieldSafe(m.Key) && !reserved(m.Key) {
			return nil, fmt.Errorf("key %s is field-safe and belongs in its own column", strconv.Quote(m.Key))
		}
		s, ok := m.Value.(string)
		if !ok {
			return nil, fmt.Errorf("key %s: %w", strconv.Quote(m.Key), wantErr("a string", m.Value))
		}
		out = append(out, graphresponse.Member{Key: m.Key, Value: graphresponse.String(s)})
	}
	return out, nil
}

func sortMembers(ms []graphresponse.Member) {
	slices.SortFunc(ms, func(a, b graphresponse.Member) int { return cmp.Compare(a.Key, b.Key) })
}

// unshapeNodes reads the node tables: type → rows of {id, columns…, _props}.
func unshapeNodes(v any) ([]graphresponse.Node, error) {
	types, ok := v.(Object)
	if !ok {
		return nil, invalidAt(wantErr("an object of node tables", v), "nodes")
	}
	total := 0
	for _, t := range types {
		if rows, ok := t.Value.([]any); ok {
			total += len(rows)
		}
	}
	nodes := make([]graphresponse.Node, 0, total)
	for _, t := range types {
		rows, ok := t.Value.([]any)
		if !ok {
			return nil, invalidAt(wantErr("a node table", t.Value), "nodes", t.Key)
		}
		// The properties of a table's nodes share one allocation, a row's
		// width each (a row has at most one property per column).
		var slab []graphresponse.Member
		if len(rows) > 0 {
			if first, ok := rows[0].(Object); ok {
				slab = make([]graphresponse.Member, len(rows)*len(first))
			}
		}
		for i, rv := range rows {
			n, err := unshapeNode(t.Key, rv, &slab)
			if err != nil {
				return nil, invalidAt(err.err, append([]string{"nodes", t.Key, strconv.Itoa(i)}, err.key...)...)
			}
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}

// keyError is an error inside a table row, with the key it is at (none for
// the row itself).
type keyError struct {
	key []string
	err error
}

func atKey(key string, err error) *keyError { return &keyError{key: []string{key}, err: err} }

func unshapeNode(typ string, rv any, slab *[]graphresponse.Member) (graphresponse.Node, *keyError) {
	row, ok := rv.(Object)
	if !ok {
		return graphresponse.Node{}, &keyError{err: wantErr("an object", rv)}
	}
	n := graphresponse.Node{Type: typ}
	if w := len(row); w <= len(*slab) {
		n.Props = (*slab)[:0:w]
		*slab = (*slab)[w:]
	}
	hasID := false
	for _, m := range row {
		switch m.Key {
		case "id":
			id, err := idValue(m.Value)
			if err != nil {
				return n, atKey(m.Key, err)
			}
			n.ID, hasID = id, true
		case "_props":
			ps, err := propsValue(m.Value, nodeReserved)
			if err != nil {
				return n, atKey(m.Key, err)
			}
			for _, p := range ps {
				if p.Key == "id" {
					// The model keeps "id" out of the properties.
					return n, atKey(m.Key, errors.New(`a node property cannot be named "id"`))
				}
			}
			n.Props = append(n.Props, ps...)
		default:
			switch {
			case m.Key == "type":
				return n, atKey(m.Key, errors.New(`a node property cannot be named "type"`))
			case !fieldSafe(m.Key):
				return n, atKey(m.Key, errors.New("a property column needs a field-safe name; other keys go in _props"))
			}
			if m.Value == nil {
				continue
			}
			pv, err := cellValue(m.Value)
			if err != nil {
				return n, atKey(m.Key, err)
			}
			n.Props = append(n.Props, graphresponse.Member{Key: m.Key, Value: pv})
		}
	}
	if !hasID {
		return n, &keyError{err: errors.New("missing id")}
	}
	if len(n.Props) == 0 {
		n.Props = nil // as without the slab: no properties is nil
	}
	sortMembers(n.Props)
	return n, nil
}

// unshapeEdges reads the nested edge tables: type → from → to → rows of
// {from_id, to_id, depth, step}, appending to dst.
func unshapeEdges(dst []graphresponse.Edge, v any) ([]graphresponse.Edge, error) {
	byType, ok := v.(Object)
	if !ok {
		return nil, invalidAt(wantErr("an object keyed by relationship type", v), "edges")
	}
	for _, t := range byType {
		byFrom, ok := t.Value.(Object)
		if !ok {
			return nil, invalidAt(wantErr("an object keyed by source type", t.Value), "edges", t.Key)
		}
		for _, f := range byFrom {
			byTo, ok := f.Value.(Object)
			if !ok {
				return nil, invalidAt(wantErr("an object keyed by target type", f.Value), "edges", t.Key, f.Key)
			}
			for _, to := range byTo {
				rows, ok := to.Value.([]any)
				if !ok {
					return nil, invalidAt(wantErr("an edge table", to.Value), "edges", t.Key, f.Key, to.Key)
				}
				for i, rv := range rows {
					e := graphresponse.Edge{Type: t.Key, From: f.Key, To: to.Key}
					if err := unshapeEdge(&e, rv); err != nil {
						return nil, invalidAt(err.err, append([]string{"edges", t.Key, f.Key, to.Key, strconv.Itoa(i)}, err.key...)...)
					}
					dst = append(dst, e)
				}
			}
		}
	}
	return dst, nil
}

func unshapeEdge(e *graphresponse.Edge, rv any) *keyError {
	row, ok := rv.(Object)
	if !ok {
		return &keyError{err: wantErr("an object", rv)}
	}
	var hasFrom, hasTo bool
	for _, m := range row {
		var err error
		switch m.Key {
		case "from_id":
			e.FromID, err = idValue(m.Value)
			hasFrom = true
		case "to_id":
			e.ToID, err = idValue(m.Value)
			hasTo = true
		case "depth":
			e.Depth, err = optIntValue(m.Value)
		case "step":
			e.Step, err = optIntValue(m.Value)
		default:
			err = errors.New("unknown edge field; want from_id, to_id, depth or step")
		}
		if err != nil {
			return atKey(m.Key, err)
		}
	}
	if !hasFrom || !hasTo {
		return &keyError{err: errors.New("an edge row needs from_id and to_id")}
	}
	return nil
}

// unshapePaths reads the path table, appending to dst.
func unshapePaths(dst []graphresponse.Edge, v any) ([]graphresponse.Edge, error) {
	rows, ok := v.([]any)
	if !ok {
		return nil, invalidAt(wantErr("a path table", v), "paths")
	}
	for i, rv := range rows {
		e, err := unshapePath(rv)
		if err != nil {
			return nil, invalidAt(err.err, append([]string{"paths", strconv.Itoa(i)}, err.key...)...)
		}
		dst = append(dst, e)
	}
	return dst, nil
}

func unshapePath(rv any) (graphresponse.Edge, *keyError) {
	var e graphresponse.Edge
	row, ok := rv.(Object)
	if !ok {
		return e, &keyError{err: wantErr("an object", rv)}
	}
	const required = "path_id, step, from, from_id, type, to and to_id"
	var have [7]bool
	str := func(v any) (string, error) {
		s, ok := v.(string)
		if !ok {
			return "", wantErr("a string", v)
		}
		return s, nil
	}
	for _, m := range row {
		var err error
		switch m.Key {
		case "path_id":
			have[0] = true
			if m.Value == nil {
				err = errors.New("a path edge needs a path_id")
				break
			}
			e.PathID, err = optIntValue(m.Value)
		case "step":
			have[1] = true
			e.Step, err = optIntValue(m.Value)
		case "from":
			have[2] = true
			e.From, err = str(m.Value)
		case "from_id":
			have[3] = true
			e.FromID, err = idValue(m.Value)
		case "type":
			have[4] = true
			e.Type, err = str(m.Value)
		case "to":
			have[5] = true
			e.To, err = str(m.Value)
		case "to_id":
			have[6] = true
			e.ToID, err = idValue(m.Value)
		case "depth":
			e.Depth, err = optIntValue(m.Value)
		default:
			err = errors.New("unknown path field; want " + required + ", and depth")
		}
		if err != nil {
			return e, atKey(m.Key, err)
		}
	}
	if have != [7]bool{true, true, true, true, true, true, true} {
		return e, &keyError{err: errors.New("a path row needs " + required)}
	}
	return e, nil
}

// unshapeDescriptors reads the descriptor table: group columns, then
// metrics.
func unshapeDescriptors(v any) ([]graphresponse.GroupColumn, []graphresponse.Column, error) {
	rows, ok := v.([]any)
	if !ok {
		return nil, nil, invalidAt(wantErr("a descriptor table", v), "columns")
	}
	groups, metrics := []graphresponse.GroupColumn{}, []graphresponse.Column{}
	for i, rv := range rows {
		d, err := unshapeDescriptor(rv)
		if err == nil && d[1] != "metric" && len(metrics) > 0 {
			err = atKey("kind", errors.New("a group column after a metric column; group columns come first"))
		}
		if err != nil {
			return nil, nil, invalidAt(err.err, append([]string{"columns", strconv.Itoa(i)}, err.key...)...)
		}
		if d[1] == "metric" {
			metrics = append(metrics, graphresponse.Column{Name: d[0], Function: d[2], Target: d[3], Property: d[4]})
		} else {
			groups = append(groups, graphresponse.GroupColumn{Name: d[0], Kind: d[1], Node: d[3], Property: d[4], Entity: d[5]})
		}
	}
	return groups, metrics, nil
}

// descriptorKeys are the keys of a descriptor row, in order.
var descriptorKeys = [6]string{"name", "kind", "function", "alias", "property", "entity"}

// unshapeDescriptor returns the six descriptor fields, null as "".
func unshapeDescriptor(rv any) ([6]string, *keyError) {
	var d [6]string
	row, ok := rv.(Object)
	if !ok {
		return d, &keyError{err: wantErr("an object", rv)}
	}
	var have [6]bool
	for _, m := range row {
		i := slices.Index(descriptorKeys[:], m.Key)
		if i < 0 {
			return d, atKey(m.Key, errors.New("unknown descriptor field; want name, kind, function, alias, property and entity"))
		}
		have[i] = true
		switch s := m.Value.(type) {
		case nil:
		case string:
			d[i] = s
		default:
			return d, atKey(m.Key, wantErr("a string or null", m.Value))
		}
	}
	if have != [6]bool{true, true, true, true, true, true} {
		return d, &keyError{err: errors.New("a descriptor row needs name, kind, function, alias, property and entity")}
	}
	switch d[1] {
	case graphresponse.GroupKindNode, graphresponse.GroupKindProperty:
		if d[2] != "" {
			return d, atKey("function", errors.New("a group column has no function"))
		}
	case "metric":
		if d[5] != "" {
			return d, atKey("entity", errors.New("a metric column has no entity"))
		}
	default:
		return d, atKey("kind", fmt.Errorf("kind %s is not node, property or metric", strconv.Quote(d[1])))
	}
	return d, nil
}

// nodeCell collects the n.* fields of one node-kind group cell.
type nodeCell struct {
	typ, id     any
	hasTyp      bool
	props       []graphresponse.Member
	hasNonNulls bool
}

// unshapeRows reads the row table. Keys are the sanitised column names of
// gcx spec §11.7; a sanitised name never contains '.', so a key with a dot
// belongs to the node-kind group column named before its first dot.
func unshapeRows(v any, groups []graphresponse.GroupColumn, metrics []graphresponse.Column) ([]graphresponse.Row, error) {
	rows, ok := v.([]any)
	if !ok {
		return nil, invalidAt(wantErr("a row table", v), "rows")
	}
	names := make([]string, 0, len(groups)+len(metrics))
	for _, g := range groups {
		names = append(names, g.Name)
	}
	for _, c := range metrics {
		names = append(names, c.Name)
	}
	safe := sanitizeNames(names)
	index := make(map[string]int, len(safe))
	for i, s := range safe {
		index[s] = i
	}
	out := make([]graphresponse.Row, 0, len(rows))
	for i, rv := range rows {
		row, err := unshapeRow(rv, groups, names, safe, index)
		if err != nil {
			return nil, invalidAt(err.err, append([]string{"rows", strconv.Itoa(i)}, err.key...)...)
		}
		out = append(out, row)
	}
	return out, nil
}

// unshapeRow builds one row holding every declared column once (the first
// of repeated names wins, as the encoder reads the first).
func unshapeRow(rv any, groups []graphresponse.GroupColumn, names, safe []string, index map[string]int) (graphresponse.Row, *keyError) {
	obj, ok := rv.(Object)
	if !ok {
		return nil, &keyError{err: wantErr("an object", rv)}
	}
	cells := make([]graphresponse.Value, len(names))
	nodes := make([]nodeCell, len(groups))
	for _, m := range obj {
		name, field, dotted := strings.Cut(m.Key, ".")
		ci, ok := index[name]
		if !ok {
			return nil, atKey(m.Key, errors.New("names no declared column"))
		}
		isNode := ci < len(groups) && groups[ci].Kind == graphresponse.GroupKindNode
		if !dotted {
			if isNode {
				return nil, atKey(m.Key, errors.New("a node-kind group column is written as its .type, .id and property fields"))
			}
			cv, err := cellValue(m.Value)
			if err != nil {
				return nil, atKey(m.Key, err)
			}
			cells[ci] = cv
			continue
		}
		if !isNode {
			return nil, atKey(m.Key, errors.New("only a node-kind group column has dotted fields"))
		}
		nc := &nodes[ci]
		if m.Value != nil {
			nc.hasNonNulls = true
		}
		switch field {
		case "type":
			nc.typ, nc.hasTyp = m.Value, true
		case "id":
			nc.id = m.Value
		case "_props":
			ps, err := propsValue(m.Value, bucketReserved)
			if err != nil {
				return nil, atKey(m.Key, err)
			}
			nc.props = append(nc.props, ps...)
		default:
			if !fieldSafe(field) {
				return nil, atKey(m.Key, errors.New("a bucket property field needs a field-safe name; other keys go in _props"))
			}
			if m.Value == nil {
				continue
			}
			pv, err := cellValue(m.Value)
			if err != nil {
				return nil, atKey(m.Key, err)
			}
			nc.props = append(nc.props, graphresponse.Member{Key: field, Value: pv})
		}
	}
	for gi, g := range groups {
		if g.Kind != graphresponse.GroupKindNode {
			continue
		}
		nc := &nodes[gi]
		if !nc.hasNonNulls {
			continue // a null bucket: null in every field
		}
		n := safe[gi]
		id, ok := nc.id.(string)
		if !ok {
			return nil, atKey(n+".id", wantErr("a string in a bucket with fields", nc.id))
		}
		if cellText(graphresponse.String(id)) == "" {
			return nil, atKey(n+".id", errors.New("an id with empty cell text makes the whole bucket null"))
		}
		typ := g.Entity
		if nc.hasTyp {
			if typ, ok = nc.typ.(string); !ok {
				return nil, atKey(n+".type", wantErr("a string in a bucket with an id", nc.typ))
			}
		} else if g.Entity == "" {
			return nil, atKey(n+".id", errors.New("a bucket without a .type field needs the column's entity"))
		}
		sortMembers(nc.props)
		cells[gi] = graphresponse.NodeBucket(typ, id, nc.props)
	}
	row := make(graphresponse.Row, 0, len(names))
	for i, name := range names {
		if _, dup := row.Get(name); !dup {
			row = append(row, graphresponse.Member{Key: name, Value: cells[i]})
		}
	}
	return row, nil
}
