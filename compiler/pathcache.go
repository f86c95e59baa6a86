package compiler

import (
	"fmt"
	"slices"
	"strings"

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

// EdgeSetCols are the columns of an edge set statement.
var EdgeSetCols = []string{"x", "x_kind", "y", "y_kind", "kind", "tp"}

// EdgeSet builds the statement that reads the edge set of relType for caller: the live edges
// of that type the caller may read whose source and target are both live nodes the caller may
// read (a scoped FINAL, _deleted = false scan of each end kind the type's pairs name, as every
// path middle is read), at most limit rows (0: no limit). The statement is proved by the
// security check and by the path step's rule that an edge scan is seeded at both ends.
func (c *Compiler) EdgeSet(caller *Caller, relType string, limit int) (*Query, error) {
	stmt, err := c.edgeSetStmt(caller, relType, limit)
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
func (c *Compiler) edgeSetStmt(caller *Caller, relType string, limit int) (*selectStmt, error) {
	if caller == nil {
		return nil, newErr("", ErrCompilerBug, "edge set without a caller")
	}
	cat := c.catalogFor(caller)
	rt := cat.rels[relType]
	if rt == nil || len(rt.pairs) == 0 {
		return nil, newErr("", ErrCompilerBug, "edge set of an unknown relationship type "+relType)
	}
	var froms, tos []*entity
	for _, name := range cat.entityNames {
		e := cat.entities[name]
		if slices.ContainsFunc(rt.pairs, func(p pair) bool { return p.from == name }) {
			froms = append(froms, e)
		}
		if slices.ContainsFunc(rt.pairs, func(p pair) bool { return p.to == name }) {
			tos = append(tos, e)
		}
	}
	if len(froms) == 0 || len(tos) == 0 {
		return nil, newErr("", ErrCompilerBug, "edge set of a relationship type whose ends the caller may not read: "+relType)
	}
	l := &lowerer{cat: cat, caller: caller, scopes: newScopeCache(caller)}
	s := l.pathEdges(cat.edgeTable, []string{relType}, nsBinding{tp: col("t", "traversal_path"), all: true})
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

// EdgeSetRows reads the rows of an [Compiler.EdgeSet] statement. Kinds and paths are
// interned: the rows of one set share their strings.
func EdgeSetRows(rows graphresponse.Rows) ([]PathEdge, error) {
	ix, err := columnsOf(rows.Columns, EdgeSetCols...)
	if err != nil {
		return nil, err
	}
	intern := map[string]string{}
	str := func(v any) (string, bool) {
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		if t, ok := intern[s]; ok {
			return t, true
		}
		s = strings.Clone(s)
		intern[s] = s
		return s, true
	}
	out := make([]PathEdge, len(rows.Values))
	for i, row := range rows.Values {
		var ok [5]bool
		e := &out[i]
		e.X.ID, ok[0] = row[ix[0]].(int64)
		e.X.Kind, ok[1] = str(row[ix[1]])
		e.Y.ID, ok[2] = row[ix[2]].(int64)
		e.Y.Kind, ok[3] = str(row[ix[3]])
		e.TP, ok[4] = str(row[ix[5]])
		if slices.Contains(ok[:], false) {
			return nil, fmt.Errorf("edge set row %d: want strings and integer ids, got %v", i, row)
		}
	}
	return out, nil
}

// Caller is the caller the query was compiled for.
func (p *Plan) Caller() *Caller {
	if p == nil {
		return nil
	}
	return p.caller
}

// PathCacheTypes lists the relationship types whose edge sets ([Compiler.EdgeSet]) a
// multi-step path_finding plan can run on ([Plan.CachedPathEdges]), nil when it cannot: not a
// plan in steps, or edges bound to their namespace (same_namespace), which the cached form
// leaves to the plan in steps.
func (p *Plan) PathCacheTypes() []string {
	if !p.Paths() {
		return nil
	}
	st := p.paths
	if st.nb.on() {
		return nil
	}
	var out []string
	for _, ts := range [][]string{st.f1Types, st.b1Types, st.m1Types} {
		for _, t := range ts {
			if !slices.Contains(out, t) {
				out = append(out, t)
			}
		}
	}
	slices.Sort(out)
	return out
}

// PathAnchorsNamed reports whether both anchors of a multi-step path_finding plan name their
// ids, so that the cached form reads the anchors in the same statement as the middles.
func (p *Plan) PathAnchorsNamed() bool { return p.Paths() && p.paths.anchorsLate }

// named reports whether anchor n, which names its ids (idsNamed), may be node r: of n's kind,
// among its node_ids and in its id_range. The anchor scan may keep fewer (filters, liveness,
// scope); the join keeps a path only when its ends are in the anchor sets it returned.
func named(n *nodeSel, r graphresponse.NodeRef) bool {
	if r.Kind != n.ent.name {
		return false
	}
	if n.hasIDs && !slices.Contains(n.nodeIDs, r.ID) {
		return false
	}
	return n.idRange == nil || (r.ID >= n.idRange[0] && r.ID <= n.idRange[1])
}

// CachedPathEdges does, on the edge sets of the plan's types (sets, by type, each the
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
func (p *Plan) CachedPathEdges(sets map[string][]PathEdge, anchors *graphresponse.Rows) (edges graphresponse.Rows, near, far []graphresponse.NodeRef, err error) {
	if p.PathCacheTypes() == nil {
		return edges, nil, nil, newErr("", ErrCompilerBug, "cached path edges of a query without a cached path plan")
	}
	st := p.paths
	inFrom := func(r graphresponse.NodeRef) bool { return named(st.fromSel, r) }
	inTo := func(r graphresponse.NodeRef) bool { return named(st.toSel, r) }
	if anchors != nil {
		rows, err := stepRows(*anchors)
		if err != nil {
			return edges, nil, nil, err
		}
		a := map[string]map[graphresponse.NodeRef]bool{partFrom: {}, partTo: {}}
		for _, r := range rows {
			if a[r.part] == nil {
				return edges, nil, nil, fmt.Errorf("anchor row of unknown part %q", r.part)
			}
			a[r.part][r.x] = true
		}
		inFrom = func(r graphresponse.NodeRef) bool { return a[partFrom][r] }
		inTo = func(r graphresponse.NodeRef) bool { return a[partTo][r] }
	} else if !st.anchorsLate {
		return edges, nil, nil, newErr("", ErrCompilerBug, "cached path edges without the anchors of a query whose anchors name no ids")
	}
	kindIn := func(kinds []*entity, k string) bool {
		return slices.ContainsFunc(kinds, func(e *entity) bool { return e.name == k })
	}
	// scan keeps the edges of types whose ends pass end kinds and anchors, as the engine's
	// scans do (no self loops: noSelfLoops leaves the test out only where none can be).
	type typedEdge struct {
		PathEdge
		kind string
	}
	scan := func(types []string, keep func(e PathEdge) bool) []typedEdge {
		var out []typedEdge
		for _, t := range types {
			for _, e := range sets[t] {
				if e.X != e.Y && keep(e) {
					out = append(out, typedEdge{e, t})
				}
			}
		}
		return out
	}
	f1 := scan(st.f1Types, func(e PathEdge) bool {
		return e.X.Kind == st.from.name && inFrom(e.X) && kindIn(st.fEnds, e.Y.Kind)
	})
	var b1, m1 []typedEdge
	if st.depth >= 2 {
		b1 = scan(st.b1Types, func(e PathEdge) bool {
			return e.Y.Kind == st.to.name && inTo(e.Y) && kindIn(st.bStarts, e.X.Kind)
		})
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
		m1 = scan(st.m1Types, func(e PathEdge) bool {
			return kindIn(st.fMids, e.X.Kind) && kindIn(st.bMids, e.Y.Kind) && seconds[e.X] && lasts[e.Y]
		})
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
	if q == nil || q.Plan.PathCacheTypes() == nil {
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
