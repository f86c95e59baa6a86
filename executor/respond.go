package executor

import (
	"context"
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// Runner runs one compiled statement; every [Executor] is one.
type Runner interface {
	Run(ctx context.Context, q *compiler.Query) (Rows, error)
}

// Hydrator builds the second statement that neighbors and path_finding
// queries need to read the properties of the nodes the first one found.
// *compiler.Compiler implements it.
type Hydrator interface {
	Hydrate(q *compiler.Query, refs []graphresponse.NodeRef) (*compiler.Query, error)
}

// Respond runs a compiled query on r, then its hydration statement when the
// query type needs one, and builds the GraphResponse. It also returns the
// number of rows the main statement produced.
func Respond(ctx context.Context, r Runner, h Hydrator, q *compiler.Query) (*graphresponse.Response, int64, error) {
	base, err := CollectRows(ctx, r, q)
	if err != nil {
		return nil, 0, fmt.Errorf("execute query: %w", err)
	}
	plan := q.Plan.Build
	var hyd *graphresponse.Rows
	if q.Plan.NeedsHydration() {
		refs, err := plan.NodeRefs(base)
		if err != nil {
			return nil, 0, fmt.Errorf("collect nodes: %w", err)
		}
		hq, err := h.Hydrate(q, refs)
		if err != nil {
			return nil, 0, err
		}
		hyd = &graphresponse.Rows{}
		if hq != nil {
			rows, err := CollectRows(ctx, r, hq)
			if err != nil {
				return nil, 0, fmt.Errorf("execute hydration: %w", err)
			}
			hyd = &rows
		}
	}
	resp, err := graphresponse.Build(plan, base, hyd)
	if err != nil {
		return nil, 0, fmt.Errorf("build response: %w", err)
	}
	return resp, int64(len(base.Values)), nil
}

// CollectRows runs one statement and reads all its rows in the builder's
// input form.
func CollectRows(ctx context.Context, r Runner, q *compiler.Query) (graphresponse.Rows, error) {
	rows, err := r.Run(ctx, q)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	res, err := Collect(rows)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	out := graphresponse.Rows{Values: res.Rows}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, c.Name)
	}
	return out, nil
}
