package main

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestPageReleaserReleasesWhenIdle: pages are released once at start and then only at the end
// of windows in which the process was idle, never after a busy one; the first idle window
// after a busy one releases.
func TestPageReleaserReleasesWhenIdle(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// CPU readings, one per call: the first is taken after the start-up release, then one per
	// window. Deltas: +10s (busy), 0 (idle), +10s (busy), 0 (idle); then busy until canceled.
	script := []time.Duration{0, 10 * time.Second, 10 * time.Second, 20 * time.Second, 20 * time.Second}
	var mu sync.Mutex
	calls := 0
	var releasedAt []int // how many CPU readings had been taken at each release
	p := pageReleaser{after: time.Nanosecond, window: time.Millisecond, idleCPU: time.Second, every: 3,
		cpu: func() (time.Duration, bool) {
			mu.Lock()
			defer mu.Unlock()
			calls++
			if calls <= len(script) {
				return script[calls-1], true
			}
			if calls == len(script)+1 {
				cancel()
			}
			return time.Duration(calls) * time.Hour, true
		},
		release: func() (int64, int64, error) {
			mu.Lock()
			defer mu.Unlock()
			releasedAt = append(releasedAt, calls)
			return 1, 1, nil
		}}
	p.run(ctx, slog.New(slog.DiscardHandler))
	if want := []int{0, 3, 5}; !slices.Equal(releasedAt, want) {
		t.Errorf("released after %v CPU readings, want %v", releasedAt, want)
	}
}

// TestPageReleaserEveryIdleWindows: while the process stays idle, pages are released at every
// every-th window, counting from the last release: the start-up one, or the first idle window
// after a busy one.
func TestPageReleaserEveryIdleWindows(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Deltas per window: idle ×4, busy, idle ×4; then canceled.
	script := []time.Duration{0, 0, 0, 0, 0, time.Hour, time.Hour, time.Hour, time.Hour, time.Hour}
	calls := 0
	var releasedAt []int
	p := pageReleaser{after: time.Nanosecond, window: time.Millisecond, idleCPU: time.Second, every: 3,
		cpu: func() (time.Duration, bool) {
			calls++
			if calls == len(script) {
				cancel()
			}
			return script[min(calls, len(script))-1], true
		},
		release: func() (int64, int64, error) {
			releasedAt = append(releasedAt, calls)
			return 1, 1, nil
		}}
	p.run(ctx, slog.New(slog.DiscardHandler))
	// Readings: 1 after the start-up release (0), idle at 2–5 (the 4th is 3 windows after
	// the start), busy at 6, idle at 7–10 (the first at once, then 3 windows later).
	if want := []int{0, 4, 7, 10}; !slices.Equal(releasedAt, want) {
		t.Errorf("released after %v CPU readings, want %v", releasedAt, want)
	}
}

// TestPageReleaserStopsOnError: a release that fails ends the loop instead of retrying.
func TestPageReleaserStopsOnError(t *testing.T) {
	n := 0
	p := pageReleaser{after: time.Nanosecond, window: time.Millisecond, idleCPU: time.Second,
		cpu: func() (time.Duration, bool) { return 0, true },
		release: func() (int64, int64, error) {
			n++
			if n == 2 {
				return 0, 0, errors.New("no /proc")
			}
			return 1, 1, nil
		}}
	p.run(context.Background(), slog.New(slog.DiscardHandler)) // returns by itself
	if n != 2 {
		t.Errorf("%d releases, want 2 (the start-up one, then the failing one)", n)
	}
}

// TestPageReleaserFreesHeap: serve's release also gives the Go heap's free pages back, which
// forces a collection (debug.FreeOSMemory), whether or not the engine has library pages.
func TestPageReleaserFreesHeap(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, _, err := newPageReleaser(nil).release(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if after.NumForcedGC <= before.NumForcedGC {
		t.Errorf("forced collections %d before the release and %d after, want more", before.NumForcedGC, after.NumForcedGC)
	}
}
