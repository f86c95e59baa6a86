package graphresponse

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// BuildPlan is the column contract between a compiled query and [Build]: which columns the
// base statement returns, how rows become nodes, edges, paths or aggregation rows, and how
// pagination works (the result is described in docs/formats.md, "The raw JSON response").
// The compiler fills it in; it is plain data and safe to share between goroutines.
type BuildPlan struct {
	QueryType string // traversal, aggregation, path_finding or neighbors
	PageSize  int    // rows (paths) per page; the statement returns one more as a probe
	Paginate  bool   // the request had a cursor: emit next_cursor when more rows exist
	QueryHash string // binds next_cursor to the query (16 hex characters)
	// SignCursor turns a cursor's payload into the token handed out (the compiler signs it for
	// the caller); nil hands out the payload alone, in base64url.
	SignCursor    func(payload []byte) string `json:"-"`
	SortKeys      int                         // number of _k<i> readback columns (with Paginate)
	FormatVersion string                      // stamped into the response
	Nodes         []PlanNode                  // node selectors in input order
	Edges         []PlanEdge                  // traversal: relationship selectors in input order
	Metrics       []PlanMetric                // aggregation: metrics in input order
	Groups        []PlanGroup                 // aggregation: group keys in input order
	Hydration     []PlanKind                  // neighbors, path_finding: hydration columns per entity
	PathFrom      int                         // path_finding: node index of the start selector
	PathTo        int                         // path_finding: node index of the end selector
	// Centers are the ids a neighbors center names (node_ids): each is hydrated and, when the
	// hydration returns it (live and readable), is a node of the answer even when none of its
	// neighbors is.
	Centers []int64
	// Derived are the virtual properties served after the query from the text of other rows
	// (MergeRequest.diff, MergeRequestDiff.patch): see [ApplyDerived].
	Derived []PlanDerived
}

// PlanDerived is one derived property of an entity.
type PlanDerived struct {
	Entity   string
	Property string
}

// PlanNode is one node selector: its alias, entity and selected properties. Its columns in a
// traversal are n<i>_id and n<i>_<property>.
type PlanNode struct {
	Alias   string
	Entity  string
	Columns []PlanColumn
}

// PlanColumn is one property with its ontology type (Int64, Float64, Bool, String,
// LowCardinality(String), Date32, DateTime64(0, 'UTC')).
type PlanColumn struct {
	Name string
	Type string
}

// PlanEdge is one relationship selector between node indexes; Depth reports a
// variable-length hop, whose edges carry depth.
type PlanEdge struct {
	From, To int
	Depth    bool
}

// PlanMetric is one aggregation: its output name, function, target alias, optional property
// and result column (m<k>).
type PlanMetric struct {
	Name, Function, Target, Property, Column string
}

// PlanGroup is one group key. Kind is GroupKindNode (columns n<i>_id and n<i>_<property>
// of node Node) or GroupKindProperty (column Column, of ontology type Type).
type PlanGroup struct {
	Name, Kind, Alias, Entity, Property, Column, Type string
	Node                                              int
}

// PlanKind lists the hydration columns of one entity and the subset used for nodes that
// correspond to no selector (dynamic_columns).
type PlanKind struct {
	Entity  string
	Columns []PlanColumn
	Dynamic []string
}

// NodeRef identifies one node: entity and id.
type NodeRef struct {
	Kind string
	ID   int64
}

// Rows is a result set in the executor's value model: nil, int64, float64, string, bool,
// time.Time, a date that formats itself as YYYY-MM-DD (fmt.Stringer), or []any.
type Rows struct {
	Columns []string
	Values  [][]any
	// Withheld, when not nil, runs parallel to Values: a row marked true was withheld by
	// redaction (docs/redaction.md). It keeps its place in the page, so the probe row, has_more
	// and the cursor stay those of the engine's window, but [Build] and [BuildPlan.NodeRefs]
	// leave it out, and with it its nodes and edges unless another row holds them.
	Withheld []bool
	// DeniedCenters are the neighbors centres (BuildPlan.Centers) that redaction denied: they
	// are not hydrated, so a centre no row shows cannot enter the answer through Centers.
	DeniedCenters map[NodeRef]bool
}

// withheld reports whether row i of r was withheld by redaction.
func (r Rows) withheld(i int) bool { return i < len(r.Withheld) && r.Withheld[i] }

// ErrBuild is wrapped by every [Build] failure: a result that breaks the column contract.
var ErrBuild = errors.New("graphresponse: result does not match the plan")

func buildErr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrBuild}, args...)...)
}

type colIndex map[string]int

func index(cols []string) colIndex {
	m := make(colIndex, len(cols))
	for i, c := range cols {
		m[c] = i
	}
	return m
}

func (ix colIndex) get(row []any, name string) (any, error) {
	i, ok := ix[name]
	if !ok || i >= len(row) {
		return nil, buildErr("missing column %s", name)
	}
	return row[i], nil
}

// page splits rows into the page and reports whether a probe row followed.
func (p *BuildPlan) page(rows [][]any) ([][]any, bool) {
	if p.PageSize > 0 && len(rows) > p.PageSize {
		return rows[:p.PageSize], true
	}
	return rows, false
}

// RowRefs lists, for each row of the base page (the probe row excluded), the nodes the row
// shows: a traversal row its selectors' nodes, a neighbors row the centre and the neighbour,
// a path_finding row every node of its path, an aggregation row the nodes it is grouped by
// (none when grouped by properties only). Redaction withholds a row when any of them is
// denied (docs/redaction.md).
func (p *BuildPlan) RowRefs(base Rows) ([][]NodeRef, error) {
	ix := index(base.Columns)
	rows, _ := p.page(base.Values)
	out := make([][]NodeRef, len(rows))
	for r, row := range rows {
		switch p.QueryType {
		case QueryTraversal:
			for i, pn := range p.Nodes {
				id, err := nodeID(ix, row, i)
				if err != nil {
					return nil, err
				}
				out[r] = append(out[r], NodeRef{pn.Entity, id})
			}
		case QueryAggregation:
			for _, g := range p.Groups {
				if g.Kind != GroupKindNode {
					continue
				}
				id, err := nodeID(ix, row, g.Node)
				if err != nil {
					return nil, err
				}
				out[r] = append(out[r], NodeRef{g.Entity, id})
			}
		case QueryNeighbors:
			c, n, err := neighborRefs(p, ix, row)
			if err != nil {
				return nil, err
			}
			out[r] = []NodeRef{c, n}
		case QueryPathFinding:
			nodes, _, err := pathOf(ix, row)
			if err != nil {
				return nil, err
			}
			out[r] = nodes
		default:
			return nil, buildErr("unknown query type %q", p.QueryType)
		}
	}
	return out, nil
}

// nodeID reads column n<i>_id of row.
func nodeID(ix colIndex, row []any, i int) (int64, error) {
	col := "n" + strconv.Itoa(i) + "_id"
	v, err := ix.get(row, col)
	if err != nil {
		return 0, err
	}
	id, ok := asInt(v)
	if !ok {
		return 0, buildErr("column %s is %T, want an integer", col, v)
	}
	return id, nil
}

// NodeRefs lists the distinct nodes of the base page that hydration must fetch, in first
// appearance order (neighbors and path_finding only; nil otherwise). Rows withheld by
// redaction are not fetched.
func (p *BuildPlan) NodeRefs(base Rows) ([]NodeRef, error) {
	ix := index(base.Columns)
	rows, _ := p.page(base.Values)
	seen := map[NodeRef]bool{}
	var out []NodeRef
	add := func(r NodeRef) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	if p.QueryType == QueryNeighbors && len(p.Nodes) > 0 {
		for _, id := range p.Centers {
			if c := (NodeRef{Kind: p.Nodes[0].Entity, ID: id}); !base.DeniedCenters[c] {
				add(c)
			}
		}
	}
	for i, row := range rows {
		if base.withheld(i) {
			continue
		}
		switch p.QueryType {
		case QueryNeighbors:
			c, n, err := neighborRefs(p, ix, row)
			if err != nil {
				return nil, err
			}
			add(c)
			add(n)
		case QueryPathFinding:
			nodes, _, err := pathOf(ix, row)
			if err != nil {
				return nil, err
			}
			for _, n := range nodes {
				add(n)
			}
		}
	}
	return out, nil
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case int32:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

func asString(v any) (string, bool) { s, ok := v.(string); return s, ok }

// value converts one engine value to a response value (docs/formats.md, "The raw JSON
// response": NaN and ±Inf become null, times become UTC RFC 3339 strings).
func value(v any) (Value, error) {
	switch x := v.(type) {
	case nil:
		return Null(), nil
	case bool:
		return Bool(x), nil
	case string:
		return String(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Null(), nil
		}
		return Float(x), nil
	case float32:
		return value(float64(x))
	case uint64:
		return Uint(x), nil
	case time.Time:
		return String(formatTime(x)), nil
	case fmt.Stringer:
		return String(x.String()), nil
	}
	if n, ok := asInt(v); ok {
		return Int(n), nil
	}
	return Null(), buildErr("unsupported value of Go type %T", v)
}

func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04:05Z")
	}
	return t.Format("2006-01-02T15:04:05.999999999Z")
}

// hydratedValue converts a toString()ed property back by its ontology type.
func hydratedValue(v any, typ string) (Value, error) {
	if v == nil {
		return Null(), nil
	}
	s, ok := v.(string)
	if !ok {
		return value(v)
	}
	switch typ {
	case "Int64":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return Null(), buildErr("hydrated %q is not an Int64", s)
		}
		return Int(n), nil
	case "Float64":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return Null(), buildErr("hydrated %q is not a Float64", s)
		}
		return value(f)
	case "Bool":
		switch s {
		case "true":
			return Bool(true), nil
		case "false":
			return Bool(false), nil
		}
		return Null(), buildErr("hydrated %q is not a Bool", s)
	case "DateTime64(0, 'UTC')":
		t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		if err != nil {
			return Null(), buildErr("hydrated %q is not a DateTime", s)
		}
		return String(formatTime(t)), nil
	}
	return String(s), nil
}

// Build turns the rows of a compiled query into a [Response] following the rules of
// docs/formats.md, "The raw JSON response": first occurrence wins for nodes, edges are
// de-duplicated by identity (traversal, neighbors), paths are numbered in row order, and the
// probe row only sets has_more. hydration holds the rows of the hydration statement for
// neighbors and path_finding; nil leaves those nodes without properties. A neighbors row or
// path that references a node hydration did not return is dropped (the row was deleted or
// moved between the two statements). A string that is not valid UTF-8 is repaired and
// counted in [Response.Repaired].
func Build(p *BuildPlan, base Rows, hydration *Rows) (*Response, error) {
	page, hasMore := p.page(base.Values)
	rows := page
	if base.Withheld != nil {
		rows = make([][]any, 0, len(page))
		for i, row := range page {
			if !base.withheld(i) {
				rows = append(rows, row)
			}
		}
	}
	ix := index(base.Columns)
	r := &Response{FormatVersion: p.FormatVersion, QueryType: p.QueryType, Nodes: []Node{}, Edges: []Edge{}}
	var err error
	switch p.QueryType {
	case QueryTraversal:
		err = buildTraversal(p, ix, rows, r)
	case QueryAggregation:
		err = buildAggregation(p, ix, rows, r)
	case QueryPathFinding, QueryNeighbors:
		var h *hydrated
		if hydration != nil {
			if h, err = newHydrated(p, *hydration); err != nil {
				return nil, err
			}
		}
		if p.QueryType == QueryPathFinding {
			err = buildPaths(p, ix, rows, h, r)
		} else {
			err = buildNeighbors(p, ix, rows, h, r)
		}
	default:
		return nil, buildErr("unknown query type %q", p.QueryType)
	}
	if err != nil {
		return nil, err
	}
	r.Repaired = repairText(r)
	if base.Withheld != nil {
		// Redaction (docs/redaction.md, "Pages, limit, has_more and cursors"): the cursor
		// anchors on the last row the caller may see, never on a withheld one, whose sort
		// keys would leak through it; the withheld rows after it are read again, and
		// withheld again, by the next page. Without more rows from the engine, the page is
		// the last whatever its withheld tail holds.
		last := -1
		for i := range page {
			if !base.withheld(i) {
				last = i
			}
		}
		page = page[:last+1]
		if hasMore && last < 0 {
			// No row to anchor on: the caller ([BuildPlan.Exhausted]) reads on.
			r.Pagination = &Pagination{HasMore: true, Truncated: true}
			return r, nil
		}
	}
	r.Pagination = &Pagination{HasMore: hasMore, Truncated: hasMore}
	if p.Paginate && hasMore && len(page) > 0 {
		tok, err := p.cursorAt(ix, page[len(page)-1])
		if err != nil {
			return nil, err
		}
		r.Pagination.NextCursor = &tok
	}
	return r, nil
}

// cursorAt returns the pagination token that resumes after row.
func (p *BuildPlan) cursorAt(ix colIndex, row []any) (string, error) {
	keys := make([]*string, p.SortKeys)
	for i := range keys {
		v, err := ix.get(row, "_k"+strconv.Itoa(i))
		if err != nil {
			return "", err
		}
		if v != nil {
			s, ok := asString(v)
			if !ok {
				return "", buildErr("cursor key _k%d is %T, want a string", i, v)
			}
			keys[i] = &s
		}
	}
	if p.SignCursor != nil {
		return p.SignCursor(CursorPayload(p.QueryHash, keys)), nil
	}
	return EncodeCursor(p.QueryHash, keys), nil
}

// Exhausted reports whether redaction withheld every row of a paginated base page that more
// rows follow, and if so returns the token that resumes after its last row. Such a page has
// no row a cursor may anchor on (a withheld row's sort keys must not leave the server), so
// the caller reads on from the token itself, server-side, until a page shows a row or the
// engine has no more.
func (p *BuildPlan) Exhausted(base Rows) (string, bool, error) {
	page, hasMore := p.page(base.Values)
	if !p.Paginate || !hasMore || base.Withheld == nil || len(page) == 0 {
		return "", false, nil
	}
	for i := range page {
		if !base.withheld(i) {
			return "", false, nil
		}
	}
	tok, err := p.cursorAt(index(base.Columns), page[len(page)-1])
	if err != nil {
		return "", false, err
	}
	return tok, true, nil
}

// EncodeCursor returns the unsigned pagination token: [CursorPayload] in base64url without
// padding. A compiled plan signs its tokens instead ([BuildPlan.SignCursor]).
func EncodeCursor(hash string, keys []*string) string {
	return base64.RawURLEncoding.EncodeToString(CursorPayload(hash, keys))
}

// CursorPayload returns what a pagination token carries, {"h": hash, "k": keys} as JSON
// (docs/dsl.md, "Ordering, limits and pages"; docs/compiler.md, "Stages"). A nil key is a
// NULL sort value. A key that is not UTF-8 (stored text the loader did not refuse) cannot
// be a JSON string without turning into U+FFFD, which would seek to another place: it is
// written in hex, and "x" lists the indexes of such keys.
func CursorPayload(hash string, keys []*string) []byte {
	var hexed []int
	for i, k := range keys {
		if k != nil && !utf8.ValidString(*k) {
			if hexed == nil {
				keys = slices.Clone(keys)
			}
			h := hex.EncodeToString([]byte(*k))
			keys[i], hexed = &h, append(hexed, i)
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(struct {
		H string    `json:"h"`
		K []*string `json:"k"`
		X []int     `json:"x,omitempty"`
	}{hash, keys, hexed})
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

type nodeSet struct {
	seen map[NodeRef]bool
	r    *Response
}

func (s *nodeSet) add(ref NodeRef, props func() ([]Member, error)) error {
	if s.seen[ref] {
		return nil
	}
	ps, err := props()
	if err != nil {
		return err
	}
	s.seen[ref] = true
	s.r.Nodes = append(s.r.Nodes, Node{Type: ref.Kind, ID: ref.ID, Props: SortedMembers(ps)})
	return nil
}

type edgeKey struct {
	from  NodeRef
	to    NodeRef
	typ   string
	depth int64
}

func buildTraversal(p *BuildPlan, ix colIndex, rows [][]any, r *Response) error {
	nodes := nodeSet{seen: map[NodeRef]bool{}, r: r}
	edges := map[edgeKey]bool{}
	ids := make([]int64, len(p.Nodes))
	for _, row := range rows {
		for i, pn := range p.Nodes {
			prefix := "n" + strconv.Itoa(i) + "_"
			v, err := ix.get(row, prefix+"id")
			if err != nil {
				return err
			}
			id, ok := asInt(v)
			if !ok {
				return buildErr("column %sid is %T, want an integer", prefix, v)
			}
			ids[i] = id
			err = nodes.add(NodeRef{pn.Entity, id}, func() ([]Member, error) {
				return props(ix, row, prefix, pn.Columns)
			})
			if err != nil {
				return err
			}
		}
		for j, pe := range p.Edges {
			prefix := "e" + strconv.Itoa(j) + "_"
			kv, err := ix.get(row, prefix+"kind")
			if err != nil {
				return err
			}
			fv, err := ix.get(row, prefix+"fwd")
			if err != nil {
				return err
			}
			dv, err := ix.get(row, prefix+"depth")
			if err != nil {
				return err
			}
			kind, _ := asString(kv)
			fwd, _ := fv.(bool)
			depth, _ := asInt(dv)
			from := NodeRef{p.Nodes[pe.From].Entity, ids[pe.From]}
			to := NodeRef{p.Nodes[pe.To].Entity, ids[pe.To]}
			if !fwd {
				from, to = to, from
			}
			k := edgeKey{from: from, to: to, typ: kind}
			e := Edge{From: from.Kind, FromID: from.ID, To: to.Kind, ToID: to.ID, Type: kind}
			if pe.Depth {
				k.depth = depth
				e.Depth = Some(depth)
			}
			if !edges[k] {
				edges[k] = true
				r.Edges = append(r.Edges, e)
			}
		}
	}
	return nil
}

func props(ix colIndex, row []any, prefix string, cols []PlanColumn) ([]Member, error) {
	out := make([]Member, 0, len(cols))
	for _, c := range cols {
		v, err := ix.get(row, prefix+c.Name)
		if err != nil {
			return nil, err
		}
		val, err := value(v)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: c.Name, Value: val})
	}
	return out, nil
}

func buildAggregation(p *BuildPlan, ix colIndex, rows [][]any, r *Response) error {
	r.Columns = []Column{}
	for _, m := range p.Metrics {
		r.Columns = append(r.Columns, Column{Name: m.Name, Function: m.Function, Target: m.Target, Property: m.Property})
	}
	r.GroupColumns = []GroupColumn{}
	for _, g := range p.Groups {
		r.GroupColumns = append(r.GroupColumns, GroupColumn{Name: g.Name, Kind: g.Kind, Node: g.Alias, Property: g.Property, Entity: g.Entity})
	}
	r.Rows = []Row{}
	for _, row := range rows {
		var out Row
		for _, g := range p.Groups {
			if g.Kind == GroupKindNode {
				prefix := "n" + strconv.Itoa(g.Node) + "_"
				v, err := ix.get(row, prefix+"id")
				if err != nil {
					return err
				}
				id, ok := asInt(v)
				if !ok {
					return buildErr("column %sid is %T, want an integer", prefix, v)
				}
				ps, err := props(ix, row, prefix, p.Nodes[g.Node].Columns)
				if err != nil {
					return err
				}
				out = append(out, Member{Key: g.Name, Value: NodeBucket(g.Entity, strconv.FormatInt(id, 10), SortedMembers(ps))})
				continue
			}
			v, err := ix.get(row, g.Column)
			if err != nil {
				return err
			}
			val, err := value(v)
			if err != nil {
				return err
			}
			out = append(out, Member{Key: g.Name, Value: val})
		}
		for _, m := range p.Metrics {
			v, err := ix.get(row, m.Column)
			if err != nil {
				return err
			}
			val, err := value(v)
			if err != nil {
				return err
			}
			out = append(out, Member{Key: m.Name, Value: val})
		}
		r.Rows = append(r.Rows, out)
	}
	return nil
}

// hydrated indexes hydration rows by node.
type hydrated struct {
	kinds map[string]*PlanKind
	props map[NodeRef][]any
}

func newHydrated(p *BuildPlan, h Rows) (*hydrated, error) {
	ix := index(h.Columns)
	out := &hydrated{kinds: map[string]*PlanKind{}, props: map[NodeRef][]any{}}
	for i := range p.Hydration {
		out.kinds[p.Hydration[i].Entity] = &p.Hydration[i]
	}
	for _, row := range h.Values {
		kv, err := ix.get(row, "kind")
		if err != nil {
			return nil, err
		}
		iv, err := ix.get(row, "id")
		if err != nil {
			return nil, err
		}
		pv, err := ix.get(row, "props")
		if err != nil {
			return nil, err
		}
		kind, _ := asString(kv)
		id, ok := asInt(iv)
		arr, ok2 := pv.([]any)
		pk := out.kinds[kind]
		if !ok || !ok2 || pk == nil || len(arr) != len(pk.Columns) {
			return nil, buildErr("malformed hydration row")
		}
		out.props[NodeRef{kind, id}] = arr
	}
	return out, nil
}

// nodeProps returns the properties of ref restricted to names (nil: the kind's dynamic list).
func (h *hydrated) nodeProps(ref NodeRef, names []string) ([]Member, error) {
	if h == nil {
		return nil, nil
	}
	pk := h.kinds[ref.Kind]
	vals := h.props[ref]
	if names == nil {
		names = pk.Dynamic
	}
	var out []Member
	for i, c := range pk.Columns {
		if !slices.Contains(names, c.Name) {
			continue
		}
		v, err := hydratedValue(vals[i], c.Type)
		if err != nil {
			return nil, err
		}
		out = append(out, Member{Key: c.Name, Value: v})
	}
	return out, nil
}

func (h *hydrated) has(ref NodeRef) bool {
	if h == nil {
		return true
	}
	_, ok := h.props[ref]
	return ok
}

func columnNames(cols []PlanColumn) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

func pathOf(ix colIndex, row []any) ([]NodeRef, []string, error) {
	nv, err := ix.get(row, "path_nodes")
	if err != nil {
		return nil, nil, err
	}
	kv, err := ix.get(row, "path_kinds")
	if err != nil {
		return nil, nil, err
	}
	na, ok1 := nv.([]any)
	ka, ok2 := kv.([]any)
	if !ok1 || !ok2 || len(na) != len(ka)+1 {
		return nil, nil, buildErr("malformed path row")
	}
	nodes := make([]NodeRef, len(na))
	for i, n := range na {
		t, ok := n.([]any)
		if !ok || len(t) != 2 {
			return nil, nil, buildErr("malformed path node")
		}
		id, ok := asInt(t[0])
		kind, ok2 := asString(t[1])
		if !ok || !ok2 {
			return nil, nil, buildErr("malformed path node")
		}
		nodes[i] = NodeRef{kind, id}
	}
	kinds := make([]string, len(ka))
	for i, k := range ka {
		s, ok := asString(k)
		if !ok {
			return nil, nil, buildErr("malformed path kind")
		}
		kinds[i] = s
	}
	return nodes, kinds, nil
}

func buildPaths(p *BuildPlan, ix colIndex, rows [][]any, h *hydrated, r *Response) error {
	nodes := nodeSet{seen: map[NodeRef]bool{}, r: r}
	kept := map[string]bool{}
	pathID := int64(0)
	fromCols := columnNames(p.Nodes[0].Columns)
	toCols := columnNames(p.Nodes[len(p.Nodes)-1].Columns)
	if p.PathFrom < len(p.Nodes) && p.PathTo < len(p.Nodes) {
		fromCols, toCols = columnNames(p.Nodes[p.PathFrom].Columns), columnNames(p.Nodes[p.PathTo].Columns)
	}
	for _, row := range rows {
		ns, ks, err := pathOf(ix, row)
		if err != nil {
			return err
		}
		key := fmt.Sprint(ns, ks)
		if kept[key] {
			continue
		}
		complete := true
		for _, n := range ns {
			if !h.has(n) {
				complete = false
			}
		}
		if !complete {
			continue
		}
		kept[key] = true
		for i, n := range ns {
			names := []string(nil)
			switch i {
			case 0:
				names = fromCols
			case len(ns) - 1:
				names = toCols
			}
			if err := nodes.add(n, func() ([]Member, error) { return h.nodeProps(n, nonNil(names)) }); err != nil {
				return err
			}
		}
		for s, k := range ks {
			r.Edges = append(r.Edges, Edge{From: ns[s].Kind, FromID: ns[s].ID, To: ns[s+1].Kind, ToID: ns[s+1].ID, Type: k, PathID: Some(pathID), Step: Some(int64(s))})
		}
		pathID++
	}
	return nil
}

// nonNil marks a selector's selection (possibly empty) apart from the dynamic default (nil).
func nonNil(names []string) []string {
	if names == nil {
		return nil
	}
	if len(names) == 0 {
		return []string{}
	}
	return names
}

func neighborRefs(p *BuildPlan, ix colIndex, row []any) (NodeRef, NodeRef, error) {
	var vals [3]any
	for i, c := range []string{"center_id", "nbr_id", "nbr_kind"} {
		v, err := ix.get(row, c)
		if err != nil {
			return NodeRef{}, NodeRef{}, err
		}
		vals[i] = v
	}
	cid, ok1 := asInt(vals[0])
	nid, ok2 := asInt(vals[1])
	nk, ok3 := asString(vals[2])
	if !ok1 || !ok2 || !ok3 || len(p.Nodes) == 0 {
		return NodeRef{}, NodeRef{}, buildErr("malformed neighbors row")
	}
	return NodeRef{p.Nodes[0].Entity, cid}, NodeRef{nk, nid}, nil
}

func buildNeighbors(p *BuildPlan, ix colIndex, rows [][]any, h *hydrated, r *Response) error {
	nodes := nodeSet{seen: map[NodeRef]bool{}, r: r}
	edges := map[edgeKey]bool{}
	centerCols := columnNames(p.Nodes[0].Columns)
	for _, row := range rows {
		center, nbr, err := neighborRefs(p, ix, row)
		if err != nil {
			return err
		}
		if !h.has(center) || !h.has(nbr) {
			continue
		}
		rk, err := ix.get(row, "rel_kind")
		if err != nil {
			return err
		}
		ov, err := ix.get(row, "outgoing")
		if err != nil {
			return err
		}
		kind, _ := asString(rk)
		out, _ := ov.(bool)
		if err := nodes.add(center, func() ([]Member, error) { return h.nodeProps(center, nonNil(centerCols)) }); err != nil {
			return err
		}
		from, to := center, nbr
		if !out {
			from, to = nbr, center
		}
		k := edgeKey{from: from, to: to, typ: kind}
		if edges[k] {
			continue
		}
		edges[k] = true
		r.Edges = append(r.Edges, Edge{From: from.Kind, FromID: from.ID, To: to.Kind, ToID: to.ID, Type: kind})
		if err := nodes.add(nbr, func() ([]Member, error) { return h.nodeProps(nbr, nil) }); err != nil {
			return err
		}
	}
	// A center named by id that the hydration returned is readable and live: it is part of
	// the answer even when no neighbor is (as in Orbit), after the nodes the rows gave.
	for _, id := range p.Centers {
		center := NodeRef{Kind: p.Nodes[0].Entity, ID: id}
		if h == nil || !h.has(center) {
			continue
		}
		if err := nodes.add(center, func() ([]Member, error) { return h.nodeProps(center, nonNil(centerCols)) }); err != nil {
			return err
		}
	}
	return nil
}

// DerivedRefs lists the nodes of r whose kind has a derived property in the plan: what the
// statement of derived text must read.
func (p *BuildPlan) DerivedRefs(r *Response) []NodeRef {
	var out []NodeRef
	for _, n := range r.Nodes {
		for _, d := range p.Derived {
			if d.Entity == n.Type {
				out = append(out, NodeRef{Kind: n.Type, ID: n.ID})
				break
			}
		}
	}
	return out
}

// ApplyDerived sets the derived properties of r's nodes from rows with columns kind, id, path
// and text (one row per part, in any order): the parts of a node, ordered by path, joined, are
// its value. A node that selects the property and has no part keeps null.
func (p *BuildPlan) ApplyDerived(r *Response, rows Rows) error {
	if len(p.Derived) == 0 {
		return nil
	}
	type part struct{ path, text string }
	ix := index(rows.Columns)
	parts := map[NodeRef][]part{}
	for _, row := range rows.Values {
		var cells [4]any
		for i, c := range []string{"kind", "id", "path", "text"} {
			v, err := ix.get(row, c)
			if err != nil {
				return err
			}
			cells[i] = v
		}
		if cells[3] == nil {
			continue
		}
		kind, kok := asString(cells[0])
		id, iok := asInt(cells[1])
		path, _ := asString(cells[2])
		text, tok := asString(cells[3])
		if !kok || !iok || !tok {
			return fmt.Errorf("derived text: row %v: want a kind, an integer id, a path and a text", row)
		}
		ref := NodeRef{Kind: kind, ID: id}
		parts[ref] = append(parts[ref], part{path, text})
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		ps, ok := parts[NodeRef{Kind: n.Type, ID: n.ID}]
		if !ok {
			continue
		}
		slices.SortStableFunc(ps, func(a, b part) int { return strings.Compare(a.path, b.path) })
		var b strings.Builder
		for _, pt := range ps {
			b.WriteString(pt.text)
		}
		for _, d := range p.Derived {
			if d.Entity != n.Type {
				continue
			}
			for j := range n.Props {
				if n.Props[j].Key == d.Property {
					n.Props[j].Value = String(b.String())
				}
			}
		}
	}
	return nil
}
