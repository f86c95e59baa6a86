package grpcsvc

import (
	"bytes"
	"container/list"
	"sync"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

// snapshots remembers the gcf-graph graphs recently sent to each caller,
// keyed by (caller, pack_root), so that a client echoing the pack_root it
// holds gets "unchanged" or a delta instead of the full graph (spec gcf.md
// §2.10.3, §3.3.7). It is bounded (least recently used entries go first)
// and safe for concurrent use. Graphs are per caller: one caller's
// snapshot is never a base for another's answer.
type snapshots struct {
	mu    sync.Mutex
	max   int
	order *list.List // of snapshotKey, most recent first
	items map[snapshotKey]*snapshotEntry
}

type snapshotKey struct{ caller, root string }

type snapshotEntry struct {
	graph *gcf.Graph
	elem  *list.Element
}

func newSnapshots(max int) *snapshots {
	return &snapshots{max: max, order: list.New(), items: map[snapshotKey]*snapshotEntry{}}
}

func (s *snapshots) get(caller, root string) *gcf.Graph {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[snapshotKey{caller, root}]
	if !ok {
		return nil
	}
	s.order.MoveToFront(e.elem)
	return e.graph
}

func (s *snapshots) put(caller string, g *gcf.Graph) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := snapshotKey{caller, g.PackRoot}
	if e, ok := s.items[k]; ok {
		s.order.MoveToFront(e.elem)
		return
	}
	s.items[k] = &snapshotEntry{graph: g, elem: s.order.PushFront(k)}
	for s.order.Len() > s.max {
		old := s.order.Remove(s.order.Back()).(snapshotKey)
		delete(s.items, old)
	}
}

// respondGraph renders resp as gcf-graph for a caller that may hold an
// earlier graph under clientRoot: unchanged when it holds this one, a delta
// when the base is remembered and the delta is worth it, the full graph
// otherwise. The graph sent is remembered for the next call.
func (s *Server) respondGraph(caller string, resp *graphresponse.Response, clientRoot string) ([]byte, error) {
	cur, err := gcf.ToGraph(resp, gcf.GraphOptions{})
	if err != nil {
		return nil, err
	}
	var base *gcf.Graph
	if clientRoot != "" {
		base = s.graphs.get(caller, clientRoot)
	}
	var out bytes.Buffer
	if _, err := gcf.Respond(&out, cur, gcf.GraphState{ClientRoot: clientRoot, Base: base}, gcf.Options{Profile: gcf.ProfileGraph}); err != nil {
		return nil, err
	}
	s.graphs.put(caller, cur)
	return out.Bytes(), nil
}
