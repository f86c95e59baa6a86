package redact

import (
	"context"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// Screen marks the rows of a base page that c may not see in
// base.Withheld and returns how many it marked. Every node a row shows
// (graphresponse.BuildPlan.RowRefs) is checked, each distinct node once per
// request (the per-request cache), the types in name order; a row is
// withheld when any of its nodes is denied. On an error nothing is marked
// and the request must fail.
func (a *Authority) Screen(ctx context.Context, c Caller, plan *graphresponse.BuildPlan, base *graphresponse.Rows) (int, error) {
	refs, err := plan.RowRefs(*base)
	if err != nil {
		return 0, err
	}
	byType := map[string][]int64{}
	seen := map[graphresponse.NodeRef]bool{}
	for _, row := range refs {
		for _, r := range row {
			if !seen[r] {
				seen[r] = true
				byType[r.Kind] = append(byType[r.Kind], r.ID)
			}
		}
	}
	if len(seen) == 0 {
		return 0, nil
	}
	allowed := map[graphresponse.NodeRef]bool{}
	types := make([]string, 0, len(byType))
	for t := range byType {
		types = append(types, t)
	}
	slices.SortFunc(types, strings.Compare)
	for _, t := range types {
		ok, err := a.Check(ctx, c, t, byType[t])
		if err != nil {
			return 0, err
		}
		for id := range ok {
			allowed[graphresponse.NodeRef{Kind: t, ID: id}] = true
		}
	}
	withheld := make([]bool, len(base.Values))
	n := 0
	for i, row := range refs {
		for _, r := range row {
			if !allowed[r] {
				withheld[i] = true
				n++
				break
			}
		}
	}
	base.Withheld = withheld
	a.opts.Metrics.RedactionWithheld(n)
	return n, nil
}
