package compiler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/graphwire/graphwire/graphresponse"
)

// Neighbors on cached edges (docs/compiler.md, "Neighbors on cached edges").
//
// The first statement of the two-step neighbors plan reads the centers and their edges, and
// the engine spends most of that statement planning its FINAL scans. Where the process keeps
// the caller's edge sets ([Compiler.EdgeSet], the cache path finding uses), the edges of the
// centers are taken from those sets instead ([Plan.CachedNeighborEdges]), filtered in Go as
// the first statement's scans filter them, sorted and sought as it sorts and seeks; the engine
// then runs one statement, the lookup of the nodes they reach with the centers
// ([Compiler.Lookup]), and [Plan.JoinCachedNeighbors] keeps only the rows whose center and
// neighbor that lookup returned.

// NeighborCachePairs lists the edge sets ([Compiler.EdgeSet]) a two-step neighbors plan can
// run on ([Plan.CachedNeighborEdges]): for each arm, the pairs of its relationship types from
// the center's kind to the arm's neighbor kind (outgoing) or back (incoming). It is nil when
// the plan cannot: no two-step plan, edges bound to their namespace (same_namespace), an
// order_by (the answer then sorts by a center property the sets do not hold), or centers not
// named by ids alone (node_ids or id_range, no other filter): the centers the first statement
// keeps are then exactly the named ones the lookup returns.
func (p *Plan) NeighborCachePairs() []EdgePair {
	if p == nil || p.Edges() == nil || p.steps == nil || p.steps.arms == nil {
		return nil
	}
	st := p.steps
	c := st.center
	if st.nb.on() || st.ordered || (!c.hasIDs && c.idRange == nil) || len(c.filters) > 0 || len(c.preds) > 0 {
		return nil
	}
	var out []EdgePair
	for _, arm := range st.arms {
		if arm.never {
			return nil
		}
		for _, t := range arm.types {
			ep := EdgePair{t, c.ent.name, arm.kind.name}
			if !arm.outgoing {
				ep = EdgePair{t, arm.kind.name, c.ent.name}
			}
			if !slices.Contains(out, ep) {
				out = append(out, ep)
			}
		}
	}
	return out
}

// neighborRow is one row of the first statement, with its sort keys.
type neighborRow struct {
	center, nbr int64
	nbrKind     string
	rel         string
	outgoing    bool
}

func (a neighborRow) compare(b neighborRow) int {
	if c := cmp.Compare(a.center, b.center); c != 0 {
		return c
	}
	if c := cmp.Compare(a.rel, b.rel); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nbrKind, b.nbrKind); c != 0 {
		return c
	}
	if c := cmp.Compare(a.nbr, b.nbr); c != 0 {
		return c
	}
	switch {
	case a.outgoing == b.outgoing:
		return 0
	case !a.outgoing:
		return -1
	}
	return 1
}

// CachedNeighborEdges does, on the edge sets of the plan's pairs (sets, by pair, each the
// [Compiler.EdgeSet] of the query's caller), what the first statement of the two-step plan
// does in the engine: the edges of each arm's types from a named center to a neighbor of the
// arm's kind (or back), an edge between two named centers once (under the center it leaves,
// as the incoming scan drops it), in the answer's order, after the cursor, at most
// [NeighborEdgesLimit] rows, with the cursor's readback columns. The centers are those the
// query names; [Plan.JoinCachedNeighbors] keeps the rows of those the lookup returned.
func (p *Plan) CachedNeighborEdges(sets map[EdgePair]*EdgeSet) (graphresponse.Rows, error) {
	var out graphresponse.Rows
	pairs := p.NeighborCachePairs()
	if pairs == nil {
		return out, newErr("", ErrCompilerBug, "cached neighbor edges of a query without a cached neighbors plan")
	}
	st := p.steps
	isCenter := named(st.center)
	type armKey struct {
		outgoing  bool
		typ, kind string
	}
	arms := map[armKey]bool{}
	selfOut := false
	for _, arm := range st.arms {
		for _, t := range arm.types {
			arms[armKey{arm.outgoing, t, arm.kind.name}] = true
		}
		selfOut = selfOut || (arm.outgoing && arm.kind == st.center.ent)
	}
	// Only the centers' edges are visited, by the sets' indexes: those leaving them, then
	// those entering them.
	centers := namedIDs(st.center)
	var rows []neighborRow
	for _, ep := range pairs {
		set := sets[ep]
		if ep.From == st.center.ent.name && arms[armKey{true, ep.Type, ep.To}] {
			set.each(true, centers, func(i int) bool {
				rows = append(rows, neighborRow{set.x[i], set.y[i], ep.To, ep.Type, true})
				return true
			})
		}
		if ep.To == st.center.ent.name && arms[armKey{false, ep.Type, ep.From}] {
			set.each(false, centers, func(i int) bool {
				// The incoming scan leaves out an edge from a center to a center when the
				// outgoing scan finds it (selfOut): both ends are readable and live here, so
				// in the center set.
				if x := (graphresponse.NodeRef{Kind: ep.From, ID: set.x[i]}); !(selfOut && isCenter(x)) {
					rows = append(rows, neighborRow{set.y[i], x.ID, ep.From, ep.Type, false})
				}
				return true
			})
		}
	}
	// A set of a pair whose ends are of one kind holds each edge once; two pairs are never
	// the same, so no edge is seen twice here that the scans would see once.
	slices.SortStableFunc(rows, neighborRow.compare)
	if st.after != nil {
		after, err := neighborAfter(st.after)
		if err != nil {
			return out, err
		}
		i, _ := slices.BinarySearchFunc(rows, after, func(r, a neighborRow) int {
			if r.compare(a) <= 0 {
				return -1
			}
			return 1
		})
		rows = rows[i:]
	}
	if len(rows) > NeighborEdgesLimit {
		rows = rows[:NeighborEdgesLimit]
	}
	out.Columns = []string{"center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"}
	if st.cursor {
		out.Columns = append(out.Columns, "_k0", "_k1", "_k2", "_k3", "_k4")
	}
	out.Values = make([][]any, 0, len(rows))
	for _, r := range rows {
		v := []any{r.center, r.nbr, r.nbrKind, r.rel, r.outgoing}
		if st.cursor {
			v = append(v, strconv.FormatInt(r.center, 10), r.rel, r.nbrKind, strconv.FormatInt(r.nbr, 10), strconv.FormatBool(r.outgoing))
		}
		out.Values = append(out.Values, v)
	}
	return out, nil
}

// neighborAfter reads the cursor's keys of a neighbors answer without an order_by (the keys
// neighborKeys lists), which the compiler already checked when it built the seek.
func neighborAfter(after []*string) (neighborRow, error) {
	var a neighborRow
	bad := fmt.Errorf("cursor keys %d, want 5 non-null", len(after))
	if len(after) != 5 || slices.Contains(after, nil) {
		return a, bad
	}
	var err1, err2 error
	a.center, err1 = strconv.ParseInt(*after[0], 10, 64)
	a.rel, a.nbrKind = *after[1], *after[2]
	a.nbr, err2 = strconv.ParseInt(*after[3], 10, 64)
	o, ok := parseKey(*after[4], typBool)
	if err1 != nil || err2 != nil || !ok {
		return a, bad
	}
	a.outgoing = o.(bool)
	return a, nil
}

// JoinCachedNeighbors is [Plan.JoinNeighbors] for the rows of [Plan.CachedNeighborEdges]:
// it first drops the rows whose center the lookup did not return (a named center the caller
// may not read, or not live), which the first statement drops in the engine.
func (p *Plan) JoinCachedNeighbors(edges, lookup graphresponse.Rows) (base graphresponse.Rows, complete bool, err error) {
	if p.NeighborCachePairs() == nil {
		return base, false, newErr("", ErrCompilerBug, "cached neighbors join of a query without a cached neighbors plan")
	}
	lx, err := columnsOf(lookup.Columns, "kind", "id")
	if err != nil {
		return base, false, err
	}
	center := p.Build.Nodes[0].Entity
	centers := map[int64]bool{}
	for _, row := range lookup.Values {
		if k, _ := row[lx[0]].(string); k == center {
			id, ok := row[lx[1]].(int64)
			if !ok {
				return base, false, fmt.Errorf("lookup row: id is %T, want an integer", row[lx[1]])
			}
			centers[id] = true
		}
	}
	kept := graphresponse.Rows{Columns: edges.Columns}
	for i, row := range edges.Values {
		id, ok := row[0].(int64)
		if !ok || edges.Columns[0] != "center_id" {
			return base, false, fmt.Errorf("edge row %d: want center_id first, an integer", i)
		}
		if centers[id] {
			kept.Values = append(kept.Values, row)
		}
	}
	if base, _, err = p.JoinNeighbors(kept, lookup); err != nil {
		return base, false, err
	}
	// The limit applies to the rows before the centers are dropped, as in the engine.
	return base, len(base.Values) == p.Build.PageSize+1 || len(edges.Values) < NeighborEdgesLimit, nil
}
