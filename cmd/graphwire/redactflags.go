package main

import (
	"errors"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/graphwire/graphwire/redact"
)

// redactFlags are the redaction flags of the commands that answer queries
// locally (mcp, query); serve takes the same settings through serveconfig.
type redactFlags struct {
	url       string
	timeout   time.Duration
	batchSize int
	cacheTTL  time.Duration
}

func (f *redactFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "redact-url", "", "redaction authority (docs/redaction.md; default $GRAPHWIRE_REDACT_URL): rows showing a node it denies are withheld, and a request fails when it cannot decide")
	fs.DurationVar(&f.timeout, "redact-timeout", redact.DefaultTimeout, "deadline of one call to --redact-url")
	fs.IntVar(&f.batchSize, "redact-batch-size", redact.DefaultBatchSize, "most ids of one entity type in one call to --redact-url")
	fs.DurationVar(&f.cacheTTL, "redact-cache-ttl", redact.DefaultCacheTTL, "how long a redaction decision is reused (negative: not cached)")
}

// options returns the redact.Options the flags describe (an empty URL: no
// redaction), reading $GRAPHWIRE_REDACT_URL when --redact-url is not given.
func (f *redactFlags) options() (redact.Options, error) {
	u := f.url
	if u == "" {
		u = os.Getenv("GRAPHWIRE_REDACT_URL")
	}
	if f.timeout <= 0 || f.batchSize <= 0 {
		return redact.Options{}, errors.New("--redact-timeout and --redact-batch-size must be positive")
	}
	return redact.Options{URL: u, Timeout: f.timeout, BatchSize: f.batchSize, CacheTTL: f.cacheTTL}, nil
}
