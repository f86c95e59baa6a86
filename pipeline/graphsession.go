package pipeline

import (
	"container/list"
	"sync"
	"time"

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
// token whose scopes changed starts afresh. A snapshot lives until it is
// older than the TTL or is the least recently used of more than the
// configured number; both bounds come from [Options]. It is safe for
// concurrent use.
type snapshots struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	order *list.List // of snapshotKey, most recent first
	items map[snapshotKey]*snapshotEntry
}

type snapshotKey struct{ authz, root string }

type snapshotEntry struct {
	graph  *gcf.Graph
	stored time.Time
	elem   *list.Element
}

func newSnapshots(max int, ttl time.Duration) *snapshots {
	return &snapshots{max: max, ttl: ttl, now: time.Now, order: list.New(), items: map[snapshotKey]*snapshotEntry{}}
}

func (s *snapshots) get(authz, root string) *gcf.Graph {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := snapshotKey{authz, root}
	e, ok := s.items[k]
	if !ok {
		return nil
	}
	if s.now().Sub(e.stored) > s.ttl {
		s.order.Remove(e.elem)
		delete(s.items, k)
		return nil
	}
	s.order.MoveToFront(e.elem)
	return e.graph
}

func (s *snapshots) put(authz string, g *gcf.Graph) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := snapshotKey{authz, g.PackRoot}
	if e, ok := s.items[k]; ok {
		e.stored = s.now()
		s.order.MoveToFront(e.elem)
		return
	}
	s.items[k] = &snapshotEntry{graph: g, stored: s.now(), elem: s.order.PushFront(k)}
	for s.order.Len() > s.max {
		old := s.order.Remove(s.order.Back()).(snapshotKey)
		delete(s.items, old)
	}
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

// get returns the session of key: when create is unset, a copy (for a
// trial render) or nil, and when it is set the live one, made if needed.
func (s *sessions) get(key string, create bool) *gcf.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[key]
	if !ok {
		if !create {
			return gcf.NewSession(gcf.Options{})
		}
		e = &sessionEntry{s: gcf.NewSession(gcf.Options{}), elem: s.order.PushFront(key)}
		s.items[key] = e
		for s.order.Len() > s.max {
			old := s.order.Remove(s.order.Back()).(string)
			delete(s.items, old)
		}
		return e.s
	}
	s.order.MoveToFront(e.elem)
	if !create {
		return e.s.Clone()
	}
	return e.s
}
