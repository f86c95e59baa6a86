package gcf

import (
	"slices"
)

type edgeKey struct {
	src, tgt identity
	typ      string
}

// canonicalEdges returns g's edges as identity triples in canonical order.
func canonicalEdges(g *Graph, p *graphPlan) []edgeKey {
	edges := slices.Clone(p.edges)
	sortEdges(edges, p.ids)
	out := make([]edgeKey, len(edges))
	for i, e := range edges {
		out[i] = edgeKey{
			src: identity{p.kinds[e.src], g.Symbols[e.src].Name},
			tgt: identity{p.kinds[e.tgt], g.Symbols[e.tgt].Name},
			typ: e.typ,
		}
	}
	return out
}

func edgeFromKey(k edgeKey) Edge {
	return Edge{Source: k.src.name, Target: k.tgt.name, SourceKind: KindExpand(k.src.kind), TargetKind: KindExpand(k.tgt.kind), Type: k.typ}
}

// Delta computes the delta from base to next (§2.10.2): symbols only in base
// are removed, only in next added, and present in both with a different
// two-decimal score, provenance or distance removed and re-added; edges
// likewise. BaseRoot and NewRoot are the pack roots of base and next.
func Delta(base, next *Graph) (*GraphDelta, error) {
	bp, _, err := planGraph(base)
	if err != nil {
		return nil, err
	}
	np, _, err := planGraph(next)
	if err != nil {
		return nil, err
	}
	d := &GraphDelta{Tool: next.Tool}
	if d.BaseRoot, err = PackRoot(base); err != nil {
		return nil, err
	}
	if d.NewRoot, err = PackRoot(next); err != nil {
		return nil, err
	}
	bIdx := make(map[identity]int, len(base.Symbols))
	for i := range base.Symbols {
		bIdx[identity{bp.kinds[i], base.Symbols[i].Name}] = i
	}
	nIdx := make(map[identity]int, len(next.Symbols))
	for i := range next.Symbols {
		nIdx[identity{np.kinds[i], next.Symbols[i].Name}] = i
	}
	same := func(a, b *Symbol) bool {
		return Quantize(a.Score) == Quantize(b.Score) && a.Provenance == b.Provenance && a.Distance == b.Distance
	}
	for _, i := range bp.order {
		s := &base.Symbols[i]
		j, ok := nIdx[identity{bp.kinds[i], s.Name}]
		if !ok || !same(s, &next.Symbols[j]) {
			d.Removed = append(d.Removed, SymbolKey{Kind: KindExpand(bp.kinds[i]), Name: s.Name})
		}
	}
	for _, i := range np.order {
		s := next.Symbols[i]
		j, ok := bIdx[identity{np.kinds[i], s.Name}]
		if !ok || !same(&base.Symbols[j], &s) {
			s.Kind = KindExpand(np.kinds[i])
			s.ID, s.Group = 0, ""
			d.Added = append(d.Added, s)
		}
	}
	be := canonicalEdges(base, bp)
	ne := canonicalEdges(next, np)
	bSet := make(map[edgeKey]bool, len(be))
	for _, e := range be {
		bSet[e] = true
	}
	nSet := make(map[edgeKey]bool, len(ne))
	for _, e := range ne {
		nSet[e] = true
	}
	for _, e := range be {
		if !nSet[e] {
			d.RemovedEdges = append(d.RemovedEdges, edgeFromKey(e))
		}
	}
	for _, e := range ne {
		if !bSet[e] {
			d.AddedEdges = append(d.AddedEdges, edgeFromKey(e))
		}
	}
	return d, nil
}

// Worthwhile reports whether a delta of deltaBytes is worth sending instead
// of a full payload of fullBytes: deltaBytes < 0.6 × fullBytes.
func Worthwhile(deltaBytes, fullBytes int) bool {
	return deltaBytes*5 < fullBytes*3
}

// symbolSet is a mutable symbol list with an identity index, used by
// ApplyDelta.
type symbolSet struct {
	syms []Symbol
	idx  map[identity]int
}

func (s *symbolSet) resolve(kind, name string) (identity, bool) {
	if kind != "" {
		id := identity{KindAbbrev(kind), name}
		_, ok := s.idx[id]
		return id, ok
	}
	var found identity
	n := 0
	for _, sym := range s.syms {
		if sym.Name == name {
			found = identity{KindAbbrev(sym.Kind), name}
			n++
		}
	}
	return found, n == 1
}

// ApplyDelta applies d to a copy of base (§2.10.4) and returns the result.
// The base is never modified. Errors wrap [ErrBaseMismatch],
// [ErrDeltaConflict] or [ErrRootMismatch].
func ApplyDelta(base *Graph, d *GraphDelta) (*Graph, error) {
	root, err := PackRoot(base)
	if err != nil {
		return nil, err
	}
	if root != d.BaseRoot {
		return nil, newOpError("apply delta", ErrBaseMismatch, "base root "+root+" differs from "+d.BaseRoot)
	}
	bp, _, err := planGraph(base)
	if err != nil {
		return nil, err
	}
	bset := symbolSet{idx: make(map[identity]int, len(base.Symbols)), syms: base.Symbols}
	for i := range base.Symbols {
		bset.idx[identity{bp.kinds[i], base.Symbols[i].Name}] = i
	}
	removed := map[identity]bool{}
	for _, k := range d.Removed {
		id := identity{KindAbbrev(k.Kind), k.Name}
		if _, ok := bset.idx[id]; !ok {
			return nil, newOpError("apply delta", ErrDeltaConflict, "removed symbol "+k.Name+" does not exist")
		}
		if removed[id] {
			return nil, newOpError("apply delta", ErrDeltaConflict, "symbol "+k.Name+" removed twice")
		}
		removed[id] = true
	}
	added := map[identity]bool{}
	for _, s := range d.Added {
		id := identity{KindAbbrev(s.Kind), s.Name}
		if added[id] {
			return nil, newOpError("apply delta", ErrDeltaConflict, "symbol "+s.Name+" added twice")
		}
		if _, ok := bset.idx[id]; ok && !removed[id] {
			return nil, newOpError("apply delta", ErrDeltaConflict, "added symbol "+s.Name+" already exists")
		}
		added[id] = true
	}
	out := &Graph{Tool: base.Tool}
	next := symbolSet{idx: map[identity]int{}}
	for i, s := range base.Symbols {
		id := identity{bp.kinds[i], s.Name}
		if removed[id] {
			continue
		}
		next.idx[id] = len(next.syms)
		next.syms = append(next.syms, s)
	}
	for _, s := range d.Added {
		s.ID, s.Group = 0, ""
		next.idx[identity{KindAbbrev(s.Kind), s.Name}] = len(next.syms)
		next.syms = append(next.syms, s)
	}
	edges := canonicalEdges(base, bp)
	present := make(map[edgeKey]bool, len(edges))
	for _, e := range edges {
		present[e] = true
	}
	var dropped = map[edgeKey]bool{}
	for _, e := range d.RemovedEdges {
		src, ok1 := bset.resolve(e.SourceKind, e.Source)
		tgt, ok2 := bset.resolve(e.TargetKind, e.Target)
		k := edgeKey{src, tgt, e.Type}
		if !ok1 || !ok2 || !present[k] || dropped[k] {
			return nil, newOpError("apply delta", ErrDeltaConflict, "removed edge "+e.Source+" -> "+e.Target+" does not exist")
		}
		dropped[k] = true
	}
	var result []edgeKey
	inResult := map[edgeKey]bool{}
	for _, e := range edges {
		if !dropped[e] {
			result = append(result, e)
			inResult[e] = true
		}
	}
	for _, e := range d.AddedEdges {
		src, ok1 := next.resolve(e.SourceKind, e.Source)
		tgt, ok2 := next.resolve(e.TargetKind, e.Target)
		if !ok1 || !ok2 {
			return nil, newOpError("apply delta", ErrDeltaConflict, "added edge endpoint does not exist")
		}
		k := edgeKey{src, tgt, e.Type}
		if inResult[k] {
			return nil, newOpError("apply delta", ErrDeltaConflict, "added edge "+e.Source+" -> "+e.Target+" already exists")
		}
		inResult[k] = true
		result = append(result, k)
	}
	for _, k := range result {
		if _, ok := next.idx[k.src]; !ok {
			return nil, newOpError("apply delta", ErrDeltaConflict, "edge endpoint "+k.src.name+" does not exist")
		}
		if _, ok := next.idx[k.tgt]; !ok {
			return nil, newOpError("apply delta", ErrDeltaConflict, "edge endpoint "+k.tgt.name+" does not exist")
		}
		out.Edges = append(out.Edges, edgeFromKey(k))
	}
	out.Symbols = next.syms
	got, err := PackRoot(out)
	if err != nil {
		return nil, err
	}
	if got != d.NewRoot {
		return nil, newOpError("apply delta", ErrRootMismatch, "result root "+got+" differs from "+d.NewRoot)
	}
	return out, nil
}
