package executor

import (
	"context"
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// CachedWalkStepper builds the statement of the cached walk form of a traversal
// ([compiler.Compiler.WalkCachedStep]); *compiler.Compiler implements it.
type CachedWalkStepper interface {
	WalkCachedStep(q *compiler.Query, w *compiler.Walks) (*compiler.Query, error)
}

// cachedWalks runs a traversal's variable-length walk on the edge sets of cache
// (docs/compiler.md, "Walks on cached edges"): the walks in Go, then one statement that reads
// the start and end nodes joined to them, which gives the base rows of the one-statement form.
// ok is false when the cache cannot serve q (then the caller runs the one-statement form).
func cachedWalks(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, cache *EdgeCache, ex *Executed) (base graphresponse.Rows, ok bool, err error) {
	pairs := q.Plan.WalkCachePairs()
	sb, canSet := h.(EdgeSetBuilder)
	ws, canStep := h.(CachedWalkStepper)
	if pairs == nil || !canSet || !canStep {
		return base, false, nil
	}
	// Like neighbors' (cachedNeighbors): sets that together pass half a caller's share may
	// not all be held, and each read would evict another, on every request of the question.
	sets, ok, err := cache.sets(ctx, r, sb, q.Plan.Caller(), pairs, cache.opts.CallerBytes/2, ex)
	if err != nil || !ok {
		return base, false, err
	}
	w, ok, err := q.Plan.CachedWalks(sets)
	if err != nil || !ok {
		return base, false, err
	}
	wq, err := ws.WalkCachedStep(q, w)
	if err != nil {
		return base, false, err
	}
	ex.Statements = append(ex.Statements, Statement{Label: LabelBase, Query: wq})
	if base, err = CollectRows(ctx, r, wq); err != nil {
		return base, false, fmt.Errorf("execute query: %w", err)
	}
	return base, true, nil
}

// CachedHopsStepper builds the statement of the cached form of a fixed-length traversal
// ([compiler.Compiler.HopsCachedStep]); *compiler.Compiler implements it.
type CachedHopsStepper interface {
	HopsCachedStep(q *compiler.Query, hs *compiler.Hops) (*compiler.Query, error)
}

// cachedHops runs a fixed-length traversal on the edge sets of cache (docs/compiler.md,
// "Traversals on cached edges"): the hops in Go, then one statement that reads every node,
// narrowed to the ids the hops reached and joined by the edges found, which gives the base
// rows of the one-statement form. ok is false when the cache cannot serve q (then the caller
// runs the one-statement form).
func cachedHops(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, cache *EdgeCache, ex *Executed) (base graphresponse.Rows, ok bool, err error) {
	pairs := q.Plan.TraversalCachePairs()
	sb, canSet := h.(EdgeSetBuilder)
	hs, canStep := h.(CachedHopsStepper)
	if pairs == nil || !canSet || !canStep {
		return base, false, nil
	}
	// Like neighbors' (cachedNeighbors): sets that together pass half a caller's share would
	// evict each other on every request of the question.
	sets, ok, err := cache.sets(ctx, r, sb, q.Plan.Caller(), pairs, cache.opts.CallerBytes/2, ex)
	if err != nil || !ok {
		return base, false, err
	}
	found, ok, err := q.Plan.CachedHops(sets)
	if err != nil || !ok {
		return base, false, err
	}
	hq, err := hs.HopsCachedStep(q, found)
	if err != nil {
		return base, false, err
	}
	ex.Statements = append(ex.Statements, Statement{Label: LabelBase, Query: hq})
	if base, err = CollectRows(ctx, r, hq); err != nil {
		return base, false, fmt.Errorf("execute query: %w", err)
	}
	return base, true, nil
}
