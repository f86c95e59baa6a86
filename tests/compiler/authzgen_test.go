package compilertest_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// propParameters are the gopter parameters of a randomized authorization property: the
// seed is seed, or GRAPHWIRE_PROP_SEED to replay a run; the number of cases is cases, or
// GRAPHWIRE_PROP_CASES for a long adversarial run (for example 2000), or a third under -short.
func propParameters(t *testing.T, seed int64, cases int) *gopter.TestParameters {
	if s := os.Getenv("GRAPHWIRE_PROP_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GRAPHWIRE_PROP_SEED: %v", err)
		}
		seed = n
	}
	if s := os.Getenv("GRAPHWIRE_PROP_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("GRAPHWIRE_PROP_CASES=%q: want a positive integer", s)
		}
		cases = n
	} else if testing.Short() {
		cases = max(1, cases/3)
	}
	params := gopter.DefaultTestParametersWithSeed(seed)
	params.MinSuccessfulTests = cases
	return params
}

// scopeGens generates the scopes of random callers: scope is any group or project path of w
// at any level; wide is a top-level group at one of wideLevels.
func scopeGens(w *world, wideLevels ...int) (scope, wide gopter.Gen) {
	scope = gopter.CombineGens(gen.IntRange(0, len(w.paths)-1), gen.IntRange(0, len(levels)-1)).Map(func(v []any) scopeSpec {
		return scopeSpec{w.paths[v[0].(int)], levels[v[1].(int)]}
	})
	top := topLevel(w)
	levelGen := make([]any, len(wideLevels))
	for i, l := range wideLevels {
		levelGen[i] = l
	}
	wide = gopter.CombineGens(gen.IntRange(0, len(top)-1), gen.OneConstOf(levelGen...)).Map(func(v []any) scopeSpec {
		return scopeSpec{top[v[0].(int)], v[1].(int)}
	})
	return scope, wide
}

// storedEdges lists the seeded graph's edges of declared pairs, sorted by their printed form,
// once. Each edge is printed once, not in every comparison.
var storedEdges = sync.OnceValue(func() []edgeID {
	var out []edgeID
	printed := map[edgeID]string{}
	for k := range theWorld.edgePaths {
		if declared(walkEdge{k.From, k.FromID, k.To, k.ToID, k.Type}) {
			out = append(out, k)
			printed[k] = fmt.Sprint(k)
		}
	}
	slices.SortFunc(out, func(a, b edgeID) int { return strings.Compare(printed[a], printed[b]) })
	return out
})

// randomShape turns random integers into a walk shape over the whole ontology that the
// seeded data can satisfy: it follows 1..3 stored edges from a random stored edge (forward,
// backward or either way, which sets the direction), takes the relationship types used, a
// hop range around the walk's length, and an id range on the start (or the end) node that
// holds the walk's first (or last) node. Every entity, relationship and access floor with
// data can appear, the code-graph, security and CI entities among them. It also returns the
// low end of the id range.
func randomShape(choices []int, rangeOnFrom bool) (walkShape, int64) {
	pick := func(i, n int) int { return choices[i%len(choices)] % n }
	edges := storedEdges()
	dir := []string{"outgoing", "incoming", "both"}[pick(0, 3)]
	e := edges[pick(1, len(edges))]
	type node struct {
		kind string
		id   int64
	}
	first, cur := node{e.From, e.FromID}, node{e.To, e.ToID}
	if dir == "incoming" {
		first, cur = cur, first
	}
	types := []string{e.Type}
	n := 1
	for i := 1; i < pick(2, 3)+1; i++ {
		var next []edgeID
		for _, x := range edges {
			if (dir != "incoming" && x.From == cur.kind && x.FromID == cur.id) || (dir != "outgoing" && x.To == cur.kind && x.ToID == cur.id) {
				next = append(next, x)
			}
		}
		if len(next) == 0 {
			break
		}
		x := next[pick(3+i, len(next))]
		if x.From == cur.kind && x.FromID == cur.id && dir != "incoming" {
			cur = node{x.To, x.ToID}
		} else {
			cur = node{x.From, x.FromID}
		}
		if !slices.Contains(types, x.Type) {
			types = append(types, x.Type)
		}
		n++
	}
	slices.Sort(types)
	lo := pick(6, n) + 1
	hi := n + pick(7, 4-n)
	width := []int64{1, 5, 40}[pick(8, 3)]
	at := cur.id
	if rangeOnFrom {
		at = first.id
	}
	start := max(1, at-int64(pick(9, int(width))))
	return walkShape{from: first.kind, to: cur.kind, types: types, direction: dir, min: lo, max: hi, width: width}, start
}

// neighbors lists what a neighbors query on kind with ids ids, direction dir and types
// (nil: all) should answer for a caller who reads rd: every readable edge of those types at a
// readable center whose other end is readable.
func (rd *readable) neighbors(kind string, ids func(int64) bool, dir string, types []string) map[walkEdge]bool {
	out := map[walkEdge]bool{}
	for _, e := range rd.edges {
		if (types != nil && !slices.Contains(types, e.rel)) || !declared(e) {
			continue
		}
		if dir != "incoming" && e.srcKind == kind && ids(e.src) && rd.nodes[kind][e.src] && rd.nodes[e.tgtKind][e.tgt] {
			out[e] = true
		}
		if dir != "outgoing" && e.tgtKind == kind && ids(e.tgt) && rd.nodes[kind][e.tgt] && rd.nodes[e.srcKind][e.src] {
			out[e] = true
		}
	}
	return out
}

// declared reports whether the ontology declares e's (relationship, source, target) pair.
// The compiler never returns a stored edge whose pair is undeclared, so the oracles leave
// such edges out too (the seed writes none: seed's TestEdgesAreDeclaredPairs).
func declared(e walkEdge) bool {
	r, ok := env.ont.Relationship(e.rel)
	if !ok {
		return false
	}
	for _, p := range r.Pairs {
		if p.From == e.srcKind && p.To == e.tgtKind {
			return true
		}
	}
	return false
}

// gotNeighbors reads the edges of a neighbors answer, each as stored.
func gotNeighbors(r *graphresponse.Response) map[walkEdge]bool {
	out := map[walkEdge]bool{}
	for _, e := range r.Edges {
		out[walkEdge{e.From, e.FromID, e.To, e.ToID, e.Type}] = true
	}
	return out
}

// checkNeighbors runs a neighbors query on ids lo..lo+width-1 of kind for caller c and
// compares its edges with those over c's readable nodes and edges.
// With ordered, the query is ordered by the centers' ids, descending, which joins the
// centers' set instead of looking their ids up.
func checkNeighbors(t *testing.T, c *compiler.Caller, kind, dir string, types []string, lo, width int64, ordered bool) string {
	rel := ""
	if types != nil {
		rel = `,"rel_types":` + jsonStrings(types)
	}
	order := ""
	if ordered {
		order = `,"order_by":"-c.id"`
	}
	q := fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"c","entity":%q,"id_range":{"start":%d,"end":%d}}],"neighbors":{"direction":%q%s}%s,"limit":1000}`,
		kind, lo, lo+width-1, dir, rel, order)
	got, err := tryRun(t, q, c)
	if err != nil {
		return q + ": " + err.Error()
	}
	if got.Pagination.HasMore {
		return ""
	}
	want := readableFor(t, c).neighbors(kind, idRange(true, lo, width), dir, types)
	if diff := cmp.Diff(want, gotNeighbors(got)); diff != "" {
		return fmt.Sprintf("%s for admin=%v %+v: neighbors (-want +got):\n%s", q, c.Admin, c.Scopes, diff)
	}
	return ""
}

// checkPathShape runs path finding along s (forward, up to s.max edges) from the ids
// lo..lo+width-1 of s.from to the ids 1..400 of s.to for caller c (checkPaths). Both ends
// stay under the 500 anchor nodes an end may stand for.
func checkPathShape(t *testing.T, s walkShape, c *compiler.Caller, lo int64) string {
	s.min = 1
	return checkPaths(t, s, c, rangeEnd(lo, s.width), rangeEnd(1, 400))
}

// TestAuthorizationOverTheOntology extends TestAuthorizationProperty to the whole ontology:
// random variable-length walks (traversal and aggregation) through any chain of
// relationships, and neighbors of any entity, must equal exactly what plain SQL over the
// caller's readable nodes and edges gives, for random callers (several scopes at random
// levels and paths, wide Reporter/Developer scopes, no scope at all, administrators).
// GRAPHWIRE_PROP_CASES sets the number of cases, GRAPHWIRE_PROP_SEED the seed.
func TestAuthorizationOverTheOntology(t *testing.T) {
	w := loadWorld(t)
	params := propParameters(t, 20261124, 20)
	params.MaxShrinkCount = 20 // each shrink step runs queries; keep a failure's report quick
	props := gopter.NewProperties(params)
	genScope, genWideScope := scopeGens(w, 10, 20, 25, 30)
	// Callers: an administrator, a token without scopes, three random scopes, or twenty
	// (more than the compiler writes as an OR of startsWith, so its grouped-by-length form
	// of the scope predicate runs too).
	genCaller := gopter.CombineGens(gen.SliceOfN(20, gen.OneGenOf(genScope, genWideScope)), gen.IntRange(0, 9)).Map(func(v []any) *compiler.Caller {
		scopes := v[0].([]scopeSpec)
		switch v[1].(int) {
		case 0:
			return admin
		case 1:
			return callerWith()
		case 2, 3, 4:
			return callerWith(scopes...)
		}
		return callerWith(scopes[:3]...)
	})
	props.Property("walks over any relationships pass only through readable nodes", prop.ForAll(
		func(c *compiler.Caller, choices []int, rangeOnFrom bool) string {
			s, lo := randomShape(choices, rangeOnFrom)
			return checkWalks(t, s, c, rangeOnFrom, lo)
		},
		genCaller,
		gen.SliceOfN(10, gen.IntRange(0, 1<<20)),
		gen.Bool(),
	))
	props.Property("paths over any relationships pass only through readable nodes", prop.ForAll(
		func(c *compiler.Caller, choices []int) string {
			s, lo := randomShape(append([]int{0}, choices[1:]...), true) // path finding follows edges forward
			return checkPathShape(t, s, c, lo)
		},
		genCaller,
		gen.SliceOfN(10, gen.IntRange(0, 1<<20)),
	))
	props.Property("neighbors of any entity are the readable neighbours", prop.ForAll(
		func(c *compiler.Caller, ei, dir, rel, lo int) string {
			e := env.ont.Entities[ei%len(env.ont.Entities)]
			var types []string
			if rel%3 != 0 { // one random type, or all of them
				types = []string{env.ont.Relationships[rel%len(env.ont.Relationships)].Name}
			}
			return checkNeighbors(t, c, e.Name, []string{"outgoing", "incoming", "both"}[dir%3], types, int64(lo), 30, lo%2 == 1)
		},
		genCaller,
		gen.IntRange(0, 1000),
		gen.IntRange(0, 2),
		gen.IntRange(0, 1000),
		gen.IntRange(1, 200),
	))
	props.TestingRun(t)
}
