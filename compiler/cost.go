package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DefaultMaxWalkCost is the estimate above which a variable-length relationship is refused
// when [Options.MaxWalkCost] is 0 (docs/service.md, "Query cost").
const DefaultMaxWalkCost = 1e10

// EdgeSizes reports how many rows the edge table holds of relationship type rel from a node
// of entity from to one of entity to (every stored version counts; 0 when there are none).
// ok is false when the counts are unknown. [Options.Sizes] may implement it (the executor's
// TableSizes does); without it, walks are not estimated.
type EdgeSizes interface {
	EdgeRows(rel, from, to string) (rows int64, ok bool)
}

// walkCost is the estimate of one variable-length relationship and what drives it.
type walkCost struct {
	cost  float64 // edge combinations the walk's joins may consider
	first float64 // edge rows step 1 may read, from the near node's selection
	steps []int64 // edge rows each later step may read: every edge of the types and kinds
}

// checkCost refuses, before anything runs, a traversal or aggregation with a variable-length
// relationship whose estimated work is above max (docs/service.md, "Query cost"). A walk of
// k steps joins the edges each step reads, so its work grows with their product: step 1
// reads the edges of the near node's selection (its node_ids or id_range, else its whole
// table), every later step may read every edge of the walk's relationship types between the
// entities a walk can pass there, in each direction it may go. The counts are the engine's
// (EdgeSizes); when they are unknown nothing is refused.
func (l *lowerer) checkCost(limit float64) error {
	es, ok := l.sizes.(EdgeSizes)
	if !ok || limit < 0 || len(l.r.rels) == 0 {
		return nil
	}
	// A pattern of several walks joins them: each row one walk ends with starts the next, so
	// the work of the whole is the first walk's estimate times, for every later walk, the
	// combinations one of its start nodes opens (its average edges per node at step 1, then
	// its later steps). One walk at a time, a pattern split into several short walks would
	// pass where the walk as one is refused.
	total, walks := 1.0, 0
	var first *hop
	for _, h := range joinTree(l.r, pickRoot(l.r.nodes)) {
		if h.rs.maxHops < 2 {
			continue
		}
		w, known := l.estimateWalk(h, es)
		if !known {
			return nil
		}
		if w.cost > limit {
			return newErr("/relationships/"+strconv.Itoa(h.rs.idx), ErrQueryTooExpensive, w.describe(h, limit))
		}
		if walks == 0 {
			total, first = w.cost, &h
		} else {
			per := max1(w.first / (l.startShare(h.near) * l.rowsOf(h.near)))
			for _, n := range w.steps {
				per *= float64(max(n, 1))
			}
			total *= per
		}
		walks++
		if walks > 1 && total > limit {
			return newErr("/relationships/"+strconv.Itoa(first.rs.idx), ErrQueryTooExpensive, fmt.Sprintf(
				"query too expensive: the %d variable-length relationships of this pattern, joined, are estimated at %.3g edge combinations, over the limit of %.3g "+
					"(each alone is within it; relationship %d and those after it multiply): name fewer relationship types, fewer hops or one direction, or select fewer %s nodes",
				walks, total, limit, h.rs.idx, first.near.alias))
		}
	}
	return nil
}

// rowsOf is the rows of n's table, at least 1 (1 when unknown).
func (l *lowerer) rowsOf(n *nodeSel) float64 {
	rows, ok := l.sizes.Rows(n.ent.table)
	if !ok || rows <= 0 {
		return 1
	}
	return float64(rows)
}

func max1(f float64) float64 { return max(f, 1) }

// estimateWalk estimates the walk of hop h; known is false when a count is unknown.
func (l *lowerer) estimateWalk(h hop, es EdgeSizes) (w walkCost, known bool) {
	rs := h.rs
	walkForward := (rs.direction == "outgoing") == h.nearIsFrom
	forward, backward := walkForward, !walkForward
	if rs.direction == "both" {
		forward, backward = true, true
	}
	at := []*entity{h.near.ent}
	for k := 1; k <= rs.maxHops; k++ {
		ends := []*entity{h.far.ent}
		var next []*entity
		if k < rs.maxHops {
			next = l.innerKinds(rs.concrete, at, forward, backward)
			for _, e := range next {
				if e != h.far.ent {
					ends = append(ends, e)
				}
			}
		}
		var edges int64
		for _, t := range rs.concrete {
			for _, a := range at {
				for _, b := range ends {
					if forward {
						n, ok := es.EdgeRows(t, a.name, b.name)
						if !ok {
							return w, false
						}
						edges += n
					}
					if backward {
						n, ok := es.EdgeRows(t, b.name, a.name)
						if !ok {
							return w, false
						}
						edges += n
					}
				}
			}
		}
		if k == 1 {
			w.first = float64(edges) * l.startShare(h.near)
		} else {
			w.steps = append(w.steps, edges)
		}
		if len(next) == 0 {
			break
		}
		at = next
	}
	w.cost = max(w.first, 1)
	for _, n := range w.steps {
		w.cost *= float64(max(n, 1))
	}
	return w, true
}

// startShare is the share of its table's rows that node n selects: its node_ids or id_range
// against the table's size, else all of them (its filters are not estimated).
func (l *lowerer) startShare(n *nodeSel) float64 {
	rows, ok := l.sizes.Rows(n.ent.table)
	if !ok || rows <= 0 {
		return 1
	}
	picked := float64(rows)
	if n.hasIDs {
		picked = min(picked, float64(len(n.nodeIDs)))
	}
	if n.idRange != nil {
		// (in uint64: end - start wraps in int64 for a range wider than 2^63 ids)
		picked = min(picked, float64(uint64(n.idRange[1])-uint64(n.idRange[0]))+1)
	}
	return picked / float64(rows)
}

// describe is the refusal's message: the estimate, the limit and what drives them.
func (w walkCost) describe(h hop, limit float64) string {
	rs := h.rs
	types := "any relationship type"
	if !rs.star {
		types = strings.Join(rs.concrete, ", ")
	}
	steps := make([]string, len(w.steps))
	for i, n := range w.steps {
		steps[i] = strconv.FormatInt(n, 10)
	}
	widest := slices.Max(append([]int64{0}, w.steps...))
	return fmt.Sprintf("query too expensive: this walk of up to %d hops (%s, direction %s) from %s to %s is estimated at %.3g edge combinations, over the limit of %.3g: "+
		"step 1 reads about %.0f edges from %s's selection, and steps 2 to %d may read %s edges each (up to %d); "+
		"name fewer relationship types, fewer hops or one direction, or select fewer %s nodes",
		rs.maxHops, types, rs.direction, h.near.alias, h.far.alias, w.cost, limit,
		w.first, h.near.alias, len(w.steps)+1, strings.Join(steps, ", "), widest, h.near.alias)
}
