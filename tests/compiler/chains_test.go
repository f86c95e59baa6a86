package compilertest_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/compiler"
)

// chainHop is one fixed hop of a chain query between nodes i and i+1: the relationship type,
// the direction, and whether the DSL writes it from node i+1 to node i.
type chainHop struct {
	typ       string
	direction string
	reversed  bool
}

// chain is a traversal over three nodes joined by two fixed hops, with ids named on some
// nodes: sel[i] is "" (none), "ids" (node_ids ids[i]) or "range" (id_range lo[i]..hi[i]).
type chain struct {
	kinds [3]string
	hops  [2]chainHop
	sel   [3]string
	ids   [3][]int64
	lo    [3]int64
	hi    [3]int64
}

var chainAliases = [3]string{"a", "b", "c"}

func (ch chain) query(queryType string) string {
	var nodes, rels []string
	for i, k := range ch.kinds {
		s := fmt.Sprintf(`{"id":%q,"entity":%q`, chainAliases[i], k)
		switch ch.sel[i] {
		case "ids":
			ids := make([]string, len(ch.ids[i]))
			for j, id := range ch.ids[i] {
				ids[j] = fmt.Sprint(id)
			}
			s += `,"node_ids":[` + strings.Join(ids, ",") + `]`
		case "range":
			s += fmt.Sprintf(`,"id_range":{"start":%d,"end":%d}`, ch.lo[i], ch.hi[i])
		}
		nodes = append(nodes, s+"}")
	}
	for i, h := range ch.hops {
		from, to := chainAliases[i], chainAliases[i+1]
		if h.reversed {
			from, to = to, from
		}
		rels = append(rels, fmt.Sprintf(`{"type":%q,"from":%q,"to":%q,"direction":%q}`, h.typ, from, to, h.direction))
	}
	q := fmt.Sprintf(`{"query_type":%q,"nodes":[%s],"relationships":[%s],"limit":1000`, queryType, strings.Join(nodes, ","), strings.Join(rels, ","))
	if queryType == "aggregation" {
		q += `,"group_by":["a"],"aggregations":[{"count":"c"}]`
	}
	return q + "}"
}

func (ch chain) admits(i int, id int64) bool {
	switch ch.sel[i] {
	case "ids":
		return slices.Contains(ch.ids[i], id)
	case "range":
		return id >= ch.lo[i] && id <= ch.hi[i]
	}
	return true
}

// randomChain follows two stored edges that share a node, so the seeded data satisfies the
// chain at least for an administrator, and names ids (the walk's own among others) on one or
// two random nodes.
func randomChain(choices []int) (chain, bool) {
	pick := func(i, n int) int { return choices[i%len(choices)] % n }
	edges := storedEdges()
	e0 := edges[pick(0, len(edges))]
	var ch chain
	var walk [3]walkNode
	// Hop 0 from the edge's source or its target.
	if pick(1, 2) == 0 {
		walk[0], walk[1] = walkNode{e0.From, e0.FromID}, walkNode{e0.To, e0.ToID}
	} else {
		walk[0], walk[1] = walkNode{e0.To, e0.ToID}, walkNode{e0.From, e0.FromID}
	}
	var next []edgeID
	for _, x := range edges {
		if (x.From == walk[1].kind && x.FromID == walk[1].id) || (x.To == walk[1].kind && x.ToID == walk[1].id) {
			next = append(next, x)
		}
	}
	if len(next) == 0 {
		return ch, false
	}
	e1 := next[pick(2, len(next))]
	if e1.From == walk[1].kind && e1.FromID == walk[1].id {
		walk[2] = walkNode{e1.To, e1.ToID}
	} else {
		walk[2] = walkNode{e1.From, e1.FromID}
	}
	for i, e := range []edgeID{e0, e1} {
		stored := e.From == walk[i].kind && e.FromID == walk[i].id // stored from node i to i+1
		h := chainHop{typ: e.Type, reversed: pick(3+i, 2) == 1}
		// The direction that matches the stored edge as written, or both.
		if pick(5+i, 3) == 2 {
			h.direction = "both"
		} else if stored != h.reversed {
			h.direction = "outgoing"
		} else {
			h.direction = "incoming"
		}
		ch.hops[i] = h
	}
	for i, n := range walk {
		ch.kinds[i] = n.kind
	}
	named := []int{pick(7, 3)}
	if pick(8, 3) == 0 {
		named = append(named, (named[0]+1+pick(9, 2))%3)
	}
	for _, i := range named {
		id := walk[i].id
		if pick(10+i, 2) == 0 {
			ch.sel[i] = "ids"
			ch.ids[i] = []int64{id, id + 1 + int64(pick(13, 5)), max(1, id-1-int64(pick(14, 7)))}
		} else {
			ch.sel[i] = "range"
			ch.lo[i] = max(1, id-int64(pick(15, 20)))
			ch.hi[i] = id + int64(pick(16, 20))
		}
	}
	return ch, true
}

// chainMatch is one row of a chain: its three nodes and its two stored edges.
type chainMatch struct {
	nodes [3]walkNode
	edges [2]walkEdge
}

// matches lists every row the chain should give caller c: readable nodes admitted by the
// selectors, joined by readable stored edges of each hop's type in the hop's direction, each
// counted as often as c may read a stored copy of it.
func (ch chain) matches(rd *readable, copies func(walkEdge) int) []chainMatch {
	at := map[walkNode][]walkEdge{}
	for _, e := range rd.edges {
		if !declared(e) {
			continue
		}
		at[walkNode{e.srcKind, e.src}] = append(at[walkNode{e.srcKind, e.src}], e)
		if e.tgtKind != e.srcKind || e.tgt != e.src {
			at[walkNode{e.tgtKind, e.tgt}] = append(at[walkNode{e.tgtKind, e.tgt}], e)
		}
	}
	ok := func(i int, n walkNode) bool {
		return n.kind == ch.kinds[i] && rd.nodes[n.kind][n.id] && ch.admits(i, n.id)
	}
	// far lists the nodes hop i reaches from node x (node i) over e, once per way e matches.
	far := func(i int, x walkNode, e walkEdge) []walkNode {
		h := ch.hops[i]
		if e.rel != h.typ {
			return nil
		}
		src, tgt := walkNode{e.srcKind, e.src}, walkNode{e.tgtKind, e.tgt}
		var out []walkNode
		// Outgoing as written: stored from the DSL's from node to its to node.
		fwd := h.direction != "incoming"
		bwd := h.direction != "outgoing"
		if h.reversed { // the DSL's from node is node i+1
			fwd, bwd = bwd, fwd
		}
		if fwd && src == x {
			out = append(out, tgt)
		}
		if bwd && tgt == x {
			out = append(out, src)
		}
		return out
	}
	var out []chainMatch
	for _, kind := range []string{ch.kinds[0]} {
		for _, id := range slices.Sorted(maps.Keys(rd.nodes[kind])) {
			a := walkNode{kind, id}
			if !ok(0, a) {
				continue
			}
			for _, e0 := range at[a] {
				for _, b := range far(0, a, e0) {
					if !ok(1, b) {
						continue
					}
					for _, e1 := range at[b] {
						for _, c := range far(1, b, e1) {
							if !ok(2, c) {
								continue
							}
							for range copies(e0) * copies(e1) {
								out = append(out, chainMatch{[3]walkNode{a, b, c}, [2]walkEdge{e0, e1}})
							}
						}
					}
				}
			}
		}
	}
	return out
}

// checkChain computes the matches of ch for caller c and compares them with its answers
// (compare); it also returns the number of matches.
func checkChain(t *testing.T, ch chain, c *compiler.Caller) (string, int) {
	w := loadWorld(t)
	rd := readableFor(t, c)
	copies := func(e walkEdge) int {
		n := 0
		for _, p := range w.edgePaths[edgeID{e.srcKind, e.src, e.tgtKind, e.tgt, e.rel}] {
			if c.Admin || under(p, c.PathsAtLeast(10)) {
				n++
			}
		}
		return n
	}
	ms := ch.matches(rd, copies)
	return ch.compare(t, ms, c), len(ms)
}

// compare runs ch as a traversal and, without a direction both, as an aggregation (count
// of c per a) for caller c, and compares the nodes, edges and counts with its matches ms.
func (ch chain) compare(t *testing.T, ms []chainMatch, c *compiler.Caller) string {
	q := ch.query("traversal")
	got, err := tryRun(t, q, c)
	if err != nil {
		return q + ": " + err.Error()
	}
	if !got.Pagination.HasMore {
		wantNodes, wantEdges := map[walkNode]bool{}, map[walkEdge]bool{}
		for _, m := range ms {
			for _, n := range m.nodes {
				wantNodes[n] = true
			}
			for _, e := range m.edges {
				wantEdges[e] = true
			}
		}
		gotNodes := map[walkNode]bool{}
		for _, n := range got.Nodes {
			gotNodes[walkNode{n.Type, n.ID}] = true
		}
		if diff := cmp.Diff(wantNodes, gotNodes); diff != "" {
			return fmt.Sprintf("%s for admin=%v %+v: nodes (-want +got):\n%s", q, c.Admin, c.Scopes, diff)
		}
		if diff := cmp.Diff(wantEdges, gotNeighbors(got)); diff != "" {
			return fmt.Sprintf("%s for admin=%v %+v: edges (-want +got):\n%s", q, c.Admin, c.Scopes, diff)
		}
	}
	if ch.hops[0].direction == "both" || ch.hops[1].direction == "both" {
		return "" // aggregations allow only outgoing or incoming relationships
	}
	q = ch.query("aggregation")
	got, err = tryRun(t, q, c)
	if err != nil {
		if errors.Is(err, compiler.ErrGlobalNodeUnscoped) && !c.Admin {
			return "" // a non-admin aggregates global nodes only through namespaced ones
		}
		return q + ": " + err.Error()
	}
	if got.Pagination.HasMore {
		return ""
	}
	want := map[string]int64{}
	for _, m := range ms {
		want[fmt.Sprint(m.nodes[0].id)]++
	}
	if diff := cmp.Diff(want, gotCounts(got, "count_c")); diff != "" {
		return fmt.Sprintf("%s for admin=%v %+v: counts (-want +got):\n%s", q, c.Admin, c.Scopes, diff)
	}
	return ""
}

// TestAuthorizationChains: chains of two fixed hops over any relationships, with node_ids or
// an id_range on one or two nodes (so the join tree starts at any of them, edge scans are
// bounded by constant ids and far nodes are narrowed or, as leaves, read whole), must give
// exactly the rows of the joins over the caller's readable nodes and edges, as a traversal
// (nodes and edges) and as an aggregation (count of c per a), with both SQL shapes (tryRun).
// GRAPHWIRE_PROP_CASES sets the number of cases, GRAPHWIRE_PROP_SEED the seed.
func TestAuthorizationChains(t *testing.T) {
	w := loadWorld(t)
	params := propParameters(t, 20261125, 30)
	params.MaxShrinkCount = 20
	props := gopter.NewProperties(params)
	genScope, genWideScope := scopeGens(w, 10, 20, 25, 30)
	genCaller := gopter.CombineGens(gen.SliceOfN(3, gen.OneGenOf(genScope, genWideScope)), gen.IntRange(0, 5)).Map(func(v []any) *compiler.Caller {
		switch v[1].(int) {
		case 0:
			return admin
		case 1:
			return callerWith()
		}
		return callerWith(v[0].([]scopeSpec)...)
	})
	withRows := 0
	props.Property("chains of fixed hops give the readable joins", prop.ForAll(
		func(c *compiler.Caller, choices []int) string {
			ch, ok := randomChain(choices)
			if !ok {
				return ""
			}
			msg, rows := checkChain(t, ch, c)
			if rows > 0 {
				withRows++
			}
			return msg
		},
		genCaller,
		gen.SliceOfN(17, gen.IntRange(0, 1<<20)),
	))
	props.TestingRun(t)
	if withRows == 0 {
		t.Fatal("no chain had a row the caller may read: the property compared nothing")
	}
	t.Logf("%d chains had rows the caller may read", withRows)
}
