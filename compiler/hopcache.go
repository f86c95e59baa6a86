package compiler

import (
	"cmp"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Traversals on cached edges (docs/compiler.md, "Traversals on cached edges").
//
// A fixed-length traversal (a chain or tree of single hops) reads, besides its node tables,
// one edge scan per relationship, each about 2 ms of planning before it reads a row, and
// every hop after the first is seeded by the readable ends of the one before. On the edge
// sets of the path cache ([Compiler.EdgeSet]: edges whose both ends are live nodes the caller
// may read) the hops are followed in Go from the named root ([Plan.CachedHops]), and one
// statement ([Compiler.HopsCachedStep]) reads every node as the one statement does (narrowed
// to the ids the hops reached where it narrows them), joined by the edges found, listed as a
// parameter, instead of by edge scans, with the order, cursor and limit of the one statement.

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

// hopEdge is one edge a hop's CTE lists in the cached form: its from end (a), its to end
// (b) and its relationship type.
type hopEdge struct {
	a, b int64
	kind string
}

// Hops are the edges of a fixed-length traversal found on cached edges: per hop (by its
// relationship's index) the edges its CTE lists, and per node (by index) the ids the hops
// reached, ascending.
type Hops struct {
	edges map[int][]hopEdge
	cands map[int][]int64
}

// maxHopEdges bounds the edges the cached statement lists over all hops; above it the query
// runs as one statement. The engine parses the parameter's text before it plans: 2,000
// pairs cost about 8 ms, 20,000 about 125 ms (against 0.7 ms for SELECT 1).
const maxHopEdges = 4096

// hopCacheFor returns the cached-hops state of a traversal's join tree, or nil when the
// cached form cannot reproduce the one-statement answer or would not gain: a single hop, a
// hop of several hops (a walk, walkcache.go), in both directions, with edge filters or bound
// to its namespace, or a root that names no ids.
func (l *lowerer) hopCacheFor(root *nodeSel, hops []hop) *hopCache {
	r := l.r
	// One hop from named ids stays one statement: its edge scan is bounded by those ids
	// (rule 4 of "SQL shapes"), and listing its edges as a parameter cost more than the scan
	// (bench/duckdb's 1-hop question at scale 10: 2,000 edges, 30 ms against 12.6 for the
	// admin; 11.3 against 12.2 scoped).
	if r.queryType != qTraversal || len(hops) < 2 || len(hops) != len(r.rels) {
		return nil // (a relationship outside the join tree would join two nodes it reached)
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
// Only the edges at the ids a hop starts from are visited, found in the sets' indexes
// ([EdgeSet]). ok is false when the hops find more than maxHopEdges edges, visit more than
// maxWalkSteps, or
// an edge is stored twice between the same two nodes (under two traversal paths: the edge
// scans would return it twice, the list once).
func (p *Plan) CachedHops(sets map[EdgePair]*EdgeSet) (hs *Hops, ok bool, err error) {
	hc := p.hops
	if hc == nil {
		return nil, false, newErr("", ErrCompilerBug, "cached hops of a query without a cached traversal plan")
	}
	hs = &Hops{edges: map[int][]hopEdge{}, cands: map[int][]int64{}}
	reached := map[int]map[int64]bool{}
	budget, total := maxWalkSteps, 0
	for _, h := range hc.hops {
		// Only the edges at the near node's ids are visited: the root's named ids, or the
		// ids the hop before reached.
		var nearIDs idSel
		if h.h.near == hc.root {
			nearIDs = namedIDs(hc.root)
		} else {
			nearIDs = idsOf(reached[h.h.near.idx])
		}
		farOK := func(graphresponse.NodeRef) bool { return true }
		if far := h.h.far; far.hasIDs || far.idRange != nil {
			farOK = named(far)
		}
		seen := map[hopEdge]bool{}
		var found []hopEdge
		fars := map[int64]bool{}
		over, dup := false, false
		// The near end is the stored edge's source when the hop's from end (a) is the source
		// and the near node is the from node, or neither.
		nearIsX := h.aIsX == h.h.nearIsFrom
		for _, ep := range h.pairs {
			set := sets[ep]
			nearKind := ep.To
			if nearIsX {
				nearKind = ep.From
			}
			if nearKind != h.h.near.ent.name {
				continue // (no edge of the set starts at the near node)
			}
			set.each(nearIsX, nearIDs, func(i int) bool {
				if budget--; budget < 0 {
					over = true
					return false
				}
				a, b := graphresponse.NodeRef{Kind: ep.From, ID: set.x[i]}, graphresponse.NodeRef{Kind: ep.To, ID: set.y[i]}
				if !h.aIsX {
					a, b = b, a
				}
				far := b
				if !h.h.nearIsFrom {
					far = a
				}
				if !farOK(far) {
					return true
				}
				k := hopEdge{a.ID, b.ID, ep.Type}
				if seen[k] {
					dup = true
					return false
				}
				seen[k] = true
				fars[far.ID] = true
				found = append(found, k)
				return true
			})
			if over || dup {
				return nil, false, nil
			}
		}
		if total += len(found); total > maxHopEdges {
			return nil, false, nil
		}
		slices.SortFunc(found, func(x, y hopEdge) int {
			if c := cmp.Compare(x.a, y.a); c != 0 {
				return c
			}
			if c := cmp.Compare(x.b, y.b); c != 0 {
				return c
			}
			return cmp.Compare(x.kind, y.kind)
		})
		hs.edges[h.h.rs.idx] = found
		reached[h.h.far.idx] = fars
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
	for _, es := range hs.edges {
		n += len(es)
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
	stmt, err := c.hopsCachedStmt(q, hs)
	if err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}

// hopsCachedStmt builds HopsCachedStep's statement, before the check: the traversal lowered
// again, with the edges hs in place of the hops' edge scans.
func (c *Compiler) hopsCachedStmt(q *Query, hs *Hops) (*selectStmt, error) {
	return c.relower(q, q.Plan.hops.r, q.Plan.hops.after, func(l *lowerer) { l.hopped = hs })
}

// hoppedCTEs are the CTEs of hop h in the cached form: h<j>p, the edges found, one row per
// edge from the array parameter that lists them, and h<j>, those rows with the columns of the
// hop's edge CTE. Neither reads a table: the final join binds both ends of every edge to the
// node CTEs, which are checked scans.
func (l *lowerer) hoppedCTEs(h hop) []*cte {
	rs := h.rs
	edges := l.hopped.edges[rs.idx]
	// With one relationship type the kind is a constant, and the parameter holds only ids.
	vals := make([]any, len(edges))
	typ := "Array(Tuple(Int64, Int64))"
	for i, e := range edges {
		vals[i] = []any{e.a, e.b}
	}
	elem := func(i int) expr { return fn("tupleElement", col("", "e"), litInt(i)) }
	var kind expr = prm(rs.concrete[0], typString)
	if len(rs.concrete) > 1 {
		typ = "Array(Tuple(Int64, Int64, String))"
		for i, e := range edges {
			vals[i] = []any{e.a, e.b, e.kind}
		}
		kind = elem(3)
	}
	raw := hName(rs) + "p"
	rows := &selectStmt{cols: []selItem{as(fn("arrayJoin", prm(vals, typ)), "e")}}
	body := &selectStmt{from: &cteRef{name: raw},
		cols: []selItem{as(elem(1), "a"), as(elem(2), "b"), as(kind, "kind"), as(litBool(rs.direction != "incoming"), "fwd"), as(litInt(1), "depth")}}
	return []*cte{{name: raw, body: rows}, {name: hName(rs), body: body}}
}
