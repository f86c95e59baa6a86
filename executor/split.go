package executor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// armIDs weighs an arm of a lookup or hydration statement against the ids it reads, when
// [runSplit] balances its two statements: the engine plans each arm (a scoped FINAL read) for
// about 2 ms, and reads a few hundred ids in about as long.
const armIDs = 256

// runSplit builds with build the statement that reads refs and runs it on r, listed in ex as
// label, its error wrapped as "execute what". When refs span at least split of q's hydration
// kinds (split > 0) and r lends a second connection now ([Lender]), it builds two statements
// instead, each reading about half of the kinds (balanced by arms and ids), runs them at once
// and merges their rows in the one statement's arm order. Nothing depends on that order (the
// joins and [graphresponse.Build] index the rows by node, and a node's rows stay in one arm);
// it only keeps the merged rows in a fixed order, as the engine does not keep a UNION ALL's
// arms in order either. ran is false when build gives no statement.
func runSplit(ctx context.Context, r Runner, q *compiler.Query, refs []graphresponse.NodeRef, split int, label, what string, ex *Executed, build func([]graphresponse.NodeRef) (*compiler.Query, error)) (rows graphresponse.Rows, ran bool, err error) {
	if l, ok := r.(Lender); ok && split > 0 {
		if a, b, order, ok := halves(q.Plan.Build.Hydration, refs, split); ok {
			if lent, release, ok := l.Lend(); ok {
				defer release()
				return runHalves(ctx, r, lent, a, b, order, label, what, ex, build)
			}
		}
	}
	sq, err := build(refs)
	if err != nil || sq == nil {
		return rows, false, err
	}
	rows, err = runRecorded(ctx, r, sq, label, what, ex)
	return rows, true, err
}

// halves splits refs by kind into two groups whose arms (one per kind of hydration, in that
// order) cost about the same, each in refs' order; order gives each kind's arm position. ok is
// false when refs span fewer than split kinds.
func halves(hydration []graphresponse.PlanKind, refs []graphresponse.NodeRef, split int) (a, b []graphresponse.NodeRef, order map[string]int, ok bool) {
	ids := map[string]int{}
	for _, r := range refs {
		ids[r.Kind]++
	}
	order = map[string]int{}
	var arms []string
	for i, pk := range hydration {
		if ids[pk.Entity] > 0 {
			arms = append(arms, pk.Entity)
		}
		order[pk.Entity] = i
	}
	if len(arms) < max(split, 2) {
		return nil, nil, nil, false
	}
	cost := func(k string) int { return armIDs + ids[k] }
	byCost := slices.Clone(arms)
	slices.SortStableFunc(byCost, func(x, y string) int { return cmp.Compare(cost(y), cost(x)) })
	inA := map[string]bool{}
	var ca, cb int
	for _, k := range byCost {
		if ca <= cb {
			inA[k], ca = true, ca+cost(k)
		} else {
			cb += cost(k)
		}
	}
	for _, r := range refs {
		if inA[r.Kind] {
			a = append(a, r)
		} else {
			b = append(b, r)
		}
	}
	return a, b, order, true
}

// runHalves builds the statements of a and b and runs them at once, the first on r and the
// second on lent. When either fails the other is canceled, and the first failure is returned
// (its [Error.Ended] closing once both statements have ended).
func runHalves(ctx context.Context, r, lent Runner, a, b []graphresponse.NodeRef, order map[string]int, label, what string, ex *Executed, build func([]graphresponse.NodeRef) (*compiler.Query, error)) (rows graphresponse.Rows, ran bool, err error) {
	qa, err := build(a)
	if err != nil {
		return rows, false, err
	}
	qb, err := build(b)
	if err != nil {
		return rows, false, err
	}
	if qa == nil || qb == nil {
		return rows, false, fmt.Errorf("executor: no %s statement for a half of its kinds", what)
	}
	ex.Statements = append(ex.Statements, Statement{Label: label, Query: qa}, Statement{Label: label, Query: qb})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		errs  [2]error
	)
	fail := func(i int, err error) {
		mu.Lock()
		defer mu.Unlock()
		errs[i] = err
		if first == nil {
			first = err
			cancel()
		}
	}
	var got [2]graphresponse.Rows
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		if got[1], err = CollectRows(ctx, lent, qb); err != nil {
			fail(1, err)
		}
	}()
	var errA error
	if got[0], errA = CollectRows(ctx, r, qa); errA != nil {
		fail(0, errA)
	}
	wg.Wait()
	if first != nil {
		return rows, true, fmt.Errorf("execute %s: %w", what, endedWithBoth(first, errs))
	}
	rows, err = mergeHalves(got[0], got[1], order)
	if err != nil {
		return rows, true, fmt.Errorf("merge %s: %w", what, err)
	}
	return rows, true, nil
}

// endedWithBoth returns first, and when either statement outlives its error ([Ended]), a copy
// of first whose Ended closes once both have ended, so that a caller's slot is held as long.
func endedWithBoth(first error, errs [2]error) error {
	e0, e1 := Ended(errs[0]), Ended(errs[1])
	if e0 == nil && e1 == nil {
		return first
	}
	var e *Error
	if !errors.As(first, &e) {
		return first
	}
	both := make(chan struct{})
	go func() {
		if e0 != nil {
			<-e0
		}
		if e1 != nil {
			<-e1
		}
		close(both)
	}()
	c := *e
	c.Ended = both
	return &c
}

// mergeHalves merges the rows of the two statements in the one statement's arm order (order:
// each kind's arm position), keeping each arm's rows in their order.
func mergeHalves(a, b graphresponse.Rows, order map[string]int) (graphresponse.Rows, error) {
	if !slices.Equal(a.Columns, b.Columns) {
		return graphresponse.Rows{}, fmt.Errorf("the halves' columns differ: %v and %v", a.Columns, b.Columns)
	}
	at := slices.Index(a.Columns, "kind")
	if at < 0 {
		return graphresponse.Rows{}, fmt.Errorf("no kind column in %v", a.Columns)
	}
	out := graphresponse.Rows{Columns: a.Columns, Values: make([][]any, 0, len(a.Values)+len(b.Values))}
	out.Values = append(append(out.Values, a.Values...), b.Values...)
	var bad error
	arm := func(row []any) int {
		k, _ := row[at].(string)
		i, ok := order[k]
		if !ok && bad == nil {
			bad = fmt.Errorf("a row of kind %q, which the statement does not read", k)
		}
		return i
	}
	slices.SortStableFunc(out.Values, func(x, y []any) int { return cmp.Compare(arm(x), arm(y)) })
	if bad != nil {
		return graphresponse.Rows{}, bad
	}
	return out, nil
}
