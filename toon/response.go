package toon

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// MarshalResponse renders a GraphResponse as TOON (spec §7): the encoding,
// with opts, of the shaped value of [ShapeResponse]. The graphwire output
// format uses the zero Options.
func MarshalResponse(r *graphresponse.Response, opts Options) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("toon: %w: nil response", ErrInvalidResponse)
	}
	e := &Encoder{opts: opts, buf: make([]byte, 0, sizeHint(r))}
	if err := e.encodeResponse(r); err != nil {
		return nil, err
	}
	if e.buf == nil {
		return []byte{}, nil
	}
	return e.buf, nil
}

// sizeHint estimates the size of the rendering of r, so that the output
// buffer rarely grows.
func sizeHint(r *graphresponse.Response) int {
	n := 256 + 24*len(r.Edges)
	for i := range r.Nodes {
		n += 16
		for _, m := range r.Nodes[i].Props {
			n += 4 + len(m.Value.Str())
			if m.Value.Kind() != graphresponse.KindString {
				n += 12
			}
		}
	}
	for _, row := range r.Rows {
		n += 16 * (len(row) + 1)
	}
	return n
}

// EncodeResponse writes the TOON rendering of r (spec §7) as one document.
func (e *Encoder) EncodeResponse(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	return e.encodeResponse(r)
}

// ShapeResponse builds the shaped value of spec §7.3 that the TOON rendering
// encodes: query_type, pagination flags, node tables per type, edges nested
// by relationship type → source type → target type, the path table, the
// column descriptors and the row table. Every array in it holds objects of
// one key set with primitive values, so TOON writes them as tables.
func ShapeResponse(r *graphresponse.Response) (Object, error) {
	if r == nil {
		return nil, fmt.Errorf("toon: %w: nil response", ErrInvalidResponse)
	}
	out := Object{{"query_type", r.QueryType}}
	if p := r.Pagination; p != nil {
		if p.HasMore {
			out = append(out, Member{"has_more", true})
		}
		if p.Truncated {
			out = append(out, Member{"truncated", true})
		}
		if p.NextCursor != nil {
			out = append(out, Member{"next_cursor", *p.NextCursor})
		}
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
	if len(r.Nodes) > 0 || empty {
		out = append(out, Member{"nodes", nodeTables(r.Nodes)})
	}
	if len(plain) > 0 {
		out = append(out, Member{"edges", edgeTables(plain)})
	}
	if len(paths) > 0 {
		out = append(out, Member{"paths", pathTable(paths)})
	}
	if hasColumns {
		cols, err := descriptorTable(r)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{"columns", cols})
	}
	if r.Rows != nil {
		rows, err := rowTable(r)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{"rows", rows})
	}
	return out, nil
}

// nodeTables groups nodes by type, types in ascending byte order.
func nodeTables(nodes []graphresponse.Node) Object {
	types, groups := groupNodes(nodes)
	out := make(Object, len(types))
	for i, typ := range types {
		out[i] = Member{typ, nodeTable(groups[i])}
	}
	return out
}

// groupNodes groups nodes by type: the types in ascending byte order and the
// nodes of each, in response order.
func groupNodes(nodes []graphresponse.Node) ([]string, [][]*graphresponse.Node) {
	count := map[string]int{}
	var types []string
	for i := range nodes {
		t := nodes[i].Type
		if _, ok := count[t]; !ok {
			types = append(types, t)
		}
		count[t]++
	}
	slices.Sort(types)
	// One backing array holds every group.
	start := make(map[string]int, len(types))
	at := 0
	for _, t := range types {
		start[t] = at
		at += count[t]
	}
	all := make([]*graphresponse.Node, len(nodes))
	for i := range nodes {
		t := nodes[i].Type
		all[start[t]] = &nodes[i]
		start[t]++
	}
	groups := make([][]*graphresponse.Node, len(types))
	at = 0
	for i, t := range types {
		n := count[t]
		groups[i] = all[at : at+n : at+n]
		at += n
	}
	return types, groups
}

// keySet collects distinct keys in first-seen order; small sets are
// searched linearly, larger ones through a map.
type keySet struct {
	keys []string
	m    map[string]struct{}
}

func (s *keySet) add(k string) {
	if s.m != nil {
		if _, ok := s.m[k]; !ok {
			s.m[k] = struct{}{}
			s.keys = append(s.keys, k)
		}
		return
	}
	if slices.Contains(s.keys, k) {
		return
	}
	s.keys = append(s.keys, k)
	if len(s.keys) > 16 {
		s.m = make(map[string]struct{}, 2*len(s.keys))
		for _, k := range s.keys {
			s.m[k] = struct{}{}
		}
	}
}

// sorted returns the keys in ascending byte order.
func (s *keySet) sorted() []string {
	slices.Sort(s.keys)
	return s.keys
}

// decimalStrings returns the decimal texts of n integers, cut from one
// string, so that a table's ids cost one allocation rather than one each.
func decimalStrings(n int, at func(int) int64) []string {
	buf := make([]byte, 0, 12*n)
	ends := make([]int, n)
	for i := range n {
		buf = strconv.AppendInt(buf, at(i), 10)
		ends[i] = len(buf)
	}
	all := string(buf)
	out := make([]string, n)
	prev := 0
	for i, e := range ends {
		out[i] = all[prev:e]
		prev = e
	}
	return out
}

// nodeTable builds the rows of one node type: id, the property columns, and
// _props when needed.
func nodeTable(nodes []*graphresponse.Node) []any {
	cols, needProps := nodeColumns(nodes)
	ids := decimalStrings(len(nodes), func(i int) int64 { return nodes[i].ID })
	width := len(cols) + 1
	if needProps {
		width++
	}
	slab := make([]Member, len(nodes)*width)
	rows := make([]any, len(nodes))
	for i, n := range nodes {
		o := Object(slab[:0:width])
		slab = slab[width:]
		o = append(o, Member{"id", ids[i]})
		for _, c := range cols {
			var v any
			if pv, ok := n.Prop(c); ok {
				v = shapeValue(pv)
			}
			o = append(o, Member{c, v})
		}
		if needProps {
			o = append(o, Member{"_props", propsJSON(n.Props, nodeReserved)})
		}
		rows[i] = o
	}
	return rows
}

// nodeColumns returns the property columns of a node table in ascending
// byte order, and whether it needs _props.
func nodeColumns(nodes []*graphresponse.Node) ([]string, bool) {
	var colSet keySet
	needProps := false
	for _, n := range nodes {
		for _, m := range n.Props {
			if cellEmpty(m.Value) {
				continue
			}
			if fieldSafe(m.Key) && m.Key != "id" && m.Key != "_props" {
				colSet.add(m.Key)
			} else {
				needProps = true
			}
		}
	}
	return colSet.sorted(), needProps
}

func nodeReserved(k string) bool { return k == "id" || k == "_props" }

func bucketReserved(k string) bool { return k == "type" || k == "id" || k == "_props" }

// propsJSON returns the _props text: a compact JSON object, keys in
// ascending byte order, mapping every unsafe or reserved key to the cell
// text of its value, values with empty text left out. It is nil when no such
// key has a value.
func propsJSON(props []graphresponse.Member, reserved func(string) bool) any {
	type kv struct{ k, v string }
	var extra []kv
	for _, m := range props {
		if fieldSafe(m.Key) && !reserved(m.Key) {
			continue
		}
		if t := cellText(m.Value); t != "" {
			extra = append(extra, kv{m.Key, t})
		}
	}
	if len(extra) == 0 {
		return nil
	}
	slices.SortFunc(extra, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
	b := []byte{'{'}
	for i, e := range extra {
		if i > 0 {
			b = append(b, ',')
		}
		b = graphresponse.AppendQuotedJSON(b, e.k)
		b = append(b, ':')
		b = graphresponse.AppendQuotedJSON(b, e.v)
	}
	return string(append(b, '}'))
}

// edgeTables nests plain edges by type → from → to, keys in ascending byte
// order, edges in response order.
func edgeTables(edges []*graphresponse.Edge) Object {
	keys, groups := groupEdges(edges)
	var out Object
	for i, k := range keys {
		if len(out) == 0 || out[len(out)-1].Key != k.typ {
			out = append(out, Member{k.typ, Object{}})
		}
		byFrom := out[len(out)-1].Value.(Object)
		if len(byFrom) == 0 || byFrom[len(byFrom)-1].Key != k.from {
			byFrom = append(byFrom, Member{k.from, Object{}})
		}
		byTo := byFrom[len(byFrom)-1].Value.(Object)
		byTo = append(byTo, Member{k.to, edgeRows(groups[i])})
		byFrom[len(byFrom)-1].Value = byTo
		out[len(out)-1].Value = byFrom
	}
	return out
}

// edgeGroup names one edge table: relationship type, source type, target
// type.
type edgeGroup struct{ typ, from, to string }

// groupEdges groups edges by type, source and target type: the groups in
// ascending byte order, and the edges of each in response order.
func groupEdges(edges []*graphresponse.Edge) ([]edgeGroup, [][]*graphresponse.Edge) {
	index := map[edgeGroup]int{}
	var keys []edgeGroup
	var groups [][]*graphresponse.Edge
	for _, e := range edges {
		k := edgeGroup{e.Type, e.From, e.To}
		i, ok := index[k]
		if !ok {
			i = len(keys)
			index[k] = i
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], e)
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := keys[a], keys[b]
		return cmp.Or(cmp.Compare(x.typ, y.typ), cmp.Compare(x.from, y.from), cmp.Compare(x.to, y.to))
	})
	sk := make([]edgeGroup, len(keys))
	sg := make([][]*graphresponse.Edge, len(keys))
	for i, j := range order {
		sk[i], sg[i] = keys[j], groups[j]
	}
	return sk, sg
}

func edgeRows(edges []*graphresponse.Edge) []any {
	hasDepth, hasStep := false, false
	for _, e := range edges {
		hasDepth = hasDepth || e.Depth.Valid
		hasStep = hasStep || e.Step.Valid
	}
	rows := make([]any, len(edges))
	ids := decimalStrings(2*len(edges), func(i int) int64 {
		if i%2 == 0 {
			return edges[i/2].FromID
		}
		return edges[i/2].ToID
	})
	slab := make([]Member, 4*len(edges))
	for i, e := range edges {
		o := Object(slab[:0:4])
		slab = slab[4:]
		o = append(o, Member{"from_id", ids[2*i]}, Member{"to_id", ids[2*i+1]})
		if hasDepth {
			o = append(o, Member{"depth", optInt(e.Depth)})
		}
		if hasStep {
			o = append(o, Member{"step", optInt(e.Step)})
		}
		rows[i] = o
	}
	return rows
}

func pathTable(edges []*graphresponse.Edge) []any {
	hasDepth := false
	for _, e := range edges {
		hasDepth = hasDepth || e.Depth.Valid
	}
	rows := make([]any, len(edges))
	for i, e := range edges {
		o := Object{
			{"path_id", optInt(e.PathID)},
			{"step", optInt(e.Step)},
			{"from", e.From},
			{"from_id", strconv.FormatInt(e.FromID, 10)},
			{"type", e.Type},
			{"to", e.To},
			{"to_id", strconv.FormatInt(e.ToID, 10)},
		}
		if hasDepth {
			o = append(o, Member{"depth", optInt(e.Depth)})
		}
		rows[i] = o
	}
	return rows
}

func optInt(o graphresponse.OptInt) any {
	if !o.Valid {
		return nil
	}
	return json.Number(strconv.FormatInt(o.Value, 10))
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func descriptorTable(r *graphresponse.Response) ([]any, error) {
	rows := make([]any, 0, len(r.GroupColumns)+len(r.Columns))
	for _, g := range r.GroupColumns {
		if g.Kind != graphresponse.GroupKindNode && g.Kind != graphresponse.GroupKindProperty {
			return nil, fmt.Errorf("toon: %w: group column %q has kind %q", ErrInvalidResponse, g.Name, g.Kind)
		}
		rows = append(rows, Object{
			{"name", nullIfEmpty(g.Name)},
			{"kind", g.Kind},
			{"function", nil},
			{"alias", nullIfEmpty(g.Node)},
			{"property", nullIfEmpty(g.Property)},
			{"entity", nullIfEmpty(g.Entity)},
		})
	}
	for _, c := range r.Columns {
		rows = append(rows, Object{
			{"name", nullIfEmpty(c.Name)},
			{"kind", "metric"},
			{"function", nullIfEmpty(c.Function)},
			{"alias", nullIfEmpty(c.Target)},
			{"property", nullIfEmpty(c.Property)},
			{"entity", nil},
		})
	}
	return rows, nil
}

// sanitizeNames applies the GCX row-name rule: bytes outside [A-Za-z0-9_-]
// become '_', an empty name becomes '_', and repeats get ~2, ~3, … in
// column order.
func sanitizeNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]int{}
	for i, n := range names {
		b := []byte(n)
		for j, c := range b {
			if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
				b[j] = '_'
			}
		}
		s := string(b)
		if s == "" {
			s = "_"
		}
		seen[s]++
		if k := seen[s]; k > 1 {
			s += "~" + strconv.Itoa(k)
		}
		out[i] = s
	}
	return out
}

// bucket is a node-kind row cell.
type bucket struct {
	null  bool
	typ   string
	id    string
	props []graphresponse.Member
}

func readBucket(v graphresponse.Value, present bool, col string) (bucket, error) {
	if !present || v.IsNull() {
		return bucket{null: true}, nil
	}
	t, okT := v.Get("type")
	id, okID := v.Get("id")
	if v.Kind() != graphresponse.KindObject || !okT || !okID || t.Kind() != graphresponse.KindString || id.Kind() != graphresponse.KindString {
		return bucket{}, fmt.Errorf("toon: %w: node group %q holds %s, want null or an object with string type and id", ErrInvalidResponse, col, graphresponse.AppendValueJSON(nil, v))
	}
	if cellText(id) == "" {
		return bucket{null: true}, nil
	}
	b := bucket{typ: t.Str(), id: id.Str()}
	if p, ok := v.Get("properties"); ok {
		b.props = p.Members()
	}
	return b, nil
}

func rowTable(r *graphresponse.Response) ([]any, error) {
	names := make([]string, 0, len(r.GroupColumns)+len(r.Columns))
	for _, g := range r.GroupColumns {
		names = append(names, g.Name)
	}
	for _, c := range r.Columns {
		names = append(names, c.Name)
	}
	safe := sanitizeNames(names)
	rows := make([]Object, len(r.Rows))
	for i := range rows {
		rows[i] = make(Object, 0, len(names)+2)
	}
	for gi, g := range r.GroupColumns {
		n := safe[gi]
		if g.Kind == graphresponse.GroupKindProperty {
			for i, row := range r.Rows {
				var v any
				if cv, ok := row.Get(g.Name); ok {
					v = shapeValue(cv)
				}
				rows[i] = append(rows[i], Member{n, v})
			}
			continue
		}
		if g.Kind != graphresponse.GroupKindNode {
			return nil, fmt.Errorf("toon: %w: group column %q has kind %q", ErrInvalidResponse, g.Name, g.Kind)
		}
		buckets := make([]bucket, len(r.Rows))
		withType := g.Entity == ""
		var colSet keySet
		needProps := false
		for i, row := range r.Rows {
			cv, ok := row.Get(g.Name)
			b, err := readBucket(cv, ok, g.Name)
			if err != nil {
				return nil, err
			}
			buckets[i] = b
			if b.null {
				continue
			}
			if b.typ != g.Entity {
				withType = true
			}
			for _, m := range b.props {
				if cellEmpty(m.Value) {
					continue
				}
				if fieldSafe(m.Key) && !bucketReserved(m.Key) {
					colSet.add(m.Key)
				} else {
					needProps = true
				}
			}
		}
		cols := colSet.sorted()
		for i, b := range buckets {
			if withType {
				rows[i] = append(rows[i], Member{n + ".type", nullOr(b, b.typ)})
			}
			rows[i] = append(rows[i], Member{n + ".id", nullOr(b, b.id)})
			for _, c := range cols {
				var v any
				if !b.null {
					for _, m := range b.props {
						if m.Key == c {
							v = shapeValue(m.Value)
							break
						}
					}
				}
				rows[i] = append(rows[i], Member{n + "." + c, v})
			}
			if needProps {
				var v any
				if !b.null {
					v = propsJSON(b.props, bucketReserved)
				}
				rows[i] = append(rows[i], Member{n + "._props", v})
			}
		}
	}
	for ci, c := range r.Columns {
		n := safe[len(r.GroupColumns)+ci]
		for i, row := range r.Rows {
			var v any
			if cv, ok := row.Get(c.Name); ok {
				v = shapeValue(cv)
			}
			rows[i] = append(rows[i], Member{n, v})
		}
	}
	out := make([]any, len(rows))
	for i, o := range rows {
		out[i] = o
	}
	return out, nil
}

func nullOr(b bucket, s string) any {
	if b.null {
		return nil
	}
	return s
}

// fieldSafe is the GCX field-name rule: non-empty, no byte 0x00–0x20, no
// DEL, no backslash and no comma.
func fieldSafe(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= 0x20 || c == 0x7f || c == '\\' || c == ',' {
			return false
		}
	}
	return true
}

// shapeValue maps a response value into the shaped value: strings, booleans
// and finite numbers as themselves (numbers canonical), NaN and ±Inf as
// null, nested lists and maps as their compact JSON text.
func shapeValue(v graphresponse.Value) any {
	switch v.Kind() {
	case graphresponse.KindNull:
		return nil
	case graphresponse.KindBool:
		return v.Bool()
	case graphresponse.KindInt:
		return json.Number(strconv.FormatInt(v.Int(), 10))
	case graphresponse.KindUint:
		return json.Number(strconv.FormatUint(v.Uint(), 10))
	case graphresponse.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return json.Number(formatFloat(f))
	case graphresponse.KindString:
		return v.Str()
	}
	return string(appendNestedJSON(nil, v))
}

// cellEmpty reports whether [cellText] of v is empty, without building the
// text.
func cellEmpty(v graphresponse.Value) bool {
	switch v.Kind() {
	case graphresponse.KindNull:
		return true
	case graphresponse.KindBool, graphresponse.KindInt, graphresponse.KindUint:
		return false
	case graphresponse.KindFloat:
		f := v.Float()
		return math.IsNaN(f) || math.IsInf(f, 0)
	case graphresponse.KindString:
		return strings.Trim(v.Str(), "\r") == ""
	}
	return cellText(v) == ""
}

// cellText is the GCX FormatCell text of a value, used to decide which
// columns exist and what _props holds.
func cellText(v graphresponse.Value) string {
	switch v.Kind() {
	case graphresponse.KindNull:
		return ""
	case graphresponse.KindBool:
		return strconv.FormatBool(v.Bool())
	case graphresponse.KindInt:
		return strconv.FormatInt(v.Int(), 10)
	case graphresponse.KindUint:
		return strconv.FormatUint(v.Uint(), 10)
	case graphresponse.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ""
		}
		return formatFloat(f)
	case graphresponse.KindString:
		s := v.Str()
		if strings.IndexByte(s, '\r') >= 0 {
			s = strings.ReplaceAll(s, "\r", "")
		}
		return s
	}
	return string(appendNestedJSON(nil, v))
}

// appendNestedJSON writes a nested value as compact JSON: object keys in
// ascending byte order, canonical numbers, non-finite floats as null, no
// HTML escaping.
func appendNestedJSON(dst []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindArray:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNestedJSON(dst, e)
		}
		return append(dst, ']')
	case graphresponse.KindObject:
		dst = append(dst, '{')
		for i, m := range graphresponse.SortedMembers(v.Members()) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = graphresponse.AppendQuotedJSON(dst, m.Key)
			dst = append(dst, ':')
			dst = appendNestedJSON(dst, m.Value)
		}
		return append(dst, '}')
	case graphresponse.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(dst, "null"...)
		}
		return appendFloat(dst, f)
	}
	return graphresponse.AppendValueJSON(dst, v)
}
