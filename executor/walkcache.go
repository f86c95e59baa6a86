package executor

import (
	"context"

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
	ws, canStep := h.(CachedWalkStepper)
	if !canStep {
		return base, false, nil
	}
	return cachedStatement(ctx, r, h, q, cache, ex, q.Plan.WalkCachePairs(), func(sets map[compiler.EdgePair]*compiler.EdgeSet) (*compiler.Query, bool, error) {
		w, ok, err := q.Plan.CachedWalks(sets)
		if err != nil || !ok {
			return nil, false, err
		}
		wq, err := ws.WalkCachedStep(q, w)
		return wq, err == nil, err
	})
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
	hs, canStep := h.(CachedHopsStepper)
	if !canStep {
		return base, false, nil
	}
	return cachedStatement(ctx, r, h, q, cache, ex, q.Plan.TraversalCachePairs(), func(sets map[compiler.EdgePair]*compiler.EdgeSet) (*compiler.Query, bool, error) {
		found, ok, err := q.Plan.CachedHops(sets)
		if err != nil || !ok {
			return nil, false, err
		}
		hq, err := hs.HopsCachedStep(q, found)
		return hq, err == nil, err
	})
}

// cachedStatement runs a traversal whose cached form is one statement: it reads the edge
// sets of pairs (nil: the plan has no cached form), has build make the statement from them
// (ok false: the sets cannot serve it) and runs it, giving the base rows of the
// one-statement form. ok is false when the cache cannot serve q.
func cachedStatement(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, cache *EdgeCache, ex *Executed, pairs []compiler.EdgePair,
	build func(sets map[compiler.EdgePair]*compiler.EdgeSet) (*compiler.Query, bool, error)) (base graphresponse.Rows, ok bool, err error) {
	sb, canSet := h.(EdgeSetBuilder)
	if pairs == nil || !canSet {
		return base, false, nil
	}
	sets, ok, err := cache.sets(ctx, r, sb, q.Plan.Caller(), pairs, ex)
	if err != nil || !ok {
		return base, false, err
	}
	sq, ok, err := build(sets)
	if err != nil || !ok {
		return base, false, err
	}
	if base, err = runRecorded(ctx, r, sq, LabelBase, "query", ex); err != nil {
		return base, false, err
	}
	return base, true, nil
}
