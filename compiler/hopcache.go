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
// runs as one statement. The engine would afford more: each edge given as parameter rows costs
// it about 1 µs (BenchmarkEdgeParams: 2,000 edges 4.1 ms of CPU, 5,000 8.3 ms, 20,000 24.5 ms,
// against 2.3 ms for SELECT 1; the array of tuples before cost 2.4–3.6 times as much). The
// hops in Go visit only the edges at the nodes they reach ([EdgeSet]'s index by either end),
// so the Go side costs what the hops find, not what the sets hold.
const maxHopEdges = 4096

// A single hop from named ids has an edge scan bounded by those ids (rule 4 of "SQL shapes"),
// so its cached form saves one read and gains only when the list is short: it runs when the
// hop finds at most maxOneHopEdges. bench/duckdb's 1-hop at scale 10: 412 edges (scoped) ran
// 9.4–11.4 ms against 12.1–13.8 for the statement; 3,816 (admin) 17–29 ms against 11–13; at
// scale 100, 2,504 (scoped) tied.
const maxOneHopEdges = 1024

// hopCacheFor returns the cached-hops state of a traversal's join tree, or nil when the
// cached form cannot reproduce the one-statement answer: a hop of several hops (a walk,
// walkcache.go), in both directions, with edge filters or bound to its namespace, or a root
// that names no ids. A single hop has the cached form too, bounded more tightly
// (maxOneHopEdges, [Plan.CachedHops]).
func (l *lowerer) hopCacheFor(root *nodeSel, hops []hop) *hopCache {
	r := l.r
	if r.queryType != qTraversal || len(hops) < 1 || len(hops) != len(r.rels) {
		return nil // (a relationship outside the join tree would join two nodes it reached)
	}
	if !root.hasIDs && (root.idRange == nil || !narrowRange(*root.idRange, maxWalkRange+1)) {
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
// ([EdgeSet]). ok is false when the hops find more than maxHopEdges edges (a single hop:
// maxOneHopEdges), visit more than maxWalkSteps, or
// an edge is stored twice between the same two nodes (under two traversal paths: the edge
// scans would return it twice, the list once).
func (p *Plan) CachedHops(sets map[EdgePair]*EdgeSet) (hs *Hops, ok bool, err error) {
	hc := p.hops
	if hc == nil {
		return nil, false, newErr("", ErrCompilerBug, "cached hops of a query without a cached traversal plan")
	}
	budget, limit := maxWalkSteps, maxHopEdges
	if len(hc.hops) == 1 {
		limit = maxOneHopEdges
	}
	hs = &Hops{edges: map[int][]hopEdge{}, cands: map[int][]int64{}}
	reached := map[int]map[int64]bool{}
	total := 0
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
			if ep.kind(nearIsX) != h.h.near.ent.name {
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
				if found = append(found, k); total+len(found) > limit {
					over = true
					return false
				}
				return true
			})
			if over || dup {
				return nil, false, nil
			}
		}
		total += len(found)
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

// hoppedCTEs are the CTEs of hop h in the cached form: h<j>, the edges found, one row per
// edge read from parameters ([paramRows]: parallel arrays of from ends, to ends and, with
// several relationship types, kinds), with the columns of the hop's edge CTE. It reads no
// table: the final join binds both ends of every edge to the node CTEs, which are checked
// scans. (One array of tuples unfolded by arrayJoin, the form before, cost the engine about
// three times as much to send and parse: BenchmarkEdgeParams in executor/chdb.)
func (l *lowerer) hoppedCTEs(h hop) []*cte {
	rs := h.rs
	edges := l.hopped.edges[rs.idx]
	froms, tos := make([]any, len(edges)), make([]any, len(edges))
	for i, e := range edges {
		froms[i], tos[i] = e.a, e.b
	}
	cols := []paramCol{{"a", prm(froms, "Array("+typInt64+")")}, {"b", prm(tos, "Array("+typInt64+")")}}
	// With one relationship type the kind is a constant, and the parameters hold only ids.
	var kind expr = prm(rs.concrete[0], typString)
	if len(rs.concrete) > 1 {
		kinds := make([]any, len(edges))
		for i, e := range edges {
			kinds[i] = e.kind
		}
		cols = append(cols, paramCol{"kind", prm(kinds, "Array("+typString+")")})
		kind = col("", "kind")
	}
	body := &selectStmt{from: &paramRows{cols: cols},
		cols: []selItem{as(col("", "a"), "a"), as(col("", "b"), "b"), as(kind, "kind"), as(litBool(rs.direction != "incoming"), "fwd"), as(litInt(1), "depth")}}
	return []*cte{{name: hName(rs), body: body}}
}
