package compiler

import (
	"cmp"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// Walks on cached edges (docs/compiler.md, "Walks on cached edges").
//
// A traversal of one variable-length relationship between two nodes, whose start names its
// ids, reads in the engine the start's edges, then per step the readable ends and the edges
// leaving them: 7 table reads for a Group -CONTAINS[1..3]-> Project walk, each about 2 ms of
// planning. On the edge sets of the path cache ([Compiler.EdgeSet]: edges whose both ends are
// live nodes the caller may read) the walk is done in Go ([Plan.CachedWalks]), and one
// statement ([Compiler.WalkCachedStep]) reads the start and end nodes, joined to the walks
// found, with the ordering, cursor and limit of the one-statement form.

// walkCache is what the cached form of a traversal's walk needs from the lowering.
type walkCache struct {
	r          *request
	after      []*string
	rs         *relSel
	near, far  *nodeSel
	nearIsFrom bool
	forward    bool        // edges are followed from source to target
	inner      [][]*entity // inner[k]: kinds a walk may pass through after k edges (k ≥ 1)
	maxHops    int
	pairs      []EdgePair
}

// WalkStart is the start of walks: the near node of the hop, by id.
type walkKey struct {
	a     int64
	kind  string // the relationship type of the walk's edge at the hop's from node
	depth int
}

// Walks are the walks of a traversal found on cached edges: for each start id, relationship
// type at the from end and depth, the ids of the end nodes reached, ascending.
type Walks struct {
	keys []walkKey
	ends map[walkKey][]int64
}

// maxWalkRows bounds the walks, (start, end, type, depth) rows, the cached walk statement
// carries as parameters; above it the query runs as one statement. (The statement once had an
// arm per (start, type, depth), and fell back above 64 of them: a walk from an id_range of a
// few hundred starts, or of several types, never ran on the cache.)
const maxWalkRows = 1 << 16

// maxWalkSteps bounds the edges the walk in Go may follow (about 0.2 s of CPU): the walk
// ignores the request's context and the engine's limits, and dense edge sets make the walks
// of three hops grow as the cube of a node's degree (90,000 edges among 300 groups: 2.7e7
// steps, 6 s, from one start). Above it the query runs as one statement, under the engine's
// limits.
const maxWalkSteps = 1 << 20

// maxWalkRange is the widest id_range of a start node for the cached form.
const maxWalkRange = 1000

// walkCacheFor returns the cached-walk state of hop h of a traversal, or nil when the cached
// form cannot reproduce the one-statement answer: more than one hop or node, both directions, edge filters, edges bound to their namespace, a start without named ids.
func (l *lowerer) walkCacheFor(h hop, inner [][]*entity, maxHops int, forward bool) *walkCache {
	r, rs := l.r, h.rs
	if r.queryType != qTraversal || len(r.rels) != 1 || len(r.nodes) != 2 || rs.direction == "both" ||
		len(rs.preds) > 0 || len(rs.filters) > 0 || l.hopBinding(h).on() {
		return nil
	}
	n := h.near
	if !n.hasIDs && (n.idRange == nil || !narrowRange(*n.idRange, maxWalkRange+1)) {
		return nil
	}
	w := &walkCache{r: r, after: l.after, rs: rs, near: h.near, far: h.far, nearIsFrom: h.nearIsFrom,
		forward: forward, inner: inner, maxHops: maxHops}
	for k := 1; k <= maxHops; k++ {
		froms := []*entity{h.near.ent}
		if k >= 2 {
			froms = inner[k-1]
		}
		tos := []*entity{h.far.ent}
		if k < maxHops {
			tos = append(tos, inner[k]...)
		}
		if forward {
			w.pairs = l.cachePairs(w.pairs, rs.concrete, froms, tos)
		} else {
			w.pairs = l.cachePairs(w.pairs, rs.concrete, tos, froms)
		}
	}
	return w
}

// WalkCachePairs lists the edge sets ([Compiler.EdgeSet]) a traversal's walk can run on
// ([Plan.CachedWalks]); nil when it cannot (see walkCacheFor).
func (p *Plan) WalkCachePairs() []EdgePair {
	if p == nil || p.walks == nil {
		return nil
	}
	return p.walks.pairs
}

// CachedWalks walks the edge sets of the plan's pairs (sets, by pair, each the
// [Compiler.EdgeSet] of the query's caller) as the variable-length hop's steps do in the
// engine: from the start's named ids, over edges of the hop's type in its direction, never a
// self loop, each node after the first of a kind the walk may pass through there, no two
// non-adjacent nodes of a walk the same; a walk of depth minHops..maxHops that ends at a node
// of the far kind is kept, once per (start, end, depth). Every node of a walk is a live node
// the caller may read, as the edge sets hold only edges between such nodes; the start and the
// end are still read by [Compiler.WalkCachedStep]'s checked scans. ok is false when there are
// more than maxWalkRows walks or they need more than maxWalkSteps steps.
func (p *Plan) CachedWalks(sets map[EdgePair]*EdgeSet) (w *Walks, ok bool, err error) {
	wc := p.walks
	if wc == nil {
		return nil, false, newErr("", ErrCompilerBug, "cached walks of a query without a cached walk plan")
	}
	type out struct {
		y    graphresponse.NodeRef
		kind string
	}
	// The edges leaving a node (entering it when the walk goes backwards), looked up in the
	// sets' indexes as the walk reaches it, once per node.
	adjOf := map[graphresponse.NodeRef][]out{}
	adj := func(x graphresponse.NodeRef) []out {
		if o, ok := adjOf[x]; ok {
			return o
		}
		var o []out
		for _, ep := range wc.pairs {
			set := sets[ep]
			if ep.kind(wc.forward) != x.Kind {
				continue
			}
			set.each(wc.forward, oneID(x.ID), func(i int) bool {
				if ep.From == ep.To && set.x[i] == set.y[i] {
					return true
				}
				y := graphresponse.NodeRef{Kind: ep.To, ID: set.y[i]}
				if !wc.forward {
					y = graphresponse.NodeRef{Kind: ep.From, ID: set.x[i]}
				}
				o = append(o, out{y, ep.Type})
				return true
			})
		}
		adjOf[x] = o
		return o
	}
	var starts []graphresponse.NodeRef
	if sel := namedIDs(wc.near); sel.all {
		// An id_range alone: the nodes of the range with edges, from the sets' indexes.
		ids := map[int64]bool{}
		for _, ep := range wc.pairs {
			set := sets[ep]
			if ep.kind(wc.forward) != wc.near.ent.name {
				continue
			}
			set.each(wc.forward, sel, func(i int) bool {
				if wc.forward {
					ids[set.x[i]] = true
				} else {
					ids[set.y[i]] = true
				}
				return true
			})
		}
		for _, id := range idsOf(ids).ids {
			starts = append(starts, graphresponse.NodeRef{Kind: wc.near.ent.name, ID: id})
		}
	} else {
		for _, id := range sel.ids {
			if id >= sel.lo && id <= sel.hi {
				starts = append(starts, graphresponse.NodeRef{Kind: wc.near.ent.name, ID: id})
			}
		}
	}
	kindIn := func(kinds []*entity, k string) bool {
		return slices.ContainsFunc(kinds, func(e *entity) bool { return e.name == k })
	}
	w = &Walks{ends: map[walkKey][]int64{}}
	seen := map[walkKey]map[int64]bool{}
	path := make([]graphresponse.NodeRef, 0, wc.maxHops+1)
	budget := maxWalkSteps
	var step func(s int64, first string)
	step = func(s int64, first string) {
		k := len(path) // the edge taken now is the k-th
		from := path[k-1]
		for _, o := range adj(from) {
			if budget--; budget < 0 {
				return
			}
			y, f := o.y, first
			if k == 1 {
				f = o.kind
			}
			// No self loop (the sets hold none, kept for clarity); no two non-adjacent nodes alike.
			if y == from || slices.Contains(path[:k-1], y) {
				continue
			}
			if y.Kind == wc.far.ent.name && k >= wc.rs.minHops {
				// The row's type is that of the edge at the from node: the first edge's
				// when the walk starts there, else the last's.
				key := walkKey{s, f, k}
				if !wc.nearIsFrom {
					key.kind = o.kind
				}
				if seen[key] == nil {
					seen[key] = map[int64]bool{}
					w.keys = append(w.keys, key)
				}
				if !seen[key][y.ID] {
					seen[key][y.ID] = true
					w.ends[key] = append(w.ends[key], y.ID)
				}
			}
			if k < wc.maxHops && kindIn(wc.inner[k], y.Kind) {
				path = append(path, y)
				step(s, f)
				path = path[:k]
			}
		}
	}
	for _, s := range starts {
		path = append(path[:0], s)
		step(s.ID, "")
	}
	if budget < 0 || w.Len() > maxWalkRows {
		return nil, false, nil
	}
	slices.SortFunc(w.keys, func(a, b walkKey) int {
		if a.a != b.a {
			return cmp.Compare(a.a, b.a)
		}
		if a.kind != b.kind {
			return strings.Compare(a.kind, b.kind)
		}
		return a.depth - b.depth
	})
	for _, k := range w.keys {
		slices.Sort(w.ends[k])
	}
	return w, true, nil
}

// Len is the number of (start, end, depth) walks.
func (w *Walks) Len() int {
	n := 0
	for _, e := range w.ends {
		n += len(e)
	}
	return n
}

// WalkCachedStep builds the statement of a traversal's walk on cached edges: the one-statement
// form's start and end node scans (scoped, live, with the query's filters and columns), the
// end narrowed to the ids the walks reached, joined to the walks w ([Plan.CachedWalks]) instead
// of the hop's edge scans, with the same columns, order, cursor seek and limit. The walks are
// trusted for nothing but the walks' middles, which the edge sets proved readable: each row's
// start and end come from checked scans.
func (c *Compiler) WalkCachedStep(q *Query, w *Walks) (*Query, error) {
	if q == nil || q.Plan.WalkCachePairs() == nil || w == nil {
		return nil, newErr("", ErrCompilerBug, "cached walk step requested for a query without a cached walk plan")
	}
	stmt, err := c.walkCachedStmt(q, w)
	if err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}

// walkCachedStmt builds WalkCachedStep's statement, before the check: the traversal lowered
// again, with the walks w in place of the hop's edge scans.
func (c *Compiler) walkCachedStmt(q *Query, w *Walks) (*selectStmt, error) {
	return c.relower(q, q.Plan.walks.r, q.Plan.walks.after, func(l *lowerer) { l.walked = w })
}

// relower lowers q's traversal (request r, cursor after) again for its caller, as a cached
// form's statement: with set's edits to the lowerer (the walks or hops found on cached edges).
func (c *Compiler) relower(q *Query, r *request, after []*string, set func(*lowerer)) (*selectStmt, error) {
	caller := q.Plan.caller
	cat := c.catalogFor(caller)
	b := *q.Plan.Build
	b.Nodes, b.Edges = nil, nil
	l := &lowerer{cat: cat, caller: caller, scopes: newScopeCache(caller), r: r, after: after, sizes: c.sizes, plan: &b}
	set(l)
	stmt, err := l.lowerTraversal()
	if err != nil {
		return nil, err
	}
	placePrewhere(stmt, cat)
	return stmt, nil
}

// walkedCTEs is hopCTEs for a walk found on cached edges: h<j> holds the walks w, one row per
// (start, end, depth) read from parameters ([paramRows]), with the columns the hop's edge CTE
// has; and the far node is narrowed to every end reached. The top-level select joins the walks
// to the start and far nodes' scans, so a row's ends are only those the scans return: the
// walks choose which pairs of them and at which depth, as the edge sets proved readable.
// (An arm per (start, depth) reading the far node's CTE did the same in 7 unions at scale 10,
// with the far node made an array by a scalar sub-query, at twice this statement's cost.)
func (l *lowerer) walkedCTEs(h hop) ([]*cte, []int64) {
	rs, w := h.rs, l.walked
	var ends []int64
	var starts, reached, depths, kinds []any
	for _, k := range w.keys {
		for _, id := range w.ends[k] {
			starts, reached = append(starts, k.a), append(reached, id)
			kinds, depths = append(kinds, k.kind), append(depths, int64(k.depth))
			ends = append(ends, id)
		}
	}
	a, b := "a", "b"
	if !h.nearIsFrom {
		a, b = b, a
	}
	rows := &paramRows{cols: []paramCol{
		{a, prm(starts, "Array("+typInt64+")")},
		{b, prm(reached, "Array("+typInt64+")")},
		{"kind", prm(kinds, "Array("+typString+")")},
		{"depth", prm(depths, "Array("+typInt64+")")},
	}}
	body := &selectStmt{from: rows,
		cols: []selItem{as(col("", "a"), "a"), as(col("", "b"), "b"), as(col("", "kind"), "kind"), as(litBool(rs.direction != "incoming"), "fwd"), as(col("", "depth"), "depth")}}
	slices.Sort(ends)
	return []*cte{{name: hName(rs), body: body}}, slices.Compact(ends)
}
