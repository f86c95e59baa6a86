package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/graphwire/graphwire/internal/residency"
)

// releaseAfter is how long serve waits, once listening, before releasing its start-up pages:
// long enough for the engine to have loaded its tables in the background.
const releaseAfter = 3 * time.Second

// libraryPages is an engine whose shared library can give back the pages its start-up touched
// (the embedded engine, chdb.Executor).
type libraryPages interface {
	ReleaseLibraryPages() (int64, error)
}

// releaseStartupPages waits releaseAfter (or until ctx ends), then takes the pages of the
// program binary and of the engine's library that start-up touched out of the resident set
// (package internal/residency): 150–200 MB at scale 1, most of which serving never touches
// again, and which fault back in from the page cache when it does.
func releaseStartupPages(ctx context.Context, eng any, logger *slog.Logger) {
	t := time.NewTimer(releaseAfter)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return
	case <-t.C:
	}
	var lib, prog int64
	if lp, ok := eng.(libraryPages); ok {
		n, err := lp.ReleaseLibraryPages()
		if err != nil {
			logger.Warn("release_startup_pages", "err", oneLine(err))
			return
		}
		lib = n
	}
	if exe, err := os.Executable(); err == nil {
		n, err := residency.Release(exe)
		if err != nil {
			logger.Warn("release_startup_pages", "err", oneLine(err))
			return
		}
		prog = n
	}
	logger.Debug("released_startup_pages", "library_bytes", lib, "program_bytes", prog)
}
