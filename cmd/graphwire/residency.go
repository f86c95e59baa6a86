package main

import (
	"context"
	"log/slog"
	"os"
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
// resident set (package internal/residency): once after start-up, then at the end of every
// window in which the process was idle. Start-up leaves 150–200 MB of them resident at scale
// 1, and a burst of queries about 70 MB more, most of which an idle server does not touch;
// they stay in the page cache and fault back in when a query runs them again.
type pageReleaser struct {
	after   time.Duration // first release, once listening: the engine has loaded its tables by then
	window  time.Duration // how often idleness is checked
	idleCPU time.Duration // CPU time of the whole process in a window under which it counts as idle
	cpu     func() (time.Duration, bool)
	release func() (library, program int64, err error)
}

// newPageReleaser releases the pages of eng's library (when eng has one) and of this
// program, 3 s after start and after every 30 s in which the process used less than 5% of
// one core (an idle serve uses about 1%, for the engine's background work).
func newPageReleaser(eng any) pageReleaser {
	return pageReleaser{after: 3 * time.Second, window: 30 * time.Second, idleCPU: 1500 * time.Millisecond,
		cpu: cputime.Process,
		release: func() (lib, prog int64, err error) {
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
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		now, _ := p.cpu()
		idle := now-last < p.idleCPU
		last = now
		if idle && !release() {
			return
		}
	}
}
