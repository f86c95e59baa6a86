package chdb

import (
	"log/slog"
	"path/filepath"
)

// LibraryVersion is the pinned chDB release whose libchdb.so scripts/install-chdb.sh installs
// (npm package @chdb/lib-linux-x64-gnu).
const LibraryVersion = "26.7.3-stable.1"

// CachedLibrary returns where scripts/install-chdb.sh puts libchdb.so under the cache directory
// cacheDir (${GRAPHWIRE_CACHE:-$HOME/.cache/graphwire}).
func CachedLibrary(cacheDir string) string {
	return filepath.Join(cacheDir, "chdb", LibraryVersion, "libchdb.so")
}

// Options configures [Open]. The zero value is not usable: Library must be set.
type Options struct {
	// Library is the path of libchdb.so. Required.
	Library string
	// Path is the engine's data directory. Empty means ":memory:" (nothing persists).
	// One process can have one path open at a time.
	Path string
	// Database is created if missing and used by every connection. Default "graphwire".
	Database string
	// PoolSize is the number of query connections, and so the number of statements that run
	// at once. Default 4.
	PoolSize int
	// MaxThreads caps the engine threads per statement. Default 4; negative means the
	// engine's default.
	MaxThreads int
	// RequireVersion, when set, must prefix the library's chdb_version() (for example "26.7").
	RequireVersion string
	// Logger receives diagnostics. Nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Path == "" {
		o.Path = ":memory:"
	}
	if o.Database == "" {
		o.Database = "graphwire"
	}
	if o.PoolSize <= 0 {
		o.PoolSize = 4
	}
	if o.MaxThreads == 0 {
		o.MaxThreads = 4
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
