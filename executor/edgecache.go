package executor

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// EdgeSetBuilder builds the statement of an edge set ([compiler.Compiler.EdgeSet]);
// *compiler.Compiler implements it.
type EdgeSetBuilder interface {
	EdgeSet(caller *compiler.Caller, pair compiler.EdgePair, limit int) (*compiler.Query, error)
}

// CachedPathStepper builds the statements of the cached path_finding form
// ([compiler.Compiler.PathCachedStep]); *compiler.Compiler implements it.
type CachedPathStepper interface {
	PathCachedStep(q *compiler.Query, near, far []graphresponse.NodeRef, props, anchors bool) (*compiler.Query, error)
}

// EdgeCacheOptions configures an [EdgeCache].
type EdgeCacheOptions struct {
	// MaxBytes bounds the memory the cached edges take, in all. It must be positive.
	MaxBytes int64
	// CallerBytes bounds what one caller's edges take (0: half of MaxBytes), so that one
	// caller evicts the others' entries only while the cache is full, and never more than
	// this share. An edge set larger than it is not kept: its queries run without the cache.
	CallerBytes int64
	// Generation reports the data generation of the engine: it changes at the start and at
	// the end of every write, and is odd while a write runs (ingest.Writer.Generation). The
	// cache must be the only thing in the process that reads a graph only this process
	// writes: on an engine other processes write, it must not be used.
	Generation func() uint64
}

// EdgeCache holds, per caller, data generation and relationship type, the edges the caller
// may read whose both ends are live nodes the caller may read ([compiler.Compiler.EdgeSet]),
// for path_finding's cached form (docs/compiler.md, "Path finding on cached edges"). Entries
// built under a generation are kept only if no write started or ended while they were read,
// and are used only at that generation. Least recently used entries go first. It is safe
// for concurrent use.
type EdgeCache struct {
	opts EdgeCacheOptions

	mu       sync.Mutex
	gen      uint64                     // the generation of the entries held
	lru      *list.List                 // of *edgeEntry, most recently used first
	entries  map[cacheKey]*list.Element // of lru
	bytes    int64
	byCaller map[[32]byte]int64
	building map[cacheKey]*edgeBuild
	// seen is the bytes of each (caller, pair) set's entry when it was last read, and the
	// generation then: a question whose sets passed its budget is sent to its plan without
	// reading them again after each of the next writes (sets). At most maxSeen entries.
	seen   map[seenKey]seenSize
	stats  EdgeCacheStats
	onWait func() // tests: a request is about to wait for another's build
}

// EdgeCacheStats counts what an [EdgeCache] did.
type EdgeCacheStats struct {
	Hits, Builds, Stored, TooBig, Stale, Evicted int64
	// OverBudget counts the questions sent to their plan without reading their sets, as
	// these were over the question's budget when last read.
	OverBudget int64
	Entries    int
	Bytes      int64
	// Reading is the wall time spent reading edge sets, in all.
	Reading time.Duration
}

type cacheKey struct {
	caller [32]byte
	gen    uint64
	pair   compiler.EdgePair
}

type seenKey struct {
	caller [32]byte
	pair   compiler.EdgePair
}

type seenSize struct {
	bytes int64
	gen   uint64
}

// maxSeen bounds the sizes an [EdgeCache] remembers across generations (about 150 bytes
// each); when full it forgets them all.
const maxSeen = 1 << 14

// seenGenerations is how far back a size counts (sets): 8 writes, each of which moves the
// generation by 2. Then the sets are read again, in case they shrank.
const seenGenerations = 16

type edgeEntry struct {
	key   cacheKey
	edges *compiler.EdgeSet // nil for a mark of a set too large to keep
	size  int64
	big   bool // the set is larger than a caller's share: not kept, only remembered
}

type edgeBuild struct {
	done  chan struct{}
	edges *compiler.EdgeSet
	ok    bool
	err   error
}

// NewEdgeCache returns an empty cache.
func NewEdgeCache(opts EdgeCacheOptions) (*EdgeCache, error) {
	if opts.MaxBytes <= 0 || opts.Generation == nil {
		return nil, fmt.Errorf("edge cache: needs a positive size and a generation")
	}
	if opts.CallerBytes <= 0 || opts.CallerBytes > opts.MaxBytes {
		opts.CallerBytes = opts.MaxBytes / 2
	}
	return &EdgeCache{opts: opts, lru: list.New(), entries: map[cacheKey]*list.Element{},
		byCaller: map[[32]byte]int64{}, building: map[cacheKey]*edgeBuild{}, seen: map[seenKey]seenSize{}}, nil
}

// Stats reports the cache's counters.
func (c *EdgeCache) Stats() EdgeCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.stats
	s.Entries, s.Bytes = c.lru.Len(), c.bytes
	return s
}

// edgeBytes is what one cached edge takes beyond the paths it shares with the others
// ([compiler.EdgeBytes]: two ids, a path index, a position in the index by target).
const edgeBytes = compiler.EdgeBytes

// callerKey is the caller's whole authorization: admin, subject and every scope's path and
// level, sorted. Two callers that differ in any of them never share an entry.
func callerKey(c *compiler.Caller) [32]byte {
	h := sha256.New()
	var b []byte
	b = strconv.AppendBool(b, c.Admin)
	b = binary.AppendUvarint(b, uint64(len(c.Subject)))
	b = append(b, c.Subject...)
	scopes := slices.Clone(c.Scopes)
	slices.SortFunc(scopes, func(x, y compiler.Scope) int {
		if x.Path != y.Path {
			if x.Path < y.Path {
				return -1
			}
			return 1
		}
		return x.Level - y.Level
	})
	scopes = slices.Compact(scopes)
	for _, s := range scopes {
		b = binary.AppendUvarint(b, uint64(len(s.Path)))
		b = append(b, s.Path...)
		b = binary.AppendVarint(b, int64(s.Level))
	}
	h.Write(b)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Edges returns the edge set of relType for caller at the current generation, reading it on
// r with a statement b builds when the cache does not hold it (one read for concurrent
// requests of the same set; the one that reads lists it in ex, labelled [LabelEdges]). ok is
// false when the set cannot be used: a write runs, the set is larger than a caller's share,
// or a limit of the engine (ErrResourceExhausted) stopped its read. The set is shared and
// never modified.
func (c *EdgeCache) Edges(ctx context.Context, r Runner, b EdgeSetBuilder, caller *compiler.Caller, pair compiler.EdgePair, ex *Executed) (edges *compiler.EdgeSet, ok bool, err error) {
	gen := c.opts.Generation()
	if gen%2 == 1 {
		return nil, false, nil
	}
	key := cacheKey{caller: callerKey(caller), gen: gen, pair: pair}
	c.mu.Lock()
	c.forgetOlder(gen)
	if el, found := c.entries[key]; found {
		c.lru.MoveToFront(el)
		e := el.Value.(*edgeEntry)
		c.stats.Hits++
		c.mu.Unlock()
		return e.edges, !e.big, nil
	}
	if bl, found := c.building[key]; found {
		c.mu.Unlock()
		if c.onWait != nil {
			c.onWait()
		}
		select {
		case <-bl.done:
			if bl.err != nil && ctx.Err() == nil && (errors.Is(bl.err, context.Canceled) || errors.Is(bl.err, context.DeadlineExceeded)) {
				// The request that read the set gave up; this one runs the plan in steps.
				return nil, false, nil
			}
			return bl.edges, bl.ok, bl.err
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	bl := &edgeBuild{done: make(chan struct{})}
	c.building[key] = bl
	c.stats.Builds++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.building, key)
		c.mu.Unlock()
		close(bl.done)
	}()
	start := time.Now()
	bl.edges, bl.ok, bl.err = c.build(ctx, r, b, caller, key, ex)
	c.mu.Lock()
	c.stats.Reading += time.Since(start)
	c.mu.Unlock()
	return bl.edges, bl.ok, bl.err
}

// build reads the edge set of key and stores it unless the generation moved meanwhile.
func (c *EdgeCache) build(ctx context.Context, r Runner, b EdgeSetBuilder, caller *compiler.Caller, key cacheKey, ex *Executed) (*compiler.EdgeSet, bool, error) {
	limit := c.opts.CallerBytes / edgeBytes
	q, err := b.EdgeSet(caller, key.pair, int(limit)+1)
	if err != nil {
		return nil, false, err
	}
	ex.Statements = append(ex.Statements, Statement{Label: LabelEdges, Query: q})
	e := &edgeEntry{key: key}
	if e.edges, e.big, err = readEdges(ctx, r, q, key.pair, limit); err != nil {
		if !errors.Is(err, ErrResourceExhausted) || ctx.Err() != nil {
			return nil, false, fmt.Errorf("execute edge set %s: %w", key.pair, err)
		}
		// A limit of the engine (memory, rows read) stopped the read of the whole set: the
		// question's own statements read less, so it runs them, and the set is remembered as
		// too large to read at this generation.
		e.edges, e.big = nil, true
	}
	if !e.big {
		e.size = entryBytes + e.edges.Bytes()
		e.big = e.size > c.opts.CallerBytes
	}
	if e.big {
		// Remembered, so that its queries do not read it again at this generation, at a
		// nominal size so that such marks count against the caller's share too.
		e.edges, e.size = nil, bigMarkBytes
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.big {
		c.stats.TooBig++
	}
	if len(c.seen) >= maxSeen {
		clear(c.seen)
	}
	seen := seenSize{e.size, key.gen}
	if e.big {
		seen.bytes = c.opts.CallerBytes + 1
	}
	c.seen[seenKey{key.caller, key.pair}] = seen
	if c.opts.Generation() != key.gen {
		// A write started or ended while the set was read: it may hold rows of either side.
		c.stats.Stale++
		return nil, false, nil
	}
	c.forgetOlder(key.gen)
	c.store(e)
	return e.edges, !e.big, nil
}

// readEdges runs q and decodes its rows, of pair's set, as they come; big when there are more
// than limit.
func readEdges(ctx context.Context, r Runner, q *compiler.Query, pair compiler.EdgePair, limit int64) (edges *compiler.EdgeSet, big bool, err error) {
	rows, err := r.Run(ctx, q)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var cols []string
	for _, c := range rows.Columns() {
		cols = append(cols, c.Name)
	}
	d, err := compiler.NewEdgeSetDecoder(pair, cols)
	if err != nil {
		return nil, false, err
	}
	for rows.Next() {
		if int64(d.Len()) == limit {
			return nil, true, nil
		}
		if err := d.Add(rows.Values()); err != nil {
			return nil, false, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return d.Set(), false, nil
}

// entryBytes is what an entry takes beyond its edges: the entry, its list element and its
// key in the maps, rounded up. Every entry counts it, so that empty sets (a caller with
// nothing to walk) and marks of sets too large to keep are bounded by the cache's size too.
const entryBytes = 512

// bigMarkBytes is the size a mark of a set too large to keep counts for.
const bigMarkBytes = entryBytes

// forgetOlder drops every entry when gen is newer than the entries' generation (it only
// grows; a request that read an older one finds nothing of its generation). c.mu is held.
func (c *EdgeCache) forgetOlder(gen uint64) {
	if gen <= c.gen {
		return
	}
	c.gen = gen
	c.lru.Init()
	clear(c.entries)
	clear(c.byCaller)
	c.bytes = 0
}

// store keeps e, evicting first the least recently used entries of e's caller while that
// caller would hold more than its share, then those of anyone while the cache would hold
// more than its size. c.mu is held.
func (c *EdgeCache) store(e *edgeEntry) {
	for c.byCaller[e.key.caller]+e.size > c.opts.CallerBytes {
		el := c.lru.Back()
		for el != nil && el.Value.(*edgeEntry).key.caller != e.key.caller {
			el = el.Prev()
		}
		if el == nil {
			break
		}
		c.evict(el)
	}
	for c.bytes+e.size > c.opts.MaxBytes && c.lru.Len() > 0 {
		c.evict(c.lru.Back())
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.bytes += e.size
	c.byCaller[e.key.caller] += e.size
	c.stats.Stored++
}

func (c *EdgeCache) evict(el *list.Element) {
	e := c.lru.Remove(el).(*edgeEntry)
	delete(c.entries, e.key)
	c.bytes -= e.size
	if c.byCaller[e.key.caller] -= e.size; c.byCaller[e.key.caller] <= 0 {
		delete(c.byCaller, e.key.caller)
	}
	c.stats.Evicted++
}

// sets reads the edge sets of pairs for caller ([EdgeCache.Edges]), for one question. ok is
// false when one of them cannot be served from the cache, or when the sets together pass half
// a caller's share (a question may need many: 22 for a merge request's neighbors); those read
// so far stay cached. Sets that do not fit together would evict each other, and the caller's
// other sets, on every request of the question. The sets are not read at all when their sizes
// when last read, within the last 8 writes, already pass that budget: a write rarely changes a
// set's size by much, and a question over its budget would otherwise read them again
// (seconds, for an admin's merge-request sets at scale 100) after every write, only to run its
// plan without them.
func (c *EdgeCache) sets(ctx context.Context, r Runner, b EdgeSetBuilder, caller *compiler.Caller, pairs []compiler.EdgePair, ex *Executed) (map[compiler.EdgePair]*compiler.EdgeSet, bool, error) {
	budget := c.opts.CallerBytes / 2
	ck, gen := callerKey(caller), c.opts.Generation()
	var known int64
	c.mu.Lock()
	for _, p := range pairs {
		if s, ok := c.seen[seenKey{ck, p}]; ok && gen-s.gen < seenGenerations {
			known += s.bytes
		}
	}
	over := known > budget
	if over {
		c.stats.OverBudget++
	}
	c.mu.Unlock()
	if over {
		return nil, false, nil
	}
	sets := make(map[compiler.EdgePair]*compiler.EdgeSet, len(pairs))
	var total int64
	for _, p := range pairs {
		edges, ok, err := c.Edges(ctx, r, b, caller, p, ex)
		if err != nil || !ok {
			return nil, false, err
		}
		// What the set's entry takes, as the caller's share counts it (store): counting the
		// edges alone let small sets, whose entries are mostly their fixed part, pass as
		// fitting together when they did not, and evict each other on every request.
		if total += entryBytes + edges.Bytes(); total > budget {
			return nil, false, nil
		}
		sets[p] = edges
	}
	return sets, true, nil
}
