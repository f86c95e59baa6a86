package redact

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/graphwire/graphwire/telemetry"
)

// Defaults of [Options].
const (
	DefaultTimeout          = 2 * time.Second
	DefaultBatchSize        = 500
	DefaultCacheTTL         = 30 * time.Second
	DefaultCacheEntries     = 10000
	DefaultCacheCallers     = 1024
	DefaultMaxResponseBytes = 4 << 20
	DefaultParallel         = 4
)

// Options configures an [Authority]. URL is required; every other zero
// field means its default.
type Options struct {
	// URL is the authority's endpoint (http or https), to which each batch
	// is POSTed.
	URL string
	// Timeout bounds one call, body included; 0 means [DefaultTimeout].
	// A call past it fails the request (fail-closed).
	Timeout time.Duration
	// BatchSize is the most ids of one type in one call; 0 means
	// [DefaultBatchSize].
	BatchSize int
	// Parallel is the most calls of one request in flight at once; 0 means
	// [DefaultParallel].
	Parallel int
	// CacheTTL is how long a decision is reused for the same caller; 0
	// means [DefaultCacheTTL], negative disables the per-caller cache.
	CacheTTL time.Duration
	// CacheEntries bounds the decisions kept per caller and CacheCallers
	// the callers kept (least recently used go first); 0 means
	// [DefaultCacheEntries] and [DefaultCacheCallers].
	CacheEntries, CacheCallers int
	// MaxResponseBytes bounds an answer's body; a longer one is malformed.
	// 0 means [DefaultMaxResponseBytes].
	MaxResponseBytes int64
	// Client sends the calls; nil means a client with no redirects.
	Client *http.Client
	// Now is the cache's clock; nil means time.Now.
	Now func() time.Time
	// Metrics records calls, denials, failures, cache use and latency; nil
	// records nothing.
	Metrics *telemetry.Metrics
	// Logger receives one line per failed call; nil discards.
	Logger *slog.Logger
}
