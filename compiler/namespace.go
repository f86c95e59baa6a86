package compiler

import "slices"

// Edges bound to their namespace (docs/compiler.md, "Edges bound to their namespace").
//
// A relationship type marked same_namespace in the ontology (the code graph's CALLS, DEFINES,
// IMPORTS and EXTENDS, which Orbit keeps in gl_code_edge) is followed only when the edge's
// traversal_path is the traversal_path of the node at each end it is joined to: Orbit joins
// those edges to their end nodes on id and traversal_path, so an edge stored under another
// project's path between ids of this project leads nowhere. Every edge scan that may read
// such a type selects the edge's path as column tp when it is bound, and '' when its type is
// not (see edgeTP); the joins then compare tp with the traversal_path of the end node.

// nsBinding says how the edges of a scan over some relationship types bind to their ends.
type nsBinding struct {
	tp  expr // the scan's tp column: the edge's traversal_path when bound, else ''; nil: no type binds
	all bool // every type binds: tp is the traversal_path itself and is never ''
}

// binding returns how the edges of the given types bind, counting only the pairs whose ends
// are both among kinds: the scans read no other edges.
func (l *lowerer) binding(types []string, kinds []*entity) nsBinding {
	in := map[string]bool{}
	for _, e := range kinds {
		in[e.name] = true
	}
	var bound []any
	relevant := 0
	for _, t := range types {
		rt := l.cat.rels[t]
		if rt == nil || !slices.ContainsFunc(rt.pairs, func(p pair) bool { return in[p.from] && in[p.to] }) {
			continue
		}
		relevant++
		if rt.sameNS {
			bound = append(bound, t)
		}
	}
	switch {
	case len(bound) == 0:
		return nsBinding{}
	case len(bound) == relevant:
		return nsBinding{tp: col("t", "traversal_path"), all: true}
	}
	return nsBinding{tp: fn("if", inValues(col("t", "relationship_kind"), bound, typString), col("t", "traversal_path"), prm("", typString))}
}

// on reports whether any edge of the scan binds.
func (b nsBinding) on() bool { return b.tp != nil }

// match is the condition that an edge with tp column edgeTP may be joined to a node whose
// traversal_path is nodeTP: equal paths, or, when not every type binds, an edge that does not.
func (b nsBinding) match(edgeTP, nodeTP expr) expr {
	if b.all {
		return eq(edgeTP, nodeTP)
	}
	return orExpr{eq(edgeTP, prm("", typString)), eq(edgeTP, nodeTP)}
}

// unbound reports whether an edge row read with path tp is of a type that does not bind: the
// Go side of match and agree, for the two-step plans that join rows outside the engine
// (JoinNeighbors, JoinPaths). A bound edge always carries its path, never "".
func (b nsBinding) unbound(tp string) bool { return !b.all && tp == "" }

// agrees is agree on the paths of two edge rows read by a two-step plan.
func (b nsBinding) agrees(a, c string) bool {
	return !b.on() || a == c || b.unbound(a) || b.unbound(c)
}

// agree is the condition that two consecutive edges of a walk, with tp columns a and b, agree
// on the node between them: both bound under the same path, or one of them not bound.
func (b nsBinding) agree(a, c expr) expr {
	if b.all {
		return eq(a, c)
	}
	empty := prm("", typString)
	return orExpr{eq(a, empty), eq(c, empty), eq(a, c)}
}

// matchIn is the condition that an edge with tp column edgeTP may end at the node (id[, kind])
// of the set CTE, which selects id[, kind] and traversal_path.
func (b nsBinding) matchIn(edgeTP expr, set string, id ...expr) expr {
	cols := []string{"id", "traversal_path"}
	if len(id) == 2 {
		cols = []string{"id", "kind", "traversal_path"}
	}
	t := append(tupleExpr{}, id...)
	t = append(t, edgeTP)
	c := in(t, idsFrom(set, cols...))
	if b.all {
		return c
	}
	return orExpr{eq(edgeTP, prm("", typString)), c}
}
