package redact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Authority asks a redaction authority which nodes a caller may read. It
// is safe for concurrent use.
type Authority struct {
	opts  Options
	url   string
	cache *cache
	log   *slog.Logger
}

// New returns the authority client opts describe.
func New(opts Options) (*Authority, error) {
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("redact: authority URL %q is not an http(s) URL", opts.URL)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = DefaultBatchSize
	}
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	if opts.CacheTTL == 0 {
		opts.CacheTTL = DefaultCacheTTL
	}
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = DefaultCacheEntries
	}
	if opts.CacheCallers <= 0 {
		opts.CacheCallers = DefaultCacheCallers
	}
	if opts.MaxResponseBytes <= 0 {
		opts.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if opts.Client == nil {
		opts.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	a := &Authority{opts: opts, url: u.String(), log: log}
	if opts.CacheTTL > 0 {
		a.cache = newCache(opts.CacheCallers, opts.CacheEntries, opts.CacheTTL, opts.Now)
	}
	return a, nil
}

// Check returns the subset of ids of entity type typ that c may read.
// Decisions still fresh in c's cache are reused; the rest are asked in
// batches of Options.BatchSize. Any failed batch fails the whole check with
// an [*Error].
func (a *Authority) Check(ctx context.Context, c Caller, typ string, ids []int64) (map[int64]bool, error) {
	allowed := make(map[int64]bool, len(ids))
	var ask []int64
	seen := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		if ok, hit := a.cache.get(c.key, typ, id); hit {
			if ok {
				allowed[id] = true
			}
			continue
		}
		ask = append(ask, id)
	}
	a.opts.Metrics.RedactionCache(len(seen)-len(ask), len(ask))
	if len(ask) == 0 {
		return allowed, nil
	}
	var batches [][]int64
	for b := range slices.Chunk(ask, a.opts.BatchSize) {
		batches = append(batches, b)
	}
	results := make([]map[int64]bool, len(batches))
	errs := make([]error, len(batches))
	sem := make(chan struct{}, a.opts.Parallel)
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i], errs[i] = a.call(ctx, c, typ, b)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err // the first failed batch, in batch order
		}
	}
	denied := 0
	for i, b := range batches {
		for _, id := range b {
			ok := results[i][id]
			if ok {
				allowed[id] = true
			} else {
				denied++
			}
			a.cache.put(c.key, typ, id, ok)
		}
	}
	a.opts.Metrics.RedactionDenied(typ, denied)
	return allowed, nil
}

// call asks the authority about one batch.
func (a *Authority) call(ctx context.Context, c Caller, typ string, ids []int64) (map[int64]bool, error) {
	start := time.Now()
	out, reason, err := a.exchange(ctx, c, typ, ids)
	a.opts.Metrics.RedactionCall(reason, len(ids), time.Since(start))
	if err != nil {
		a.log.WarnContext(ctx, "redaction_failed", "entity", typ, "reason", reason, "ids", len(ids))
		return nil, &Error{Type: typ, Reason: reason, Err: err}
	}
	return out, nil
}

func (a *Authority) exchange(ctx context.Context, c Caller, typ string, ids []int64) (map[int64]bool, string, error) {
	req := Request{Version: ProtocolVersion, Caller: c, Type: typ, IDs: make([]string, len(ids))}
	if req.Caller.Scopes == nil {
		req.Caller.Scopes = []Scope{}
	}
	asked := make(map[string]int64, len(ids))
	for i, id := range ids {
		s := strconv.FormatInt(id, 10)
		req.IDs[i], asked[s] = s, id
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, ReasonMalformed, fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, a.opts.Timeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, bytes.NewReader(body))
	if err != nil {
		return nil, ReasonUnavailable, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := a.opts.Client.Do(hr)
	if err != nil {
		return nil, timeoutOr(err, ReasonUnavailable), fmt.Errorf("post: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, ReasonUnavailable, fmt.Errorf("status %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, a.opts.MaxResponseBytes+1))
	if err != nil {
		return nil, timeoutOr(err, ReasonUnavailable), fmt.Errorf("read answer: %w", err)
	}
	if int64(len(data)) > a.opts.MaxResponseBytes {
		return nil, ReasonMalformed, fmt.Errorf("answer over %d bytes", a.opts.MaxResponseBytes)
	}
	var ans Response
	d := json.NewDecoder(bytes.NewReader(data))
	if err := d.Decode(&ans); err != nil {
		return nil, ReasonMalformed, fmt.Errorf("decode answer: %w", err)
	}
	if d.More() {
		return nil, ReasonMalformed, errors.New("data after the answer")
	}
	if ans.Type != typ {
		return nil, ReasonMalformed, fmt.Errorf("answer for type %q", ans.Type)
	}
	if ans.Allowed == nil {
		return nil, ReasonMalformed, errors.New("answer has no allowed list")
	}
	out := make(map[int64]bool, len(*ans.Allowed))
	for i, s := range *ans.Allowed {
		id, ok := asked[s]
		if !ok {
			// An id not asked about: the authority answers another question
			// (or a stale one); nothing it says can be trusted.
			return nil, ReasonMalformed, fmt.Errorf("allowed[%d] was not asked about", i)
		}
		out[id] = true
	}
	return out, "", nil
}

// timeoutOr is ReasonTimeout for a deadline, else reason.
func timeoutOr(err error, reason string) string {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) {
		return ReasonTimeout
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return ReasonTimeout
	}
	return reason
}
