package pipeline

import (
	"container/list"
	"sync"
	"time"
	"unsafe"

	"github.com/graphwire/graphwire/gcf"
)

// snapshots remembers the gcf-graph graphs recently sent, so that a client
// echoing the pack_root it holds gets "unchanged" or a delta instead of the
// full graph (spec gcf.md §2.10.3, §3.3.7).
//
// A snapshot holds one whole graph as sent: the nodes, their properties and
// the edges of one answer, exactly what that caller was allowed to see. It
// is keyed by (authorization fingerprint, pack_root), where the
// fingerprint ([auth.Claims.Fingerprint]) covers the user id, the admin
// flag and the scope set with its levels, so a graph is only ever a base
// for an answer to a caller with the very same authorization: an admin
// token and a scoped token of the same user never share snapshots, and a
// token whose scopes changed starts afresh.
//
// The store is bounded in count and in bytes (an estimate of the graph's
// memory, see graphBytes), in all and per caller (the user id, across all
// of that user's tokens and sessions). A new snapshot first pushes out the
// least recently used snapshots of its own caller while the caller is over
// its share, and only then the least recently used of all while the store
// is over its total, so a caller storing graph after graph can hold no
// more than its share and cannot push everyone else's delta bases out. A
// graph larger than a caller's byte share is not remembered at all (its
// caller gets full answers). A snapshot older than the TTL is not served
// and is dropped when looked up. It is safe for concurrent use.
type snapshots struct {
	mu      sync.Mutex
	lim     snapshotLimits
	ttl     time.Duration
	now     func() time.Time
	order   *list.List // of *snapshotEntry, most recently used first
	items   map[snapshotKey]*snapshotEntry
	callers map[string]*callerSnapshots
	bytes   int
}

// snapshotLimits are the bounds of a [snapshots] store: count and bytes
// in all, and per caller.
type snapshotLimits struct {
	max, maxBytes             int
	perCaller, perCallerBytes int
}

type snapshotKey struct{ authz, root string }

// callerSnapshots is what one caller holds: its snapshots, most recently
// used first, and their bytes.
type callerSnapshots struct {
	order *list.List // of *snapshotEntry
	bytes int
}

type snapshotEntry struct {
	key    snapshotKey
	caller string
	graph  *gcf.Graph
	size   int
	stored time.Time
	elem   *list.Element // in snapshots.order
	own    *list.Element // in the caller's order
}

func newSnapshots(lim snapshotLimits, ttl time.Duration) *snapshots {
	return &snapshots{lim: lim, ttl: ttl, now: time.Now, order: list.New(),
		items: map[snapshotKey]*snapshotEntry{}, callers: map[string]*callerSnapshots{}}
}

func (s *snapshots) get(authz, root string) *gcf.Graph {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[snapshotKey{authz, root}]
	if !ok {
		return nil
	}
	if s.now().Sub(e.stored) > s.ttl {
		s.remove(e)
		return nil
	}
	s.touch(e)
	return e.graph
}

// put remembers g, sent to caller under the authorization key authz.
func (s *snapshots) put(caller, authz string, g *gcf.Graph) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := snapshotKey{authz, g.PackRoot}
	if e, ok := s.items[k]; ok {
		e.stored = s.now()
		s.touch(e)
		return
	}
	size := graphBytes(g)
	if size > s.lim.perCallerBytes {
		return
	}
	c := s.callers[caller]
	if c == nil {
		c = &callerSnapshots{order: list.New()}
		s.callers[caller] = c
	}
	e := &snapshotEntry{key: k, caller: caller, graph: g, size: size, stored: s.now()}
	e.elem, e.own = s.order.PushFront(e), c.order.PushFront(e)
	s.items[k] = e
	s.bytes += size
	c.bytes += size
	for c.order.Len() > s.lim.perCaller || c.bytes > s.lim.perCallerBytes {
		s.remove(c.order.Back().Value.(*snapshotEntry))
	}
	for s.order.Len() > s.lim.max || s.bytes > s.lim.maxBytes {
		s.remove(s.order.Back().Value.(*snapshotEntry))
	}
}

func (s *snapshots) touch(e *snapshotEntry) {
	s.order.MoveToFront(e.elem)
	s.callers[e.caller].order.MoveToFront(e.own)
}

func (s *snapshots) remove(e *snapshotEntry) {
	c := s.callers[e.caller]
	s.order.Remove(e.elem)
	c.order.Remove(e.own)
	delete(s.items, e.key)
	s.bytes -= e.size
	c.bytes -= e.size
	if c.order.Len() == 0 {
		delete(s.callers, e.caller)
	}
}

// graphBytes estimates the memory g holds: its slices' backing arrays (by
// capacity) and the bytes of its strings (shared strings are counted once
// per use, so the estimate errs high).
func graphBytes(g *gcf.Graph) int {
	n := int(unsafe.Sizeof(*g)) + len(g.Tool) + len(g.PackRoot)
	n += cap(g.Extra) * int(unsafe.Sizeof(gcf.Field{}))
	for _, f := range g.Extra {
		n += len(f.Key) + len(f.Value)
	}
	n += cap(g.Symbols) * int(unsafe.Sizeof(gcf.Symbol{}))
	for _, sy := range g.Symbols {
		n += len(sy.Kind) + len(sy.Name) + len(sy.Provenance) + len(sy.Group)
	}
	n += cap(g.Refs) * int(unsafe.Sizeof(gcf.Ref{}))
	n += cap(g.Edges) * int(unsafe.Sizeof(gcf.Edge{}))
	for _, ed := range g.Edges {
		n += len(ed.Source) + len(ed.Target) + len(ed.SourceKind) + len(ed.TargetKind) + len(ed.Type) + len(ed.Status)
	}
	return n
}

// sessions holds the gcf-graph reference sessions (spec gcf.md §2.9) of
// client sessions, keyed like [snapshots] by the client session and the
// authorization fingerprint together; the least recently used beyond the
// bound is forgotten (its client then gets full payloads again). It is
// safe for concurrent use.
type sessions struct {
	mu    sync.Mutex
	max   int
	order *list.List // of string keys, most recent first
	items map[string]*sessionEntry
}

type sessionEntry struct {
	s    *gcf.Session
	elem *list.Element
}

func newSessions(max int) *sessions {
	return &sessions{max: max, order: list.New(), items: map[string]*sessionEntry{}}
}

// get returns the live session of key, made if needed. A request looks
// it up once and renders its trials on clones of it (see render).
func (s *sessions) get(key string) *gcf.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[key]
	if !ok {
		e = &sessionEntry{s: gcf.NewSession(gcf.Options{}), elem: s.order.PushFront(key)}
		s.items[key] = e
		for s.order.Len() > s.max {
			old := s.order.Remove(s.order.Back()).(string)
			delete(s.items, old)
		}
		return e.s
	}
	s.order.MoveToFront(e.elem)
	return e.s
}
