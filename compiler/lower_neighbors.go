package compiler

import (
	"slices"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// nbrArm is one (direction, neighbor entity, relationship types) arm of a neighbors query.
type nbrArm struct {
	outgoing bool
	kind     *entity
	types    []string
	never    bool // matches nothing (no type can link the center)
}

func (l *lowerer) neighborArms() []nbrArm {
	r := l.r
	center := r.nodes[0].ent.name
	var arms []nbrArm
	for _, outgoing := range []bool{true, false} {
		if (outgoing && r.neighbors.direction == "incoming") || (!outgoing && r.neighbors.direction == "outgoing") {
			continue
		}
		byKind := map[string][]string{}
		for _, t := range r.neighbors.relTypes {
			for _, p := range l.cat.rels[t].pairs {
				if outgoing && p.from == center {
					byKind[p.to] = append(byKind[p.to], t)
				}
				if !outgoing && p.to == center {
					byKind[p.from] = append(byKind[p.from], t)
				}
			}
		}
		for _, k := range l.cat.entityNames {
			if ts, ok := byKind[k]; ok {
				slices.Sort(ts)
				arms = append(arms, nbrArm{outgoing: outgoing, kind: l.cat.entities[k], types: slices.Compact(ts)})
			}
		}
	}
	return arms
}

func (l *lowerer) lowerNeighbors() (*selectStmt, error) {
	r := l.r
	center := r.nodes[0]
	arms := l.neighborArms()
	if len(arms) == 0 {
		// No relationship type links the center in this direction: like Orbit, answer with
		// no rows. One arm that never matches keeps the statement's shape.
		arms = []nbrArm{{outgoing: r.neighbors.direction != "incoming", kind: center.ent, never: true}}
	}
	var orderProp *property
	desc := false
	if r.orderBy != "" {
		spec := strings.TrimPrefix(r.orderBy, "-")
		desc = spec != r.orderBy
		_, p, _ := strings.Cut(spec, ".")
		orderProp = center.ent.prop(p)
	}
	var ccols []*property
	if orderProp != nil && orderProp != idProp {
		ccols = []*property{orderProp}
	}
	// Edges of same_namespace types bind to the center and the neighbor on traversal_path
	// too (namespace.go). A global center has no such edges.
	var allTypes []string
	for _, arm := range arms {
		allTypes = append(allTypes, arm.types...)
	}
	slices.Sort(allTypes)
	nb := nsBinding{}
	if !center.ent.global {
		kinds := []*entity{center.ent}
		for _, arm := range arms {
			kinds = append(kinds, arm.kind)
		}
		nb = l.binding(slices.Compact(allTypes), kinds)
	}
	if nb.on() {
		ccols = append(ccols, tpProp)
	}
	// One scan per edge table: gl_edge for every outgoing arm, gl_edge_by_target for every
	// incoming one, each keeping the (relationship type, neighbor kind) pairs of its arms;
	// then one set of the live, readable neighbors with one lookup per neighbor kind.
	s := &selectStmt{from: &cteRef{name: "x", alias: "n"}}
	s.with = []*cte{{name: "c", body: l.nodeScan(center, ccols)}}
	x, centersLater := l.neighborEdges(arms, nb)
	var nbrKinds []*entity
	for _, name := range l.cat.entityNames {
		for _, arm := range arms {
			if arm.kind.name == name {
				nbrKinds = append(nbrKinds, arm.kind)
				break
			}
		}
	}
	s.with = append(s.with,
		&cte{name: "x", body: x},
		&cte{name: "live", body: l.readableSet(nbrKinds, "x", "nbr_id", "nbr_kind", nb.on())})
	s.where = []expr{in(tupleExpr{col("n", "nbr_id"), col("n", "nbr_kind")}, idsFrom("live", "id", "kind"))}
	if nb.on() {
		s.where = append(s.where,
			nb.matchIn(col("n", "tp"), "c", col("n", "center_id")),
			nb.matchIn(col("n", "tp"), "live", col("n", "nbr_id"), col("n", "nbr_kind")))
	}
	if orderProp != nil {
		s.joins = []join{{right: &cteRef{name: "c"}, on: []expr{eq(col("c", "id"), col("n", "center_id"))}}}
	} else if centersLater {
		s.where = append(s.where, in(col("n", "center_id"), idsFrom("c", "id")))
	}
	s.cols = []selItem{
		as(col("n", "center_id"), "center_id"), as(col("n", "nbr_id"), "nbr_id"), as(col("n", "nbr_kind"), "nbr_kind"),
		as(col("n", "rel_kind"), "rel_kind"), as(col("n", "outgoing"), "outgoing"),
	}
	if orderProp != nil {
		s.cols = append(s.cols, as(col("c", orderProp.name), "center_key"))
	}
	keys := neighborKeys(orderProp, desc)
	l.plan.Nodes = []graphresponse.PlanNode{{Alias: center.alias, Entity: center.ent.name, Columns: planColumns(selection(center))}}
	if center.hasIDs {
		// Hydrated whatever the rows hold, so a readable center is never dropped.
		l.plan.Centers = slices.Clone(center.nodeIDs)
	}
	kinds := map[string][][]*property{center.ent.name: {selection(center)}}
	for _, arm := range arms {
		kinds[arm.kind.name] = append(kinds[arm.kind.name], l.dynamic(arm.kind))
	}
	l.plan.Hydration = l.hydrationKinds(kinds)
	if err := l.finishPaged(s, keys, false); err != nil {
		return nil, err
	}
	if !arms[0].never {
		first, err := l.neighborsFirst(arms, nb, ccols, orderProp, desc)
		if err != nil {
			return nil, err
		}
		l.steps = &neighborSteps{first: first, nb: nb, arms: arms, center: center, ordered: orderProp != nil,
			cursor: r.cursor != nil, after: l.after}
	}
	return s, nil
}

// neighborKeys are the sort keys of a neighbors answer: the center's order_by property, if
// any, then the center, the relationship type, the neighbor's kind and id and the direction.
func neighborKeys(orderProp *property, desc bool) []sortKey {
	var keys []sortKey
	if orderProp != nil {
		keys = append(keys, sortKey{e: col("c", orderProp.name), desc: desc, nullable: orderProp.nullable, typ: keyType(orderProp)})
	}
	return append(keys,
		sortKey{e: col("n", "center_id"), typ: typInt64},
		sortKey{e: col("n", "rel_kind"), typ: typString},
		sortKey{e: col("n", "nbr_kind"), typ: typString},
		sortKey{e: col("n", "nbr_id"), typ: typInt64},
		sortKey{e: col("n", "outgoing"), typ: typBool})
}

// neighborsFirst builds the first statement of the two-step neighbors plan (docs/compiler.md,
// "Two-step neighbors"): the edges of the readable, live centers, in the answer's order and
// after the cursor like the one-statement form, but with their neighbors not yet looked up,
// so its LIMIT is [NeighborEdgesLimit] instead of the page. The statement has no node set at
// the far end: every edge scan starts at the center set c (or, when the centers are named by
// id, is bounded by those ids and the statement keeps only rows whose center is in c, which
// checkEdges accepts as the same guarantee), and the neighbor columns are ids
// the second statement ([Compiler.Lookup]) must confirm, which [Plan.JoinNeighbors] enforces
// before any row reaches an answer. Edges of same_namespace types are bound to the center
// here and carry their path as nbr_tp, to be bound to the neighbor once it is looked up.
func (l *lowerer) neighborsFirst(arms []nbrArm, nb nsBinding, ccols []*property, orderProp *property, desc bool) (*selectStmt, error) {
	s := &selectStmt{from: &cteRef{name: "x", alias: "n"}}
	// Centers named by id bound the scans by those constants, and the statement keeps only
	// the rows of readable centers itself (center-bound, see joinBound in check.go): the
	// center set is then read once, where seeding both scans by it made it a scalar
	// sub-query the analyzer runs (about 2 ms of CPU on the load test's neighbors query).
	x, centersLater := l.neighborEdges(arms, nb)
	s.with = []*cte{{name: "c", body: l.nodeScan(l.r.nodes[0], ccols)}, {name: "x", body: x}}
	s.cols = []selItem{
		as(col("n", "center_id"), "center_id"), as(col("n", "nbr_id"), "nbr_id"), as(col("n", "nbr_kind"), "nbr_kind"),
		as(col("n", "rel_kind"), "rel_kind"), as(col("n", "outgoing"), "outgoing"),
	}
	if centersLater && orderProp == nil { // with an order_by property the join to c binds them
		s.where = append(s.where, in(col("n", "center_id"), idsFrom("c", "id")))
	}
	if nb.on() {
		s.where = append(s.where, nb.matchIn(col("n", "tp"), "c", col("n", "center_id")))
	}
	if orderProp != nil {
		s.joins = []join{{right: &cteRef{name: "c"}, on: []expr{eq(col("c", "id"), col("n", "center_id"))}}}
		s.cols = append(s.cols, as(col("c", orderProp.name), "center_key"))
	}
	if nb.on() {
		s.cols = append(s.cols, as(col("n", "tp"), "nbr_tp"))
	}
	if err := l.finishPaged(s, neighborKeys(orderProp, desc), false); err != nil {
		return nil, err
	}
	s.limit = NeighborEdgesLimit
	return s, nil
}

// neighborEdges is the union of the edge scans of a neighbors query, one per edge table:
// gl_edge for every outgoing arm, gl_edge_by_target for every incoming one, each keeping the
// (relationship type, neighbor kind) pairs of its arms. centersLater reports that the scans
// are bounded by the ids the center names instead of starting at the center set c, so the
// statement must bind the rows to c itself (join-bound, see check.go; the first statement of
// the two-step plan binds the center end only, see checkEdges).
func (l *lowerer) neighborEdges(arms []nbrArm, nb nsBinding) (x *selectStmt, centersLater bool) {
	center := l.r.nodes[0]
	// selfOut: the outgoing scan keeps edges whose far end is of the center's kind.
	selfOut := false
	for _, arm := range arms {
		selfOut = selfOut || (arm.outgoing && !arm.never && arm.kind == center.ent)
	}
	for _, outgoing := range []bool{true, false} {
		var pairs []any // (relationship type, neighbor kind)
		never := false
		for _, arm := range arms {
			if arm.outgoing != outgoing {
				continue
			}
			never = never || arm.never
			for _, t := range arm.types {
				pairs = append(pairs, []any{t, arm.kind.name})
			}
		}
		if len(pairs) == 0 && !never {
			continue
		}
		table, centerCol, nbrCol := l.cat.edgeTable, "source_id", "target_id"
		if !outgoing {
			table, centerCol, nbrCol = l.cat.edgeByTarget, "target_id", "source_id"
		}
		e := l.edgeScan(table, nil, nil)
		e.cols = []selItem{
			as(col("t", centerCol), "center_id"), as(col("t", nbrCol), "nbr_id"),
			as(castStr(col("t", kindCol(nbrCol))), "nbr_kind"),
			as(castStr(col("t", "relationship_kind")), "rel_kind"), as(litBool(outgoing), "outgoing"),
		}
		if nb.on() {
			e.cols = append(e.cols, as(nb.tp, "tp"))
		}
		var pairIn expr
		pair := tupleExpr{col("t", "relationship_kind"), col("t", kindCol(nbrCol))}
		if len(pairs) == 0 {
			// Only the arm that never matches: keep the statement's shape, match nothing.
			pairIn = litBool(false)
		} else if len(pairs) == 1 {
			p := pairs[0].([]any)
			pairIn = eq(pair, tupleExpr{prm(p[0], typString), prm(p[1], typString)})
		} else {
			// One array of tuples, not a tuple of tuples of placeholders: the engine analyses
			// a literal tuple list element by element, which cost the neighbors statement of
			// the load test about a millisecond of CPU for its 22 pairs (docs/compiler.md,
			// "Two-step neighbors").
			pairIn = &binOp{op: "IN", l: pair, r: prm(pairs, "Array(Tuple(String, String))")}
		}
		e.where = append(e.where, eq(col("t", kindCol(centerCol)), prm(center.ent.name, typString)))
		// Centers named by id bound the scan by those constants; the statement then keeps
		// only the rows of readable centers (join-bound, see check.go). Otherwise the scan
		// starts at the center set.
		if ids := knownIDs(center, col("t", centerCol)); len(ids) > 0 {
			e.where = append(e.where, ids...)
			centersLater = true
		} else {
			e.where = append(e.where, in(col("t", centerCol), idsFrom("c", "id")))
		}
		e.where = append(e.where, pairIn)
		if !outgoing && selfOut {
			// With direction "both", an edge between two centers is found by both scans,
			// once from each end. It is one edge of the answer: the outgoing scan keeps it
			// (under the center it leaves), this one drops it, so that pages of a cursor
			// walk hold each edge once and LIMIT counts edges, not their two sightings.
			e.where = append(e.where, orExpr{
				ne(col("t", kindCol(nbrCol)), prm(center.ent.name, typString)),
				notIn(col("t", nbrCol), idsFrom("c", "id"))})
		}
		if x == nil {
			x = e
		} else {
			x.union = append(x.union, e)
		}
	}
	return x, centersLater
}
