package admission

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hour is a wait no test reaches: a waiter is woken by a release or its
// context, never by the timer.
const hour = time.Hour

func newController(t *testing.T, opts Options) (*Controller, <-chan struct{}) {
	t.Helper()
	c, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	waits := make(chan struct{}, 64)
	c.onWait = func() { waits <- struct{}{} }
	return c, waits
}

func mustAcquire(t *testing.T, c *Controller, caller string) func() {
	t.Helper()
	release, err := c.Acquire(t.Context(), caller)
	if err != nil {
		t.Fatalf("acquire for %s: %v", caller, err)
	}
	return release
}

type outcome struct {
	release func()
	err     error
}

// acquireAsync starts an Acquire and returns where its outcome arrives,
// after it has started to wait.
func acquireAsync(t *testing.T, ctx context.Context, c *Controller, waits <-chan struct{}, caller string) <-chan outcome {
	t.Helper()
	out := make(chan outcome, 1)
	go func() {
		r, err := c.Acquire(ctx, caller)
		out <- outcome{r, err}
	}()
	<-waits
	return out
}

func wantBusy(t *testing.T, err error, want BusyError) {
	t.Helper()
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want a BusyError", err)
	}
	if diff := cmp.Diff(want, *be); diff != "" {
		t.Errorf("BusyError (-want +got):\n%s", diff)
	}
}

func TestDefaults(t *testing.T) {
	c, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{MaxConcurrent: 4, MaxPerCaller: 2, MaxQueued: 16, Wait: time.Second}
	if diff := cmp.Diff(want, c.Options()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	for _, bad := range []Options{{MaxConcurrent: -1}, {MaxPerCaller: -1}, {Wait: -1}, {MaxConcurrent: 2, MaxPerCaller: 3}} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%+v) accepted", bad)
		}
	}
}

// TestLimitsWithoutWaiting: with no queue, a caller at its limit and a
// full server are refused at once, and other callers still get slots
// while one caller is at its limit.
func TestLimitsWithoutWaiting(t *testing.T) {
	c, _ := newController(t, Options{MaxConcurrent: 4, MaxPerCaller: 2, MaxQueued: -1, Wait: hour})
	a1, a2 := mustAcquire(t, c, "a"), mustAcquire(t, c, "a")
	_, err := c.Acquire(t.Context(), "a")
	wantBusy(t, err, BusyError{Limit: LimitCaller, Max: 2, RetryAfter: hour})
	b1 := mustAcquire(t, c, "b")
	mustAcquire(t, c, "b")
	_, err = c.Acquire(t.Context(), "c")
	wantBusy(t, err, BusyError{Limit: LimitServer, Max: 4, RetryAfter: hour})
	a1()
	a1() // a second call does nothing
	mustAcquire(t, c, "c")
	b1()
	a2()
	if got, want := c.Stats(), (Stats{Running: 2, Callers: 2}); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
}

// TestReleaseWakesOldestEligible: a freed slot goes to the oldest waiter
// whose caller is below its own limit; a waiter of a caller at its limit
// keeps waiting without blocking the others behind it.
func TestReleaseWakesOldestEligible(t *testing.T) {
	c, waits := newController(t, Options{MaxConcurrent: 2, MaxPerCaller: 1, Wait: hour})
	a1 := mustAcquire(t, c, "a")
	b1 := mustAcquire(t, c, "b")
	a2 := acquireAsync(t, t.Context(), c, waits, "a")
	c1 := acquireAsync(t, t.Context(), c, waits, "c")
	b1()
	got := <-c1
	if got.err != nil {
		t.Fatalf("c: %v", got.err)
	}
	select {
	case o := <-a2:
		t.Fatalf("a got a second slot while at its limit: %v", o.err)
	default:
	}
	if s := c.Stats(); s.Running != 2 || s.Waiting != 1 {
		t.Errorf("stats %+v, want 2 running, 1 waiting", s)
	}
	a1()
	if o := <-a2; o.err != nil {
		t.Fatalf("a after its first slot ended: %v", o.err)
	} else {
		o.release()
	}
	got.release()
	if s := c.Stats(); s != (Stats{}) {
		t.Errorf("stats after all releases %+v", s)
	}
}

func TestQueueBounds(t *testing.T) {
	c, waits := newController(t, Options{MaxConcurrent: 2, MaxPerCaller: 1, MaxQueued: 2, Wait: hour})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	mustAcquire(t, c, "a")
	mustAcquire(t, c, "b")
	// A caller may not have more requests waiting than its own limit.
	acquireAsync(t, ctx, c, waits, "a")
	_, err := c.Acquire(t.Context(), "a")
	wantBusy(t, err, BusyError{Limit: LimitCaller, Max: 1, RetryAfter: hour})
	// The whole queue is bounded too; the next request is refused at once.
	acquireAsync(t, ctx, c, waits, "c")
	_, err = c.Acquire(t.Context(), "d")
	wantBusy(t, err, BusyError{Limit: LimitQueue, Max: 2, RetryAfter: hour})
	if s := c.Stats(); s.Waiting != 2 {
		t.Errorf("waiting %d, want 2", s.Waiting)
	}
}

// TestWaitEnds: a waiter gives up when its context ends or its wait runs
// out, and leaves nothing behind.
func TestWaitEnds(t *testing.T) {
	c, waits := newController(t, Options{MaxConcurrent: 1, MaxPerCaller: 1, Wait: hour})
	release := mustAcquire(t, c, "a")
	ctx, cancel := context.WithCancel(t.Context())
	out := acquireAsync(t, ctx, c, waits, "b")
	cancel()
	if o := <-out; !errors.Is(o.err, context.Canceled) {
		t.Fatalf("canceled waiter: %v", o.err)
	}
	if s := c.Stats(); s != (Stats{Running: 1, Callers: 1}) {
		t.Errorf("stats after a canceled waiter %+v", s)
	}
	release()

	short, _ := newController(t, Options{MaxConcurrent: 1, MaxPerCaller: 1, Wait: time.Nanosecond})
	release = mustAcquire(t, short, "a")
	_, err := short.Acquire(t.Context(), "b")
	wantBusy(t, err, BusyError{Limit: LimitServer, Max: 1, RetryAfter: time.Nanosecond})
	release()
	if s := short.Stats(); s != (Stats{}) {
		t.Errorf("stats %+v", s)
	}
	if _, err := c.Acquire(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("acquire on an ended context: %v", err)
	}
}
