package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// KeySource gives a [Verifier] the public keys of its asymmetric tokens.
type KeySource interface {
	// KeySet returns the current keys; nil holds none.
	KeySet() *KeySet
	// Missing is called when a token names a kid that the current keys do
	// not hold. It may fetch the keys again (at most as often as the
	// source allows) and returns the keys to retry with.
	Missing(kid string) *KeySet
}

// StaticKeys is a [KeySource] of keys set by its owner (a JWKS file read at
// start and on SIGHUP). Its zero value holds no key.
type StaticKeys struct {
	ks atomic.Pointer[KeySet]
}

// Set replaces the keys; tokens being verified see the old set or the new.
func (s *StaticKeys) Set(ks *KeySet) { s.ks.Store(ks) }

// KeySet returns the current keys.
func (s *StaticKeys) KeySet() *KeySet { return s.ks.Load() }

// Missing returns the current keys: a file changes only when it is set.
func (s *StaticKeys) Missing(string) *KeySet { return s.ks.Load() }

// FetchOptions configures a [Fetcher].
type FetchOptions struct {
	// URL of the JWKS document (an IdP's jwks_uri); required.
	URL string
	// Client makes the requests; nil means a plain http.Client (the
	// environment's proxy settings, redirects followed).
	Client *http.Client
	// Interval between scheduled fetches; 0 means 10 min.
	Interval time.Duration
	// MinInterval is the least time between two fetches asked for by an
	// unknown kid (the rate limit); 0 means 30 s.
	MinInterval time.Duration
	// Timeout bounds one fetch, body included; 0 means 10 s.
	Timeout time.Duration
	// MaxBytes bounds the document; 0 means [MaxJWKSBytes].
	MaxBytes int64
	// Logger receives jwks_fetched and jwks_fetch_failed lines; nil logs nothing.
	Logger *slog.Logger
	// Now is the clock of the rate limit; nil means time.Now.
	Now func() time.Time
}

// Fetcher is a [KeySource] that reads a JWKS from a URL: at [Fetcher.Run]'s
// start, every Interval, and when a token names an unknown kid (at most
// once per MinInterval). It fails closed: until a fetch succeeds it holds no
// key, so every asymmetric token is refused. A failed fetch (an error, a
// status other than 200, a body over MaxBytes or slower than Timeout, a
// document that does not parse) is logged and keeps the last keys that
// did; a successful one replaces them whole, so a key removed at the URL is
// refused from the next fetch on.
type Fetcher struct {
	opts FetchOptions
	ks   atomic.Pointer[KeySet]

	mu        sync.Mutex // serializes fetches
	lastFetch time.Time  // under mu: start of the last fetch, for the rate limit
}

// NewFetcher validates opts. It fetches nothing: [Fetcher.Run] does.
func NewFetcher(opts FetchOptions) (*Fetcher, error) {
	if opts.URL == "" {
		return nil, errors.New("auth: JWKS URL is empty")
	}
	if opts.Interval == 0 {
		opts.Interval = 10 * time.Minute
	}
	if opts.MinInterval == 0 {
		opts.MinInterval = 30 * time.Second
	}
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = MaxJWKSBytes
	}
	if opts.Interval < 0 || opts.MinInterval < 0 || opts.Timeout < 0 || opts.MaxBytes < 0 {
		return nil, errors.New("auth: negative JWKS fetch option")
	}
	if opts.Client == nil {
		opts.Client = &http.Client{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Fetcher{opts: opts}, nil
}

// KeySet returns the keys of the last successful fetch, nil before one.
func (f *Fetcher) KeySet() *KeySet { return f.ks.Load() }

// Missing fetches again unless the last fetch started less than
// MinInterval ago, and returns the keys then held.
func (f *Fetcher) Missing(kid string) *KeySet {
	f.mu.Lock()
	defer f.mu.Unlock()
	if cur := f.ks.Load(); cur.hasKID(kid) {
		return cur // another caller's fetch brought it meanwhile
	}
	if !f.lastFetch.IsZero() && f.opts.Now().Sub(f.lastFetch) < f.opts.MinInterval {
		return f.ks.Load()
	}
	f.fetchLocked(context.Background(), "unknown_kid")
	return f.ks.Load()
}

// Refresh fetches now, whatever the rate limit, and returns the fetch's error (its log line
// has reason "refresh"; serve calls it on SIGHUP).
func (f *Fetcher) Refresh(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fetchLocked(ctx, "refresh")
}

// Run fetches at once and then every Interval until ctx ends.
func (f *Fetcher) Run(ctx context.Context) {
	t := time.NewTicker(f.opts.Interval)
	defer t.Stop()
	for {
		f.mu.Lock()
		f.fetchLocked(ctx, "scheduled")
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// fetchLocked fetches the document and, when it parses, installs its keys.
// The caller holds f.mu.
func (f *Fetcher) fetchLocked(ctx context.Context, why string) error {
	f.lastFetch = f.opts.Now()
	ks, err := f.get(ctx)
	if err != nil {
		f.opts.Logger.Error("jwks_fetch_failed", "url", f.opts.URL, "reason", why, "err", err.Error(),
			"keys_kept", f.ks.Load().Len())
		return err
	}
	f.ks.Store(ks)
	f.opts.Logger.Info("jwks_fetched", "url", f.opts.URL, "reason", why, "keys", ks.Len(), "kids", ks.KeyIDs())
	for _, s := range ks.skipped {
		f.opts.Logger.Warn("jwks_key_skipped", "url", f.opts.URL, "key", s)
	}
	return nil
}

func (f *Fetcher) get(ctx context.Context) (*KeySet, error) {
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.opts.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("auth: JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := f.opts.Client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("auth: fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("auth: fetch JWKS: HTTP status %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, f.opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("auth: read JWKS: %w", err)
	}
	if int64(len(data)) > f.opts.MaxBytes {
		return nil, fmt.Errorf("%w: answer over %d bytes", ErrJWKS, f.opts.MaxBytes)
	}
	return ParseKeySet(data)
}
