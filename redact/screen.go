package redact

import (
	"context"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// Screener is the redaction of one request: its caller, and the decisions
// made for it so far, which every page the request screens shares (the
// per-request cache). It implements executor.Screen. It is not safe for
// concurrent use; make one per request with [Authority.For].
type Screener struct {
	a        *Authority
	c        Caller
	decided  map[graphresponse.NodeRef]bool
	withheld int
}

// For returns the screener of one request of c.
func (a *Authority) For(c Caller) *Screener {
	return &Screener{a: a, c: c, decided: map[graphresponse.NodeRef]bool{}}
}

// Withheld returns the rows s has withheld over every page it screened.
func (s *Screener) Withheld() int { return s.withheld }

// Screen marks the rows of a base page that the caller may not see in
// base.Withheld. Every node a row shows (graphresponse.BuildPlan.RowRefs)
// is checked once per request, the nodes not yet decided asked of the
// authority by type, in name order; a row is withheld when any of its nodes
// is denied. On an error nothing is marked and the request must fail.
func (s *Screener) Screen(ctx context.Context, plan *graphresponse.BuildPlan, base *graphresponse.Rows) error {
	refs, err := plan.RowRefs(*base)
	if err != nil {
		return err
	}
	byType := map[string][]int64{}
	asked := map[graphresponse.NodeRef]bool{}
	for _, row := range refs {
		for _, r := range row {
			if _, ok := s.decided[r]; !ok && !asked[r] {
				asked[r] = true
				byType[r.Kind] = append(byType[r.Kind], r.ID)
			}
		}
	}
	// A neighbors centre named by id enters the answer even when no row shows it
	// (graphresponse.BuildPlan.Centers), so it is asked about too.
	var centers []graphresponse.NodeRef
	if plan.QueryType == graphresponse.QueryNeighbors && len(plan.Nodes) > 0 {
		for _, id := range plan.Centers {
			r := graphresponse.NodeRef{Kind: plan.Nodes[0].Entity, ID: id}
			centers = append(centers, r)
			if _, ok := s.decided[r]; !ok && !asked[r] {
				asked[r] = true
				byType[r.Kind] = append(byType[r.Kind], r.ID)
			}
		}
	}
	if !anyRef(refs) && len(centers) == 0 {
		return nil // no row shows a node (an aggregation grouped by properties)
	}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.SortFunc(types, strings.Compare)
	for _, t := range types {
		ok, err := s.a.Check(ctx, s.c, t, byType[t])
		if err != nil {
			return err
		}
		for _, id := range byType[t] {
			s.decided[graphresponse.NodeRef{Kind: t, ID: id}] = ok[id]
		}
	}
	withheld := make([]bool, len(base.Values))
	n := 0
	for i, row := range refs {
		for _, r := range row {
			if !s.decided[r] {
				withheld[i] = true
				n++
				break
			}
		}
	}
	base.Withheld = withheld
	for _, r := range centers {
		if !s.decided[r] {
			if base.DeniedCenters == nil {
				base.DeniedCenters = map[graphresponse.NodeRef]bool{}
			}
			base.DeniedCenters[r] = true
		}
	}
	s.withheld += n
	s.a.opts.Metrics.RedactionWithheld(n)
	return nil
}

// anyRef reports whether any row shows a node.
func anyRef(refs [][]graphresponse.NodeRef) bool {
	for _, row := range refs {
		if len(row) > 0 {
			return true
		}
	}
	return false
}

// Screen screens one page for c with a screener of its own ([Authority.For])
// and returns how many rows it withheld.
func (a *Authority) Screen(ctx context.Context, c Caller, plan *graphresponse.BuildPlan, base *graphresponse.Rows) (int, error) {
	s := a.For(c)
	err := s.Screen(ctx, plan, base)
	return s.withheld, err
}
