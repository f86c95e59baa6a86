package gcf

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// Encode writes r in the format selected by Options.Profile: the generic
// `gcf` mapping (§3.2) or the `gcf-graph` topology (§3.3, a full payload with
// pack_root).
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	if r == nil {
		return &EncodeError{Err: ErrMapping, Detail: "nil response"}
	}
	if e.opts.Profile == ProfileGraph {
		var err error
		if e.buf, err = appendResponseGraph(e.buf[:0], r, e.opts, &e.resp); err != nil {
			return err
		}
		return e.flush()
	}
	if err := e.checkTool(); err != nil {
		return err
	}
	if b, ok := appendResponseGeneric(appendGenericHeader(e.buf[:0], e.opts.Tool), r, &e.gen); ok {
		e.buf = b
		return e.flush()
	}
	doc, err := documentOf(r)
	if err != nil {
		return err
	}
	g := genEncoder{buf: appendGenericHeader(e.buf[:0], e.opts.Tool), maxDepth: e.lim.MaxDepth, maxElems: e.lim.MaxElements}
	err = g.root(doc)
	e.buf = g.buf
	if err != nil {
		return err
	}
	return e.flush()
}

// isReserved reports whether s is a reserved member of D(r) (§3.2.1).
func isReserved(s string) bool {
	switch s {
	case "query_type", "mapping_version", "pagination", "edges", "paths", "group_columns", "columns", "rows":
		return true
	}
	return false
}

func unrepresentable(path, detail string) error {
	return &EncodeError{Path: path, Err: ErrUnrepresentable, Detail: detail}
}

// fromValue converts a response value into the generic model.
func fromValue(v graphresponse.Value) (any, error) {
	switch v.Kind() {
	case graphresponse.KindNull:
		return nil, nil
	case graphresponse.KindBool:
		return v.Bool(), nil
	case graphresponse.KindInt:
		return v.Int(), nil
	case graphresponse.KindUint:
		return nil, encErr(ErrOutOfRange, strconv.FormatUint(v.Uint(), 10)+" exceeds int64")
	case graphresponse.KindFloat:
		f := v.Float()
		if !isFinite(f) {
			return nil, encErr(ErrNonFinite, "NaN or infinite float")
		}
		return f, nil
	case graphresponse.KindString:
		return v.Str(), nil
	case graphresponse.KindArray:
		es := v.Elems()
		out := make([]any, len(es))
		for i, e := range es {
			x, err := fromValue(e)
			if err != nil {
				return nil, atIndex(err, i)
			}
			out[i] = x
		}
		return out, nil
	case graphresponse.KindObject:
		ms := v.Members()
		o := NewObject(len(ms))
		for _, m := range ms {
			x, err := fromValue(m.Value)
			if err != nil {
				return nil, atPath(err, m.Key)
			}
			o.Set(m.Key, x)
		}
		return o, nil
	}
	return nil, encErr(ErrUnsupportedType, "unknown value kind")
}

// toValue converts a generic value into a response value.
func toValue(v any) graphresponse.Value {
	switch x := v.(type) {
	case bool:
		return graphresponse.Bool(x)
	case int64:
		return graphresponse.Int(x)
	case float64:
		return graphresponse.Float(x)
	case string:
		return graphresponse.String(x)
	case []any:
		out := make([]graphresponse.Value, len(x))
		for i, e := range x {
			out[i] = toValue(e)
		}
		return graphresponse.Array(out...)
	case *Object:
		ms := make([]graphresponse.Member, len(x.keys))
		for i, k := range x.keys {
			ms[i] = graphresponse.Member{Key: k, Value: toValue(x.vals[i])}
		}
		return graphresponse.Object(ms...)
	}
	return graphresponse.Null()
}

// idValue writes an id string as an integer when it is canonical int64.
func idValue(s string) any {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(n, 10) == s {
		return n
	}
	return s
}

func optAdd(o *Object, key string, v graphresponse.OptInt) {
	if v.Valid {
		o.add(key, v.Value)
	}
}

// documentOf builds D(r), the generic document of §3.2.1.
func documentOf(r *graphresponse.Response) (*Object, error) {
	d := NewObject(8)
	d.add("query_type", r.QueryType)
	d.add("mapping_version", MappingVersion)
	if p := r.Pagination; p != nil {
		po := NewObject(3)
		po.add("has_more", p.HasMore)
		po.add("truncated", p.Truncated)
		if p.NextCursor != nil {
			po.add("next_cursor", *p.NextCursor)
		}
		d.add("pagination", po)
	}
	// Node tables, types in byte order.
	types := make([]string, 0, 4)
	type key struct {
		t  string
		id int64
	}
	ids := make(map[key]bool, len(r.Nodes))
	for i := range r.Nodes {
		n := &r.Nodes[i]
		path := "/nodes/" + strconv.Itoa(i)
		if n.Type == "" || isReserved(n.Type) {
			return nil, unrepresentable(path+"/type", "node type "+strconv.Quote(n.Type)+" is empty or reserved")
		}
		k := key{n.Type, n.ID}
		if ids[k] {
			return nil, unrepresentable(path, "two nodes share type "+n.Type+" and id "+strconv.FormatInt(n.ID, 10))
		}
		ids[k] = true
		if !slices.Contains(types, n.Type) {
			types = append(types, n.Type)
		}
	}
	slices.Sort(types)
	for _, t := range types {
		var list []any
		for i := range r.Nodes {
			n := &r.Nodes[i]
			if n.Type != t {
				continue
			}
			props := graphresponse.SortedMembers(n.Props)
			o := NewObject(len(props) + 1)
			o.add("id", n.ID)
			for _, m := range props {
				if m.Key == "id" || o.Has(m.Key) {
					return nil, unrepresentable("/nodes/"+strconv.Itoa(i)+"/"+pointerToken(m.Key), "property "+strconv.Quote(m.Key)+" is reserved or repeated")
				}
				v, err := fromValue(m.Value)
				if err != nil {
					return nil, atPath(atIndex(atPath(err, m.Key), i), "nodes")
				}
				o.add(m.Key, v)
			}
			list = append(list, o)
		}
		d.add(t, list)
	}
	var edges, paths []any
	for i := range r.Edges {
		e := &r.Edges[i]
		o := NewObject(8)
		if e.PathID.Valid {
			o.add("path_id", e.PathID.Value)
			optAdd(o, "step", e.Step)
		}
		o.add("from", e.From)
		o.add("from_id", e.FromID)
		o.add("to", e.To)
		o.add("to_id", e.ToID)
		o.add("type", e.Type)
		optAdd(o, "depth", e.Depth)
		if e.PathID.Valid {
			paths = append(paths, o)
		} else {
			optAdd(o, "step", e.Step)
			edges = append(edges, o)
		}
	}
	if edges != nil {
		d.add("edges", edges)
	}
	if paths != nil {
		d.add("paths", paths)
	}
	names := map[string]bool{}
	if r.GroupColumns != nil {
		list := make([]any, len(r.GroupColumns))
		for i, g := range r.GroupColumns {
			if g.Name == "" || strings.Contains(g.Name, ".") || names[g.Name] {
				return nil, unrepresentable("/group_columns/"+strconv.Itoa(i)+"/name", "group column name "+strconv.Quote(g.Name))
			}
			names[g.Name] = true
			o := NewObject(5)
			o.add("name", g.Name)
			o.add("kind", g.Kind)
			o.add("node", g.Node)
			if g.Property != "" {
				o.add("property", g.Property)
			}
			if g.Entity != "" {
				o.add("entity", g.Entity)
			}
			list[i] = o
		}
		d.add("group_columns", list)
	}
	if r.Columns != nil {
		list := make([]any, len(r.Columns))
		for i, c := range r.Columns {
			if c.Name == "" || strings.Contains(c.Name, ".") || names[c.Name] {
				return nil, unrepresentable("/columns/"+strconv.Itoa(i)+"/name", "metric name "+strconv.Quote(c.Name))
			}
			names[c.Name] = true
			o := NewObject(4)
			o.add("name", c.Name)
			o.add("function", c.Function)
			o.add("target", c.Target)
			if c.Property != "" {
				o.add("property", c.Property)
			}
			list[i] = o
		}
		d.add("columns", list)
	}
	if r.Rows != nil {
		list := make([]any, len(r.Rows))
		for i, row := range r.Rows {
			o, err := rowObject(row, r.GroupColumns, r.Columns)
			if err != nil {
				return nil, atPath(atIndex(err, i), "rows")
			}
			list[i] = o
		}
		d.add("rows", list)
	}
	return d, nil
}

func rowObject(row graphresponse.Row, groups []graphresponse.GroupColumn, cols []graphresponse.Column) (*Object, error) {
	o := NewObject(len(row) + 4)
	used := 0
	for _, g := range groups {
		v, ok := row.Get(g.Name)
		if !ok {
			continue
		}
		used++
		if g.Kind != graphresponse.GroupKindNode {
			x, err := fromValue(v)
			if err != nil {
				return nil, atPath(err, g.Name)
			}
			o.add(g.Name, x)
			continue
		}
		if v.IsNull() {
			o.add(g.Name+".type", nil)
			o.add(g.Name+".id", nil)
			continue
		}
		t, ok1 := v.Get("type")
		id, ok2 := v.Get("id")
		props, ok3 := v.Get("properties")
		if !ok1 || !ok2 || !ok3 || t.Kind() != graphresponse.KindString || id.Kind() != graphresponse.KindString || props.Kind() != graphresponse.KindObject || len(v.Members()) != 3 {
			return nil, unrepresentable("/"+pointerToken(g.Name), "node cell is not {type, id, properties}")
		}
		o.add(g.Name+".type", t.Str())
		o.add(g.Name+".id", idValue(id.Str()))
		for _, m := range graphresponse.SortedMembers(props.Members()) {
			if m.Key == "type" || m.Key == "id" || o.Has(g.Name+"."+m.Key) {
				return nil, unrepresentable("/"+pointerToken(g.Name)+"/properties/"+pointerToken(m.Key), "node cell property "+strconv.Quote(m.Key))
			}
			x, err := fromValue(m.Value)
			if err != nil {
				return nil, atPath(atPath(err, m.Key), g.Name)
			}
			o.add(g.Name+"."+m.Key, x)
		}
	}
	for _, c := range cols {
		v, ok := row.Get(c.Name)
		if !ok {
			continue
		}
		used++
		x, err := fromValue(v)
		if err != nil {
			return nil, atPath(err, c.Name)
		}
		o.add(c.Name, x)
	}
	if used != len(row) {
		for _, m := range row {
			known := slices.ContainsFunc(groups, func(g graphresponse.GroupColumn) bool { return g.Name == m.Key }) ||
				slices.ContainsFunc(cols, func(c graphresponse.Column) bool { return c.Name == m.Key })
			if !known {
				return nil, unrepresentable("/"+pointerToken(m.Key), "row key not named by group_columns or columns")
			}
		}
		return nil, unrepresentable("", "row repeats a key")
	}
	return o, nil
}

func mappingErr(detail string) error {
	return newOpError("unmarshal response", ErrMapping, detail)
}

// Decode decodes one payload into a response: a generic payload through the
// `gcf` mapping (§3.2.5), a graph payload as topology (§3.3.8). The layouts
// Marshal produces are read by direct decoders; anything else, and every
// error, goes through the strict decoder, with the same result.
func (d *Decoder) Decode() (*graphresponse.Response, error) {
	data, err := d.read()
	if err != nil {
		return nil, err
	}
	return d.decodeResponse(data)
}

// decodeResponse decodes a whole `gcf` or `gcf-graph` payload into a response.
func (d *Decoder) decodeResponse(data string) (*graphresponse.Response, error) {
	r, ok := fastGraphResponse(data, d.lim)
	if !ok {
		r, ok = fastGenericResponse(data, d.lim)
	}
	if ok {
		d.warnings = nil
		d.header = data[:strings.IndexByte(data, '\n')]
		return r, nil
	}
	doc, err := d.decodeDocument(data)
	if err != nil {
		return nil, err
	}
	switch {
	case doc.Graph != nil:
		if doc.Graph.Unchanged {
			return nil, mappingErr("an unchanged payload is not a response")
		}
		return FromGraph(doc.Graph)
	case doc.Value != nil:
		root, ok := doc.Value.(*Object)
		if !ok {
			return nil, mappingErr("root is not an object")
		}
		return responseOf(root)
	}
	return nil, mappingErr("a delta payload is not a response")
}

func str(v any, ok bool) (string, bool) {
	s, isStr := v.(string)
	return s, ok && isStr
}

func idString(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil && strconv.FormatInt(n, 10) == x
	}
	return 0, false
}

func optInt(o *Object, key string) (graphresponse.OptInt, error) {
	v, ok := o.Get(key)
	if !ok {
		return graphresponse.OptInt{}, nil
	}
	n, isInt := v.(int64)
	if !isInt {
		return graphresponse.OptInt{}, mappingErr(key + " is not an integer")
	}
	return graphresponse.Some(n), nil
}

func objects(v any, what string) ([]*Object, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, mappingErr(what + " is not an array")
	}
	out := make([]*Object, len(a))
	for i, e := range a {
		o, ok := e.(*Object)
		if !ok {
			return nil, mappingErr(what + " holds a non-object")
		}
		out[i] = o
	}
	return out, nil
}

func stringField(o *Object, key string, required bool) (string, error) {
	v, ok := o.Get(key)
	if !ok {
		if required {
			return "", mappingErr("missing " + key)
		}
		return "", nil
	}
	s, isStr := v.(string)
	if !isStr {
		return "", mappingErr(key + " is not a string")
	}
	return s, nil
}

func onlyKeys(o *Object, allowed ...string) error {
	for _, k := range o.keys {
		if !slices.Contains(allowed, k) {
			return mappingErr("unexpected key " + strconv.Quote(k))
		}
	}
	return nil
}

// responseOf inverts D(r).
func responseOf(root *Object) (*graphresponse.Response, error) {
	mv, ok := str(root.Get("mapping_version"))
	if !ok || !strings.HasPrefix(mv, "1.") {
		return nil, mappingErr("mapping_version must be 1.x.y")
	}
	qt, ok := str(root.Get("query_type"))
	if !ok {
		return nil, mappingErr("query_type must be a string")
	}
	r := &graphresponse.Response{FormatVersion: config.RawVersion(), QueryType: qt, Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	var edgeObjs, pathObjs, rowObjs []*Object
	var err error
	for i, k := range root.keys {
		v := root.vals[i]
		switch k {
		case "query_type", "mapping_version":
		case "pagination":
			po, ok := v.(*Object)
			if !ok {
				return nil, mappingErr("pagination is not an object")
			}
			if err := onlyKeys(po, "has_more", "truncated", "next_cursor"); err != nil {
				return nil, err
			}
			hm, ok1 := po.Get("has_more")
			tr, ok2 := po.Get("truncated")
			hb, ok3 := hm.(bool)
			tb, ok4 := tr.(bool)
			if !ok1 || !ok2 || !ok3 || !ok4 {
				return nil, mappingErr("pagination flags must be booleans")
			}
			p := &graphresponse.Pagination{HasMore: hb, Truncated: tb}
			if c, ok := po.Get("next_cursor"); ok {
				cs, isStr := c.(string)
				if !isStr {
					return nil, mappingErr("next_cursor is not a string")
				}
				p.NextCursor = &cs
			}
			r.Pagination = p
		case "edges":
			if edgeObjs, err = objects(v, "edges"); err != nil {
				return nil, err
			}
		case "paths":
			if pathObjs, err = objects(v, "paths"); err != nil {
				return nil, err
			}
		case "group_columns":
			objs, err := objects(v, "group_columns")
			if err != nil {
				return nil, err
			}
			r.GroupColumns = make([]graphresponse.GroupColumn, len(objs))
			for j, o := range objs {
				if err := onlyKeys(o, "name", "kind", "node", "property", "entity"); err != nil {
					return nil, err
				}
				g := &r.GroupColumns[j]
				if g.Name, err = stringField(o, "name", true); err != nil {
					return nil, err
				}
				if g.Kind, err = stringField(o, "kind", true); err != nil {
					return nil, err
				}
				if g.Node, err = stringField(o, "node", true); err != nil {
					return nil, err
				}
				if g.Property, err = stringField(o, "property", false); err != nil {
					return nil, err
				}
				if g.Entity, err = stringField(o, "entity", false); err != nil {
					return nil, err
				}
			}
		case "columns":
			objs, err := objects(v, "columns")
			if err != nil {
				return nil, err
			}
			r.Columns = make([]graphresponse.Column, len(objs))
			for j, o := range objs {
				if err := onlyKeys(o, "name", "function", "target", "property"); err != nil {
					return nil, err
				}
				c := &r.Columns[j]
				if c.Name, err = stringField(o, "name", true); err != nil {
					return nil, err
				}
				if c.Function, err = stringField(o, "function", true); err != nil {
					return nil, err
				}
				if c.Target, err = stringField(o, "target", true); err != nil {
					return nil, err
				}
				if c.Property, err = stringField(o, "property", false); err != nil {
					return nil, err
				}
			}
		case "rows":
			if rowObjs, err = objects(v, "rows"); err != nil {
				return nil, err
			}
			if rowObjs == nil {
				rowObjs = []*Object{}
			}
		default:
			objs, err := objects(v, "node table "+k)
			if err != nil {
				return nil, err
			}
			for _, o := range objs {
				id, ok := o.Get("id")
				n, isID := idString(id)
				if !ok || !isID {
					return nil, mappingErr("node in table " + k + " has no integer id")
				}
				node := graphresponse.Node{Type: k, ID: n, Props: make([]graphresponse.Member, 0, len(o.keys)-1)}
				for j, pk := range o.keys {
					if pk == "id" {
						continue
					}
					node.Props = append(node.Props, graphresponse.Member{Key: pk, Value: toValue(o.vals[j])})
				}
				r.Nodes = append(r.Nodes, node)
			}
		}
	}
	for _, list := range [2][]*Object{edgeObjs, pathObjs} {
		for _, o := range list {
			e, err := edgeOf(o)
			if err != nil {
				return nil, err
			}
			r.Edges = append(r.Edges, e)
		}
	}
	if rowObjs != nil {
		r.Rows = make([]graphresponse.Row, len(rowObjs))
		for i, o := range rowObjs {
			row, err := rowOf(o, r.GroupColumns, r.Columns)
			if err != nil {
				return nil, err
			}
			r.Rows[i] = row
		}
	}
	return r, nil
}

func edgeOf(o *Object) (graphresponse.Edge, error) {
	var e graphresponse.Edge
	if err := onlyKeys(o, "path_id", "step", "from", "from_id", "to", "to_id", "type", "depth"); err != nil {
		return e, err
	}
	var err error
	if e.From, err = stringField(o, "from", true); err != nil {
		return e, err
	}
	if e.To, err = stringField(o, "to", true); err != nil {
		return e, err
	}
	if e.Type, err = stringField(o, "type", true); err != nil {
		return e, err
	}
	var ok bool
	fid, _ := o.Get("from_id")
	if e.FromID, ok = idString(fid); !ok {
		return e, mappingErr("edge from_id is not an integer id")
	}
	tid, _ := o.Get("to_id")
	if e.ToID, ok = idString(tid); !ok {
		return e, mappingErr("edge to_id is not an integer id")
	}
	if e.Depth, err = optInt(o, "depth"); err != nil {
		return e, err
	}
	if e.PathID, err = optInt(o, "path_id"); err != nil {
		return e, err
	}
	if e.Step, err = optInt(o, "step"); err != nil {
		return e, err
	}
	return e, nil
}

func rowOf(o *Object, groups []graphresponse.GroupColumn, cols []graphresponse.Column) (graphresponse.Row, error) {
	row := graphresponse.Row{}
	used := 0
	for _, g := range groups {
		if g.Kind != graphresponse.GroupKindNode {
			if v, ok := o.Get(g.Name); ok {
				row = append(row, graphresponse.Member{Key: g.Name, Value: toValue(v)})
				used++
			}
			continue
		}
		prefix := g.Name + "."
		t, hasT := o.Get(prefix + "type")
		id, hasID := o.Get(prefix + "id")
		var props []graphresponse.Member
		for j, k := range o.keys {
			if p, ok := strings.CutPrefix(k, prefix); ok && p != "type" && p != "id" {
				props = append(props, graphresponse.Member{Key: p, Value: toValue(o.vals[j])})
			}
		}
		switch {
		case !hasT && !hasID && props == nil:
			continue
		case hasT && hasID && t == nil && id == nil && props == nil:
			row = append(row, graphresponse.Member{Key: g.Name, Value: graphresponse.Null()})
			used += 2
			continue
		}
		ts, okT := t.(string)
		var ids string
		switch x := id.(type) {
		case int64:
			ids = strconv.FormatInt(x, 10)
		case string:
			ids = x
		default:
			return nil, mappingErr("node cell " + g.Name + " has a bad id")
		}
		if !hasT || !hasID || !okT {
			return nil, mappingErr("node cell " + g.Name + " needs type and id")
		}
		used += 2 + len(props)
		row = append(row, graphresponse.Member{Key: g.Name, Value: graphresponse.NodeBucket(ts, ids, props)})
	}
	for _, c := range cols {
		if v, ok := o.Get(c.Name); ok {
			row = append(row, graphresponse.Member{Key: c.Name, Value: toValue(v)})
			used++
		}
	}
	if used != len(o.keys) {
		return nil, mappingErr("row has keys not named by group_columns or columns")
	}
	return row, nil
}

// propertyDigest returns the first 8 hex digits of SHA-256 over the sorted
// name TAB value LF records of a node's properties (§3.3.3).
func propertyDigest(props []graphresponse.Member, buf []byte) (string, []byte, error) {
	buf = buf[:0]
	for _, m := range graphresponse.SortedMembers(props) {
		buf = append(buf, m.Key...)
		buf = append(buf, '\t')
		var err error
		if buf, err = appendDigestValue(buf, m.Value); err != nil {
			return "", buf, err
		}
		buf = append(buf, '\n')
	}
	sum := sha256.Sum256(buf)
	var h [8]byte
	hex.Encode(h[:], sum[:4])
	return string(h[:]), buf, nil
}

func appendDigestValue(dst []byte, v graphresponse.Value) ([]byte, error) {
	switch v.Kind() {
	case graphresponse.KindNull:
		return append(dst, '-'), nil
	case graphresponse.KindBool:
		return strconv.AppendBool(dst, v.Bool()), nil
	case graphresponse.KindInt:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case graphresponse.KindUint:
		return strconv.AppendUint(dst, v.Uint(), 10), nil
	case graphresponse.KindFloat:
		f := v.Float()
		if !isFinite(f) {
			return dst, encErr(ErrNonFinite, "NaN or infinite property")
		}
		return appendFloat(dst, f), nil
	case graphresponse.KindString:
		return appendQuoted(dst, v.Str()), nil
	case graphresponse.KindArray:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendDigestValue(dst, e); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	dst = append(dst, '{')
	for i, m := range graphresponse.SortedMembers(v.Members()) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuoted(dst, m.Key)
		dst = append(dst, ':')
		var err error
		if dst, err = appendDigestValue(dst, m.Value); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// ToGraph builds the gcf-graph topology of r (§3.3): one symbol per node
// (kind = type, name = type:id, quantized score, provenance =
// query_type.digest, distance from the anchors), deduplicated edges, the
// extension header keys and the pack root over the quantized graph.
func ToGraph(r *graphresponse.Response, opts GraphOptions) (*Graph, error) {
	return toGraph(r, opts)
}

func toGraph(r *graphresponse.Response, opts GraphOptions) (*Graph, error) {
	if r.QueryType == graphresponse.QueryAggregation {
		return nil, &EncodeError{Path: "/query_type", Err: ErrUnsupportedQuery, Detail: "aggregation responses have no topology; use gcf"}
	}
	n := len(r.Nodes)
	g := &Graph{Symbols: make([]Symbol, n)}
	index := make(map[NodeRef]int, n)
	var buf []byte
	prov := r.QueryType + "."
	for i := range r.Nodes {
		nd := &r.Nodes[i]
		path := "/nodes/" + strconv.Itoa(i)
		if !isBareKey(nd.Type) || isKnownKind(nd.Type) {
			return nil, unrepresentable(path+"/type", "node type "+strconv.Quote(nd.Type)+" is not usable as a graph kind")
		}
		ref := NodeRef{nd.Type, nd.ID}
		if _, dup := index[ref]; dup {
			return nil, unrepresentable(path, "two nodes share type "+nd.Type+" and id "+strconv.FormatInt(nd.ID, 10))
		}
		index[ref] = i
		digest, b, err := propertyDigest(nd.Props, buf)
		buf = b
		if err != nil {
			return nil, atPath(err, path[1:])
		}
		score := 1.0
		if s, ok := opts.Scores[ref]; ok {
			if !isFinite(s) {
				return nil, &EncodeError{Path: path, Err: ErrNonFinite, Detail: "score is not finite"}
			}
			score = Quantize(s)
		}
		name := nd.Type + ":" + strconv.FormatInt(nd.ID, 10)
		g.Symbols[i] = Symbol{Kind: nd.Type, Name: name, Score: score, Provenance: prov + digest}
	}
	if r.QueryType != "" && !isToken(prov) {
		return nil, unrepresentable("/query_type", "query type must be printable non-space ASCII")
	}
	if err := assignDistances(r, opts, index, g.Symbols); err != nil {
		return nil, err
	}
	type edgeID struct {
		from, to NodeRef
		typ      string
	}
	seenEdges := make(map[edgeID]bool, len(r.Edges))
	omitted := 0
	g.Edges = make([]Edge, 0, len(r.Edges))
	for i := range r.Edges {
		e := &r.Edges[i]
		from, to := NodeRef{e.From, e.FromID}, NodeRef{e.To, e.ToID}
		fi, ok1 := index[from]
		ti, ok2 := index[to]
		if !ok1 || !ok2 {
			omitted++
			continue
		}
		typ := e.Type
		if typ == "" {
			typ = "_"
		}
		if !isToken(typ) {
			return nil, unrepresentable("/edges/"+strconv.Itoa(i)+"/type", "edge type must be printable non-space ASCII")
		}
		id := edgeID{from, to, typ}
		if seenEdges[id] {
			continue
		}
		seenEdges[id] = true
		g.Edges = append(g.Edges, Edge{Source: g.Symbols[fi].Name, Target: g.Symbols[ti].Name, SourceKind: e.From, TargetKind: e.To, Type: typ})
	}
	if r.QueryType != "" {
		g.Extra = append(g.Extra, Field{"query_type", r.QueryType})
	}
	if p := r.Pagination; p != nil {
		if p.HasMore {
			g.Extra = append(g.Extra, Field{"has_more", "true"})
		}
		if p.NextCursor != nil {
			if !isToken(*p.NextCursor) {
				return nil, unrepresentable("/pagination/next_cursor", "cursor does not fit the header grammar")
			}
			g.Extra = append(g.Extra, Field{"next_cursor", *p.NextCursor})
		}
	}
	if omitted > 0 {
		g.Extra = append(g.Extra, Field{"omitted_edges", strconv.Itoa(omitted)})
	}
	root, err := PackRoot(g)
	if err != nil {
		return nil, err
	}
	g.PackRoot = root
	return g, nil
}

// assignDistances sets each symbol's hop distance from the anchors (§3.3.4).
func assignDistances(r *graphresponse.Response, opts GraphOptions, index map[NodeRef]int, syms []Symbol) error {
	for i, d := range distances(r, opts.Anchors, index, len(syms)) {
		syms[i].Distance = d
	}
	return nil
}

// NodeDistances returns the hop distance of each node of r, in r.Nodes order, by gcf-graph's
// rule (§3.3.4): from anchors when any of them is a node of r, else neighbors anchor on the
// first node, path_finding on the sources of step-0 edges and the others on nodes no edge
// points to; a part of the graph no anchor reaches restarts at its first node. Edges end at
// the first of equal nodes. Other encoders that place nodes as gcf-graph does (gcb1) call it.
func NodeDistances(r *graphresponse.Response, anchors []NodeRef) []int {
	index := make(map[NodeRef]int, len(r.Nodes))
	for i := range r.Nodes {
		ref := NodeRef{r.Nodes[i].Type, r.Nodes[i].ID}
		if _, dup := index[ref]; !dup {
			index[ref] = i
		}
	}
	return distances(r, anchors, index, len(r.Nodes))
}

// distances is [NodeDistances] over n symbols whose positions index gives.
func distances(r *graphresponse.Response, anchors []NodeRef, index map[NodeRef]int, n int) []int {
	if n == 0 {
		return nil
	}
	dist := make([]int, n)
	for i := range dist {
		dist[i] = -1
	}
	// Undirected, deduplicated adjacency over edges between returned nodes.
	adj := make([][]int, n)
	indeg := make([]int, n)
	for i := range r.Edges {
		e := &r.Edges[i]
		a, ok1 := index[NodeRef{e.From, e.FromID}]
		b, ok2 := index[NodeRef{e.To, e.ToID}]
		if !ok1 || !ok2 || a == b {
			continue
		}
		indeg[b]++
		if !slices.Contains(adj[a], b) {
			adj[a] = append(adj[a], b)
			adj[b] = append(adj[b], a)
		}
	}
	queue := make([]int, 0, n)
	anchor := func(i int) {
		if dist[i] < 0 {
			dist[i] = 0
			queue = append(queue, i)
		}
	}
	for _, ref := range anchors {
		if i, ok := index[ref]; ok {
			anchor(i)
		}
	}
	if len(queue) == 0 {
		switch r.QueryType {
		case graphresponse.QueryNeighbors:
			anchor(0)
		case graphresponse.QueryPathFinding:
			for i := range r.Edges {
				e := &r.Edges[i]
				if e.Step.Valid && e.Step.Value == 0 {
					if a, ok := index[NodeRef{e.From, e.FromID}]; ok {
						anchor(a)
					}
				}
			}
		default:
			for i := range indeg {
				if indeg[i] == 0 {
					anchor(i)
				}
			}
		}
	}
	next := 0
	for {
		for head := 0; head < len(queue); head++ {
			u := queue[head]
			for _, v := range adj[u] {
				if dist[v] < 0 {
					dist[v] = dist[u] + 1
					queue = append(queue, v)
				}
			}
		}
		for next < n && dist[next] >= 0 {
			next++
		}
		if next == n {
			break
		}
		queue = queue[:0]
		anchor(next)
	}
	return dist
}

// FromGraph returns the topology-only response of a decoded gcf-graph
// payload (§3.3.8). References must have been resolved first
// ([ConsumerSession.Resolve]).
func FromGraph(g *Graph) (*graphresponse.Response, error) {
	if len(g.Refs) > 0 {
		return nil, mappingErr("resolve session references first")
	}
	r := &graphresponse.Response{FormatVersion: config.RawVersion(), Nodes: make([]graphresponse.Node, 0, len(g.Symbols)), Edges: make([]graphresponse.Edge, 0, len(g.Edges))}
	var hasMore, hasPag bool
	var cursor *string
	for _, f := range g.Extra {
		switch f.Key {
		case "query_type":
			r.QueryType = f.Value
		case "has_more":
			hasMore, hasPag = f.Value == "true", true
		case "next_cursor":
			c := f.Value
			cursor, hasPag = &c, true
		}
	}
	if hasPag {
		r.Pagination = &graphresponse.Pagination{HasMore: hasMore, Truncated: hasMore, NextCursor: cursor}
	}
	parse := func(name string) (string, int64, error) {
		t, id, ok := strings.Cut(name, ":")
		n, err := strconv.ParseInt(id, 10, 64)
		if !ok || err != nil {
			return "", 0, mappingErr("symbol name " + strconv.Quote(name) + " is not type:id")
		}
		return t, n, nil
	}
	for _, s := range g.Symbols {
		t, id, err := parse(s.Name)
		if err != nil {
			return nil, err
		}
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: t, ID: id, Props: []graphresponse.Member{}})
	}
	for _, e := range g.Edges {
		ft, fid, err := parse(e.Source)
		if err != nil {
			return nil, err
		}
		tt, tid, err := parse(e.Target)
		if err != nil {
			return nil, err
		}
		typ := e.Type
		if typ == "_" {
			typ = ""
		}
		r.Edges = append(r.Edges, graphresponse.Edge{From: ft, FromID: fid, To: tt, ToID: tid, Type: typ})
	}
	return r, nil
}

// Outcome is what [Respond] sent.
type Outcome uint8

const (
	// OutcomeFull is a full payload (session-aware when a session is active).
	OutcomeFull Outcome = iota
	// OutcomeDelta is a delta against the client's snapshot.
	OutcomeDelta
	// OutcomeUnchanged is a header-only unchanged payload.
	OutcomeUnchanged
)

// String returns "full", "delta" or "unchanged", the gcf-outcome values.
func (o Outcome) String() string {
	switch o {
	case OutcomeDelta:
		return "delta"
	case OutcomeUnchanged:
		return "unchanged"
	}
	return "full"
}

// GraphState is what the responder knows about the client: its session
// (nil for none), the root it echoed and the snapshot stored under that root
// (nil when unknown).
type GraphState struct {
	Session    *Session
	ClientRoot string
	Base       *Graph
}

// Respond writes the cheapest correct payload for cur (§2.10.3, §3.3.7):
// unchanged when the client already holds cur's root, a delta when a base
// snapshot is known and the delta is under 60% of the full payload,
// otherwise a full payload (a session payload when st.Session is set; the
// session is updated). cur must carry its PackRoot ([ToGraph] sets it).
func Respond(w io.Writer, cur *Graph, st GraphState, opts Options) (Outcome, error) {
	enc := NewEncoder(w, opts)
	if cur.Tool == "" {
		c := *cur
		c.Tool = opts.Tool
		cur = &c
	}
	if ValidRoot(st.ClientRoot) && st.ClientRoot == cur.PackRoot {
		return OutcomeUnchanged, enc.EncodeUnchanged(cur)
	}
	if st.Base != nil && ValidRoot(st.ClientRoot) {
		d, err := Delta(st.Base, cur)
		if err == nil && d.BaseRoot == st.ClientRoot {
			d.Tool = cur.Tool
			d.Extra = cur.Extra
			delta, err := appendDelta(nil, d)
			if err != nil {
				return OutcomeFull, err
			}
			var sess *Session
			if st.Session != nil {
				sess = st.Session.Clone()
			}
			full, err := appendGraph(nil, cur, sess)
			if err != nil {
				return OutcomeFull, err
			}
			if Worthwhile(len(delta), len(full)) {
				enc.buf = delta
				return OutcomeDelta, enc.flush()
			}
		}
	}
	var err error
	enc.buf, err = appendGraph(enc.buf[:0], cur, st.Session)
	if err != nil {
		return OutcomeFull, err
	}
	return OutcomeFull, enc.flush()
}
