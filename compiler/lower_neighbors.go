package compiler

import (
	"slices"
	"strconv"
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
	s := &selectStmt{from: &cteRef{name: "nb", alias: "n"}}
	s.with = []*cte{{name: "c", body: l.nodeScan(center, ccols)}}
	var nb *selectStmt
	for k, arm := range arms {
		xn, kn := "x"+strconv.Itoa(k), "k"+strconv.Itoa(k)
		var x *selectStmt
		if arm.outgoing {
			x = l.edgeScan(l.cat.edgeTable, arm.types, nil)
			x.cols = []selItem{as(col("t", "source_id"), "center_id"), as(col("t", "target_id"), "nbr_id"), as(castStr(col("t", "relationship_kind")), "rel_kind")}
			x.where = append(x.where,
				eq(col("t", "source_kind"), prm(center.ent.name, typString)),
				eq(col("t", "target_kind"), prm(arm.kind.name, typString)),
				in(col("t", "source_id"), idsFrom("c", "id")))
		} else {
			x = l.edgeScan(l.cat.edgeByTarget, arm.types, nil)
			x.cols = []selItem{as(col("t", "target_id"), "center_id"), as(col("t", "source_id"), "nbr_id"), as(castStr(col("t", "relationship_kind")), "rel_kind")}
			x.where = append(x.where,
				eq(col("t", "source_kind"), prm(arm.kind.name, typString)),
				eq(col("t", "target_kind"), prm(center.ent.name, typString)),
				in(col("t", "target_id"), idsFrom("c", "id")))
		}
		if arm.never {
			x.where = append(x.where, litBool(false))
		}
		kscan := l.entityScan(arm.kind, in(col("t", "id"), idsFrom(xn, "nbr_id")))
		kscan.cols = []selItem{as(col("t", "id"), "id")}
		s.with = append(s.with, &cte{name: xn, body: x}, &cte{name: kn, body: kscan})
		a := &selectStmt{
			from: &cteRef{name: xn, alias: "x"},
			cols: []selItem{
				as(col("x", "center_id"), "center_id"), as(col("x", "nbr_id"), "nbr_id"),
				as(prm(arm.kind.name, typString), "nbr_kind"), as(col("x", "rel_kind"), "rel_kind"),
				as(litBool(arm.outgoing), "outgoing"),
			},
			where: []expr{in(col("x", "nbr_id"), idsFrom(kn, "id"))},
		}
		if orderProp != nil {
			a.joins = []join{{right: &cteRef{name: "c"}, on: []expr{eq(col("c", "id"), col("x", "center_id"))}}}
			a.cols = append(a.cols, as(col("c", orderProp.name), "center_key"))
		}
		if nb == nil {
			nb = a
		} else {
			nb.union = append(nb.union, a)
		}
	}
	s.with = append(s.with, &cte{name: "nb", body: nb})
	s.cols = []selItem{
		as(col("n", "center_id"), "center_id"), as(col("n", "nbr_id"), "nbr_id"), as(col("n", "nbr_kind"), "nbr_kind"),
		as(col("n", "rel_kind"), "rel_kind"), as(col("n", "outgoing"), "outgoing"),
	}
	var keys []sortKey
	if orderProp != nil {
		s.cols = append(s.cols, as(col("n", "center_key"), "center_key"))
		keys = append(keys, sortKey{e: col("n", "center_key"), desc: desc, nullable: orderProp.nullable, typ: keyType(orderProp)})
	}
	keys = append(keys,
		sortKey{e: col("n", "center_id"), typ: typInt64},
		sortKey{e: col("n", "rel_kind"), typ: typString},
		sortKey{e: col("n", "nbr_kind"), typ: typString},
		sortKey{e: col("n", "nbr_id"), typ: typInt64},
		sortKey{e: col("n", "outgoing"), typ: typBool})
	l.plan.Nodes = []graphresponse.PlanNode{{Alias: center.alias, Entity: center.ent.name, Columns: planColumns(selection(center))}}
	kinds := map[string][][]*property{center.ent.name: {selection(center)}}
	for _, arm := range arms {
		kinds[arm.kind.name] = append(kinds[arm.kind.name], l.dynamic(arm.kind))
	}
	l.plan.Hydration = l.hydrationKinds(kinds)
	return s, l.finishPaged(s, keys, false)
}
