package chdb

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/graphwire/graphwire/internal/xdg"
)

// LibraryVersion is the pinned chDB release whose libchdb.so scripts/install-chdb.sh installs
// (npm package @chdb/lib-linux-x64-gnu).
const LibraryVersion = "26.7.3-stable.1"

// CachedLibrary returns where scripts/install-chdb.sh puts libchdb.so under the cache directory
// cacheDir (see [DefaultCacheDir]).
func CachedLibrary(cacheDir string) string {
	return filepath.Join(cacheDir, "chdb", LibraryVersion, "libchdb.so")
}

// DefaultCacheDir is $GRAPHWIRE_CACHE, else graphwire under the XDG cache home
// (${XDG_CACHE_HOME:-$HOME/.cache}), as in scripts/install-chdb.sh.
func DefaultCacheDir() string {
	if d := os.Getenv("GRAPHWIRE_CACHE"); d != "" {
		return d
	}
	return filepath.Join(xdg.Dir("XDG_CACHE_HOME", ".cache"), "graphwire")
}

// DefaultLibrary is $GRAPHWIRE_CHDB_LIB, else where scripts/install-chdb.sh installs
// libchdb.so: the CLI and every test suite look for it here.
func DefaultLibrary() string {
	if p := os.Getenv("GRAPHWIRE_CHDB_LIB"); p != "" {
		return p
	}
	return CachedLibrary(DefaultCacheDir())
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
	// MaxThreads caps the engine threads per statement (max_threads on every query
	// connection). Default max(1, runtime.NumCPU()/PoolSize), so that a full pool uses about
	// one thread per core instead of each statement fanning out over all of them; negative
	// means the engine's default (one per core). A statement's own SETTINGS max_threads wins.
	MaxThreads int
	// MemoryBudget is the memory, in bytes, the engine may use in total. It becomes the
	// engine's server-wide limit (max_server_memory_usage), so that statements fail with
	// MEMORY_LIMIT_EXCEEDED ([executor.ErrResourceExhausted]) before the process is killed.
	// The limit is read when the engine boots, that is by the first Open in a process (or
	// the first after every earlier executor was closed); a later Open logs a warning when
	// the running engine has another limit. Zero leaves the engine's own default (90% of
	// the machine's memory); the edges pass half of the physical memory or cgroup limit.
	MemoryBudget int64
	// QueryMemory caps max_memory_usage of each statement: a statement whose settings allow
	// more (or set no limit) runs with QueryMemory instead. Default MemoryBudget/PoolSize,
	// so that a full pool of statements stays within the budget; zero when MemoryBudget is
	// zero (no cap beyond the statement's own setting). Negative means no cap.
	QueryMemory int64
	// RequireVersion, when set, must prefix the library's chdb_version() (for example "26.7").
	RequireVersion string
	// EngineLog is a file the engine's own log is appended to, at EngineLogLevel. Empty turns
	// the engine's log off. Left to itself, chDB writes its log to the process's stderr
	// whenever that is a terminal, in colour and in the middle of whatever the program prints
	// there; graphwire never lets it. Like MemoryBudget, it is read when the engine boots.
	// The engine also prints on standard error while it boots (that it logs to a file, or why
	// it cannot start, such as a data directory another process has open). Open points file
	// descriptor 2 at a temporary file for that one call and puts what was said into its
	// error when the boot fails, so what another goroutine writes to stderr at that moment is
	// caught too.
	EngineLog string
	// EngineLogLevel is the least severe engine message written to EngineLog: one of
	// EngineLogLevels. Default "warning". Ignored when EngineLog is empty.
	EngineLogLevel string
	// Logger receives diagnostics. Nil discards them.
	Logger *slog.Logger
}

// EngineLogLevels are the values [Options].EngineLogLevel accepts, most severe first.
var EngineLogLevels = []string{"fatal", "critical", "error", "warning", "notice", "information", "debug", "trace"}

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
		o.MaxThreads = max(1, runtime.NumCPU()/o.PoolSize)
	}
	if o.MemoryBudget < 0 {
		o.MemoryBudget = 0
	}
	if o.QueryMemory == 0 {
		o.QueryMemory = o.MemoryBudget / int64(o.PoolSize)
	}
	if o.EngineLogLevel == "" {
		o.EngineLogLevel = "warning"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// logArgs are the connection arguments that route the engine's log: never to the console, and
// to EngineLog when one is set, written synchronously (with the engine's asynchronous logger a
// message could still be queued when the statement that caused it has returned). Every connection gets them, so whichever one boots the engine
// configures its logger the same way.
func (o Options) logArgs() ([]string, error) {
	if o.EngineLog == "" {
		return []string{"--logger.console=0", "--log-level=none"}, nil
	}
	if !slices.Contains(EngineLogLevels, o.EngineLogLevel) {
		return nil, fmt.Errorf("engine log level %q is not one of %v", o.EngineLogLevel, EngineLogLevels)
	}
	return []string{"--logger.console=0", "--logger.async=0", "--logger.log=" + o.EngineLog, "--log-level=" + o.EngineLogLevel}, nil
}
