package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/graphwire/graphwire/internal/cputime"
	"github.com/graphwire/graphwire/internal/residency"
)

// libraryPages is an engine whose shared library can give back the pages its start-up touched
// (the embedded engine, chdb.Executor).
type libraryPages interface {
	ReleaseLibraryPages() (int64, error)
}

// pageReleaser takes the pages of the program binary and of the engine's library out of the
// resident set (package internal/residency), and gives the Go heap's free pages back to the
// system: once after start-up, then at the end of the first window in which the process was
// idle after a busy one, and of every every-th window while it stays idle. Start-up leaves
// 150–200 MB of library pages resident at scale 1, and a burst of queries about 70 MB more,
// most of which an idle server does not touch; they stay in the page cache and fault back in
// when a query runs them again.
type pageReleaser struct {
	after   time.Duration // first release, once listening: the engine has loaded its tables by then
	window  time.Duration // how often idleness is checked
	idleCPU time.Duration // CPU time of the whole process in a window under which it counts as idle
	every   int           // while idle, release at every every-th window (the engine's background work touches a few pages); at most 1 means each
	cpu     func() (time.Duration, bool)
	release func() (library, program int64, err error)
}

// newPageReleaser releases the pages of eng's library (when eng has one) and of this
// program, and the free pages of the Go heap, 3 s after start, at the end of the first 10 s
// in which the process used less than 5% of one core after a busier 10 s, and every 30 s while
// it stays that idle (an idle serve uses about 3%, for the engine's background work). The
// heap's free pages would go back by themselves only over minutes: after a burst of queries
// and a load, giving them back at once took 7.5 MB off serve's resident memory at scale 1.
func newPageReleaser(eng any) pageReleaser {
	return pageReleaser{after: 3 * time.Second, window: 10 * time.Second, idleCPU: 500 * time.Millisecond, every: 3,
		cpu: cputime.Process,
		release: func() (lib, prog int64, err error) {
			debug.FreeOSMemory()
			if lp, ok := eng.(libraryPages); ok {
				if lib, err = lp.ReleaseLibraryPages(); err != nil {
					return lib, 0, err
				}
			}
			exe, err := os.Executable()
			if err != nil {
				return lib, 0, nil // nothing to release for the program
			}
			prog, err = residency.Release(exe)
			return lib, prog, err
		}}
}

// run releases as the pageReleaser says until ctx ends. A failed release is logged and ends
// the releases: what fails once (no /proc) fails again.
func (p pageReleaser) run(ctx context.Context, logger *slog.Logger) {
	release := func() bool {
		lib, prog, err := p.release()
		if err != nil {
			logger.Warn("release_pages", "err", oneLine(err))
			return false
		}
		logger.Debug("released_pages", "library_bytes", lib, "program_bytes", prog)
		return true
	}
	t := time.NewTimer(p.after)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	if !release() {
		return
	}
	last, ok := p.cpu()
	if !ok {
		return
	}
	tick := time.NewTicker(p.window)
	defer tick.Stop()
	idleRun := 1 // idle windows in a row, counting the start-up release as the first
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, _ := p.cpu()
		idle := now-last < p.idleCPU
		last = now
		if !idle {
			idleRun = 0
			continue
		}
		idleRun++
		if (idleRun-1)%max(p.every, 1) == 0 && !release() {
			return
		}
	}
}
