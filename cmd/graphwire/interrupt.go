package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// interruptGrace is how long a command may take to stop once SIGINT or SIGTERM has cancelled
// its context: engine statements end well within it when cancelled. A call that outlasts it
// is blocked where cancellation does not reach (the embedded engine opening a file that never
// answers, a server handshake that waits for its own timeout), and is abandoned.
const interruptGrace = 5 * time.Second

// untilInterrupted runs f in a goroutine and returns its error. Once ctx has ended (SIGINT or
// SIGTERM), whatever f returns is an interruption (exit code 130), and when f has not returned
// grace later it is abandoned: untilInterrupted returns while f still runs, holding the
// engine, and the process exits right after. Ending it there is what SIGKILL would do, which
// a load survives (the next load finishes or drops what this one left).
func untilInterrupted(ctx context.Context, grace time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return interrupted(ctx, err)
	case <-ctx.Done():
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case err := <-done:
		return interrupted(ctx, err)
	case <-t.C:
		return &classError{code: exitInterrupted, err: context.Canceled,
			msg: fmt.Sprintf("interrupted (%v), and the engine did not stop within %s: the process ends without it (the next load cleans up)", context.Cause(ctx), grace)}
	}
}

// interrupted classes err as an interruption when ctx has ended: an engine cut short by
// cancellation reports a timeout or a broken connection as often as a cancellation.
func interrupted(ctx context.Context, err error) error {
	if err == nil || ctx.Err() == nil || errors.Is(err, context.Canceled) {
		return err
	}
	return &classError{code: exitInterrupted, err: err, msg: fmt.Sprintf("interrupted (%v): %v", context.Cause(ctx), err)}
}
