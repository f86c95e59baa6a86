package executor

import (
	"container/list"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/graphwire/graphwire/compiler"
)

// fakeSets is an EdgeSetBuilder and a Runner: the edge set of type T holds n[T] edges, and
// every read calls hook (when set) before it returns.
type fakeSets struct {
	mu    sync.Mutex
	n     map[string]int
	reads map[string]int
	hook  func(typ string)
}

func (f *fakeSets) EdgeSet(_ *compiler.Caller, pair compiler.EdgePair, limit int) (*compiler.Query, error) {
	return &compiler.Query{SQL: pair.Type + " " + strconv.Itoa(limit)}, nil
}

// ep is the edge set of type typ from User to Group.
func ep(typ string) compiler.EdgePair { return compiler.EdgePair{Type: typ, From: "User", To: "Group"} }

func (f *fakeSets) Run(_ context.Context, q *compiler.Query) (Rows, error) {
	typ, lim, _ := strings.Cut(q.SQL, " ")
	limit, err := strconv.Atoi(lim)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.reads[typ]++
	n, hook := f.n[typ], f.hook
	f.mu.Unlock()
	if hook != nil {
		hook(typ)
	}
	n = min(n, limit)
	var cols []Column
	for _, c := range compiler.EdgeSetCols {
		cols = append(cols, Column{Name: c})
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), "User", int64(i + 1), "Group", typ, "1/" + strconv.Itoa(i%3) + "/"}
	}
	return SliceRows(cols, rows, Stats{}), nil
}

func (f *fakeSets) readsOf(typ string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads[typ]
}

func newFake(n map[string]int) *fakeSets { return &fakeSets{n: n, reads: map[string]int{}} }

var (
	scoped30 = &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "1/", Level: 30}}}
	scoped20 = &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "1/", Level: 20}}}
	scoped2  = &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "2/", Level: 30}}}
)

func mustCache(t *testing.T, o EdgeCacheOptions) *EdgeCache {
	t.Helper()
	c, err := NewEdgeCache(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEdgeCacheKeysByAuthorization: an edge set is read once per caller and generation;
// callers that differ in a scope's level or path, in admin or in subject never share one,
// and the order of the scopes does not matter.
func TestEdgeCacheKeysByAuthorization(t *testing.T) {
	f := newFake(map[string]int{"MEMBER_OF": 10})
	var gen atomic.Uint64
	c := mustCache(t, EdgeCacheOptions{MaxBytes: 1 << 20, Generation: gen.Load})
	ctx := context.Background()
	get := func(caller *compiler.Caller) {
		t.Helper()
		var ex Executed
		edges, ok, err := c.Edges(ctx, f, f, caller, ep("MEMBER_OF"), &ex)
		if err != nil || !ok || edges.Len() != 10 {
			t.Fatalf("edges %d, ok %v, err %v", edges.Len(), ok, err)
		}
	}
	callers := []*compiler.Caller{scoped30, scoped20, scoped2, {Subject: "2", Scopes: scoped30.Scopes}, {Subject: "1", Admin: true},
		{Subject: "1", Scopes: []compiler.Scope{{Path: "1/", Level: 30}, {Path: "2/", Level: 30}}}}
	for i, caller := range callers {
		get(caller)
		get(caller)
		if got := f.readsOf("MEMBER_OF"); got != i+1 {
			t.Fatalf("after caller %d: %d reads, want %d", i, got, i+1)
		}
	}
	get(&compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "2/", Level: 30}, {Path: "1/", Level: 30}}})
	if got := f.readsOf("MEMBER_OF"); got != len(callers) {
		t.Errorf("the same scopes in another order read again: %d reads", got)
	}
	gen.Add(2) // a write started and ended
	get(scoped30)
	if got := f.readsOf("MEMBER_OF"); got != len(callers)+1 {
		t.Errorf("a new generation did not read again: %d reads", got)
	}
	if s := c.Stats(); s.Entries != 1 {
		t.Errorf("%d entries after the generation moved, want 1 (older ones dropped)", s.Entries)
	}
}

// TestEdgeCacheRaceWithWrite: a set whose read a write starts or ends during is not kept, and
// no set is used or read while a write runs (odd generation).
func TestEdgeCacheRaceWithWrite(t *testing.T) {
	f := newFake(map[string]int{"MEMBER_OF": 10})
	var gen atomic.Uint64
	c := mustCache(t, EdgeCacheOptions{MaxBytes: 1 << 20, Generation: gen.Load})
	ctx := context.Background()
	f.hook = func(string) { gen.Add(1) } // a write starts while the set is read
	var ex Executed
	if _, ok, err := c.Edges(ctx, f, f, scoped30, ep("MEMBER_OF"), &ex); err != nil || ok {
		t.Fatalf("a read raced by a write: ok %v, err %v; want not usable", ok, err)
	}
	if len(ex.Statements) != 1 || ex.Statements[0].Label != LabelEdges {
		t.Errorf("statements %v, want one edge set read", ex.Statements)
	}
	f.hook = nil
	if _, ok, _ := c.Edges(ctx, f, f, scoped30, ep("MEMBER_OF"), &ex); ok || f.readsOf("MEMBER_OF") != 1 {
		t.Errorf("while the write runs: ok %v, %d reads; want not usable and no read", ok, f.readsOf("MEMBER_OF"))
	}
	gen.Add(1) // the write ends
	f.hook = func(string) { gen.Add(2) }
	if _, ok, _ := c.Edges(ctx, f, f, scoped30, ep("MEMBER_OF"), &ex); ok {
		t.Error("a read during which a whole write ran was used")
	}
	f.hook = nil
	for range 2 {
		if _, ok, _ := c.Edges(ctx, f, f, scoped30, ep("MEMBER_OF"), &ex); !ok {
			t.Fatal("a quiet read was not usable")
		}
	}
	if got := f.readsOf("MEMBER_OF"); got != 3 {
		t.Errorf("%d reads, want 3: the raced ones were kept, or the quiet one was not", got)
	}
}

// TestEdgeCacheBounds: a set larger than a caller's share is not used (and not read again at
// that generation); one caller's sets evict its own older sets, not another caller's, until the
// cache is full.
func TestEdgeCacheBounds(t *testing.T) {
	f := newFake(map[string]int{"A": 100, "B": 100, "C": 100, "BIG": 1000})
	c := mustCache(t, EdgeCacheOptions{MaxBytes: 40 * 100 * edgeBytes, CallerBytes: 20 * 100 * edgeBytes / 10, Generation: func() uint64 { return 0 }})
	ctx := context.Background()
	var ex Executed
	get := func(caller *compiler.Caller, typ string) bool {
		t.Helper()
		_, ok, err := c.Edges(ctx, f, f, caller, ep(typ), &ex)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	for range 2 {
		if get(scoped30, "BIG") {
			t.Fatal("a set larger than the caller's share was used")
		}
	}
	if f.readsOf("BIG") != 1 {
		t.Errorf("the set too large was read %d times, want 1", f.readsOf("BIG"))
	}
	// A caller's share (200 edges with their strings) holds one set of 100, not two.
	if !get(scoped2, "A") {
		t.Fatal("a set within the share was not used")
	}
	for _, typ := range []string{"A", "B", "C", "A"} {
		if !get(scoped30, typ) {
			t.Fatalf("set %s not used", typ)
		}
	}
	if f.readsOf("A") != 3 {
		t.Errorf("A read %d times, want 3 (scoped2 once, scoped30 twice: evicted by its own B, C)", f.readsOf("A"))
	}
	get(scoped2, "A")
	if f.readsOf("A") != 3 {
		t.Errorf("scoped2's set was evicted by another caller's: A read %d times", f.readsOf("A"))
	}
}

// TestEdgeCacheBuildsOnce: concurrent requests for a missing set read it once.
func TestEdgeCacheBuildsOnce(t *testing.T) {
	f := newFake(map[string]int{"A": 10})
	c := mustCache(t, EdgeCacheOptions{MaxBytes: 1 << 20, Generation: func() uint64 { return 0 }})
	started, release := make(chan struct{}), make(chan struct{})
	f.hook = func(string) { close(started); <-release }
	waiting := make(chan struct{}, 4)
	c.onWait = func() { waiting <- struct{}{} }
	ctx := context.Background()
	var wg sync.WaitGroup
	results := make([]int, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i > 0 {
				<-started
			}
			var ex Executed
			edges, ok, err := c.Edges(ctx, f, f, scoped30, ep("A"), &ex)
			if err == nil && ok {
				results[i] = edges.Len()
			}
		}()
	}
	<-started
	for range len(results) - 1 {
		<-waiting
	}
	close(release)
	wg.Wait()
	for i, n := range results {
		if n != 10 {
			t.Errorf("request %d got %d edges", i, n)
		}
	}
	if f.readsOf("A") != 1 {
		t.Errorf("%d reads, want 1", f.readsOf("A"))
	}
}

// TestEdgeCacheWaiterOutlivesReader: when the request reading a set gives up (its context
// ends), a request waiting for that read runs without the cache instead of failing.
func TestEdgeCacheWaiterOutlivesReader(t *testing.T) {
	f := newFake(map[string]int{"A": 10})
	c := mustCache(t, EdgeCacheOptions{MaxBytes: 1 << 20, Generation: func() uint64 { return 0 }})
	readerCtx, cancel := context.WithCancel(context.Background())
	started, waiting := make(chan struct{}), make(chan struct{})
	f.hook = func(string) { close(started); <-waiting; cancel() }
	c.onWait = func() { close(waiting) }
	readerErr := make(chan error, 1)
	go func() {
		var ex Executed
		_, _, err := c.Edges(readerCtx, cancelling{f}, f, scoped30, ep("A"), &ex)
		readerErr <- err
	}()
	<-started
	var ex Executed
	_, ok, err := c.Edges(context.Background(), f, f, scoped30, ep("A"), &ex)
	if ok || err != nil {
		t.Errorf("waiter: ok %v, err %v; want the plan in steps (not ok, no error)", ok, err)
	}
	if err := <-readerErr; !errors.Is(err, context.Canceled) {
		t.Errorf("reader: %v, want its context's cancellation", err)
	}
}

// cancelling is a Runner that fails a statement whose context has ended once it has run.
type cancelling struct{ r Runner }

func (c cancelling) Run(ctx context.Context, q *compiler.Query) (Rows, error) {
	rows, err := c.r.Run(ctx, q)
	if err == nil && ctx.Err() != nil {
		rows.Close()
		return nil, ctx.Err()
	}
	return rows, err
}

// TestEdgeCacheBoundsEmptySets: every entry counts against the cache's size, an empty set too.
// An empty set counted as 0 bytes, so that distinct callers with nothing to walk (a scope
// with no edges) grew the cache without bound between two writes, past graph-cache-mb.
func TestEdgeCacheBoundsEmptySets(t *testing.T) {
	f := newFake(map[string]int{"A": 0})
	const maxBytes = 64 << 10
	c := mustCache(t, EdgeCacheOptions{MaxBytes: maxBytes, Generation: func() uint64 { return 0 }})
	ctx := context.Background()
	for i := range 5000 {
		var ex Executed
		caller := &compiler.Caller{Subject: strconv.Itoa(i), Scopes: scoped30.Scopes}
		if _, ok, err := c.Edges(ctx, f, f, caller, ep("A"), &ex); err != nil || !ok {
			t.Fatalf("caller %d: ok %v, err %v", i, ok, err)
		}
	}
	// What an entry takes at least, beyond its edges: the entry and its list element.
	least := int(unsafe.Sizeof(edgeEntry{}) + unsafe.Sizeof(list.Element{}))
	if s := c.Stats(); s.Entries*least > maxBytes {
		t.Errorf("%d entries of at least %d bytes each in a cache of %d bytes (counted: %d)", s.Entries, least, maxBytes, s.Bytes)
	}
}
