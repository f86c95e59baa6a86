package compiler

import (
	"cmp"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Traversals on cached edges (docs/compiler.md, "Traversals on cached edges").
//
// A fixed-length traversal (a chain or tree of single hops) reads, besides its node tables,
// one edge scan per relationship, each about 2 ms of planning before it reads a row. On the
// edge sets of the path cache ([Compiler.EdgeSet]: edges whose both ends are live nodes the
// caller may read) the hops are followed in Go from the named root ([Plan.CachedHops]), and
// one statement ([Compiler.HopsCachedStep]) reads every node, each narrowed to the ids the
// hops reached, joined by the edges found instead of by edge scans, with the order, cursor
// and limit of the one-statement form.

// hopCache is what the cached form of a fixed-length traversal needs from the lowering.
type hopCache struct {
	r     *request
	after []*string
	root  *nodeSel
	hops  []hopSets
	pairs []EdgePair
}

// hopSets is one hop of the join tree with the edge sets it reads.
type hopSets struct {
	h     hop
	pairs []EdgePair
	aIsX  bool // the hop's from end (column a) is the stored edge's source (the set's X)
}

// hopArm is one arm of a hop's CTE in the cached form: the edges of one relationship type
// between the node id at one end and the nodes ids at the other.
type hopArm struct {
	byNear bool // id is the near end's, ids the far end's; else the other way round
	id     int64
	kind   string
	ids    []int64
}

// Hops are the edges of a fixed-length traversal found on cached edges: per hop (by its
// relationship's index) the arms of its CTE, and per node (by index) the ids the hops
// reached, ascending.
type Hops struct {
	arms  map[int][]hopArm
	cands map[int][]int64
}

// maxHopArms bounds the arms the cached statement lists over all hops; above it the query
// runs as one statement.
const maxHopArms = 64

// hopCacheFor returns the cached-hops state of a traversal's join tree, or nil when the
// cached form cannot reproduce the one-statement answer: a hop of several hops (a walk,
// walkcache.go), in both directions, with edge filters or bound to its namespace, or a root
// that names no ids.
func (l *lowerer) hopCacheFor(root *nodeSel, hops []hop) *hopCache {
	r := l.r
	if r.queryType != qTraversal || len(hops) == 0 {
		return nil
	}
	if !root.hasIDs && (root.idRange == nil || root.idRange[1]-root.idRange[0] > maxWalkRange) {
		return nil
	}
	hc := &hopCache{r: r, after: l.after, root: root}
	for _, h := range hops {
		rs := h.rs
		if rs.maxHops != 1 || rs.direction == "both" || len(rs.preds) > 0 || len(rs.filters) > 0 || l.hopBinding(h).on() {
			return nil
		}
		arm := hopArms(h)[0]
		hs := hopSets{h: h, aIsX: arm.aCol == "source_id"}
		for _, t := range rs.concrete {
			if !slices.Contains(l.cat.rels[t].pairs, pair{arm.srcEnt, arm.tgtEnt}) {
				continue // no stored edge of this type joins these kinds (a load refuses one)
			}
			ep := EdgePair{t, arm.srcEnt, arm.tgtEnt}
			hs.pairs = append(hs.pairs, ep)
			if !slices.Contains(hc.pairs, ep) {
				hc.pairs = append(hc.pairs, ep)
			}
		}
		hc.hops = append(hc.hops, hs)
	}
	if len(hc.pairs) == 0 {
		return nil
	}
	return hc
}

// TraversalCachePairs lists the edge sets ([Compiler.EdgeSet]) a fixed-length traversal can
// run on ([Plan.CachedHops]); nil when it cannot (see hopCacheFor).
func (p *Plan) TraversalCachePairs() []EdgePair {
	if p == nil || p.hops == nil {
		return nil
	}
	return p.hops.pairs
}

// CachedHops follows the hops of a fixed-length traversal on the edge sets of the plan's
// pairs (sets, by pair, each the [Compiler.EdgeSet] of the query's caller), as the hops' edge
// scans and the final join do in the engine: from the root's named ids, hop by hop in the
// join tree's order, the edges of the hop's types and kinds whose near end a hop before
// reached (or the root names) and whose far end the far node names, if it names ids. Every
// node so reached is a live node the caller may read (the sets hold only edges between such
// nodes); the statement ([Compiler.HopsCachedStep]) still reads every node through its
// checked scan, with its filters, and the join keeps only rows all of whose nodes it read.
// ok is false when the statement would need more than maxHopArms arms, the hops more than
// maxWalkSteps steps, or an edge is stored twice between the same two nodes (under two
// traversal paths: the edge scans would return it twice, the arms once).
func (p *Plan) CachedHops(sets map[EdgePair][]PathEdge) (hs *Hops, ok bool, err error) {
	hc := p.hops
	if hc == nil {
		return nil, false, newErr("", ErrCompilerBug, "cached hops of a query without a cached traversal plan")
	}
	hs = &Hops{arms: map[int][]hopArm{}, cands: map[int][]int64{}}
	reached := map[int]map[int64]bool{}
	budget, arms := maxWalkSteps, 0
	type edgeKey struct {
		a, b int64
		kind string
	}
	for _, h := range hc.hops {
		nearOK := named(hc.root)
		if h.h.near != hc.root {
			at := reached[h.h.near.idx]
			nearOK = func(r graphresponse.NodeRef) bool { return at[r.ID] }
		}
		farOK := func(graphresponse.NodeRef) bool { return true }
		if far := h.h.far; far.hasIDs || far.idRange != nil {
			farOK = named(far)
		}
		seen := map[edgeKey]bool{}
		byNear := map[edgeKey][]int64{} // key a: the near id, kind; b unused
		byFar := map[edgeKey][]int64{}
		fars := map[int64]bool{}
		for _, ep := range h.pairs {
			for _, e := range sets[ep] {
				if budget--; budget < 0 {
					return nil, false, nil
				}
				a, b := e.X, e.Y
				if !h.aIsX {
					a, b = b, a
				}
				near, far := a, b
				if !h.h.nearIsFrom {
					near, far = b, a
				}
				if !nearOK(near) || !farOK(far) {
					continue
				}
				k := edgeKey{a.ID, b.ID, ep.Type}
				if seen[k] {
					return nil, false, nil
				}
				seen[k] = true
				fars[far.ID] = true
				byNear[edgeKey{a: near.ID, kind: ep.Type}] = append(byNear[edgeKey{a: near.ID, kind: ep.Type}], far.ID)
				byFar[edgeKey{a: far.ID, kind: ep.Type}] = append(byFar[edgeKey{a: far.ID, kind: ep.Type}], near.ID)
			}
		}
		reached[h.h.far.idx] = fars
		group, isNear := byNear, true
		if len(byFar) < len(byNear) {
			group, isNear = byFar, false
		}
		keys := make([]edgeKey, 0, len(group))
		for k := range group {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y edgeKey) int {
			if c := cmp.Compare(x.a, y.a); c != 0 {
				return c
			}
			return cmp.Compare(x.kind, y.kind)
		})
		if arms += len(keys); arms > maxHopArms {
			return nil, false, nil
		}
		for _, k := range keys {
			ids := group[k]
			slices.Sort(ids)
			hs.arms[h.h.rs.idx] = append(hs.arms[h.h.rs.idx], hopArm{byNear: isNear, id: k.a, kind: k.kind, ids: ids})
		}
		ids := make([]int64, 0, len(fars))
		for id := range fars {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		hs.cands[h.h.far.idx] = ids
	}
	return hs, true, nil
}

// Len is the number of edges found.
func (hs *Hops) Len() int {
	n := 0
	for _, arms := range hs.arms {
		for _, a := range arms {
			n += len(a.ids)
		}
	}
	return n
}

// HopsCachedStep builds the statement of a fixed-length traversal on cached edges: the
// one-statement form's node scans (scoped, live, with the query's filters and columns), each
// but the root's narrowed to the ids the hops reached, joined by the edges hs
// ([Plan.CachedHops]) instead of the hops' edge scans, with the same columns, order, cursor
// seek and limit. The edges are trusted only to pair nodes: every node of a row comes from a
// checked scan.
func (c *Compiler) HopsCachedStep(q *Query, hs *Hops) (*Query, error) {
	if q == nil || q.Plan.TraversalCachePairs() == nil || hs == nil {
		return nil, newErr("", ErrCompilerBug, "cached hops step requested for a query without a cached traversal plan")
	}
	hc := q.Plan.hops
	caller := q.Plan.caller
	cat := c.catalogFor(caller)
	b := *q.Plan.Build
	b.Nodes, b.Edges = nil, nil
	l := &lowerer{cat: cat, caller: caller, scopes: newScopeCache(caller), r: hc.r, after: hc.after, sizes: c.sizes, plan: &b, hopped: hs}
	stmt, err := l.lowerTraversal()
	if err != nil {
		return nil, err
	}
	placePrewhere(stmt, cat)
	return c.finish(stmt, caller, q.Plan.Build.QueryType, nil)
}

// hoppedCTE is the CTE of hop h in the cached form: one arm per (node id, type) of one end,
// reading the other end's CTE at the ids the edges pair with it, with the columns of the
// hop's edge CTE. With no edge, one arm that reads nothing keeps the columns.
func (l *lowerer) hoppedCTE(h hop) *cte {
	rs := h.rs
	arms := l.hopped.arms[rs.idx]
	if len(arms) == 0 {
		arms = []hopArm{{byNear: true, kind: rs.concrete[0]}}
	}
	fwd := rs.direction != "incoming"
	var union *selectStmt
	for _, arm := range arms {
		other := nName(h.far)
		if !arm.byNear {
			other = nName(h.near)
		}
		var near, far expr = prm(arm.id, typInt64), col("w", "id")
		if !arm.byNear {
			near, far = far, near
		}
		a, b := near, far
		if !h.nearIsFrom {
			a, b = far, near
		}
		s := &selectStmt{distinct: true, from: &cteRef{name: other, alias: "w"},
			cols:  []selItem{as(a, "a"), as(b, "b"), as(prm(arm.kind, typString), "kind"), as(litBool(fwd), "fwd"), as(litInt(1), "depth")},
			where: []expr{inValues(col("w", "id"), int64sAny(arm.ids), typInt64)}}
		if union == nil {
			union = s
		} else {
			union.union = append(union.union, s)
		}
	}
	return &cte{name: hName(rs), body: union}
}
