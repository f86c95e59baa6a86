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

// MarshalResponse renders a GraphResponse as TOON (spec §7): it builds the
// shaped value of [ShapeResponse] and encodes it with opts. The graphwire
// output format uses the zero Options.
func MarshalResponse(r *graphresponse.Response, opts Options) ([]byte, error) {
	shape, err := ShapeResponse(r)
	if err != nil {
		return nil, err
	}
	e := &Encoder{opts: opts}
	if err := e.encodeModel(shape); err != nil {
		return nil, err
	}
	if e.buf == nil {
		return []byte{}, nil
	}
	return e.buf, nil
}

// EncodeResponse writes the TOON rendering of r (spec §7) as one document.
func (e *Encoder) EncodeResponse(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	shape, err := ShapeResponse(r)
	if err != nil {
		return err
	}
	return e.encodeModel(shape)
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
	byType := map[string][]*graphresponse.Node{}
	var types []string
	for i := range nodes {
		n := &nodes[i]
		if _, ok := byType[n.Type]; !ok {
			types = append(types, n.Type)
		}
		byType[n.Type] = append(byType[n.Type], n)
	}
	slices.Sort(types)
	out := make(Object, 0, len(types))
	for _, typ := range types {
		out = append(out, Member{typ, nodeTable(byType[typ])})
	}
	return out
}

// nodeTable builds the rows of one node type: id, the property columns, and
// _props when needed.
func nodeTable(nodes []*graphresponse.Node) []any {
	colSet := map[string]struct{}{}
	needProps := false
	for _, n := range nodes {
		for _, m := range n.Props {
			if cellText(m.Value) == "" {
				continue
			}
			if fieldSafe(m.Key) && m.Key != "id" && m.Key != "_props" {
				colSet[m.Key] = struct{}{}
			} else {
				needProps = true
			}
		}
	}
	cols := sortedKeys(colSet)
	rows := make([]any, len(nodes))
	for i, n := range nodes {
		o := make(Object, 0, len(cols)+2)
		o = append(o, Member{"id", strconv.FormatInt(n.ID, 10)})
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
	type triple struct{ typ, from, to string }
	groups := map[triple][]*graphresponse.Edge{}
	var keys []triple
	for _, e := range edges {
		k := triple{e.Type, e.From, e.To}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], e)
	}
	slices.SortFunc(keys, func(a, b triple) int {
		return cmp.Or(cmp.Compare(a.typ, b.typ), cmp.Compare(a.from, b.from), cmp.Compare(a.to, b.to))
	})
	var out Object
	for _, k := range keys {
		if len(out) == 0 || out[len(out)-1].Key != k.typ {
			out = append(out, Member{k.typ, Object{}})
		}
		byFrom := out[len(out)-1].Value.(Object)
		if len(byFrom) == 0 || byFrom[len(byFrom)-1].Key != k.from {
			byFrom = append(byFrom, Member{k.from, Object{}})
		}
		byTo := byFrom[len(byFrom)-1].Value.(Object)
		byTo = append(byTo, Member{k.to, edgeRows(groups[k])})
		byFrom[len(byFrom)-1].Value = byTo
		out[len(out)-1].Value = byFrom
	}
	return out
}

func edgeRows(edges []*graphresponse.Edge) []any {
	hasDepth, hasStep := false, false
	for _, e := range edges {
		hasDepth = hasDepth || e.Depth.Valid
		hasStep = hasStep || e.Step.Valid
	}
	rows := make([]any, len(edges))
	for i, e := range edges {
		o := make(Object, 0, 4)
		o = append(o, Member{"from_id", strconv.FormatInt(e.FromID, 10)}, Member{"to_id", strconv.FormatInt(e.ToID, 10)})
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
		colSet := map[string]struct{}{}
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
				if cellText(m.Value) == "" {
					continue
				}
				if fieldSafe(m.Key) && !bucketReserved(m.Key) {
					colSet[m.Key] = struct{}{}
				} else {
					needProps = true
				}
			}
		}
		cols := sortedKeys(colSet)
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

func sortedKeys(set map[string]struct{}) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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
