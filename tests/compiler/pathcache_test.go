package compilertest_test

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// stepAnswer is q's answer from the plan in steps, without a cache.
func stepAnswer(t *testing.T, q *compiler.Query) []byte {
	t.Helper()
	resp, _, err := executor.Respond(context.Background(), engine(t), env.compiler, q)
	if err != nil {
		t.Fatal(err)
	}
	return answerBytes(resp)
}

// cachedAnswer is q's answer on cache, and whether it read edge sets and whether it fell back
// to the plan in steps.
func cachedAnswer(t *testing.T, r executor.Runner, cache *executor.EdgeCache, q *compiler.Query) (answer []byte, read, fellBack bool) {
	_, answer, read, fellBack = cachedResponse(t, r, cache, q)
	return answer, read, fellBack
}

func cachedResponse(t *testing.T, r executor.Runner, cache *executor.EdgeCache, q *compiler.Query) (_ *graphresponse.Response, answer []byte, read, fellBack bool) {
	t.Helper()
	resp, ex, err := executor.RespondWith(context.Background(), r, env.compiler, q, executor.RespondOptions{Edges: cache})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ex.Statements {
		read = read || s.Label == executor.LabelEdges
		fellBack = fellBack || s.Query == q.Plan.Edges()
	}
	return resp, answerBytes(resp), read, fellBack
}

func newCache(t *testing.T, maxBytes int64, gen func() uint64) *executor.EdgeCache {
	t.Helper()
	c, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: maxBytes, Generation: gen})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEdgeCacheKeepsCallersApart: callers with other scopes, and with the same scope at other
// levels, take turns on one edge cache (docs/compiler.md, "Path finding on cached edges"):
// each gets exactly its own answer from the plan in steps, though their answers differ.
func TestEdgeCacheKeepsCallersApart(t *testing.T) {
	e := engine(t)
	w := loadWorld(t)
	callers := []*compiler.Caller{
		callerWith(scopeSpec{"1/", 30}),
		callerWith(scopeSpec{"1/", 10}), // the same path, a lower level
		callerWith(scopeSpec{"2/", 30}),
		admin,
	}
	// A user whose answers differ between every pair of these callers, as far as the seeded
	// graph allows: the first with the most distinct answers.
	var best []*compiler.Query
	bestDistinct := 0
	for _, u := range slices.Sorted(maps.Keys(w.nodePath["User"]))[:40] {
		var qs []*compiler.Query
		distinct := map[string]bool{}
		for _, c := range callers {
			q, err := env.compiler.Compile([]byte(pathQuery(u)), c)
			if err != nil {
				t.Fatal(err)
			}
			qs = append(qs, q)
			distinct[string(stepAnswer(t, q))] = true
		}
		if len(distinct) > bestDistinct {
			best, bestDistinct = qs, len(distinct)
		}
		if bestDistinct == len(callers) {
			break
		}
	}
	if bestDistinct < 3 {
		t.Fatalf("no user whose paths differ for at least 3 of the callers (best %d): the test would prove nothing", bestDistinct)
	}
	cache := newCache(t, 64<<20, func() uint64 { return 0 })
	for round := range 2 {
		for i, q := range best {
			got, read, fellBack := cachedAnswer(t, e, cache, q)
			if fellBack {
				t.Fatalf("round %d, caller %d: fell back to the plan in steps", round, i)
			}
			if read != (round == 0) {
				t.Errorf("round %d, caller %d: edge sets read %v", round, i, read)
			}
			if want := stepAnswer(t, best[i]); !bytes.Equal(got, want) {
				t.Errorf("round %d, caller %d: answer on the shared cache differs from its own:\ncache: %s\nsteps: %s", round, i, got, want)
			}
		}
	}
	if s := cache.Stats(); s.Entries != len(callers)*len(best[0].Plan.PathCachePairs()) {
		t.Errorf("%d entries, want one per caller and pair (%d)", s.Entries, len(callers)*len(best[0].Plan.PathCachePairs()))
	}
}

// writeRunner runs statements on an engine and, once the first statement that reads the edge
// set of MEMBER_OF (a cache's build) has read its rows, calls write once, before the rows are
// returned: a write that starts and ends while the set is read.
type writeRunner struct {
	executor.Runner
	write func()
	once  atomic.Bool
}

func (w *writeRunner) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	memberOf := slices.ContainsFunc(q.Params, func(p compiler.Param) bool { return p.Value == "MEMBER_OF" })
	if !strings.Contains(q.SQL, " es AS (") || !memberOf || !w.once.CompareAndSwap(false, true) {
		return w.Runner.Run(ctx, q)
	}
	rows, err := executor.CollectRows(ctx, w.Runner, q)
	if err != nil {
		return nil, err
	}
	w.write()
	var cols []executor.Column
	for _, c := range rows.Columns {
		cols = append(cols, executor.Column{Name: c})
	}
	return executor.SliceRows(cols, rows.Values, executor.Stats{}), nil
}

// TestEdgeCacheSeesWrites: an answer on the edge cache follows a write once the generation
// moves: a new edge is found, a tombstoned one is gone; a write during an edge set's read
// leaves nothing in the cache; and a cache too small for a set falls back to the plan in
// steps, with the same answer.
// It runs for path_finding and for neighbors (docs/compiler.md, "Neighbors on cached edges").
func TestEdgeCacheSeesWrites(t *testing.T) {
	for _, tc := range []struct {
		name  string
		user  int64
		query func(user int64) string
	}{
		{"path_finding", 5370000, pathQuery},
		{"neighbors", 5380000, func(user int64) string {
			return `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[` + strconv.FormatInt(user, 10) + `]}],"neighbors":{"direction":"outgoing","rel_types":["MEMBER_OF"]},"limit":20}`
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { edgeCacheSeesWrites(t, tc.user, tc.query(tc.user)) })
	}
}

func edgeCacheSeesWrites(t *testing.T, user int64, dsl string) {
	e := engine(t)
	ctx := context.Background()
	ucols := []string{"id", "username", "_version", "_deleted"}
	ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
	edge := func(project, version int64, deleted bool) []any {
		return []any{"1/", "MEMBER_OF", "User", user, "Project", project, version, deleted}
	}
	insert := func(table string, cols []string, rows ...[]any) {
		t.Helper()
		if err := e.Insert(ctx, table, cols, rows); err != nil {
			t.Fatal(err)
		}
	}
	insert("gl_user", ucols, []any{user, "cached", int64(1), false})
	insert("gl_edge", ecols, edge(1, 1, false))
	t.Cleanup(func() {
		_ = e.Insert(ctx, "gl_edge", ecols, [][]any{edge(1, 9, true), edge(2, 9, true)})
		_ = e.Insert(ctx, "gl_user", ucols, [][]any{{user, "cached", int64(9), true}})
	})
	var gen atomic.Uint64
	cache := newCache(t, 64<<20, gen.Load)
	q, err := env.compiler.Compile([]byte(dsl), admin)
	if err != nil {
		t.Fatal(err)
	}
	ends := func(resp *graphresponse.Response) []int64 {
		var out []int64
		for _, ed := range resp.Edges {
			if ed.FromID == user {
				out = append(out, ed.ToID)
			}
		}
		slices.Sort(out)
		return out
	}
	check := func(what string, r executor.Runner, wantRead, wantFallBack bool, want []int64) {
		t.Helper()
		resp, got, read, fellBack := cachedResponse(t, r, cache, q)
		if read != wantRead || fellBack != wantFallBack {
			t.Errorf("%s: edge sets read %v (want %v), fell back %v (want %v)", what, read, wantRead, fellBack, wantFallBack)
		}
		if steps := stepAnswer(t, q); !bytes.Equal(got, steps) {
			t.Errorf("%s: answer differs from the plan in steps:\ncache: %s\nsteps: %s", what, got, steps)
		}
		if g := ends(resp); !slices.Equal(g, want) {
			t.Errorf("%s: the user's edges end at %v, want %v", what, g, want)
		}
	}
	check("cold", e, true, false, []int64{1})
	check("warm", e, false, false, []int64{1})
	// A write: a new edge, the old one tombstoned; the writer's generation moves twice.
	gen.Add(1)
	insert("gl_edge", ecols, edge(1, 2, true), edge(2, 1, false))
	gen.Add(1)
	check("after a write", e, true, false, []int64{2})
	// A write that starts and ends while the set is read: the request does not use the
	// rows read before it (it runs the plan in steps), nor are they kept, so the next request
	// reads again, and sees the write.
	raced := &writeRunner{Runner: e, write: func() {
		gen.Add(1)
		insert("gl_edge", ecols, edge(2, 2, true), edge(1, 3, false))
		gen.Add(1)
	}}
	gen.Add(2) // a write with nothing in it, so that the cache misses
	check("the raced request", raced, true, true, []int64{1})
	if !raced.once.Load() {
		t.Fatal("the raced request read no edge set")
	}
	check("after the raced read", e, true, false, []int64{1})
	// A cache too small for the set: the plan in steps answers, the same.
	small := newCache(t, 1024, gen.Load)
	sg, sRead, sFell := cachedAnswer(t, e, small, q)
	if !sRead || !sFell {
		t.Errorf("too small a cache: read %v, fell back %v; want both", sRead, sFell)
	}
	if steps := stepAnswer(t, q); !bytes.Equal(sg, steps) {
		t.Errorf("too small a cache: answer differs:\ncache: %s\nsteps: %s", sg, steps)
	}
}

// limitRunner runs every edge set's read (a cache's build) with max_rows_to_read = 1, so that
// the engine refuses it (TOO_MANY_ROWS, a resource limit), and the other statements as they
// are.
type limitRunner struct {
	executor.Runner
	refused atomic.Int64
}

func (l *limitRunner) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	if !strings.Contains(q.SQL, " es AS (") {
		return l.Runner.Run(ctx, q)
	}
	l.refused.Add(1)
	limited := *q
	limited.Settings = append(slices.Clone(q.Settings), compiler.Setting{Key: "max_rows_to_read", Value: int64(1)})
	return l.Runner.Run(ctx, &limited)
}

// TestEdgeSetOverLimitFallsBack: an edge set whose read an engine limit stops (memory, rows
// read) does not fail the question: it runs its own statements, which read less, and answers
// as without a cache; the set is remembered as too large, so the next question does not read
// it again at this generation.
func TestEdgeSetOverLimitFallsBack(t *testing.T) {
	w := loadWorld(t)
	user := slices.Sorted(maps.Keys(w.nodePath["User"]))[0]
	q, err := env.compiler.Compile([]byte(pathQuery(user)), admin)
	if err != nil {
		t.Fatal(err)
	}
	want := stepAnswer(t, q)
	cache := newCache(t, 64<<20, func() uint64 { return 2 })
	r := &limitRunner{Runner: engine(t)}
	for round := range 2 {
		got, _, fellBack := cachedAnswer(t, r, cache, q)
		if !fellBack {
			t.Errorf("round %d: answered on edge sets the engine refused to read", round)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("round %d: answer differs from the plan in steps:\ngot:  %s\nwant: %s", round, got, want)
		}
	}
	if n := r.refused.Load(); n == 0 || int(n) > len(q.Plan.PathCachePairs()) {
		t.Errorf("%d edge set reads refused, want between 1 and one per pair (%d): the second question read them again", n, len(q.Plan.PathCachePairs()))
	}
	if s := cache.Stats(); s.TooBig == 0 {
		t.Errorf("stats %+v: no set remembered as too large", s)
	}
}
