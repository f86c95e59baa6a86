package gcx

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// Tools of the graph mapping (spec §11.4).
const (
	toolNodes   = "graph.nodes"
	toolEdges   = "graph.edges"
	toolPaths   = "graph.paths"
	toolColumns = "graph.columns"
	toolRows    = "graph.rows"
)

// builder collects the cells of every section in one byte buffer, so that
// the finished sections cost one string conversion rather than one per
// cell.
type builder struct {
	text   []byte
	secs   []*secBuild
	crOnly int // string values that only lost CRs, see countCR
}

type secBuild struct {
	tool    string
	fields  []string
	meta    map[string]string
	ends    []int // end offset in text of each cell, row by row
	base    int   // start offset of the first cell
	n       int   // number of rows
	ordinal bool  // add the "#" ordinal field when finishing
}

func (b *builder) begin(tool string, fields []string, meta map[string]string) *secBuild {
	s := &secBuild{tool: tool, fields: fields, meta: meta, base: len(b.text)}
	b.secs = append(b.secs, s)
	return s
}

func (b *builder) end(s *secBuild) { s.ends = append(s.ends, len(b.text)) }

// str appends a string cell without its CRs (spec §11.2).
func (b *builder) str(s *secBuild, v string) {
	b.countCR(v)
	b.text = appendNoCR(b.text, v)
	b.end(s)
}

func (b *builder) int(s *secBuild, v int64) {
	b.text = strconv.AppendInt(b.text, v, 10)
	b.end(s)
}

func (b *builder) opt(s *secBuild, v graphresponse.OptInt) {
	if v.Valid {
		b.text = strconv.AppendInt(b.text, v.Value, 10)
	}
	b.end(s)
}

func (b *builder) value(s *secBuild, v graphresponse.Value) {
	if v.Kind() == graphresponse.KindString {
		b.countCR(v.Str())
	}
	b.text = appendValueCell(b.text, v)
	b.end(s)
}

func (b *builder) empty(s *secBuild) { b.end(s) }

// countCR counts a string value that loses CRs to its cell text, unless
// the cell escaping will count the cell anyway (it writes a marker for it),
// so that every altered value counts once (see [Encoder.Altered]).
func (b *builder) countCR(v string) {
	if strings.IndexByte(v, '\r') < 0 {
		return
	}
	if textsafe.Index(cellText(v), tabOrLF) < 0 {
		b.crOnly++
	}
}

// tabOrLF is the keep set of the cell escaping: TAB and LF have escapes.
func tabOrLF(r rune) bool { return r == '\t' || r == '\n' }

func (s *secBuild) rows() int { return s.n }

// finish turns the collected cells into sections.
func (b *builder) finish() []Section {
	text := string(b.text)
	ncells, nrows := 0, 0
	for _, s := range b.secs {
		ncells += len(s.ends)
		nrows += s.rows()
	}
	cells := make([]string, ncells)
	rows := make([][]string, nrows)
	out := make([]Section, len(b.secs))
	for i, s := range b.secs {
		n := s.rows()
		sec := Section{Tool: s.tool, Fields: s.fields, Meta: s.meta, Rows: rows[:n:n]}
		rows = rows[n:]
		width := len(s.fields)
		if s.ordinal {
			width--
		}
		start := s.base
		for r := range n {
			var row []string
			if width == 0 {
				// An ordinal-only row: no collected cell.
				row = []string{strconv.Itoa(r + 1)}
			} else {
				row = cells[:width:width]
				cells = cells[width:]
				for c := range width {
					end := s.ends[r*width+c]
					row[c] = text[start:end]
					start = end
				}
				if s.ordinal {
					row = append([]string{strconv.Itoa(r + 1)}, row...)
				}
			}
			sec.Rows[r] = row
		}
		out[i] = sec
	}
	return out
}

// Sections returns the sections of the GCX1 form of r (spec §11): node
// sections per type, then a catch-all node section, edge sections per
// (type, from, to), mixed edges, paths, aggregation columns and rows. The
// first section carries the response meta. It fails with an error wrapping
// [ErrInvalidResponse] for a group column of unknown kind or a malformed
// node bucket, and with one wrapping [ErrUnsafeName] for a query type or
// cursor that cannot stand in a header.
func Sections(r *graphresponse.Response) ([]Section, error) {
	secs, _, err := sections(r)
	return secs, err
}

// sections is Sections that also returns how many string values lost a CR
// and need no marker (builder.countCR).
func sections(r *graphresponse.Response) ([]Section, int, error) {
	if r == nil {
		return nil, 0, fmt.Errorf("nil response: %w", ErrInvalidResponse)
	}
	if !headerSafe(r.QueryType) {
		return nil, 0, fmt.Errorf("query_type %q: %w", r.QueryType, ErrUnsafeName)
	}
	if p := r.Pagination; p != nil && p.NextCursor != nil && !headerSafe(*p.NextCursor) {
		return nil, 0, fmt.Errorf("next_cursor %q: %w", *p.NextCursor, ErrUnsafeName)
	}
	var b builder
	b.nodes(r.Nodes)
	b.edges(r.Edges)
	if err := b.aggregation(r); err != nil {
		return nil, 0, err
	}
	if len(b.secs) == 0 {
		b.begin(toolNodes, []string{"id", "type"}, map[string]string{"rows": "0"})
	}
	m := b.secs[0].meta
	m["query_type"] = r.QueryType
	if p := r.Pagination; p != nil {
		if p.HasMore {
			m["has_more"] = "true"
		}
		if p.Truncated {
			m["truncated"] = "true"
		}
		if p.NextCursor != nil {
			m["next_cursor"] = *p.NextCursor
		}
	}
	return b.finish(), b.crOnly, nil
}

// valueNonEmpty reports whether the cell text of v is non-empty.
func valueNonEmpty(v graphresponse.Value) bool {
	switch v.Kind() {
	case graphresponse.KindNull:
		return false
	case graphresponse.KindString:
		return strings.Trim(v.Str(), "\r") != ""
	case graphresponse.KindFloat:
		f := v.Float()
		return f == f && f-f == 0 // finite
	}
	return true
}

// typeName returns the cell text of a type name and whether it may stand
// in header meta. Deciding on the cell text keeps re-encoding a decoded
// response byte-identical.
func typeName(s string) (string, bool) {
	t := cellText(s)
	return t, t != "" && headerSafe(t)
}

// propColumns returns the field-safe, non-reserved keys with a non-empty
// value over props, sorted, and whether any other key has a non-empty value
// (which then goes to _props).
func propColumns(lists [][]graphresponse.Member, reserved func(string) bool) ([]string, bool) {
	var keys []string
	seen := map[string]bool{}
	needProps := false
	for _, props := range lists {
		for _, m := range props {
			if !valueNonEmpty(m.Value) {
				continue
			}
			if !fieldSafe(m.Key) || reserved(m.Key) {
				needProps = true
				continue
			}
			if !seen[m.Key] {
				seen[m.Key] = true
				keys = append(keys, m.Key)
			}
		}
	}
	slices.Sort(keys)
	return keys, needProps
}

func getMember(ms []graphresponse.Member, key string) graphresponse.Value {
	for _, m := range ms {
		if m.Key == key {
			return m.Value
		}
	}
	return graphresponse.Value{}
}

// appendPropsJSON appends the _props object: the unsafe or reserved keys
// with non-empty values, sorted, each mapped to its cell text.
func appendPropsJSON(dst []byte, props []graphresponse.Member, reserved func(string) bool) []byte {
	var extra []graphresponse.Member
	for _, m := range props {
		if valueNonEmpty(m.Value) && (!fieldSafe(m.Key) || reserved(m.Key)) {
			extra = append(extra, m)
		}
	}
	if len(extra) == 0 {
		return dst
	}
	slices.SortStableFunc(extra, compareKeys)
	dst = append(dst, '{')
	var cell []byte
	for i, m := range extra {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = graphresponse.AppendQuotedJSON(dst, m.Key)
		dst = append(dst, ':')
		cell = appendValueCell(cell[:0], m.Value)
		dst = graphresponse.AppendQuotedJSON(dst, string(cell))
	}
	return append(dst, '}')
}

func reservedTyped(k string) bool    { return k == "id" || k == "_props" }
func reservedCatchAll(k string) bool { return k == "id" || k == "type" || k == "_props" }
func reservedBucket(k string) bool   { return k == "id" || k == "type" || k == "_props" }

// nodeOrder splits node indexes into typed groups, sorted by type text,
// and the catch-all, in response order.
func nodeOrder(nodes []graphresponse.Node) (types []string, groups [][]int, rest []int) {
	at := map[string]int{}
	for i := range nodes {
		t, ok := typeName(nodes[i].Type)
		if !ok {
			rest = append(rest, i)
			continue
		}
		g, found := at[t]
		if !found {
			g = len(types)
			at[t] = g
			types = append(types, t)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	perm := make([]int, len(types))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, b int) int { return cmp.Compare(types[a], types[b]) })
	st, sg := make([]string, len(types)), make([][]int, len(types))
	for i, p := range perm {
		st[i], sg[i] = types[p], groups[p]
	}
	return st, sg, rest
}

func (b *builder) nodes(nodes []graphresponse.Node) {
	types, groups, rest := nodeOrder(nodes)
	for g, typ := range types {
		b.nodeSection(nodes, groups[g], typ, true)
	}
	if len(rest) > 0 {
		b.nodeSection(nodes, rest, "", false)
	}
}

func (b *builder) nodeSection(nodes []graphresponse.Node, idx []int, typ string, typed bool) {
	reserved := reservedCatchAll
	fields := []string{"id", "type"}
	meta := map[string]string{"rows": strconv.Itoa(len(idx))}
	if typed {
		reserved = reservedTyped
		fields = []string{"id"}
		meta["type"] = typ
	}
	lists := make([][]graphresponse.Member, len(idx))
	for i, n := range idx {
		lists[i] = nodes[n].Props
	}
	keys, needProps := propColumns(lists, reserved)
	fields = append(fields, keys...)
	if needProps {
		fields = append(fields, "_props")
	}
	s := b.begin(toolNodes, fields, meta)
	s.n = len(idx)
	for _, n := range idx {
		node := &nodes[n]
		b.int(s, node.ID)
		if !typed {
			b.str(s, node.Type)
		}
		for _, k := range keys {
			b.value(s, getMember(node.Props, k))
		}
		if needProps {
			b.text = appendPropsJSON(b.text, node.Props, reserved)
			b.end(s)
		}
	}
}

type edgeKey struct{ typ, from, to string }

func (b *builder) edges(edges []graphresponse.Edge) {
	var keys []edgeKey
	var groups [][]int
	at := map[edgeKey]int{}
	var mixed, paths []int
	for i := range edges {
		e := &edges[i]
		if e.PathID.Valid {
			paths = append(paths, i)
			continue
		}
		t, ok1 := typeName(e.Type)
		f, ok2 := typeName(e.From)
		to, ok3 := typeName(e.To)
		if !ok1 || !ok2 || !ok3 {
			mixed = append(mixed, i)
			continue
		}
		k := edgeKey{t, f, to}
		g, found := at[k]
		if !found {
			g = len(keys)
			at[k] = g
			keys = append(keys, k)
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	perm := make([]int, len(keys))
	for i := range perm {
		perm[i] = i
	}
	slices.SortFunc(perm, func(a, c int) int {
		ka, kc := keys[a], keys[c]
		return cmp.Or(cmp.Compare(ka.typ, kc.typ), cmp.Compare(ka.from, kc.from), cmp.Compare(ka.to, kc.to))
	})
	for _, p := range perm {
		k, idx := keys[p], groups[p]
		depth, step := optUse(edges, idx)
		fields := []string{"from_id", "to_id"}
		if depth {
			fields = append(fields, "depth")
		}
		if step {
			fields = append(fields, "step")
		}
		s := b.begin(toolEdges, fields, map[string]string{
			"type": k.typ, "from": k.from, "to": k.to, "rows": strconv.Itoa(len(idx)),
		})
		s.n = len(idx)
		for _, i := range idx {
			e := &edges[i]
			b.int(s, e.FromID)
			b.int(s, e.ToID)
			if depth {
				b.opt(s, e.Depth)
			}
			if step {
				b.opt(s, e.Step)
			}
		}
	}
	if len(mixed) > 0 {
		depth, step := optUse(edges, mixed)
		fields := []string{"from", "from_id", "type", "to", "to_id"}
		if depth {
			fields = append(fields, "depth")
		}
		if step {
			fields = append(fields, "step")
		}
		s := b.begin(toolEdges, fields, map[string]string{"rows": strconv.Itoa(len(mixed))})
		s.n = len(mixed)
		for _, i := range mixed {
			e := &edges[i]
			b.str(s, e.From)
			b.int(s, e.FromID)
			b.str(s, e.Type)
			b.str(s, e.To)
			b.int(s, e.ToID)
			if depth {
				b.opt(s, e.Depth)
			}
			if step {
				b.opt(s, e.Step)
			}
		}
	}
	if len(paths) > 0 {
		depth, _ := optUse(edges, paths)
		fields := []string{"path_id", "step", "from", "from_id", "type", "to", "to_id"}
		if depth {
			fields = append(fields, "depth")
		}
		s := b.begin(toolPaths, fields, map[string]string{"rows": strconv.Itoa(len(paths))})
		s.n = len(paths)
		for _, i := range paths {
			e := &edges[i]
			b.opt(s, e.PathID)
			b.opt(s, e.Step)
			b.str(s, e.From)
			b.int(s, e.FromID)
			b.str(s, e.Type)
			b.str(s, e.To)
			b.int(s, e.ToID)
			if depth {
				b.opt(s, e.Depth)
			}
		}
	}
}

func optUse(edges []graphresponse.Edge, idx []int) (depth, step bool) {
	for _, i := range idx {
		depth = depth || edges[i].Depth.Valid
		step = step || edges[i].Step.Valid
	}
	return depth, step
}

// Kinds of the columns of graph.rows.
const (
	colProperty = iota
	colNode
	colMetric
)

// rowColumn is the plan of one declared column in graph.rows.
type rowColumn struct {
	kind     int
	name     string // the row key
	field    string // sanitised name
	entity   string // cell text of the entity
	withType bool
	keys     []string
	props    bool
}

// sanitize maps an aggregation alias to a field name (spec §11.3): every
// byte of its cell text outside [A-Za-z0-9_-] becomes "_", and an empty
// name becomes "_". Using the cell text makes the name of a decoded
// (CR-free) response the same.
func sanitize(name string) string {
	t := []byte(cellText(name))
	for i, c := range t {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			t[i] = '_'
		}
	}
	if len(t) == 0 {
		return "_"
	}
	return string(t)
}

// rowFields returns the sanitised, de-duplicated field names of the
// aggregation columns: group columns, then metrics.
func rowFields(groups []graphresponse.GroupColumn, cols []graphresponse.Column) []string {
	out := make([]string, 0, len(groups)+len(cols))
	count := map[string]int{}
	add := func(name string) {
		s := sanitize(name)
		count[s]++
		if n := count[s]; n > 1 {
			s += "~" + strconv.Itoa(n)
		}
		out = append(out, s)
	}
	for _, g := range groups {
		add(g.Name)
	}
	for _, c := range cols {
		add(c.Name)
	}
	return out
}

// bucket is a node bucket checked by nodeBucket.
type bucket struct {
	null    bool
	typ, id string // cell texts
	props   []graphresponse.Member
}

// nodeBucket reads a node-kind row cell: null, or an object with string
// type and id and optional object properties.
func nodeBucket(v graphresponse.Value) (bucket, error) {
	if v.IsNull() {
		return bucket{null: true}, nil
	}
	t, okT := v.Get("type")
	id, okID := v.Get("id")
	if v.Kind() != graphresponse.KindObject || !okT || !okID || t.Kind() != graphresponse.KindString || id.Kind() != graphresponse.KindString {
		return bucket{}, fmt.Errorf("node cell %#v: %w", v, ErrInvalidResponse)
	}
	p, okP := v.Get("properties")
	if okP && p.Kind() != graphresponse.KindObject {
		return bucket{}, fmt.Errorf("node cell properties %#v: %w", p, ErrInvalidResponse)
	}
	idText := cellText(id.Str())
	if idText == "" {
		return bucket{null: true}, nil
	}
	return bucket{typ: cellText(t.Str()), id: idText, props: p.Members()}, nil
}

func (b *builder) aggregation(r *graphresponse.Response) error {
	for _, g := range r.GroupColumns {
		if g.Kind != graphresponse.GroupKindNode && g.Kind != graphresponse.GroupKindProperty {
			return fmt.Errorf("group column %q kind %q: %w", g.Name, g.Kind, ErrInvalidResponse)
		}
	}
	if len(r.GroupColumns)+len(r.Columns) > 0 {
		n := len(r.GroupColumns) + len(r.Columns)
		s := b.begin(toolColumns, []string{"name", "kind", "function", "alias", "property", "entity"},
			map[string]string{"rows": strconv.Itoa(n)})
		s.n = n
		for _, g := range r.GroupColumns {
			b.str(s, g.Name)
			b.str(s, g.Kind)
			b.empty(s)
			b.str(s, g.Node)
			b.str(s, g.Property)
			b.str(s, g.Entity)
		}
		for _, c := range r.Columns {
			b.str(s, c.Name)
			b.str(s, "metric")
			b.str(s, c.Function)
			b.str(s, c.Target)
			b.str(s, c.Property)
			b.empty(s)
		}
	}
	if r.Rows == nil {
		return nil
	}
	names := rowFields(r.GroupColumns, r.Columns)
	plan := make([]rowColumn, 0, len(names))
	var fields []string
	groups := 0
	for i, g := range r.GroupColumns {
		c := rowColumn{kind: colProperty, name: g.Name, field: names[i]}
		if g.Kind == graphresponse.GroupKindNode {
			c.kind = colNode
			c.entity = cellText(g.Entity)
			var lists [][]graphresponse.Member
			for _, row := range r.Rows {
				v, _ := row.Get(g.Name)
				bk, err := nodeBucket(v)
				if err != nil {
					return fmt.Errorf("group column %q: %w", g.Name, err)
				}
				if bk.null {
					continue
				}
				if c.entity == "" || bk.typ != c.entity {
					c.withType = true
				}
				lists = append(lists, bk.props)
			}
			c.keys, c.props = propColumns(lists, reservedBucket)
			p := c.field + "."
			if c.withType {
				fields = append(fields, p+"type")
			}
			fields = append(fields, p+"id")
			for _, k := range c.keys {
				fields = append(fields, p+k)
			}
			if c.props {
				fields = append(fields, p+"_props")
			}
		} else {
			fields = append(fields, c.field)
		}
		plan = append(plan, c)
	}
	groups = len(fields)
	for i, col := range r.Columns {
		plan = append(plan, rowColumn{kind: colMetric, name: col.Name, field: names[len(r.GroupColumns)+i]})
		fields = append(fields, names[len(r.GroupColumns)+i])
	}
	s := b.begin(toolRows, fields, map[string]string{"groups": strconv.Itoa(groups), "rows": strconv.Itoa(len(r.Rows))})
	s.n = len(r.Rows)
	for _, row := range r.Rows {
		for i := range plan {
			c := &plan[i]
			v, _ := row.Get(c.name)
			if c.kind != colNode {
				b.value(s, v)
				continue
			}
			bk, _ := nodeBucket(v) // checked above
			if bk.null {
				n := 1 + len(c.keys)
				if c.withType {
					n++
				}
				if c.props {
					n++
				}
				for range n {
					b.empty(s)
				}
				continue
			}
			if c.withType {
				b.str(s, bk.typ)
			}
			b.str(s, bk.id)
			for _, k := range c.keys {
				b.value(s, getMember(bk.props, k))
			}
			if c.props {
				b.text = appendPropsJSON(b.text, bk.props, reservedBucket)
				b.end(s)
			}
		}
	}
	// Ordinal guard (spec §11.7): no field at all, or one field with an
	// empty cell, would give blank lines.
	if len(fields) == 0 {
		s.fields = []string{"#"}
		s.ordinal = true
	} else if len(fields) == 1 {
		for i, end := range s.ends {
			start := s.base
			if i > 0 {
				start = s.ends[i-1]
			}
			if end == start {
				s.fields = []string{"#", fields[0]}
				s.ordinal = true
				break
			}
		}
	}
	return nil
}
