package admission

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults of [Options]. DefaultMaxConcurrent equals the embedded engine's
// default pool of 4 connections: with no more slots than connections, a
// request never waits inside the engine's pool, so admission is the only
// queue, and it is fair (oldest first, per-caller bounds). With the default
// per-caller bound of half the slots, one caller can never hold every
// connection. Set it to the engine's connection count when that differs.
const (
	DefaultMaxConcurrent = 4
	DefaultWait          = time.Second
)

// Options configures a [Controller]. The zero value means the defaults.
type Options struct {
	// MaxConcurrent bounds the requests holding a slot at once, over all
	// callers; 0 means [DefaultMaxConcurrent].
	MaxConcurrent int
	// MaxPerCaller bounds the slots one caller holds at once, and also the
	// requests one caller may have waiting; 0 means half of MaxConcurrent
	// (at least 1).
	MaxPerCaller int
	// MaxQueued bounds the requests waiting for a slot, over all callers;
	// a request that finds the queue full is refused at once. 0 means
	// 4 × MaxConcurrent; negative means no waiting at all.
	MaxQueued int
	// Wait is how long a request waits for a slot before it is refused;
	// 0 means [DefaultWait].
	Wait time.Duration
}

// ErrBusy is wrapped by every refusal; see [BusyError].
var ErrBusy = errors.New("admission: server busy")

// Limit names the bound that refused a request.
type Limit string

// The bounds a [BusyError] can name.
const (
	LimitCaller Limit = "caller" // the caller already holds MaxPerCaller slots
	LimitServer Limit = "server" // all MaxConcurrent slots are held
	LimitQueue  Limit = "queue"  // MaxQueued requests, or MaxPerCaller of this caller, already wait
)

// BusyError is the error [Controller.Acquire] returns when it refuses a
// request. It wraps [ErrBusy].
type BusyError struct {
	Limit Limit
	// Max is the value of the bound that refused the request.
	Max int
	// RetryAfter is how long the caller should wait before trying again.
	RetryAfter time.Duration
}

func (e *BusyError) Error() string {
	switch e.Limit {
	case LimitCaller:
		return fmt.Sprintf("admission: this caller already runs %d queries, the most allowed at once", e.Max)
	case LimitQueue:
		return fmt.Sprintf("admission: too many queries wait for a slot (at most %d)", e.Max)
	}
	return fmt.Sprintf("admission: all %d query slots are in use", e.Max)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// Controller hands out query slots. It is safe for concurrent use.
type Controller struct {
	opts Options

	mu      sync.Mutex
	running int
	callers map[string]*callerState
	waiting *list.List // of *waiter, oldest first

	onWait func() // tests: called, with mu held, when a request starts to wait
}

type callerState struct{ running, waiting int }

type waiter struct {
	caller  string
	ready   chan struct{} // closed when the slot is granted
	granted bool
	elem    *list.Element
}

// New returns a controller for opts.
func New(opts Options) (*Controller, error) {
	if opts.MaxConcurrent < 0 || opts.MaxPerCaller < 0 || opts.Wait < 0 {
		return nil, errors.New("admission: limits and wait must not be negative")
	}
	if opts.MaxConcurrent == 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.MaxPerCaller == 0 {
		opts.MaxPerCaller = max(1, opts.MaxConcurrent/2)
	}
	if opts.MaxPerCaller > opts.MaxConcurrent {
		return nil, fmt.Errorf("admission: MaxPerCaller %d is above MaxConcurrent %d", opts.MaxPerCaller, opts.MaxConcurrent)
	}
	switch {
	case opts.MaxQueued == 0:
		opts.MaxQueued = 4 * opts.MaxConcurrent
	case opts.MaxQueued < 0:
		opts.MaxQueued = 0
	}
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	return &Controller{opts: opts, callers: map[string]*callerState{}, waiting: list.New()}, nil
}

// Options returns the options in effect, defaults filled in.
func (c *Controller) Options() Options { return c.opts }

// Acquire takes a slot for caller, waiting up to Options.Wait for one. It
// returns a release function, to be called once the request's engine work
// has ended (calling it again does nothing), or a [*BusyError], or the
// context's error when ctx ends first. Waiting requests are served oldest
// first, skipping those whose caller is at its own limit.
func (c *Controller) Acquire(ctx context.Context, caller string) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	st := c.callers[caller]
	if st == nil {
		st = &callerState{}
		c.callers[caller] = st
	}
	if c.running < c.opts.MaxConcurrent && st.running < c.opts.MaxPerCaller {
		c.grant(caller, st)
		c.mu.Unlock()
		return c.releaser(caller), nil
	}
	if c.waiting.Len() >= c.opts.MaxQueued || st.waiting >= c.opts.MaxPerCaller {
		busy := c.busy(st)
		if busy.Limit == LimitServer && c.opts.MaxQueued > 0 {
			busy.Limit, busy.Max = LimitQueue, c.opts.MaxQueued
			if st.waiting >= c.opts.MaxPerCaller {
				busy.Max = c.opts.MaxPerCaller
			}
		}
		c.forget(caller, st)
		c.mu.Unlock()
		return nil, busy
	}
	w := &waiter{caller: caller, ready: make(chan struct{})}
	w.elem = c.waiting.PushBack(w)
	st.waiting++
	if c.onWait != nil {
		c.onWait()
	}
	c.mu.Unlock()

	timer := time.NewTimer(c.opts.Wait)
	defer timer.Stop()
	select {
	case <-w.ready:
		return c.releaser(caller), nil
	case <-timer.C:
		err = nil
	case <-ctx.Done():
		err = ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if w.granted { // granted while the timer or ctx fired
		if err != nil {
			c.releaseLocked(caller)
			return nil, err
		}
		return c.releaser(caller), nil
	}
	c.waiting.Remove(w.elem)
	st.waiting--
	if err != nil {
		c.forget(caller, st)
		return nil, err
	}
	busy := c.busy(st)
	c.forget(caller, st)
	return nil, busy
}

// busy describes why a caller in state st gets no slot now: its own limit
// or the server's. Called with mu held.
func (c *Controller) busy(st *callerState) *BusyError {
	if st.running >= c.opts.MaxPerCaller {
		return &BusyError{Limit: LimitCaller, Max: c.opts.MaxPerCaller, RetryAfter: c.opts.Wait}
	}
	return &BusyError{Limit: LimitServer, Max: c.opts.MaxConcurrent, RetryAfter: c.opts.Wait}
}

// grant gives a slot to caller. Called with mu held.
func (c *Controller) grant(caller string, st *callerState) {
	c.running++
	st.running++
}

// forget drops the state of a caller that holds and awaits nothing.
// Called with mu held.
func (c *Controller) forget(caller string, st *callerState) {
	if st.running == 0 && st.waiting == 0 {
		delete(c.callers, caller)
	}
}

func (c *Controller) releaser(caller string) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.releaseLocked(caller)
		})
	}
}

// releaseLocked frees a slot of caller and hands free slots to the oldest
// waiters that may take one. Called with mu held.
func (c *Controller) releaseLocked(caller string) {
	st := c.callers[caller]
	c.running--
	st.running--
	c.forget(caller, st)
	for e := c.waiting.Front(); e != nil && c.running < c.opts.MaxConcurrent; {
		next := e.Next()
		w := e.Value.(*waiter)
		ws := c.callers[w.caller]
		if ws.running < c.opts.MaxPerCaller {
			c.waiting.Remove(e)
			ws.waiting--
			c.grant(w.caller, ws)
			w.granted = true
			close(w.ready)
		}
		e = next
	}
}

// Stats is a snapshot of a controller's state.
type Stats struct {
	Running int // slots held
	Waiting int // requests waiting for a slot
	Callers int // callers holding or awaiting a slot
}

// Stats returns the current counts.
func (c *Controller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Running: c.running, Waiting: c.waiting.Len(), Callers: len(c.callers)}
}
