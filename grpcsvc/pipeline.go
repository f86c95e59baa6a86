package grpcsvc

import (
	"context"
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// Executor runs one compiled statement. executor.Executor implementations
// satisfy it.
type Executor interface {
	Run(ctx context.Context, q *compiler.Query) (executor.Rows, error)
}

// result is a built response with what the metadata reports.
type result struct {
	resp     *graphresponse.Response
	rowCount int64
}

// respond runs a compiled query, its hydration statement when the query
// type needs one, and builds the GraphResponse.
func respond(ctx context.Context, comp *compiler.Compiler, e Executor, q *compiler.Query) (result, error) {
	base, err := collect(ctx, e, q)
	if err != nil {
		return result{}, fmt.Errorf("execute query: %w", err)
	}
	plan := q.Plan.Build
	var hyd *graphresponse.Rows
	if q.Plan.NeedsHydration() {
		refs, err := plan.NodeRefs(base)
		if err != nil {
			return result{}, fmt.Errorf("collect nodes: %w", err)
		}
		hq, err := comp.Hydrate(q, refs)
		if err != nil {
			return result{}, err
		}
		hyd = &graphresponse.Rows{}
		if hq != nil {
			h, err := collect(ctx, e, hq)
			if err != nil {
				return result{}, fmt.Errorf("execute hydration: %w", err)
			}
			hyd = &h
		}
	}
	resp, err := graphresponse.Build(plan, base, hyd)
	if err != nil {
		return result{}, fmt.Errorf("build response: %w", err)
	}
	return result{resp: resp, rowCount: int64(len(base.Values))}, nil
}

func collect(ctx context.Context, e Executor, q *compiler.Query) (graphresponse.Rows, error) {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return graphresponse.Rows{}, err
	}
	out := graphresponse.Rows{Values: res.Rows}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, c.Name)
	}
	return out, nil
}
