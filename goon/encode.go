package goon

import (
	"bytes"
	"cmp"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/semver"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// flushAt is the buffered size at which the encoder hands bytes to the
// writer; output is written in chunks of about this size.
const flushAt = 32 << 10

// Encoder writes GOON documents to an output stream. An Encoder is not safe
// for concurrent use; encode concurrently with one Encoder per goroutine.
type Encoder struct {
	w    io.Writer
	opts Options
	buf  []byte
	err  error

	// Scratch space reused across documents.
	nodes   []nodeRef
	props   []propRef              // property order of the last node with the keys of ordered
	ordered []graphresponse.Member // that node's properties (the caller's; dropped after Encode)
	edges   []edgeRef
	keys    []edgeKey
	names   []string
	list    []*graphresponse.Edge
	path    []*graphresponse.Edge
	// liftNodes scratch.
	lifted   []graphresponse.Node
	nodeCols []string
	liftSeen map[nodeKey]struct{}

	altered   int  // see Altered
	versionOK bool // opts.Version is a semantic version, checked once
}

// Altered returns how many strings the encoder has written, since it was
// created, that are not their original text behind GOON's five escapes: a
// quoted value that lost C0 controls or DEL (which §3.7 drops), or any
// string in which a code point of the text-safety set was written as its
// ⟦U+XXXX⟧ marker (see the package doc). Each written string counts once,
// however many code points it lost or had replaced. Callers report this
// count (formatter.Stamped.Altered), so no value is changed silently.
func (e *Encoder) Altered() int { return e.altered }

// ident appends an identifier-like string (a type, key, descriptor field
// or cursor), which GOON writes verbatim (§3.1), with every code point of
// the text-safety set, line breaks included, written as its marker.
func (e *Encoder) ident(b []byte, s string) []byte {
	if printableASCII(s) {
		return append(b, s...) // nothing to mark
	}
	b, changed := textsafe.AppendMarked(b, s, nil)
	if changed {
		e.altered++
	}
	return b
}

// printableASCII reports whether s is made of bytes 0x20–0x7E only, which
// textsafe.AppendMarked copies unchanged. Identifiers are short, so this is
// a plain loop the compiler inlines.
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// count adds one to the altered count when changed is true and returns b.
func (e *Encoder) count(b []byte, changed bool) []byte {
	if changed {
		e.altered++
	}
	return b
}

// NewEncoder returns an encoder that writes to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: w, opts: opts, versionOK: semver.Valid(opts.Version)}
}

// Marshal returns the GOON encoding of r.
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Encode writes the GOON encoding of r (specs/goon.md §3) and flushes it.
// It fails before writing anything when Options.Version is not a semantic
// version; otherwise only write errors make it fail. The first write error
// sticks: Encode returns it and every later call returns it again.
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	if !e.versionOK {
		return ErrVersion
	}
	e.buf = e.buf[:0]
	lifted := e.liftNodes(r)
	e.header(r, len(lifted))
	e.nodeSection(r, lifted)
	if r.QueryType == graphresponse.QueryPathFinding {
		e.pathSection(r)
	} else {
		e.edgeSection(r)
	}
	if r.Rows != nil {
		e.rowSection(r)
	}
	// Keep no caller strings past the call; the next document starts anew.
	e.ordered, e.props = nil, e.props[:0]
	clear(e.lifted)
	clear(e.nodeCols)
	e.lifted, e.nodeCols = e.lifted[:0], e.nodeCols[:0]
	e.flush()
	return e.err
}

// maybeFlush writes the buffer once it is large enough.
func (e *Encoder) maybeFlush() {
	if len(e.buf) >= flushAt {
		e.flush()
	}
}

func (e *Encoder) flush() {
	if e.err == nil && len(e.buf) > 0 {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *Encoder) header(r *graphresponse.Response, lifted int) {
	b := append(e.buf, "@header\nquery_type:"...)
	b = e.ident(b, r.QueryType)
	b = append(b, "\ngoon_version:"...)
	b = append(b, e.opts.Version...)
	b = append(b, "\nnodes:"...)
	b = strconv.AppendInt(b, int64(len(r.Nodes)+lifted), 10)
	b = append(b, "\nedges:"...)
	b = strconv.AppendInt(b, int64(len(r.Edges)), 10)
	b = append(b, '\n')
	if p := r.Pagination; p != nil {
		if p.HasMore {
			b = append(b, "has_more:true\n"...)
		}
		if p.Truncated {
			b = append(b, "truncated:true\n"...)
		}
		if p.NextCursor != nil {
			b = append(b, "next_cursor:"...)
			b = e.ident(b, *p.NextCursor)
			b = append(b, '\n')
		}
	}
	if r.QueryType == graphresponse.QueryAggregation {
		if r.Rows != nil {
			b = append(b, "rows:"...)
			b = strconv.AppendInt(b, int64(len(r.Rows)), 10)
			b = append(b, '\n')
		}
		if len(r.GroupColumns) > 0 {
			b = append(b, "group_by:"...)
			for i, g := range r.GroupColumns {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.groupDescriptor(b, g)
			}
			b = append(b, '\n')
		}
		if len(r.Columns) > 0 {
			b = append(b, "aggregations:"...)
			for i, c := range r.Columns {
				if i > 0 {
					b = append(b, ',')
				}
				b = e.ident(b, c.Name)
				b = append(b, '(')
				b = e.ident(b, c.Function)
				b = append(b, ':')
				b = e.ident(b, c.Target)
				if c.Property != "" {
					b = append(b, '.')
					b = e.ident(b, c.Property)
				}
				b = append(b, ')')
			}
			b = append(b, '\n')
		}
	}
	e.buf = b
}

func (e *Encoder) groupDescriptor(b []byte, g graphresponse.GroupColumn) []byte {
	b = e.ident(b, g.Name)
	b = append(b, '(')
	switch g.Kind {
	case graphresponse.GroupKindNode:
		b = append(b, "node"...)
		if g.Entity != "" {
			b = append(b, ':')
			b = e.ident(b, g.Entity)
		}
	case graphresponse.GroupKindProperty:
		b = append(b, "property"...)
		if g.Property != "" && g.Property != g.Name {
			b = append(b, ':')
			b = e.ident(b, g.Property)
		}
	default:
		b = e.ident(b, g.Kind)
	}
	return append(b, ')')
}

// liftNodes returns the node buckets of an aggregation's node-kind group
// columns, deduplicated on (type, parsed id), first occurrence winning
// (§3.5). The result lives in the encoder's scratch space until
// [Encoder.Encode] returns.
func (e *Encoder) liftNodes(r *graphresponse.Response) []graphresponse.Node {
	if r.QueryType != graphresponse.QueryAggregation || r.Rows == nil || r.GroupColumns == nil {
		return nil
	}
	nodeCols := e.nodeCols[:0]
	for _, g := range r.GroupColumns {
		if g.Kind == graphresponse.GroupKindNode {
			nodeCols = append(nodeCols, g.Name)
		}
	}
	e.nodeCols = nodeCols
	if len(nodeCols) == 0 {
		return nil
	}
	// Duplicates are found by a scan of the nodes so far while they are
	// few, then through a map.
	const scanUpTo = 32
	out := e.lifted[:0]
	seen := e.liftSeen
	for _, row := range r.Rows {
		for _, name := range nodeCols {
			cell, ok := row.Get(name)
			if !ok || cell.Kind() != graphresponse.KindObject {
				continue
			}
			t, ok1 := cell.Get("type")
			idv, ok2 := cell.Get("id")
			if !ok1 || !ok2 || t.Kind() != graphresponse.KindString || idv.Kind() != graphresponse.KindString {
				continue
			}
			id, err := strconv.ParseInt(idv.Str(), 10, 64)
			if err != nil {
				continue
			}
			k := nodeKey{t.Str(), id}
			if len(out) < scanUpTo {
				if slices.ContainsFunc(out, func(n graphresponse.Node) bool { return n.ID == k.id && n.Type == k.typ }) {
					continue
				}
			} else {
				if seen == nil {
					seen = make(map[nodeKey]struct{})
				}
				if len(seen) == 0 {
					for _, n := range out {
						seen[nodeKey{n.Type, n.ID}] = struct{}{}
					}
				}
				if _, dup := seen[k]; dup {
					continue
				}
				seen[k] = struct{}{}
			}
			props, _ := cell.Get("properties")
			out = append(out, graphresponse.Node{Type: k.typ, ID: id, Props: props.Members()})
		}
	}
	clear(seen)
	e.liftSeen = seen
	e.lifted = out
	return out
}

// nodeKey is a node identity for [Encoder.liftNodes].
type nodeKey struct {
	typ string
	id  int64
}

func (e *Encoder) nodeSection(r *graphresponse.Response, lifted []graphresponse.Node) {
	e.buf = append(e.buf, "@nodes\n"...)
	list := e.nodes[:0]
	for i := range r.Nodes {
		list = append(list, nodeRef{&r.Nodes[i], len(list)})
	}
	for i := range lifted {
		list = append(list, nodeRef{&lifted[i], len(list)})
	}
	if r.QueryType != graphresponse.QueryAggregation {
		// A stable sort by (type, id): the input position breaks ties, so an
		// unstable sort gives the same order faster.
		slices.SortFunc(list, func(a, b nodeRef) int {
			if a.n.Type != b.n.Type {
				return cmp.Compare(a.n.Type, b.n.Type)
			}
			if c := cmp.Compare(a.n.ID, b.n.ID); c != 0 {
				return c
			}
			return cmp.Compare(a.pos, b.pos)
		})
	}
	for start := 0; start < len(list); {
		end := start + 1
		for end < len(list) && list[end].n.Type == list[start].n.Type {
			end++
		}
		e.buf = e.groupHeader(e.buf, list[start].n.Type, end-start)
		for _, ref := range list[start:end] {
			e.nodeLine(ref.n)
			e.maybeFlush()
		}
		start = end
	}
	clear(list)
	e.nodes = list[:0]
}

// nodeRef is a node with its position in the combined list.
type nodeRef struct {
	n   *graphresponse.Node
	pos int
}

func (e *Encoder) groupHeader(b []byte, typ string, n int) []byte {
	b = e.ident(b, typ)
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, "):\n"...)
}

// tier returns the property-order tier of a key (§3.3). It switches on
// the length first, so most keys are classified without a string compare.
func tier(key string) int {
	switch len(key) {
	case 3:
		if key == "iid" {
			return 0
		}
	case 4:
		switch key {
		case "name", "path", "uuid":
			return 0
		case "body", "note":
			return 4
		}
	case 5:
		switch key {
		case "state":
			return 1
		case "title":
			return 4
		}
	case 6:
		if key == "status" {
			return 1
		}
	case 8:
		if key == "username" {
			return 0
		}
	case 9:
		switch key {
		case "full_path":
			return 0
		case "merged_at", "closed_at":
			return 3
		}
	case 10:
		switch key {
		case "created_at", "updated_at":
			return 3
		}
	case 11:
		if key == "description" {
			return 4
		}
	case 16:
		if key == "visibility_level" {
			return 1
		}
	}
	return 2
}

// propRef is a property with its precomputed order key: the tier in the
// top byte and the key's first seven bytes below it, so most comparisons
// are one integer compare; equal prefixes fall back to the full key.
type propRef struct {
	order uint64
	i     int // index in the node's properties
}

// sameKeys reports whether a and b have the same keys in the same order.
func sameKeys(a, b []graphresponse.Member) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key {
			return false
		}
	}
	return true
}

func propOrder(key string) uint64 {
	o := uint64(tier(key)) << 56
	for i := 0; i < 7 && i < len(key); i++ {
		o |= uint64(key[i]) << (48 - 8*i)
	}
	return o
}

func (a propRef) less(b propRef, props []graphresponse.Member) bool {
	if a.order != b.order {
		return a.order < b.order
	}
	return props[a.i].Key < props[b.i].Key
}

func (e *Encoder) nodeLine(n *graphresponse.Node) {
	b := strconv.AppendInt(e.buf, n.ID, 10)
	// Order by tier, then key. The order depends only on the key sequence,
	// which most nodes share with the node before them, so it is kept as a
	// permutation and recomputed only when the keys change.
	if !sameKeys(n.Props, e.ordered) {
		e.ordered = n.Props
		// Properties are few, so an insertion sort over precomputed tiers
		// beats a generic sort that recomputes them.
		props := e.props[:0]
		for i := range n.Props {
			ref := propRef{propOrder(n.Props[i].Key), i}
			j := len(props)
			props = append(props, ref)
			for j > 0 && ref.less(props[j-1], n.Props) {
				props[j] = props[j-1]
				j--
			}
			props[j] = ref
		}
		e.props = props
	}
	for _, ref := range e.props {
		m := &n.Props[ref.i]
		mark, altered := len(b), e.altered
		b = append(b, ' ')
		b = e.ident(b, m.Key)
		b = append(b, '=')
		valStart := len(b)
		var origLen int
		var changed bool
		b, origLen, changed = appendValue(b, m.Key, m.Value)
		if len(b) == valStart {
			b, e.altered = b[:mark], altered // nothing printable: leave the property out
			continue
		}
		b = e.count(b, changed)
		if origLen > 0 {
			b = append(b, ' ')
			b = e.ident(b, m.Key)
			b = append(b, "_len="...)
			b = strconv.AppendInt(b, int64(origLen), 10)
		}
	}
	e.buf = append(b, '\n')
}

// edgeCompare orders edges for §3.4: path_id and step with absent last, then
// type, from, from_id, to, to_id, then depth with absent first. Neighbouring
// edges mostly share their type and endpoint kinds, so each string is first
// tested for equality, which is one length and pointer check when both
// share storage, before the byte-wise compare.
func edgeCompare(a, b *graphresponse.Edge) int {
	if a.PathID != b.PathID {
		if c := compareOpt(a.PathID, b.PathID, false); c != 0 {
			return c
		}
	}
	if a.Step != b.Step {
		if c := compareOpt(a.Step, b.Step, false); c != 0 {
			return c
		}
	}
	if a.Type != b.Type {
		return strings.Compare(a.Type, b.Type)
	}
	if a.From != b.From {
		return strings.Compare(a.From, b.From)
	}
	if a.FromID != b.FromID {
		return cmp.Compare(a.FromID, b.FromID)
	}
	if a.To != b.To {
		return strings.Compare(a.To, b.To)
	}
	if a.ToID != b.ToID {
		return cmp.Compare(a.ToID, b.ToID)
	}
	return compareOpt(a.Depth, b.Depth, true)
}

// compareOpt compares optional integers; absentFirst puts an absent value
// before every present one, otherwise after.
func compareOpt(a, b graphresponse.OptInt, absentFirst bool) int {
	switch {
	case a.Valid && b.Valid:
		return cmp.Compare(a.Value, b.Value)
	case a.Valid == b.Valid:
		return 0
	case a.Valid != absentFirst:
		return -1
	default:
		return 1
	}
}

func sameEdge(a, b *graphresponse.Edge) bool {
	return a.Type == b.Type && a.From == b.From && a.FromID == b.FromID &&
		a.To == b.To && a.ToID == b.ToID && a.PathID == b.PathID && a.Step == b.Step
}

// sortedEdges returns the input edges sorted and deduplicated (§3.4 steps
// 1–2), in the encoder's scratch slice.
func (e *Encoder) sortedEdges(r *graphresponse.Response) []*graphresponse.Edge {
	if out, ok := e.sortedEdgesByKey(r); ok {
		return out
	}
	refs := e.edges[:0]
	for i := range r.Edges {
		refs = append(refs, edgeRef{&r.Edges[i], i})
	}
	// Stable by construction: the input position breaks ties.
	slices.SortFunc(refs, func(a, b edgeRef) int {
		if c := edgeCompare(a.e, b.e); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	out := e.list[:0]
	for _, ref := range refs {
		if len(out) > 0 && sameEdge(out[len(out)-1], ref.e) {
			continue
		}
		out = append(out, ref.e)
	}
	clear(refs)
	e.edges = refs[:0]
	e.list = out
	return out
}

// maxEdgeNames bounds the distinct type names [Encoder.sortedEdgesByKey]
// ranks; more take the comparison sort.
const maxEdgeNames = 128

// minKeyedEdges is the fewest edges [Encoder.sortedEdgesByKey] sorts; for
// fewer, building the keys costs more than comparing edges.
const minKeyedEdges = 24

// edgeKey is an edge's sort key for §3.4 when no edge has a path_id or
// step: the type, from and to names replaced by their ranks among the
// document's distinct names (below maxEdgeNames, so seven bits) and packed
// with the ids (below maxKeyedID, so 50 bits), so that comparing two keys
// is comparing three integers and the position, never touching an edge or
// its strings. The order is edgeCompare's, then the input position.
type edgeKey struct {
	typeFromID uint64 // type rank << 57 | from rank << 50 | from id
	toIDDepth  uint64 // to rank << 57 | to id << 1 | 1 when depth is present
	depth      uint64 // depth with its sign bit flipped (unsigned order), 0 when absent
	pos        int
}

// maxKeyedID bounds the ids an [edgeKey] holds; an edge with another id
// takes the comparison sort.
const maxKeyedID = 1 << 50

func compareEdgeKeys(a, b *edgeKey) int {
	if a.typeFromID != b.typeFromID {
		return cmp.Compare(a.typeFromID, b.typeFromID)
	}
	if a.toIDDepth != b.toIDDepth {
		return cmp.Compare(a.toIDDepth, b.toIDDepth)
	}
	if a.depth != b.depth {
		return cmp.Compare(a.depth, b.depth)
	}
	return cmp.Compare(a.pos, b.pos)
}

// sortedEdgesByKey is sortedEdges for documents whose edges have no
// path_id or step and use at most maxEdgeNames distinct names; ok is false
// for any other document.
func (e *Encoder) sortedEdgesByKey(r *graphresponse.Response) ([]*graphresponse.Edge, bool) {
	if len(r.Edges) < minKeyedEdges {
		return nil, false
	}
	// Intern the names in an open-addressing table hashed on the length
	// and three bytes; the full compare settles collisions.
	var slots [2 * maxEdgeNames]uint8 // name index + 1, 0 = empty
	names := e.names[:0]
	defer func() { clear(names); e.names = names[:0] }()
	intern := func(s string) (int, bool) {
		h := uint(len(s)) * 0x9E3779B1
		if len(s) > 0 {
			h ^= uint(s[0]) | uint(s[len(s)-1])<<8 | uint(s[len(s)/2])<<16
			h *= 0x9E3779B1
		}
		for i := h >> 7 % uint(len(slots)); ; i = (i + 1) % uint(len(slots)) {
			k := int(slots[i]) - 1
			if k < 0 {
				if len(names) == maxEdgeNames {
					return 0, false
				}
				names = append(names, s)
				slots[i] = uint8(len(names))
				return len(names) - 1, true
			}
			if names[k] == s {
				return k, true
			}
		}
	}
	keys := e.keys[:0]
	defer func() { e.keys = keys[:0] }()
	for i := range r.Edges {
		ed := &r.Edges[i]
		if ed.PathID.Valid || ed.Step.Valid || uint64(ed.FromID) >= maxKeyedID || uint64(ed.ToID) >= maxKeyedID {
			return nil, false
		}
		t, ok1 := intern(ed.Type)
		f, ok2 := intern(ed.From)
		to, ok3 := intern(ed.To)
		if !ok1 || !ok2 || !ok3 {
			return nil, false
		}
		// Name indexes for now; ranks replace them below.
		k := edgeKey{typeFromID: uint64(t)<<57 | uint64(f)<<50 | uint64(ed.FromID), toIDDepth: uint64(to)<<57 | uint64(ed.ToID)<<1, pos: i}
		if ed.Depth.Valid {
			k.toIDDepth |= 1
			k.depth = uint64(ed.Depth.Value) ^ 1<<63
		}
		keys = append(keys, k)
	}
	// Replace name indexes by ranks in byte order.
	var order, rank [maxEdgeNames]uint64
	for i := range names {
		order[i] = uint64(i)
	}
	slices.SortFunc(order[:len(names)], func(a, b uint64) int { return strings.Compare(names[a], names[b]) })
	for r, i := range order[:len(names)] {
		rank[i] = uint64(r)
	}
	const idBits = 1<<50 - 1
	for i := range keys {
		k := &keys[i]
		k.typeFromID = rank[k.typeFromID>>57]<<57 | rank[k.typeFromID>>50&0x7F]<<50 | k.typeFromID&idBits
		k.toIDDepth = rank[k.toIDDepth>>57]<<57 | k.toIDDepth&(1<<57-1)
	}
	slices.SortFunc(keys, func(a, b edgeKey) int { return compareEdgeKeys(&a, &b) })
	// Equal ranks are equal names, and no edge here has a path id or
	// step, so sameEdge compares the type, from, from id, to and to id:
	// the key without the depth.
	out := e.list[:0]
	var last *edgeKey
	for i := range keys {
		k := &keys[i]
		if last != nil && k.typeFromID == last.typeFromID && k.toIDDepth>>1 == last.toIDDepth>>1 {
			continue
		}
		out = append(out, &r.Edges[k.pos])
		last = k
	}
	e.list = out
	return out, true
}

// edgeRef is an edge with its input position.
type edgeRef struct {
	e   *graphresponse.Edge
	pos int
}

func (e *Encoder) edgeSection(r *graphresponse.Response) {
	e.buf = append(e.buf, "@edges\n"...)
	edges := e.sortedEdges(r)
	for start := 0; start < len(edges); {
		end := start + 1
		for end < len(edges) && edges[end].Type == edges[start].Type {
			end++
		}
		e.buf = e.groupHeader(e.buf, edges[start].Type, end-start)
		for _, ed := range edges[start:end] {
			b := e.ident(e.buf, ed.From)
			b = append(b, ':')
			b = strconv.AppendInt(b, ed.FromID, 10)
			b = append(b, " --> "...)
			b = e.ident(b, ed.To)
			b = append(b, ':')
			b = strconv.AppendInt(b, ed.ToID, 10)
			if ed.Depth.Valid {
				b = append(b, " depth="...)
				b = strconv.AppendInt(b, ed.Depth.Value, 10)
			}
			e.buf = append(b, '\n')
			e.maybeFlush()
		}
		start = end
	}
	clear(e.list)
	e.list = e.list[:0]
}

func (e *Encoder) pathSection(r *graphresponse.Response) {
	edges := e.sortedEdges(r)
	// Edges with a path_id sort first, in ascending path_id order.
	n := 0
	for n < len(edges) && edges[n].PathID.Valid {
		n++
	}
	if n > 0 {
		e.buf = append(e.buf, "@paths\n"...)
	}
	for start := 0; start < n; {
		end := start + 1
		for end < n && edges[end].PathID.Value == edges[start].PathID.Value {
			end++
		}
		path := append(e.path[:0], edges[start:end]...)
		slices.SortStableFunc(path, func(a, b *graphresponse.Edge) int {
			if c := cmp.Compare(stepOrZero(a), stepOrZero(b)); c != 0 {
				return c
			}
			if c := cmp.Compare(a.Type, b.Type); c != 0 {
				return c
			}
			if c := cmp.Compare(a.FromID, b.FromID); c != 0 {
				return c
			}
			return cmp.Compare(a.ToID, b.ToID)
		})
		b := append(e.buf, "path="...)
		b = strconv.AppendInt(b, path[0].PathID.Value, 10)
		b = append(b, ": "...)
		b = e.ident(b, path[0].From)
		b = append(b, ':')
		b = strconv.AppendInt(b, path[0].FromID, 10)
		for _, ed := range path {
			b = append(b, " --"...)
			b = e.ident(b, ed.Type)
			b = append(b, "--> "...)
			b = e.ident(b, ed.To)
			b = append(b, ':')
			b = strconv.AppendInt(b, ed.ToID, 10)
		}
		e.buf = append(b, '\n')
		clear(path)
		e.path = path[:0]
		e.maybeFlush()
		start = end
	}
	clear(e.list)
	e.list = e.list[:0]
}

func stepOrZero(e *graphresponse.Edge) int64 {
	if e.Step.Valid {
		return e.Step.Value
	}
	return 0
}

func (e *Encoder) rowSection(r *graphresponse.Response) {
	e.buf = append(e.buf, "@rows\n"...)
	for _, row := range r.Rows {
		b := e.buf
		first := true
		cell := func(name string) {
			v, ok := row.Get(name)
			if !ok {
				return
			}
			mark, altered := len(b), e.altered
			if !first {
				b = append(b, ' ')
			}
			b = e.ident(b, name)
			b = append(b, '=')
			valStart := len(b)
			b = e.cell(b, name, v)
			if len(b) == valStart {
				b, e.altered = b[:mark], altered
				return
			}
			first = false
		}
		for _, g := range r.GroupColumns {
			cell(g.Name)
		}
		for _, c := range r.Columns {
			cell(c.Name)
		}
		e.buf = append(b, '\n')
		e.maybeFlush()
	}
}

// cell formats a row cell (§3.10).
func (e *Encoder) cell(b []byte, key string, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindNull:
		return append(b, "null"...)
	case graphresponse.KindObject:
		t, ok1 := v.Get("type")
		id, ok2 := v.Get("id")
		if ok1 && ok2 && t.Kind() == graphresponse.KindString && id.Kind() == graphresponse.KindString {
			b = e.ident(b, t.Str())
			b = append(b, ':')
			return e.ident(b, id.Str())
		}
	}
	b, _, changed := appendValue(b, key, v)
	return e.count(b, changed)
}

// appendValue formats a property or cell value (§3.6). It returns the
// original code-point length when a string value was truncated (for the
// _len breadcrumb), else 0, and whether text safety changed the string
// (see appendQuoted). A value with no printable form appends nothing.
func appendValue(b []byte, key string, v graphresponse.Value) ([]byte, int, bool) {
	switch v.Kind() {
	case graphresponse.KindBool:
		return strconv.AppendBool(b, v.Bool()), 0, false
	case graphresponse.KindInt:
		return strconv.AppendInt(b, v.Int(), 10), 0, false
	case graphresponse.KindUint:
		return strconv.AppendUint(b, v.Uint(), 10), 0, false
	case graphresponse.KindFloat:
		return appendFloat(b, v.Float()), 0, false
	case graphresponse.KindString:
		return appendString(b, key, v.Str())
	case graphresponse.KindArray, graphresponse.KindObject:
		js := appendSortedJSON(nil, v)
		b, _, changed := appendString(b, key, string(js))
		return b, 0, changed
	}
	return b, 0, false
}

// appendFloat is the one place floats are formatted: shortest round-trip
// digits, never exponent form, no trailing ".0"; NaN and ±Inf print
// nothing.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// limit returns the truncation limit, in code points, for a key (§3.7.1).
func limit(key string) int {
	switch key {
	case "body", "description", "name", "note", "title":
		return 200
	}
	return 1000
}

// appendString runs the string pipeline of §3.7: skip empty, truncate,
// normalise a ClickHouse datetime, then write bare or quoted. It returns the
// original length in code points when the string was truncated, else 0,
// and whether text safety changed the string.
func appendString(b []byte, key, s string) ([]byte, int, bool) {
	if s == "" {
		return b, 0, false
	}
	// Every limit is at least 200 and runes ≤ bytes, so shorter strings
	// skip the key lookup. A longer one is walked once: to the cut (lim-3
	// code points), then on to its end for the whole count, which only a
	// string that is cut needs, for its breadcrumb.
	if len(s) > 200 {
		if lim := limit(key); len(s) > lim {
			cut, head := runePrefix(s, lim-3)
			if _, tail := runePrefix(s[cut:], len(s)-cut); head+tail > lim {
				return appendTruncated(b, s[:cut], head+tail)
			}
		}
	}
	if isClickHouseDateTime(s) {
		b = append(b, s[:10]...)
		b = append(b, 'T')
		return append(b, s[11:]...), 0, false
	}
	// One pass classifies s for both decisions below; the bare test and
	// appendQuoted remain the definitions (TestScanMatchesDefinitions).
	switch c := scan(s); {
	case c&bare != 0 && s != "true" && s != "false" && s != "null":
		return append(b, s...), 0, false
	case c&plainQuoted != 0:
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"'), 0, false
	}
	b, changed := appendQuoted(b, s)
	return b, 0, changed
}

// word returns the first eight bytes of w, little-endian.
func word(w string) uint64 {
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// asciiWord reports whether the eight bytes of w are all ASCII.
func asciiWord(w string) bool {
	return word(w)&0x8080808080808080 == 0
}

// runePrefix walks the first n code points of s, or all of s when it has
// fewer, eight ASCII bytes at a time, counting an invalid byte as one code
// point as utf8.RuneCountInString does. It returns the byte offset it
// reached and the code points it passed: runePrefix(s, len(s)) counts s.
func runePrefix(s string, n int) (off, runes int) {
	for runes < n && off < len(s) {
		if runes+8 <= n && off+8 <= len(s) && asciiWord(s[off:off+8]) {
			off, runes = off+8, runes+8
			continue
		}
		switch c := s[off]; {
		case c < utf8.RuneSelf:
			off++
		case 0xC2 <= c && c <= 0xDF && off+1 < len(s) && s[off+1]&0xC0 == 0x80:
			off += 2 // a valid two-byte sequence (Latin, Greek, Cyrillic, …), decoded inline
		default:
			_, size := utf8.DecodeRuneInString(s[off:])
			off += size
		}
		runes++
	}
	return off, runes
}

// appendTruncated writes t, the first lim-3 code points of a string of
// n > lim code points, followed by "...", as appendString writes that cut
// string. The result is never a ClickHouse datetime (its fraction would end
// in dots) nor a keyword, and the dots are bare and copied inside quotes,
// so the cut text decides bare or quoted and the dots are written after
// it, without building the truncated string.
func appendTruncated(b []byte, t string, n int) ([]byte, int, bool) {
	switch c := scan(t); {
	case c&bare != 0:
		b = append(b, t...)
		return append(b, "..."...), n, false
	case c&plainQuoted != 0:
		b = append(b, '"')
		b = append(b, t...)
		return append(b, `..."`...), n, false
	}
	b, changed := appendQuoted(b, t)
	return append(b[:len(b)-1], `..."`...), n, changed
}

// Byte classes of [scan]: a string has a class when every byte has it.
const (
	bare        = 1 << iota // ASCII letter, digit or _ - : . / @ + (isBare)
	plainQuoted             // printable ASCII but " and \: appendQuoted copies it
)

// byteClass holds the classes of each byte value; it is never written
// after initialisation.
var byteClass = func() (t [256]uint8) {
	for c := 0x20; c < 0x7f; c++ {
		if c != '"' && c != '\\' {
			t[c] = plainQuoted
		}
		if isBare(string(rune(c))) {
			t[c] |= bare
		}
	}
	return t
}()

// scan returns the classes every byte of s has. Once s is known not to
// be bare, only plainQuoted is left to settle, and that it checks eight
// bytes at a time, going byte by byte only through a word that holds a
// byte outside it.
func scan(s string) uint8 {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	// hasZero reports whether some byte of x is zero (exact as a yes/no).
	hasZero := func(x uint64) bool { return (x-ones)&^x&highs != 0 }
	m := uint8(bare | plainQuoted)
	i := 0
	for ; i < len(s) && m&bare != 0; i++ {
		m &= byteClass[s[i]]
	}
	for ; i+8 <= len(s) && m != 0; i += 8 {
		w := s[i : i+8]
		x := word(w)
		// A byte below 0x20 (x-0x20 borrows into a clear high bit), at or
		// above 0x7F, or a quote or backslash sends the word to the table.
		if (x-0x20*ones)&^x&highs != 0 || (x+0x01*ones)&highs != 0 || x&highs != 0 ||
			hasZero(x^'"'*ones) || hasZero(x^'\\'*ones) {
			for _, c := range []byte(w) {
				m &= byteClass[c]
			}
		}
	}
	for ; i < len(s); i++ {
		m &= byteClass[s[i]]
	}
	return m
}

// isBare reports whether s prints without quotes: not a JSON keyword and
// made only of ASCII letters, digits and _ - : . / @ +.
func isBare(s string) bool {
	switch s {
	case "true", "false", "null":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_', c == '-', c == ':', c == '.', c == '/', c == '@', c == '+':
		default:
			return false
		}
	}
	return true
}

// appendQuoted writes s in double quotes with the five GOON escapes; other
// C0 controls and DEL are dropped (§3.7), invalid UTF-8 bytes become
// U+FFFD, and the code points of the text-safety set above U+007F (C1
// controls, U+2028, U+2029, bidirectional controls, U+FEFF), and a literal
// ⟦, are written as ⟦U+XXXX⟧ markers. Everything else is copied. It
// reports whether a character was dropped or marked.
func appendQuoted(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	changed := false
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, s[start:i]...)
				b = append(b, "\uFFFD"...)
			case textsafe.MayStart(c) && (textsafe.Forbidden(r) || r == textsafe.Open):
				b = append(b, s[start:i]...)
				b = textsafe.AppendMarker(b, r)
				changed = true
			default:
				i += size
				continue
			}
			i += size
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '\\':
			b = append(b, '\\', '\\')
		case '"':
			b = append(b, '\\', '"')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			// Other C0 controls and DEL are dropped.
			changed = true
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"'), changed
}

// isClickHouseDateTime reports whether s is exactly
// "YYYY-MM-DD hh:mm:ss[.F+]" with valid calendar values (§3.8).
func isClickHouseDateTime(s string) bool {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[10] != ' ' || s[13] != ':' || s[16] != ':' {
		return false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return false
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 60 {
		return false
	}
	if len(s) == 19 {
		return true
	}
	if s[19] != '.' || len(s) == 20 {
		return false
	}
	for _, c := range []byte(s[20:]) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// appendSortedJSON writes a composite value as compact JSON with object
// keys in byte order, for values outside the schema (§3.6).
func appendSortedJSON(b []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindArray:
		b = append(b, '[')
		for i, el := range v.Elems() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendSortedJSON(b, el)
		}
		return append(b, ']')
	case graphresponse.KindObject:
		b = append(b, '{')
		for i, m := range graphresponse.SortedMembers(v.Members()) {
			if i > 0 {
				b = append(b, ',')
			}
			b = graphresponse.AppendQuotedJSON(b, m.Key)
			b = append(b, ':')
			b = appendSortedJSON(b, m.Value)
		}
		return append(b, '}')
	}
	return graphresponse.AppendValueJSON(b, v)
}
