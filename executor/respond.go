package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// Runner runs one compiled statement; every [Executor] is one.
type Runner interface {
	Run(ctx context.Context, q *compiler.Query) (Rows, error)
}

// Lender is a [Runner] that can lend a second engine connection at once, so that one
// request's statements run side by side while the engine is otherwise idle (see
// [RespondOptions.SplitKinds]). *chdb.Executor implements it.
type Lender interface {
	// Lend returns a Runner whose first statement runs on a connection taken now, without
	// waiting, when no statement is running on the engine; ok is false otherwise. It never
	// takes a connection another statement waits for. release gives the connection back
	// when no statement took it; call it in every case once the statement's rows are closed.
	Lend() (r Runner, release func(), ok bool)
}

// Hydrator builds the second statement that neighbors and path_finding
// queries need to read the properties of the nodes the first one found.
// *compiler.Compiler implements it.
type Hydrator interface {
	Hydrate(q *compiler.Query, refs []graphresponse.NodeRef) (*compiler.Query, error)
	// Derive builds the statement that reads the text of the derived properties
	// (MergeRequest.diff, MergeRequestDiff.patch) of the nodes refs; nil when there is
	// nothing to read.
	Derive(q *compiler.Query, refs []graphresponse.NodeRef) (*compiler.Query, error)
	// Lookup builds the second statement of a two-step neighbors plan
	// ([compiler.Plan.Edges]): which of refs the caller may read and are live,
	// with their hydration columns when props is set.
	Lookup(q *compiler.Query, refs []graphresponse.NodeRef, props bool) (*compiler.Query, error)
	// PathStep builds the second statement of a multi-step path_finding plan
	// ([compiler.Plan.Paths]): which of the candidates near and far the caller may
	// read and are live, and the edges between them, with the nodes' hydration
	// columns when props is set; nil when there is nothing to check.
	PathStep(q *compiler.Query, near, far []graphresponse.NodeRef, props bool) (*compiler.Query, error)
}

// Statement labels name the statements a request runs, in order.
const (
	LabelBase      = "base"
	LabelHydration = "hydration"
	LabelDerived   = "derived"
	// LabelLookup is the second statement of a two-step neighbors plan when it
	// only looks the neighbors up; when it also reads their properties it is
	// labelled [LabelHydration], as it then is the hydration statement.
	LabelLookup = "lookup"
	// LabelEdges is a statement that reads an edge set for the [EdgeCache].
	LabelEdges = "edges"
)

// foldedLookupRefs is the most nodes the lookup of a two-step neighbors plan
// hydrates in the same statement; above it, the lookup reads only liveness and
// the page is hydrated by a statement of its own, as it holds far fewer nodes.
const foldedLookupRefs = 256

// Statement is one statement [Respond] ran.
type Statement struct {
	Label string // [LabelBase], [LabelLookup], [LabelHydration] or [LabelDerived]
	Query *compiler.Query
}

// Executed describes the work of one [Respond] call.
type Executed struct {
	// Rows is the number of rows the base statement produced.
	Rows int64
	// Statements lists what ran, in order: the base statement, then the
	// hydration statement when the query type needs one and there were
	// nodes to hydrate. A two-step neighbors plan lists its edges as the
	// base statement and its lookup as the hydration ([LabelLookup], then a
	// hydration, when the lookup did not hydrate); when its edges did not
	// settle the page, the one-statement form and its hydration follow. A
	// statement is listed once it was sent to the engine, whether or not it
	// succeeded.
	Statements []Statement
	// Base and Hydration are the rows [graphresponse.Build] read: the
	// base statement's (page plus probe row) and the hydration
	// statement's (nil when the query type has none). A caller that
	// answers with a prefix of the page (a token budget) rebuilds from
	// them; they are bounded by the page size.
	Base      graphresponse.Rows
	Hydration *graphresponse.Rows
	// Derived are the rows of the derived-text statement (nil when none ran); a rebuild
	// applies them with [graphresponse.BuildPlan.ApplyDerived].
	Derived *graphresponse.Rows
}

// Screen decides, after the base statement and before hydration, which rows
// of the page the caller may see: it sets base.Withheld (redaction,
// docs/redaction.md). An error fails the request.
type Screen interface {
	Screen(ctx context.Context, plan *graphresponse.BuildPlan, base *graphresponse.Rows) error
}

// Respond runs a compiled query on r, then its hydration statement when the
// query type needs one, and builds the GraphResponse. It also reports the
// statements it ran and the number of rows the base statement produced,
// even when it fails part-way.
func Respond(ctx context.Context, r Runner, h Hydrator, q *compiler.Query) (*graphresponse.Response, Executed, error) {
	return RespondScreened(ctx, r, h, q, nil)
}

// RespondScreened is [Respond] with s (nil: none) screening the base page
// before hydration, so that withheld rows are neither hydrated nor built.
//
// A query with a two-step plan ([compiler.Plan.Edges]: neighbors) runs it
// first: its edges, the lookup of the nodes they reach (hydrating them too
// when there is no screen and they are few), and the join, which gives the
// base rows the one-statement form would have; when the edges filled their
// limit before the page, the one-statement form runs instead. A path_finding
// query with a plan in steps ([compiler.Plan.Paths]) likewise runs the anchors
// and their edges, then the check of the middle nodes they reach (hydrating
// them too on the same terms), and assembles the paths in Go.
func RespondScreened(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, s Screen) (*graphresponse.Response, Executed, error) {
	return RespondWith(ctx, r, h, q, RespondOptions{Screen: s})
}

// RespondOptions are what [RespondWith] may use beyond the statements.
type RespondOptions struct {
	// Screen screens the base page before hydration ([RespondScreened]); nil: none.
	Screen Screen
	// Edges, when set, holds edge sets that a path_finding query with a plan in steps, a
	// traversal's variable-length walk, a fixed-length traversal from named ids, or a
	// two-step neighbors plan runs on when it can ([compiler.Plan.PathCachePairs],
	// [compiler.Plan.WalkCachePairs], [compiler.Plan.TraversalCachePairs],
	// [compiler.Plan.NeighborCachePairs]; docs/compiler.md, "Path finding on cached edges",
	// "Walks on cached edges", "Traversals on cached edges", "Neighbors on cached edges").
	// Set it only for an engine this process alone writes.
	Edges *EdgeCache
	// SplitKinds, when positive: a neighbors lookup or a hydration statement that reads at
	// least this many kinds runs as two statements at once, each reading about half of the
	// kinds, when the runner is a [Lender] that lends a connection now (the engine is
	// otherwise idle); the rows are merged in the one statement's order. 0 or negative: one
	// statement. serve sets 4 (docs/compiler.md, "Lookups in two halves").
	SplitKinds int
}

// RespondWith is [RespondScreened] with the options o.
func RespondWith(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, o RespondOptions) (*graphresponse.Response, Executed, error) {
	s, split := o.Screen, o.SplitKinds
	var ex Executed
	var (
		base   graphresponse.Rows
		looked *graphresponse.Rows
		ok     bool
		err    error
	)
	if q.Plan.Paths() {
		if o.Edges != nil {
			base, looked, ok, err = cachedPaths(ctx, r, h, q, s == nil, o.Edges, &ex)
		}
		if err == nil && !ok {
			base, looked, ok, err = pathSteps(ctx, r, h, q, s == nil, &ex)
		}
	} else if q.Plan.WalkCachePairs() != nil && o.Edges != nil {
		base, ok, err = cachedWalks(ctx, r, h, q, o.Edges, &ex)
	} else if q.Plan.TraversalCachePairs() != nil && o.Edges != nil {
		base, ok, err = cachedHops(ctx, r, h, q, o.Edges, &ex)
	} else {
		if o.Edges != nil {
			base, looked, ok, err = cachedNeighbors(ctx, r, h, q, s == nil, split, o.Edges, &ex)
		}
		if err == nil && !ok {
			base, looked, ok, err = twoStep(ctx, r, h, q, s == nil, split, &ex)
		}
	}
	if err != nil {
		return nil, ex, err
	}
	if !ok {
		if base, err = runRecorded(ctx, r, q, LabelBase, "query", &ex); err != nil {
			return nil, ex, err
		}
	}
	ex.Rows = int64(len(base.Values))
	plan := q.Plan.Build
	if s != nil {
		if err := s.Screen(ctx, plan, &base); err != nil {
			return nil, ex, fmt.Errorf("redact: %w", err)
		}
	}
	ex.Base = base
	var hyd *graphresponse.Rows
	if q.Plan.NeedsHydration() {
		refs, err := plan.NodeRefs(base)
		if err != nil {
			return nil, ex, fmt.Errorf("collect nodes: %w", err)
		}
		if looked != nil {
			rows := hydrationOf(*looked, refs)
			hyd = &rows
		} else {
			rows, ran, err := runSplit(ctx, r, q, refs, split, LabelHydration, "hydration", &ex, func(refs []graphresponse.NodeRef) (*compiler.Query, error) {
				return h.Hydrate(q, refs)
			})
			if err != nil {
				return nil, ex, err
			}
			hyd = &graphresponse.Rows{}
			if ran {
				hyd = &rows
			}
		}
	}
	ex.Hydration = hyd
	resp, err := graphresponse.Build(plan, base, hyd)
	if err != nil {
		return nil, ex, fmt.Errorf("build response: %w", err)
	}
	if len(plan.Derived) > 0 {
		if refs := plan.DerivedRefs(resp); len(refs) > 0 {
			dq, err := h.Derive(q, refs)
			if err != nil {
				return nil, ex, err
			}
			if dq != nil {
				ex.Statements = append(ex.Statements, Statement{Label: LabelDerived, Query: dq})
				rows, err := CollectRows(ctx, r, dq)
				if err != nil {
					return nil, ex, fmt.Errorf("execute derived text: %w", err)
				}
				ex.Derived = &rows
				if err := plan.ApplyDerived(resp, rows); err != nil {
					return nil, ex, fmt.Errorf("apply derived text: %w", err)
				}
			}
		}
	}
	return resp, ex, nil
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

// twoStep runs the two statements of a two-step neighbors plan (docs/compiler.md,
// "Two-step neighbors") and returns the base rows the one-statement form would have
// returned. With props, the lookup also hydrates, and looked holds its rows for
// [hydrationOf]; otherwise looked is nil and the page is hydrated as usual. ok is
// false when q has no such plan, or when the first statement's rows did not settle
// the page (then the caller runs q itself).
func twoStep(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, props bool, split int, ex *Executed) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	eq := q.Plan.Edges()
	if eq == nil {
		return base, nil, false, nil
	}
	edges, err := runRecorded(ctx, r, eq, LabelBase, "query", ex)
	if err != nil {
		return base, nil, false, err
	}
	refs, err := q.Plan.Reached(edges)
	if err != nil {
		return base, nil, false, fmt.Errorf("collect nodes: %w", err)
	}
	props = props && len(refs) <= foldedLookupRefs
	if !props {
		// Not hydrating: the join reads only the neighbors, and the page is hydrated after.
		if refs, err = q.Plan.Neighbors(edges); err != nil {
			return base, nil, false, fmt.Errorf("collect nodes: %w", err)
		}
	}
	live, err := lookup(ctx, r, h, q, refs, props, split, ex)
	if err != nil {
		return base, nil, false, err
	}
	base, ok, err = q.Plan.JoinNeighbors(edges, live)
	if err != nil || !ok {
		return base, nil, false, err
	}
	if props {
		looked = &live
	}
	return base, looked, true, nil
}

// lookup runs the lookup of refs of a two-step neighbors plan ([Hydrator.Lookup]), in two
// halves when [runSplit] finds it worth it, recorded in ex as a lookup, or as hydration when
// props (it also reads the columns); with no statement (no refs) its rows are empty.
func lookup(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, refs []graphresponse.NodeRef, props bool, split int, ex *Executed) (graphresponse.Rows, error) {
	live, ran, err := runSplit(ctx, r, q, refs, split, stepLabel(props), "lookup", ex, func(refs []graphresponse.NodeRef) (*compiler.Query, error) {
		return h.Lookup(q, refs, props)
	})
	if err == nil && !ran {
		live.Columns = []string{"kind", "id", "props", "tp"}
	}
	return live, err
}

// runStep runs the second statement of a plan in steps (a neighbors lookup, a path step),
// recorded in ex as a lookup, or as hydration when it also reads the page's columns.
func runStep(ctx context.Context, r Runner, sq *compiler.Query, hydrates bool, ex *Executed, what string) (graphresponse.Rows, error) {
	return runRecorded(ctx, r, sq, stepLabel(hydrates), what, ex)
}

// stepLabel is the label of a plan's second statement: hydration when it also reads the
// page's columns, else lookup.
func stepLabel(hydrates bool) string {
	if hydrates {
		return LabelHydration
	}
	return LabelLookup
}

// runRecorded lists q in ex under label and runs it, its error wrapped as "execute what".
func runRecorded(ctx context.Context, r Runner, q *compiler.Query, label, what string, ex *Executed) (graphresponse.Rows, error) {
	ex.Statements = append(ex.Statements, Statement{Label: label, Query: q})
	rows, err := CollectRows(ctx, r, q)
	if err != nil {
		return rows, fmt.Errorf("execute %s: %w", what, err)
	}
	return rows, nil
}

// hydrationOf keeps, of the rows of a two-step lookup, the columns and the nodes
// that the hydration statement for refs would have returned.
func hydrationOf(live graphresponse.Rows, refs []graphresponse.NodeRef) graphresponse.Rows {
	want := make(map[graphresponse.NodeRef]bool, len(refs))
	for _, r := range refs {
		want[r] = true
	}
	cols := []string{"kind", "id", "props"}
	at := make([]int, len(cols))
	for i, c := range cols {
		at[i] = slices.Index(live.Columns, c)
	}
	out := graphresponse.Rows{Columns: cols}
	for _, row := range live.Values {
		kind, _ := row[at[0]].(string)
		id, _ := row[at[1]].(int64)
		if want[graphresponse.NodeRef{Kind: kind, ID: id}] {
			out.Values = append(out.Values, []any{row[at[0]], row[at[1]], row[at[2]]})
		}
	}
	return out
}

// pathSteps runs the statements of a multi-step path_finding plan (docs/compiler.md,
// "Path finding in steps") and returns the base rows the one-statement form would have
// returned. With props, the second statement also hydrates the nodes it checks (the first
// always reads the anchors' columns) unless they are many, and looked holds the rows
// [hydrationOf] takes; otherwise looked is nil. ok is false when a statement stopped at its
// limit (then the caller runs q).
func pathSteps(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, props bool, ex *Executed) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	eq := q.Plan.Edges()
	first, err := runRecorded(ctx, r, eq, LabelBase, "query", ex)
	if err != nil {
		return base, nil, false, err
	}
	near, far, ok, err := q.Plan.PathCandidates(first)
	if err != nil || !ok {
		return base, nil, false, err
	}
	return joinPaths(ctx, r, q, first, near, far, props, ex, func(props bool) (*compiler.Query, error) {
		return h.PathStep(q, near, far, props)
	})
}

// joinPaths runs the statement that checks the middles near and far of a path plan (built by
// step, hydrating them too when props and they are few) and joins the paths of first and its
// rows; shared by pathSteps and cachedPaths.
func joinPaths(ctx context.Context, r Runner, q *compiler.Query, first graphresponse.Rows, near, far []graphresponse.NodeRef, props bool, ex *Executed, step func(props bool) (*compiler.Query, error)) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	props = props && len(near)+len(far) <= foldedLookupRefs
	var second *graphresponse.Rows
	sq, err := step(props)
	if err != nil {
		return base, nil, false, err
	}
	if sq != nil {
		rows, err := runStep(ctx, r, sq, props, ex, "path step")
		if err != nil {
			return base, nil, false, err
		}
		second = &rows
	}
	if base, ok, err = q.Plan.JoinPaths(first, second); err != nil || !ok {
		return base, nil, false, err
	}
	if props {
		hyd, err := q.Plan.PathHydration(first, second)
		if err != nil {
			return base, nil, false, err
		}
		looked = &hyd
	}
	return base, looked, true, nil
}

// cachedPaths runs a multi-step path_finding plan on the edge sets of cache
// (docs/compiler.md, "Path finding on cached edges"): the anchors (unless they name their
// ids), then the middles of the paths the cached edges form, with the anchors when they name
// their ids, and the join. ok is false when the cache cannot serve q (then the caller runs the
// plan in steps).
func cachedPaths(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, props bool, cache *EdgeCache, ex *Executed) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	pairs := q.Plan.PathCachePairs()
	sb, canSet := h.(EdgeSetBuilder)
	ps, canStep := h.(CachedPathStepper)
	if pairs == nil || !canSet || !canStep {
		return base, nil, false, nil
	}
	sets, ok, err := cache.sets(ctx, r, sb, q.Plan.Caller(), pairs, ex)
	if err != nil || !ok {
		return base, nil, false, err
	}
	named := q.Plan.PathAnchorsNamed()
	var anchors *graphresponse.Rows
	if !named {
		// The middles depend on the anchors: read them first.
		aq, err := ps.PathCachedStep(q, nil, nil, false, true)
		if err != nil {
			return base, nil, false, err
		}
		rows, err := runRecorded(ctx, r, aq, LabelBase, "query", ex)
		if err != nil {
			return base, nil, false, err
		}
		anchors = &rows
	}
	first, near, far, err := q.Plan.CachedPathEdges(sets, anchors)
	if err != nil {
		return base, nil, false, err
	}
	if anchors != nil {
		first.Values = append(first.Values, anchors.Values...)
	}
	return joinPaths(ctx, r, q, first, near, far, props, ex, func(props bool) (*compiler.Query, error) {
		return ps.PathCachedStep(q, near, far, props, named)
	})
}

// cachedNeighbors runs a two-step neighbors plan on the edge sets of cache (docs/compiler.md,
// "Neighbors on cached edges"): the centers' edges from the sets, then one statement, the
// lookup of the nodes the page's rows reach with the centers (hydrating them too on twoStep's
// terms; of all the rows' nodes when it drops one), and the join, which keeps the rows whose
// center and neighbor the lookup returned. ok is
// false when the cache cannot serve q or the edges stopped at their limit before the page
// filled (then the caller runs the two-step plan).
func cachedNeighbors(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, props bool, split int, cache *EdgeCache, ex *Executed) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	pairs := q.Plan.NeighborCachePairs()
	sb, canSet := h.(EdgeSetBuilder)
	if pairs == nil || !canSet {
		return base, nil, false, nil
	}
	sets, ok, err := cache.sets(ctx, r, sb, q.Plan.Caller(), pairs, ex)
	if err != nil || !ok {
		return base, nil, false, err
	}
	edges, err := q.Plan.CachedNeighborEdges(sets)
	if err != nil {
		return base, nil, false, err
	}
	// The sets hold only edges whose ends are live nodes the caller may read, so the lookup
	// is expected to return every node they reach, and the page to be their first rows: those
	// are looked up first (fewer nodes, often of fewer kinds: fewer reads). Only if it drops
	// one of them are all the edges' nodes looked up, as before.
	if page := q.Plan.Build.PageSize + 1; len(edges.Values) > page {
		head := graphresponse.Rows{Columns: edges.Columns, Values: edges.Values[:page]}
		base, looked, ok, err = lookupCachedNeighbors(ctx, r, h, q, head, props, split, ex)
		if err != nil || (ok && len(base.Values) == page) {
			return base, looked, ok, err
		}
	}
	return lookupCachedNeighbors(ctx, r, h, q, edges, props, split, ex)
}

// lookupCachedNeighbors runs the lookup of the nodes the rows edges of [compiler.Plan.CachedNeighborEdges]
// reach, with the centers, and joins them ([compiler.Plan.JoinCachedNeighbors]).
func lookupCachedNeighbors(ctx context.Context, r Runner, h Hydrator, q *compiler.Query, edges graphresponse.Rows, props bool, split int, ex *Executed) (base graphresponse.Rows, looked *graphresponse.Rows, ok bool, err error) {
	// The centers are looked up whether or not the lookup hydrates: the join keeps only
	// the rows of the centers it returns.
	refs, err := q.Plan.Reached(edges)
	if err != nil {
		return base, nil, false, fmt.Errorf("collect nodes: %w", err)
	}
	props = props && len(refs) <= foldedLookupRefs
	live, err := lookup(ctx, r, h, q, refs, props, split, ex)
	if err != nil {
		return base, nil, false, err
	}
	base, ok, err = q.Plan.JoinCachedNeighbors(edges, live)
	if err != nil || !ok {
		return base, nil, false, err
	}
	if props {
		looked = &live
	}
	return base, looked, true, nil
}
