package compiler

import (
	"fmt"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Path finding on cached edges (docs/compiler.md, "Path finding on cached edges").
//
// The multi-step plan reads the edges at the anchors and between the middles with FINAL scans
// seeded by node sets, and the engine spends most of its time planning them, not reading. A
// process that is the engine's only writer (the embedded engine, under serve or mcp) can hold,
// per caller and relationship type, the edges of that type whose both ends are live nodes the
// caller may read ([Compiler.EdgeSet]): a statement the security check proves like any path
// step (an edge scan seeded at both ends by scoped, live node sets). The walk's middle is then
// done in Go over those edges ([Plan.CachedPathEdges]), and the engine reads only the anchors
// and the middles of the answer ([Compiler.PathCachedStep]), which [Plan.JoinPaths] joins as
// before.

// PathEdge is one edge of an edge set: from X to Y, with the edge's traversal_path (TP).
type PathEdge struct {
	X, Y graphresponse.NodeRef
	TP   string
}

// EdgePair names an edge set: the edges of relationship type Type from a node of entity From
// to one of entity To (a pair of the type in the ontology).
type EdgePair struct{ Type, From, To string }

func (e EdgePair) String() string { return e.Type + " " + e.From + "→" + e.To }

// kind is the entity of the pair's source end (source) or target end (!source).
func (e EdgePair) kind(source bool) string {
	if source {
		return e.From
	}
	return e.To
}

// EdgeSetCols are the columns of an edge set statement.
var EdgeSetCols = []string{"x", "x_kind", "y", "y_kind", "kind", "tp"}

// EdgeSet builds the statement that reads the edge set of pair for caller: the live edges of
// that type the caller may read from a live node of kind pair.From the caller may read to a
// live node of kind pair.To the caller may read (a scoped FINAL, _deleted = false scan of each
// end kind, as every path middle is read), at most limit rows (0: no limit). The statement is
// proved by the security check and by the path step's rule that an edge scan is seeded at
// both ends.
func (c *Compiler) EdgeSet(caller *Caller, pair EdgePair, limit int) (*Query, error) {
	stmt, err := c.edgeSetStmt(caller, pair, limit)
	if err != nil {
		return nil, err
	}
	cat := c.catalogFor(caller)
	if err := checkBothEndsSeeded(stmt, cat); err != nil {
		return nil, err
	}
	return c.finish(stmt, caller, qPathFinding, nil)
}

// edgeSetStmt builds EdgeSet's statement, before the checks.
func (c *Compiler) edgeSetStmt(caller *Caller, ep EdgePair, limit int) (*selectStmt, error) {
	if caller == nil {
		return nil, newErr("", ErrCompilerBug, "edge set without a caller")
	}
	cat := c.catalogFor(caller)
	rt := cat.rels[ep.Type]
	from, to := cat.entities[ep.From], cat.entities[ep.To]
	if rt == nil || from == nil || to == nil || !slices.Contains(rt.pairs, pair{ep.From, ep.To}) {
		return nil, newErr("", ErrCompilerBug, "edge set of "+ep.String()+", not a pair the caller may read")
	}
	froms, tos := []*entity{from}, []*entity{to}
	l := &lowerer{cat: cat, caller: caller, scopes: newScopeCache(caller)}
	s := l.pathEdges(cat.edgeTable, []string{ep.Type}, nsBinding{tp: col("t", "traversal_path"), all: true})
	s.where = append(s.where, startsAt("source_id", "es", froms)...)
	s.where = append(s.where, startsAt("target_id", "ed", tos)...)
	s.with = []*cte{{name: "es", body: l.readableSet(froms, "", "", "", false)}, {name: "ed", body: l.readableSet(tos, "", "", "", false)}}
	for _, x := range s.with {
		x.inline = true
	}
	s.limit = limit
	placePrewhere(s, cat)
	return s, nil
}

// Caller is the caller the query was compiled for.
func (p *Plan) Caller() *Caller {
	if p == nil {
		return nil
	}
	return p.caller
}

// PathCachePairs lists the edge sets ([Compiler.EdgeSet]) a multi-step path_finding plan can
// run on ([Plan.CachedPathEdges]): the pairs of the relationship types of its edge scans
// (f1, b1, m1) between those scans' end kinds. It is nil when the plan cannot: not a plan in
// steps, or edges bound to their namespace (same_namespace), which the cached form leaves to
// the plan in steps.
func (p *Plan) PathCachePairs() []EdgePair {
	if !p.Paths() || p.paths.nb.on() {
		return nil
	}
	return p.paths.cachePairs
}

// cachePairs lists the pairs of types from a kind of froms to a kind of tos, in the order of
// types and pairs, without repeats, appended to out.
func (l *lowerer) cachePairs(out []EdgePair, types []string, froms, tos []*entity) []EdgePair {
	for _, t := range types {
		for _, p := range l.cat.rels[t].pairs {
			ep := EdgePair{t, p.from, p.to}
			if slices.ContainsFunc(froms, func(e *entity) bool { return e.name == p.from }) &&
				slices.ContainsFunc(tos, func(e *entity) bool { return e.name == p.to }) && !slices.Contains(out, ep) {
				out = append(out, ep)
			}
		}
	}
	return out
}

// PathAnchorsNamed reports whether both anchors of a multi-step path_finding plan name their
// ids, so that the cached form reads the anchors in the same statement as the middles.
func (p *Plan) PathAnchorsNamed() bool { return p.Paths() && p.paths.anchorsLate }

// named returns whether anchor n, which names its ids (idsNamed), may be node r: of n's
// kind, among its node_ids and in its id_range. The anchor scan may keep fewer (filters,
// liveness, scope); the join keeps a path only when its ends are in the anchor sets it returned.
func named(n *nodeSel) func(r graphresponse.NodeRef) bool {
	var ids map[int64]bool
	if n.hasIDs {
		ids = make(map[int64]bool, len(n.nodeIDs))
		for _, id := range n.nodeIDs {
			ids[id] = true
		}
	}
	return func(r graphresponse.NodeRef) bool {
		return r.Kind == n.ent.name && (ids == nil || ids[r.ID]) &&
			(n.idRange == nil || (r.ID >= n.idRange[0] && r.ID <= n.idRange[1]))
	}
}

// CachedPathEdges does, on the edge sets of the plan's pairs (sets, by pair, each the
// [Compiler.EdgeSet] of the query's caller), what the edge scans of the plan in steps do in
// the engine: f1 (out of the start anchors), b1 (into the end anchors) and m1 (between the
// middles), each filtered to the relationship types and end kinds of its scan. The start and
// end anchors are the a0 and a1 rows of anchors (the statement [Compiler.PathCachedStep]
// built with anchors and no middles), or, when anchors is nil, the ids the anchors name
// (the plan's anchors are then named, [Plan.PathAnchorsNamed]). It returns those edges as the
// rows of the plan's first statement would carry them, and the middles of every path they
// form: near, the second nodes, and far, the nodes before the last of three-edge paths.
// Only those nodes can be on a path; [Compiler.PathCachedStep] checks them and
// [Plan.JoinPaths] joins the rows.
func (p *Plan) CachedPathEdges(sets map[EdgePair]*EdgeSet, anchors *graphresponse.Rows) (edges graphresponse.Rows, near, far []graphresponse.NodeRef, err error) {
	if p.PathCachePairs() == nil {
		return edges, nil, nil, newErr("", ErrCompilerBug, "cached path edges of a query without a cached path plan")
	}
	st := p.paths
	// The anchors' ids: only the edges at them are visited.
	var fromIDs, toIDs idSel
	if anchors != nil {
		rows, err := stepRows(*anchors)
		if err != nil {
			return edges, nil, nil, err
		}
		a := map[string]map[int64]bool{partFrom: {}, partTo: {}}
		kinds := map[string]string{partFrom: st.from.name, partTo: st.to.name}
		for _, r := range rows {
			if a[r.part] == nil {
				return edges, nil, nil, fmt.Errorf("anchor row of unknown part %q", r.part)
			}
			if r.x.Kind == kinds[r.part] {
				a[r.part][r.x.ID] = true
			}
		}
		fromIDs, toIDs = idsOf(a[partFrom]), idsOf(a[partTo])
	} else if st.anchorsLate {
		fromIDs, toIDs = namedIDs(st.fromSel), namedIDs(st.toSel)
		// (named also tests the kind: an anchor of another kind than the end's meets no edge.)
		if st.fromSel.ent.name != st.from.name {
			fromIDs = noIDs()
		}
		if st.toSel.ent.name != st.to.name {
			toIDs = noIDs()
		}
	} else {
		return edges, nil, nil, newErr("", ErrCompilerBug, "cached path edges without the anchors of a query whose anchors name no ids")
	}
	kindIn := func(kinds []*entity, k string) bool {
		return slices.ContainsFunc(kinds, func(e *entity) bool { return e.name == k })
	}
	// scan keeps the edges of types whose ends pass end kinds (ends, by the set's pair) and
	// keep, as the engine's scans do (no self loops: noSelfLoops leaves the test out only
	// where none can be), visiting only the edges whose source (fromX) or target end is of
	// kind near ("": any) and selected by ids.
	type typedEdge struct {
		PathEdge
		kind string
	}
	scan := func(types []string, fromX bool, near string, ids func(ep EdgePair) idSel, ends func(ep EdgePair) bool, keep func(x, y graphresponse.NodeRef) bool) []typedEdge {
		var out []typedEdge
		for _, ep := range st.cachePairs {
			if !slices.Contains(types, ep.Type) || (near != "" && ep.kind(fromX) != near) || !ends(ep) {
				continue
			}
			set := sets[ep]
			loops := ep.From == ep.To
			set.each(fromX, ids(ep), func(i int) bool {
				x, y := set.x[i], set.y[i]
				if loops && x == y {
					return true
				}
				e := PathEdge{X: graphresponse.NodeRef{Kind: ep.From, ID: x}, Y: graphresponse.NodeRef{Kind: ep.To, ID: y}}
				if keep == nil || keep(e.X, e.Y) {
					out = append(out, typedEdge{e, ep.Type})
				}
				return true
			})
		}
		return out
	}
	f1 := scan(st.f1Types, true, st.from.name, func(EdgePair) idSel { return fromIDs }, func(ep EdgePair) bool {
		return kindIn(st.fEnds, ep.To)
	}, nil)
	var b1, m1 []typedEdge
	if st.depth >= 2 {
		b1 = scan(st.b1Types, false, st.to.name, func(EdgePair) idSel { return toIDs }, func(ep EdgePair) bool {
			return kindIn(st.bStarts, ep.From)
		}, nil)
	}
	// The middles: a second node meets a b1 edge (two edges) or starts an m1 edge that ends
	// where a b1 edge starts (three edges).
	seconds := map[graphresponse.NodeRef]bool{}
	for _, f := range f1 {
		if kindIn(st.fMids, f.Y.Kind) {
			seconds[f.Y] = true
		}
	}
	lasts := map[graphresponse.NodeRef]bool{}
	for _, b := range b1 {
		lasts[b.X] = true
	}
	seenN, seenF := map[graphresponse.NodeRef]bool{}, map[graphresponse.NodeRef]bool{}
	addTo := func(list *[]graphresponse.NodeRef, seen map[graphresponse.NodeRef]bool, n graphresponse.NodeRef) {
		if !seen[n] {
			seen[n] = true
			*list = append(*list, n)
		}
	}
	if st.depth >= 2 {
		for _, f := range f1 {
			if seconds[f.Y] && lasts[f.Y] {
				addTo(&near, seenN, f.Y)
			}
		}
	}
	if st.depth >= 3 {
		secondIDs := map[string]map[int64]bool{}
		for n := range seconds {
			if secondIDs[n.Kind] == nil {
				secondIDs[n.Kind] = map[int64]bool{}
			}
			secondIDs[n.Kind][n.ID] = true
		}
		bySecond := map[string]idSel{}
		for k, ids := range secondIDs {
			bySecond[k] = idsOf(ids)
		}
		m1 = scan(st.m1Types, true, "", func(ep EdgePair) idSel { return bySecond[ep.From] }, func(ep EdgePair) bool {
			return kindIn(st.fMids, ep.From) && kindIn(st.bMids, ep.To)
		}, func(_, y graphresponse.NodeRef) bool { return lasts[y] })
		for _, m := range m1 {
			addTo(&near, seenN, m.X)
			addTo(&far, seenF, m.Y)
		}
	}
	edges.Columns = stepCols
	for _, part := range []struct {
		name  string
		edges []typedEdge
	}{{partF1, f1}, {partB1, b1}, {partM1, m1}} {
		for _, e := range part.edges {
			edges.Values = append(edges.Values, []any{part.name, e.X.ID, e.X.Kind, e.Y.ID, e.Y.Kind, e.kind, "", []any{}})
		}
	}
	return edges, near, far, nil
}

// PathCachedStep builds a statement of the cached form of a multi-step path_finding plan:
// with anchors, the anchor sets a0 and a1 with their hydration columns (as the plan in steps
// reads them); and the middles near and far ([Plan.CachedPathEdges]) that the caller may read
// and that are live, one scoped, live entity scan per kind narrowed by the ids (with their
// hydration columns when props), as [Compiler.PathStep] reads them, without the middle edges.
// near and far are trusted for nothing: the ids only narrow checked scans, and a kind outside
// the plan's is refused. It returns nil when there is nothing to read.
func (c *Compiler) PathCachedStep(q *Query, near, far []graphresponse.NodeRef, props, anchors bool) (*Query, error) {
	if q == nil || q.Plan.PathCachePairs() == nil {
		return nil, newErr("", ErrCompilerBug, "cached path step requested for a query without a cached path plan")
	}
	stmt, err := c.stepStmt(q, near, far, props, anchors, false)
	if stmt == nil || err != nil {
		return nil, err
	}
	if err := checkBothEndsSeeded(stmt, c.catalogFor(q.Plan.caller)); err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}
