package executor

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// fakeRunner answers each statement with rows of the kinds its SQL names ("A,B"), one row
// per kind, or fails (fail), or waits for its context (block, bounded).
type fakeRunner struct {
	fail     error
	block    bool
	canceled atomic.Bool // a blocked statement ended by its context
	lend     *fakeRunner // what Lend lends; nil: not a Lender's answer
	lends    atomic.Int32
	runs     atomic.Int32
}

func (f *fakeRunner) Run(ctx context.Context, q *compiler.Query) (Rows, error) {
	f.runs.Add(1)
	if f.fail != nil {
		return nil, f.fail
	}
	if f.block {
		select {
		case <-ctx.Done():
			f.canceled.Store(true)
			return nil, FromContext("run query", ctx.Err())
		case <-time.After(20 * time.Second):
			return nil, errors.New("not canceled")
		}
	}
	var rows [][]any
	for k := range strings.SplitSeq(q.SQL, ",") {
		rows = append(rows, []any{k, int64(len(k))})
	}
	return SliceRows([]Column{{Name: "kind"}, {Name: "id"}}, rows, Stats{}), nil
}

// lender is a fakeRunner that lends f.lend when it is set.
type lender struct{ *fakeRunner }

func (l lender) Lend() (Runner, func(), bool) {
	l.lends.Add(1)
	if l.lend == nil {
		return nil, nil, false
	}
	return l.lend, func() {}, true
}

func splitQuery(kinds ...string) *compiler.Query {
	b := &graphresponse.BuildPlan{}
	for _, k := range kinds {
		b.Hydration = append(b.Hydration, graphresponse.PlanKind{Entity: k})
	}
	return &compiler.Query{Plan: &compiler.Plan{Build: b}}
}

// buildKinds builds a statement whose SQL lists the kinds of refs, in the arm order of kinds.
func buildKinds(kinds []string) func([]graphresponse.NodeRef) (*compiler.Query, error) {
	return func(refs []graphresponse.NodeRef) (*compiler.Query, error) {
		var in []string
		for _, k := range kinds {
			for _, r := range refs {
				if r.Kind == k {
					in = append(in, k)
					break
				}
			}
		}
		return &compiler.Query{SQL: strings.Join(in, ",")}, nil
	}
}

func refsOf(kinds ...string) []graphresponse.NodeRef {
	var refs []graphresponse.NodeRef
	for _, k := range kinds {
		refs = append(refs, graphresponse.NodeRef{Kind: k, ID: int64(len(k))})
	}
	return refs
}

// TestRunSplitWhenLent: with a connection lent, refs of four kinds run as two statements and
// the rows come back in the one statement's arm order; with none lent (the engine busy), or
// fewer kinds than the threshold, or a runner that lends nothing, one statement runs.
func TestRunSplitWhenLent(t *testing.T) {
	kinds := []string{"A", "BB", "CCC", "DDDD", "EEEEE"}
	q := splitQuery(kinds...)
	refs := refsOf("DDDD", "A", "CCC", "BB")
	one, _, err := runSplit(context.Background(), &fakeRunner{}, q, refs, 4, LabelLookup, "lookup", &Executed{}, buildKinds(kinds))
	if err != nil {
		t.Fatal(err)
	}

	side := &fakeRunner{}
	main := lender{&fakeRunner{lend: side}}
	var ex Executed
	got, ran, err := runSplit(context.Background(), main, q, refs, 4, LabelLookup, "lookup", &ex, buildKinds(kinds))
	if err != nil || !ran {
		t.Fatalf("split: ran %v, %v", ran, err)
	}
	if len(ex.Statements) != 2 || main.runs.Load() != 1 || side.runs.Load() != 1 {
		t.Errorf("split: %d statements listed, %d run on the runner and %d on the lent one; want 2, 1, 1", len(ex.Statements), main.runs.Load(), side.runs.Load())
	}
	if !reflect.DeepEqual(got, one) {
		t.Errorf("split rows %v, one statement's %v", got.Values, one.Values)
	}

	for name, c := range map[string]struct {
		r     Runner
		split int
	}{
		"busy":         {lender{&fakeRunner{}}, 4},
		"three kinds":  {lender{&fakeRunner{lend: &fakeRunner{}}}, 5},
		"off":          {lender{&fakeRunner{lend: &fakeRunner{}}}, 0},
		"not a lender": {&fakeRunner{}, 4},
	} {
		var ex Executed
		got, _, err := runSplit(context.Background(), c.r, q, refs, c.split, LabelLookup, "lookup", &ex, buildKinds(kinds))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(ex.Statements) != 1 || !reflect.DeepEqual(got, one) {
			t.Errorf("%s: %d statements, rows %v; want one statement's %v", name, len(ex.Statements), got.Values, one.Values)
		}
		if l, ok := c.r.(lender); ok && l.lend != nil && l.runs.Load()+l.lend.runs.Load() != 1 {
			t.Errorf("%s: %d statements ran", name, l.runs.Load()+l.lend.runs.Load())
		}
	}
}

// TestRunSplitFailure: when either half fails, the request fails with that error's kind and
// the other half is canceled (it would otherwise wait 20 s and fail the test).
func TestRunSplitFailure(t *testing.T) {
	kinds := []string{"A", "B", "C", "D"}
	q := splitQuery(kinds...)
	refs := refsOf(kinds...)
	bad := New("run query", ErrInvalidQuery, errors.New("bad value"))
	for _, lentFails := range []bool{false, true} {
		failing, blocked := &fakeRunner{fail: bad}, &fakeRunner{block: true}
		main, side := failing, blocked
		if lentFails {
			main, side = blocked, failing
		}
		var ex Executed
		main.lend = side
		_, _, err := runSplit(context.Background(), lender{main}, q, refs, 4, LabelLookup, "lookup", &ex, buildKinds(kinds))
		if !errors.Is(err, ErrInvalidQuery) {
			t.Errorf("lent fails %v: error %v, want the failing half's kind", lentFails, err)
		}
		if !blocked.canceled.Load() {
			t.Errorf("lent fails %v: the other half was not canceled", lentFails)
		}
		if len(ex.Statements) != 2 {
			t.Errorf("lent fails %v: %d statements listed, want 2", lentFails, len(ex.Statements))
		}
	}
}

// TestRunSplitEndedWaitsForBoth: a failure whose statement outlives it ([Ended]) reports an
// Ended that closes only once the other half's statement has ended too.
func TestRunSplitEndedWaitsForBoth(t *testing.T) {
	e0, e1 := make(chan struct{}), make(chan struct{})
	first := &Error{Kind: ErrTimeout, Op: "run query", Err: errors.New("deadline"), Ended: e0}
	other := &Error{Kind: ErrCanceled, Op: "run query", Err: errors.New("canceled"), Ended: e1}
	ended := Ended(endedWithBoth(first, [2]error{first, other}))
	if ended == nil {
		t.Fatal("no Ended")
	}
	close(e0)
	select {
	case <-ended:
		t.Fatal("Ended closed while the other half's statement runs")
	case <-time.After(50 * time.Millisecond):
	}
	close(e1)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("Ended did not close once both statements ended")
	}
}
