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
// hops in Go do not: they scan the sets whole, and bench/duckdb's admin 2-hop at scale 100
// (8,687 edges found on sets of 173,295) spent 15.6 ms there and was no faster than its one
// statement, and with the bound at 8,192 its fallback cost 3–4 ms more than at 4,096. Raise it
// when the hops cost what they reach, not what the sets hold.
const maxHopEdges = 4096

// A single hop from named ids has an edge scan bounded by those ids (rule 4 of "SQL shapes"),
// so its cached form saves one read and gains only when the lists are short: it runs when its
// sets hold at most maxOneHopSetEdges edges (the hops in Go scan them whole, and a scan that
// then finds too many is time lost) and the hop finds at most maxOneHopEdges. bench/duckdb's
// 1-hop at scale 10: 412 edges on a set of 2,304 (scoped) ran 9.4–11.4 ms against 12.1–13.8
// for the statement; 3,816 on 8,738 (admin) 17–29 ms against 11–13; at scale 100, 2,504 on
// 11,853 (scoped) tied, and its scan before falling back cost about 1.5 ms; over 16,384
// edges on 87,164 (admin) spent 16–50 ms in Go before falling back.
const (
	maxOneHopEdges    = 1024
	maxOneHopSetEdges = 8192
)

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
// ok is false when the sets hold more than maxWalkSteps edges (a single hop:
// maxOneHopSetEdges), the hops read more than maxWalkSteps or find more than maxHopEdges (a
// single hop: maxOneHopEdges), or an edge is stored twice between the same two nodes (under two traversal paths: the edge
// scans would return it twice, the list once).
func (p *Plan) CachedHops(sets map[EdgePair][]PathEdge) (hs *Hops, ok bool, err error) {
	hc := p.hops
	if hc == nil {
		return nil, false, newErr("", ErrCompilerBug, "cached hops of a query without a cached traversal plan")
	}
	budget, limit := maxWalkSteps, maxHopEdges
	if len(hc.hops) == 1 {
		budget, limit = maxOneHopSetEdges, maxOneHopEdges
	}
	size := 0
	for _, ep := range hc.pairs {
		size += len(sets[ep])
	}
	if size > budget {
		return nil, false, nil // (the scan below would give up, or for one hop not gain)
	}
	hs = &Hops{edges: map[int][]hopEdge{}, cands: map[int][]int64{}}
	reached := map[int]map[int64]bool{}
	total := 0
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
		seen := map[hopEdge]bool{}
		var found []hopEdge
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
				k := hopEdge{a.ID, b.ID, ep.Type}
				if seen[k] {
					return nil, false, nil
				}
				seen[k] = true
				fars[far.ID] = true
				if found = append(found, k); total+len(found) > limit {
					return nil, false, nil
				}
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
