package compiler

import (
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// maxAnchorNodes caps the nodes each path endpoint resolves to, the lowest ids (docs/dsl.md,
// "path_finding").
const maxAnchorNodes = 500

func (l *lowerer) anchorScan(n *nodeSel, withTP bool) *selectStmt {
	var cols []*property
	if withTP && !n.ent.global {
		cols = []*property{tpProp}
	}
	s := l.nodeScan(n, cols)
	if !namesAtMost(n, maxAnchorNodes) {
		s.orderBy = []orderItem{{e: col("t", "id")}}
		s.limit = maxAnchorNodes
	}
	return s
}

// namesAtMost reports whether anchor n names at most k ids itself: at most k node_ids, or an
// id_range spanning at most k ids. Its scan then stands for those ids without the ORDER BY and
// LIMIT that keep the k lowest: they could cut only a second live copy of an id under another
// traversal_path, which the scan of node_ids keeps too, and sorting cost the load test's path
// (an id_range of 40 Projects, read by both statements) about 0.6 ms of CPU per request.
func namesAtMost(n *nodeSel, k int64) bool {
	return (n.hasIDs && int64(len(n.nodeIDs)) <= k) || (n.idRange != nil && narrowRange(*n.idRange, k))
}

// pathEdges is the scan shared by f1, b1 and m1: x/y ends, kinds, relationship types. The
// caller adds its own filters, then noSelfLoops.
func (l *lowerer) pathEdges(table string, types []string, nb nsBinding) *selectStmt {
	s := l.edgeScan(table, types, nil)
	s.cols = []selItem{
		as(col("t", "source_id"), "x"), as(castStr(col("t", "source_kind")), "x_kind"),
		as(col("t", "target_id"), "y"), as(castStr(col("t", "target_kind")), "y_kind"),
		as(castStr(col("t", "relationship_kind")), "kind"),
	}
	if nb.on() {
		s.cols = append(s.cols, as(nb.tp, "tp"))
	}
	return s
}

// pairTypes keeps the types that have a pair from one of froms to one of tos: the only
// relationship kinds an edge of a scan fixed to those end kinds can have, since a load refuses
// an edge whose ends are not a pair of its type (load: ErrPair). Fewer kinds let the engine
// skip more of the edge table by its sorting key. With none left it returns types unchanged
// (no row passes the scan's kind filters then).
func (l *lowerer) pairTypes(types []string, froms, tos []*entity) []string {
	var out []string
	for _, t := range types {
		if slices.ContainsFunc(l.cat.rels[t].pairs, func(p pair) bool {
			return slices.ContainsFunc(froms, func(e *entity) bool { return e.name == p.from }) &&
				slices.ContainsFunc(tos, func(e *entity) bool { return e.name == p.to })
		}) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return types
	}
	return out
}

// kindsIn keeps the edges whose kind column k names one of kinds (repeats count once).
func kindsIn(k string, kinds []*entity) expr {
	var names []any
	for _, e := range kinds {
		if !slices.Contains(names, any(e.name)) {
			names = append(names, e.name)
		}
	}
	return inValues(col("t", k), names, typString)
}

// noSelfLoops adds, as the scan's last filter, the exclusion of edges from a node to itself.
// It reads four key columns on every row it sees, so it goes after the filters on the kinds
// and the seed sets: the engine runs the PREWHERE conjuncts in the order written and reads
// a column only for the rows the earlier steps kept (at scale 10 the middle scan read 3.8 MB
// with it first, 0.9 MB with it last, the same rows). When the scan keeps only edges from a
// kind of from to a kind of to and no kind is in both, no edge it keeps is a loop and the
// test is left out: it cost path finding's first statement about half a millisecond of CPU
// at scale 1 (User → Group or Project, Group → Project). nil kinds mean any.
func noSelfLoops(s *selectStmt, from, to []*entity) *selectStmt {
	if from != nil && to != nil && !slices.ContainsFunc(from, func(e *entity) bool { return slices.Contains(to, e) }) {
		return s
	}
	s.where = append(s.where, ne(
		tupleExpr{col("t", "source_id"), col("t", "source_kind")},
		tupleExpr{col("t", "target_id"), col("t", "target_kind")}))
	return s
}

func (l *lowerer) lowerPath() (*selectStmt, error) {
	r := l.r
	var from, to *nodeSel
	for _, n := range r.nodes {
		if n.alias == r.path.from {
			from = n
		}
		if n.alias == r.path.to {
			to = n
		}
	}
	types := r.path.relTypes
	// Kinds of the second node of a path and of the one before its last; none means no path
	// is longer than one edge.
	fMids := l.innerKinds(types, []*entity{from.ent}, true, false)
	bMids := l.innerKinds(types, []*entity{to.ent}, false, true)
	// A second node is useful only when it is also a node before the last (a path of two
	// edges) or leads to one (three edges); likewise the other way round. This keeps pairs
	// that lead away from both ends (CONTAINS from a Project into its code tree, on a User →
	// Project path) from adding scans.
	fAll, bAll := fMids, bMids
	fMids = keepIf(fAll, func(e *entity) bool {
		return slices.Contains(bAll, e) || l.stepsTo(types, e, bAll, true, false)
	})
	bMids = keepIf(bAll, func(e *entity) bool {
		return slices.Contains(fAll, e) || l.stepsTo(types, e, fAll, false, true)
	})
	depth := r.path.maxDepth
	if len(fMids) == 0 || len(bMids) == 0 {
		depth = 1
	}
	nb := l.binding(types, slices.Concat([]*entity{from.ent, to.ent}, fMids, bMids))
	s := &selectStmt{from: &cteRef{name: "cand", alias: "c"}}
	s.with = []*cte{{name: "a0", body: l.anchorScan(from, nb.on())}, {name: "a1", body: l.anchorScan(to, nb.on())}}
	// An edge of f1 ends at the path's end (depth 1) or at a second node (f1v); b1 starts
	// at a node before the last, which is a second node (depth 2) or one of b1v (depth 3).
	// Other kinds meet nothing in the joins, so the scans skip them by their sorting key.
	fEnds := []*entity{to.ent}
	if depth >= 2 {
		fEnds = append(fEnds, fMids...)
	}
	bStarts := fMids
	if depth >= 3 {
		bStarts = slices.Concat(fMids, bMids)
	}
	mkF1 := func() *selectStmt {
		f1 := l.pathEdges(l.cat.edgeTable, l.pairTypes(types, []*entity{from.ent}, fEnds), nb)
		f1.where = append(f1.where, eq(col("t", "source_kind"), prm(from.ent.name, typString)), in(col("t", "source_id"), idsFrom("a0", "id")))
		f1.where = append(f1.where, knownIDs(from, col("t", "source_id"))...)
		f1.where = append(f1.where, kindsIn("target_kind", fEnds))
		return noSelfLoops(f1, []*entity{from.ent}, fEnds)
	}
	mkB1 := func() *selectStmt {
		b1 := l.pathEdges(l.cat.edgeByTarget, l.pairTypes(types, bStarts, []*entity{to.ent}), nb)
		b1.where = append(b1.where, eq(col("t", "target_kind"), prm(to.ent.name, typString)), in(col("t", "target_id"), idsFrom("a1", "id")))
		b1.where = append(b1.where, knownIDs(to, col("t", "target_id"))...)
		b1.where = append(b1.where, kindsIn("source_kind", bStarts))
		return noSelfLoops(b1, bStarts, []*entity{to.ent})
	}
	s.with = append(s.with, &cte{name: "f1", body: mkF1()})
	if depth >= 2 {
		s.with = append(s.with, &cte{name: "b1", body: mkB1()})
	}
	// Intermediate nodes come only from the readable sets f1v (ends of f1) and b1v (starts
	// of b1), as in a variable-length hop: the middle edges m1 start and end in them, and a
	// two-edge path meets in f1v.
	if depth >= 2 {
		s.with = append(s.with, &cte{name: "f1v", body: l.readableSet(fMids, "f1", "y", "y_kind", nb.on())})
	}
	if depth >= 3 {
		s.with = append(s.with, &cte{name: "b1v", body: l.readableSet(bMids, "b1", "x", "x_kind", nb.on())})
		m1 := l.pathEdges(l.cat.edgeTable, l.pairTypes(types, fMids, bMids), nb)
		m1.where = append(m1.where, startsAt("source_id", "f1v", fMids)...)
		m1.where = append(m1.where, startsAt("target_id", "b1v", bMids)...)
		s.with = append(s.with, &cte{name: "m1", body: noSelfLoops(m1, fMids, bMids)})
	}
	node := func(a, id, kind string) expr { return tupleExpr{col(a, id), col(a, kind)} }
	nodeX := func(a string) expr { return node(a, "x", "x_kind") }
	nodeY := func(a string) expr { return node(a, "y", "y_kind") }
	cand := &selectStmt{
		from:  &cteRef{name: "f1", alias: "f"},
		cols:  []selItem{as(litInt(1), "depth"), as(arrayExpr{nodeX("f"), nodeY("f")}, "path_nodes"), as(arrayExpr{col("f", "kind")}, "path_kinds")},
		where: []expr{eq(col("f", "y_kind"), prm(to.ent.name, typString)), in(col("f", "y"), idsFrom("a1", "id"))},
	}
	if depth >= 2 {
		cand.union = append(cand.union, &selectStmt{
			from:  &cteRef{name: "f1", alias: "f"},
			joins: []join{{right: &cteRef{name: "b1", alias: "b"}, on: []expr{eq(col("b", "x"), col("f", "y")), eq(col("b", "x_kind"), col("f", "y_kind"))}}},
			cols:  []selItem{as(litInt(2), "depth"), as(arrayExpr{nodeX("f"), nodeY("f"), nodeY("b")}, "path_nodes"), as(arrayExpr{col("f", "kind"), col("b", "kind")}, "path_kinds")},
			where: []expr{ne(nodeY("b"), nodeX("f")), in(nodeY("f"), idsFrom("f1v", "id", "kind"))},
		})
	}
	if depth >= 3 {
		cand.union = append(cand.union, &selectStmt{
			from: &cteRef{name: "f1", alias: "f"},
			joins: []join{
				{right: &cteRef{name: "m1", alias: "m"}, on: []expr{eq(col("m", "x"), col("f", "y")), eq(col("m", "x_kind"), col("f", "y_kind"))}},
				{right: &cteRef{name: "b1", alias: "b"}, on: []expr{eq(col("b", "x"), col("m", "y")), eq(col("b", "x_kind"), col("m", "y_kind"))}},
			},
			cols:  []selItem{as(litInt(3), "depth"), as(arrayExpr{nodeX("f"), nodeY("f"), nodeY("m"), nodeY("b")}, "path_nodes"), as(arrayExpr{col("f", "kind"), col("m", "kind"), col("b", "kind")}, "path_kinds")},
			where: []expr{ne(nodeY("m"), nodeX("f")), ne(nodeY("b"), nodeX("f")), ne(nodeY("b"), nodeY("f"))},
		})
	}
	if nb.on() {
		// Bound edges meet their ends on traversal_path too (namespace.go): the first edge
		// at the start node, the last at the end node, and every pair of consecutive edges
		// at the readable node between them: each with a copy of it in f1v/b1v, and both
		// under the same path (agree), as a walk's steps, since an id may be live under two.
		arms := append([]*selectStmt{cand}, cand.union...)
		tp := func(a string) expr { return col(a, "tp") }
		endAt := func(a, set string, n *nodeSel, id expr) []expr {
			if n.ent.global {
				return nil
			}
			return []expr{nb.matchIn(tp(a), set, id)}
		}
		mid := func(a, set, id, kind string) expr { return nb.matchIn(tp(a), set, col(a, id), col(a, kind)) }
		arms[0].where = slices.Concat(arms[0].where, endAt("f", "a0", from, col("f", "x")), endAt("f", "a1", to, col("f", "y")))
		if depth >= 2 {
			arms[1].where = slices.Concat(arms[1].where, endAt("f", "a0", from, col("f", "x")), endAt("b", "a1", to, col("b", "y")),
				[]expr{mid("f", "f1v", "y", "y_kind"), mid("b", "f1v", "x", "x_kind"), nb.agree(tp("f"), tp("b"))})
		}
		if depth >= 3 {
			arms[2].where = slices.Concat(arms[2].where, endAt("f", "a0", from, col("f", "x")), endAt("b", "a1", to, col("b", "y")),
				[]expr{mid("f", "f1v", "y", "y_kind"), mid("m", "f1v", "x", "x_kind"), mid("m", "b1v", "y", "y_kind"), mid("b", "b1v", "x", "x_kind"),
					nb.agree(tp("f"), tp("m")), nb.agree(tp("m"), tp("b"))})
		}
	}
	s.with = append(s.with, &cte{name: "cand", body: cand})
	s.cols = []selItem{as(col("c", "depth"), "depth"), as(col("c", "path_nodes"), "path_nodes"), as(col("c", "path_kinds"), "path_kinds")}
	keys := []sortKey{
		{e: col("c", "depth"), typ: typInt64},
		{e: fn("toString", col("c", "path_nodes")), typ: typString},
		{e: fn("toString", col("c", "path_kinds")), typ: typString},
	}
	l.plan.Nodes = []graphresponse.PlanNode{
		{Alias: r.nodes[0].alias, Entity: r.nodes[0].ent.name, Columns: planColumns(selection(r.nodes[0]))},
		{Alias: r.nodes[1].alias, Entity: r.nodes[1].ent.name, Columns: planColumns(selection(r.nodes[1]))},
	}
	l.plan.PathFrom, l.plan.PathTo = from.idx, to.idx
	kinds := map[string][][]*property{}
	kinds[from.ent.name] = append(kinds[from.ent.name], selection(from))
	kinds[to.ent.name] = append(kinds[to.ent.name], selection(to))
	if depth >= 2 {
		for _, e := range slices.Concat(fMids, bMids) { // hydrationKinds merges repeats
			kinds[e.name] = append(kinds[e.name], l.dynamic(e))
		}
	}
	l.plan.Hydration = l.hydrationKinds(kinds)
	// The multi-step plan (pathsteps.go) reads the anchors and f1, b1 by themselves.
	st := &pathSteps{from: from.ent, to: to.ent, fromSel: from, toSel: to, fMids: fMids, bMids: bMids,
		depth: depth, types: types, nb: nb, pageSize: r.pageSize(), cursor: r.cursor != nil, after: l.after,
		fEnds: fEnds, bStarts: bStarts, f1Types: l.pairTypes(types, []*entity{from.ent}, fEnds)}
	if depth >= 2 {
		st.b1Types = l.pairTypes(types, bStarts, []*entity{to.ent})
	}
	if depth >= 3 {
		st.m1Types = l.pairTypes(types, fMids, bMids)
	}
	st.cachePairs = l.cachePairs(nil, st.f1Types, []*entity{from.ent}, fEnds)
	st.cachePairs = l.cachePairs(st.cachePairs, st.b1Types, bStarts, []*entity{to.ent})
	st.cachePairs = l.cachePairs(st.cachePairs, st.m1Types, fMids, bMids)
	var first []*cte
	var arms []*selectStmt
	if idsNamed(from) && idsNamed(to) {
		// Both anchors name their ids: the first statement returns only the edges at the
		// anchors, and the second reads the anchors, with their hydration columns, with the
		// middles (anchorsLate). The edge scans still start at anchors the caller may read
		// and that are live: the anchor sets, ids only, seed them without being arms.
		st.anchorsLate = true
		first = []*cte{{name: partFrom, body: l.anchorScan(from, false)}}
		if depth >= 2 {
			first = append(first, &cte{name: partTo, body: l.anchorScan(to, false)})
		}
	} else {
		first, arms = l.stepAnchors(st, true)
	}
	arms = append(arms, stepEdges(partF1, mkF1(), nb.on()))
	if depth >= 2 {
		arms = append(arms, stepEdges(partB1, mkB1(), nb.on()))
	}
	st.first = stepStatement(first, arms)
	l.paths = st
	return s, l.finishPaged(s, keys, false)
}

// dynamic is the selection of a node whose entity is known only at run time.
func (l *lowerer) dynamic(e *entity) []*property {
	if l.r.dynAll {
		return e.starProps()
	}
	return e.defaults()
}

// hydrationKinds turns per-kind selections into the plan's hydration lists: the union in
// ontology order, plus the dynamic selection for nodes not tied to a selector.
func (l *lowerer) hydrationKinds(kinds map[string][][]*property) []graphresponse.PlanKind {
	var out []graphresponse.PlanKind
	for _, name := range l.cat.entityNames {
		sels, ok := kinds[name]
		if !ok {
			continue
		}
		e := l.cat.entities[name]
		var cols []*property
		for _, p := range e.props {
			for _, s := range sels {
				if slices.Contains(s, p) {
					cols = append(cols, p)
					break
				}
			}
		}
		pk := graphresponse.PlanKind{Entity: name, Columns: planColumns(cols)}
		for _, p := range l.dynamic(e) {
			pk.Dynamic = append(pk.Dynamic, p.name)
		}
		out = append(out, pk)
	}
	return out
}

// idsNamed reports whether path anchor n names its ids: node_ids, or an id_range of at most
// maxAnchorSpan ids, so that its anchor scan keeps every readable live node among them.
func idsNamed(n *nodeSel) bool {
	return n.hasIDs || (n.idRange != nil && narrowRange(*n.idRange, maxAnchorSpan))
}

// narrowRange reports whether id range r (both ends included) spans at most span ids. It
// never computes end - start in int64, which wraps to a negative number for a range as wide
// as [-2^63, 2^63-1].
func narrowRange(r [2]int64, span int64) bool {
	return r[0] <= r[1] && uint64(r[1])-uint64(r[0]) < uint64(span)
}

// stepAnchors returns the anchor sets a0 and a1 of the multi-step plan, with their hydration
// columns (the page's ends need no other statement), and their arms. As sets (the first
// statement, whose edge scans they seed) they are CTEs that the arms read; otherwise the arms
// are the anchor scans themselves, one sub-query fewer each.
func (l *lowerer) stepAnchors(st *pathSteps, sets bool) ([]*cte, []*selectStmt) {
	on := st.nb.on()
	a0, p0 := l.hydratedAnchor(st.fromSel, on)
	a1, p1 := l.hydratedAnchor(st.toSel, on)
	if !sets {
		return nil, []*selectStmt{anchorArm(partFrom, a0, st.from, on, p0), anchorArm(partTo, a1, st.to, on, p1)}
	}
	return []*cte{{name: partFrom, body: a0}, {name: partTo, body: a1}},
		[]*selectStmt{nodeArm(partFrom, st.from.name, on && !st.from.global, p0...), nodeArm(partTo, st.to.name, on && !st.to.global, p1...)}
}

// anchorArm turns anchor scan s of entity e into an arm of a step statement: its rows as the
// stepCols, tagged part, its order and limit kept.
func anchorArm(part string, s *selectStmt, e *entity, withTP bool, props []string) *selectStmt {
	s.cols = nodeStepCols("t", part, prm(e.name, typString), withTP && !e.global, props)
	return s
}

// hydratedAnchor is the anchor scan of n for the multi-step plan: with the traversal_path
// when withTP, and the hydration columns of n's kind, which it returns.
func (l *lowerer) hydratedAnchor(n *nodeSel, withTP bool) (*selectStmt, []string) {
	s := l.anchorScan(n, withTP)
	var names []string
	for _, pk := range l.plan.Hydration {
		if pk.Entity != n.ent.name {
			continue
		}
		for _, pc := range pk.Columns {
			names = append(names, pc.Name)
			if !slices.ContainsFunc(s.cols, func(c selItem) bool { return c.alias == pc.Name }) {
				if p := n.ent.prop(pc.Name); p != nil {
					s.cols = append(s.cols, as(col("t", p.name), p.name))
				}
			}
		}
	}
	return s, names
}
