package gcf

import (
	"maps"
	"slices"
	"strconv"
	"sync"
)

// Session is a producer session (§2.9): it remembers every symbol declared
// to one consumer, keyed by (abbreviated kind, name), so later payloads can
// send reference lines. A Session is safe for concurrent use.
type Session struct {
	mu   sync.Mutex
	syms map[identity]sessionEntry
	next int
	max  int
}

type sessionEntry struct {
	id         int
	score      string // two-decimal wire score
	provenance string
}

// NewSession returns an empty session bounded by
// opts.Limits.MaxSessionSymbols.
func NewSession(opts Options) *Session {
	return &Session{syms: map[identity]sessionEntry{}, max: opts.Limits.withDefaults().MaxSessionSymbols}
}

// Len returns the number of remembered identities.
func (s *Session) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.syms)
}

// Clone returns an independent copy, for encoding before delivery is
// confirmed.
func (s *Session) Clone() *Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Session{syms: maps.Clone(s.syms), next: s.next, max: s.max}
}

// Reset forgets everything; the consumer must be told (new session id).
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syms = map[identity]sessionEntry{}
	s.next = 0
}

// assign gives every symbol of p its session id and reports which ones are
// references. It changes the session only when it succeeds.
func (s *Session) assign(g *Graph, p *graphPlan) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	refs := make([]bool, len(g.Symbols))
	newCount := 0
	for _, i := range p.order {
		if _, ok := s.syms[identity{p.kinds[i], g.Symbols[i].Name}]; !ok {
			newCount++
		}
	}
	if len(s.syms)+newCount > s.max {
		return nil, &EncodeError{Err: ErrLimit, Detail: "session would remember more than " + strconv.Itoa(s.max) + " symbols"}
	}
	var buf [32]byte
	type update struct {
		id identity
		e  sessionEntry
	}
	var updates []update
	next := s.next
	for _, i := range p.order {
		sym := &g.Symbols[i]
		id := identity{p.kinds[i], sym.Name}
		score := string(appendScore(buf[:0], sym.Score))
		e, ok := s.syms[id]
		switch {
		case ok && e.score == score && e.provenance == sym.Provenance:
			refs[i] = true
			p.ids[i] = e.id
		case ok:
			p.ids[i] = e.id
			updates = append(updates, update{id, sessionEntry{e.id, score, sym.Provenance}})
		default:
			p.ids[i] = next
			updates = append(updates, update{id, sessionEntry{next, score, sym.Provenance}})
			next++
		}
	}
	for _, u := range updates {
		s.syms[u.id] = u.e
	}
	s.next = next
	return refs, nil
}

// ConsumerSession is the consumer side of a session: it resolves reference
// lines against earlier declarations. It is safe for concurrent use.
type ConsumerSession struct {
	mu   sync.Mutex
	byID map[int]Symbol
}

// NewConsumerSession returns an empty consumer session.
func NewConsumerSession(opts Options) *ConsumerSession {
	_ = opts
	return &ConsumerSession{byID: map[int]Symbol{}}
}

// Resolve records g's declarations and returns a copy of g in which every
// reference is replaced by the remembered symbol (at the reference's
// distance) and every edge carries endpoint names. An unknown id or an id
// re-declared with another identity is [ErrUnresolvedReference]; the session
// is unchanged on error.
func (c *ConsumerSession) Resolve(g *Graph) (*Graph, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	pending := map[int]Symbol{}
	lookup := func(id int) (Symbol, bool) {
		if s, ok := pending[id]; ok {
			return s, true
		}
		s, ok := c.byID[id]
		return s, ok
	}
	for _, s := range g.Symbols {
		if old, ok := lookup(s.ID); ok && (KindAbbrev(old.Kind) != KindAbbrev(s.Kind) || old.Name != s.Name) {
			return nil, newOpError("resolve session", ErrUnresolvedReference, "id "+strconv.Itoa(s.ID)+" re-declared with another identity")
		}
		pending[s.ID] = s
	}
	out := *g
	out.Refs = nil
	out.Symbols = slices.Clone(g.Symbols)
	for _, r := range g.Refs {
		s, ok := lookup(r.ID)
		if !ok {
			return nil, newOpError("resolve session", ErrUnresolvedReference, "unknown id "+strconv.Itoa(r.ID))
		}
		s.ID = r.ID
		s.Distance = r.Distance
		s.Group = ""
		out.Symbols = append(out.Symbols, s)
	}
	slices.SortStableFunc(out.Symbols, func(a, b Symbol) int { return a.Distance - b.Distance })
	out.Edges = slices.Clone(g.Edges)
	for i := range out.Edges {
		e := &out.Edges[i]
		src, ok1 := lookup(e.SourceID)
		tgt, ok2 := lookup(e.TargetID)
		if !ok1 || !ok2 {
			return nil, newOpError("resolve session", ErrUnresolvedReference, "edge endpoint not declared")
		}
		e.Source, e.SourceKind = src.Name, src.Kind
		e.Target, e.TargetKind = tgt.Name, tgt.Kind
	}
	for id, s := range pending {
		c.byID[id] = s
	}
	return &out, nil
}
