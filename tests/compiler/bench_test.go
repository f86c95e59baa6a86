package compilertest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/cputime"
)

// benchQueries is one query per query type, shaped for the seeded graph.
var benchQueries = []struct{ name, query string }{
	{"search", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","title":{"contains":"fix"}},"columns":["iid","title","merged_at"]}],"order_by":"-mr.merged_at","limit":50}`},
	{"traversal", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"mr","entity":"MergeRequest","columns":["iid","title"]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`},
	{"variable_length", `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project","columns":["full_path"]}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}],"limit":100}`},
	{"aggregation", `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project","columns":["name"]}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p",{"key":"pl.created_at","truncate":"month"}],"aggregations":[{"count":"pl"},{"avg":"pl.duration"}],"aggregation_sort":"-count_pl","limit":50}`},
	{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":50}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":20}`},
	{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]}],"neighbors":{"direction":"both"},"limit":50}`},
}

// BenchmarkEndToEnd runs each query type on the seeded graph (GRAPHWIRE_SEED_SCALE=10 for
// the scale-10 figures) and reports the time of each stage per query: compile, execute
// (base and hydration statements), build and format (GOON), and the service's own share of
// the total (everything but execute).
func BenchmarkEndToEnd(b *testing.B) {
	e := engine(b)
	goon, err := formatter.Default().Select(formatter.LLM, formatter.GOON)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, bq := range benchQueries {
		b.Run(bq.name, func(b *testing.B) {
			var compileT, execT, buildT, formatT time.Duration
			var out bytes.Buffer
			for b.Loop() {
				t0 := time.Now()
				q, err := env.sized.Compile([]byte(bq.query), admin) // with the graph's table sizes, as serve compiles
				if err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				base, err := executor.CollectRows(ctx, e, q)
				if err != nil {
					b.Fatal(err)
				}
				var hyd *graphresponse.Rows
				var hydCompile time.Duration
				if q.Plan.NeedsHydration() {
					h0 := time.Now()
					refs, err := q.Plan.Build.NodeRefs(base)
					if err != nil {
						b.Fatal(err)
					}
					hq, err := env.sized.Hydrate(q, refs)
					if err != nil {
						b.Fatal(err)
					}
					hydCompile = time.Since(h0)
					hyd = &graphresponse.Rows{}
					if hq != nil {
						h, err := executor.CollectRows(ctx, e, hq)
						if err != nil {
							b.Fatal(err)
						}
						hyd = &h
					}
				}
				t2 := time.Now()
				resp, err := graphresponse.Build(q.Plan.Build, base, hyd)
				if err != nil {
					b.Fatal(err)
				}
				t3 := time.Now()
				out.Reset()
				if err := goon.Format(&out, resp); err != nil {
					b.Fatal(err)
				}
				t4 := time.Now()
				compileT += t1.Sub(t0) + hydCompile
				execT += t2.Sub(t1) - hydCompile
				buildT += t3.Sub(t2)
				formatT += t4.Sub(t3)
			}
			n := float64(b.N)
			total := compileT + execT + buildT + formatT
			b.ReportMetric(float64(compileT.Nanoseconds())/n, "compile-ns/op")
			b.ReportMetric(float64(execT.Nanoseconds())/n, "execute-ns/op")
			b.ReportMetric(float64(buildT.Nanoseconds())/n, "build-ns/op")
			b.ReportMetric(float64(formatT.Nanoseconds())/n, "format-ns/op")
			b.ReportMetric(100*float64(total-execT)/float64(total), "overhead-%")
		})
	}
}

// scopeCaller returns a caller with n scopes at Developer level: the group and project paths
// of the seeded graph (as many as fit), then children of those paths (covered by them, so
// redundant) and paths of namespaces that do not exist, in a fixed shuffled order.
func scopeCaller(w *world, n int) *compiler.Caller {
	c := &compiler.Caller{Subject: "7"}
	add := func(p string) {
		if len(c.Scopes) < n {
			c.Scopes = append(c.Scopes, compiler.Scope{Path: p, Level: 30})
		}
	}
	for _, p := range w.paths {
		add(p)
	}
	for i := 0; len(c.Scopes) < n; i++ {
		if i%4 == 0 {
			add(w.paths[i%len(w.paths)] + strconv.Itoa(900000+i) + "/") // covered by its parent
		} else {
			add(strconv.Itoa(800000+i) + "/" + strconv.Itoa(i%97+1) + "/") // no such namespace
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(c.Scopes), func(i, j int) { c.Scopes[i], c.Scopes[j] = c.Scopes[j], c.Scopes[i] })
	return c
}

// BenchmarkScopeCount runs a neighbors query and a two-hop traversal for callers with 1,
// 100, 1 000 and 10 000 scopes (the documented maximum) on the seeded graph: compile,
// execute (with hydration) and build. Run it on the scale-1 graph with
// GRAPHWIRE_SEED_SCALE=1.
func BenchmarkScopeCount(b *testing.B) {
	w := loadWorld(b)
	queries := []struct{ name, query string }{
		{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":50}}],"neighbors":{"direction":"both"},"limit":100}`},
		{"traversal", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"mr","entity":"MergeRequest"},{"id":"p","entity":"Project"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"limit":100}`},
	}
	for _, q := range queries {
		for _, n := range []int{1, 100, 1000, 10000} {
			caller := scopeCaller(w, n)
			b.Run(fmt.Sprintf("%s/scopes=%d", q.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := tryRun(b, q.query, caller); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSizedShapes runs each benchQueries query as compiled without table sizes (every
// far node narrowed to its hop) and with the seeded graph's sizes (small leaves read whole,
// what serve runs), interleaved in one process, checks that both return the same rows, and
// reports each one's median process CPU time and wall time of the base statement and their
// ratios (sized ÷ unsized). Queries whose two statements are the same are skipped.
//
//	GRAPHWIRE_SEED_SCALE=100 go test ./tests/compiler -run '^$' -bench BenchmarkSizedShapes -benchtime 9x -timeout 30m
func BenchmarkSizedShapes(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	for _, bq := range benchQueries {
		plain, err := env.compiler.Compile([]byte(bq.query), admin)
		if err != nil {
			b.Fatal(err)
		}
		sized, err := env.sized.Compile([]byte(bq.query), admin)
		if err != nil {
			b.Fatal(err)
		}
		if plain.SQL == sized.SQL {
			continue
		}
		b.Run(bq.name, func(b *testing.B) {
			measure := func(q *compiler.Query) (cpu, wall time.Duration, rows graphresponse.Rows) {
				c0, _ := cputime.Process()
				t0 := time.Now()
				rows, err := executor.CollectRows(ctx, e, q)
				if err != nil {
					b.Fatal(err)
				}
				c1, _ := cputime.Process()
				return c1 - c0, time.Since(t0), rows
			}
			_, _, a := measure(plain) // warm-up, and the equality check
			_, _, s := measure(sized)
			if fmt.Sprint(a.Values) != fmt.Sprint(s.Values) {
				b.Fatalf("the sized statement returns other rows:\nunsized %v\nsized   %v", a.Values, s.Values)
			}
			var pc, sc, pw, sw []time.Duration
			for b.Loop() {
				c, w, _ := measure(plain)
				pc, pw = append(pc, c), append(pw, w)
				c, w, _ = measure(sized)
				sc, sw = append(sc, c), append(sw, w)
			}
			ms := func(d []time.Duration) float64 { return float64(median(d).Microseconds()) / 1000 }
			b.ReportMetric(ms(pc), "unsized-cpu-ms")
			b.ReportMetric(ms(sc), "sized-cpu-ms")
			b.ReportMetric(ms(sc)/ms(pc), "cpu-ratio")
			b.ReportMetric(ms(pw), "unsized-ms")
			b.ReportMetric(ms(sw), "sized-ms")
			b.ReportMetric(ms(sw)/ms(pw), "ratio")
		})
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadtestQueries are the six queries of scripts/loadtest (scripts/loadtest/main.go).
var loadtestQueries = []struct{ name, query string }{
	{"user_by_name", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`},
	{"member_of", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"limit":10}`},
	{"mr_by_state", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"}]}`},
	{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":3}`},
	{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"both"},"limit":8}`},
	{"merged_mrs", `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","filters":{"state":"merged"}}],"limit":50}`},
}

// BenchmarkLoadtestMix runs each query of scripts/loadtest through the pipeline as serve
// does (compiled with the graph's table sizes, base and hydration statements, the response
// built, path_finding and neighbors on serve's edge cache) and reports the median process CPU and wall time
// per request, with the number of statements, and logs a SHA-256 of the answer so two
// commits' answers can be compared, and what the first request (a cold cache) cost. Run it on
// the scale-1 graph of the load test:
//
//	GRAPHWIRE_SEED_SCALE=1 go test ./tests/compiler -run '^$' -bench BenchmarkLoadtestMix -benchtime 15x
func BenchmarkLoadtestMix(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	for _, lq := range loadtestQueries {
		b.Run(lq.name, func(b *testing.B) {
			cache, err := executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: 128 << 20, Generation: func() uint64 { return 0 }})
			if err != nil {
				b.Fatal(err)
			}
			var cpu, wall []time.Duration
			var stmts int
			var sum [32]byte
			for b.Loop() {
				c0, _ := cputime.Process()
				t0 := time.Now()
				q, err := env.sized.Compile([]byte(lq.query), admin)
				if err != nil {
					b.Fatal(err)
				}
				resp, ex, err := executor.RespondWith(ctx, e, env.sized, q, executor.RespondOptions{Edges: cache})
				if err != nil {
					b.Fatal(err)
				}
				c1, _ := cputime.Process()
				cpu, wall = append(cpu, c1-c0), append(wall, time.Since(t0))
				stmts = len(ex.Statements)
				js := answerBytes(resp)
				sum = sha256.Sum256(js)
			}
			ms := func(d []time.Duration) float64 { return float64(median(d).Microseconds()) / 1000 }
			b.ReportMetric(ms(cpu), "cpu-ms")
			b.ReportMetric(ms(wall), "wall-ms")
			b.ReportMetric(float64(stmts), "statements")
			b.Logf("%s: answer sha256 %x", lq.name, sum[:8])
			if s := cache.Stats(); s.Builds > 0 {
				b.Logf("%s: first request (cold edge cache) %.1f ms CPU, %.1f ms wall; %d edge sets, %d bytes",
					lq.name, float64(cpu[0].Microseconds())/1000, float64(wall[0].Microseconds())/1000, s.Entries, s.Bytes)
			}
		})
	}
}

// noScreen withholds nothing; a screen makes the two-step lookup leave out the hydration
// columns, so that the page is hydrated by a third statement.
type noScreen struct{}

func (noScreen) Screen(context.Context, *graphresponse.BuildPlan, *graphresponse.Rows) error {
	return nil
}

// BenchmarkNeighborsPlans compares, on the neighbors query of the load test and on a scoped
// caller's, the one-statement form, the two-step plan whose lookup also hydrates (what
// executor.Respond runs) and the two-step plan with a hydration statement of its own. Each
// reports the median process CPU and wall time per request and checks the answers are equal.
//
//	GRAPHWIRE_SEED_SCALE=1 go test ./tests/compiler -run '^$' -bench BenchmarkNeighborsPlans -benchtime 15x
func BenchmarkNeighborsPlans(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	query := loadtestQueries[4].query
	// The scoped caller reads the namespace of the center (MergeRequest 2) at developer level.
	top, _, _ := strings.Cut(loadWorld(b).nodePath["MergeRequest"][2], "/")
	callers := []struct {
		name   string
		caller *compiler.Caller
	}{{"admin", admin}, {"scoped", callerWith(scopeSpec{top + "/", 30})}}
	for _, c := range callers {
		q, err := env.sized.Compile([]byte(query), c.caller)
		if err != nil {
			b.Fatal(err)
		}
		one := *q
		one.Plan = q.Plan.OneStatement()
		plans := []struct {
			name string
			q    *compiler.Query
			s    executor.Screen
		}{{"one-statement", &one, nil}, {"two-step-folded", q, nil}, {"two-step-3-statements", q, noScreen{}}}
		var first []byte
		for _, p := range plans {
			b.Run(c.name+"/"+p.name, func(b *testing.B) {
				var cpu, wall []time.Duration
				var stmts int
				var js []byte
				for b.Loop() {
					c0, _ := cputime.Process()
					t0 := time.Now()
					resp, ex, err := executor.RespondScreened(ctx, e, env.sized, p.q, p.s)
					if err != nil {
						b.Fatal(err)
					}
					c1, _ := cputime.Process()
					cpu, wall = append(cpu, c1-c0), append(wall, time.Since(t0))
					stmts = len(ex.Statements)
					js = answerBytes(resp)
				}
				if first == nil {
					first = js
				} else if !bytes.Equal(first, js) {
					b.Fatalf("%s answers differently from the one-statement form", p.name)
				}
				ms := func(d []time.Duration) float64 { return float64(median(d).Microseconds()) / 1000 }
				b.ReportMetric(ms(cpu), "cpu-ms")
				b.ReportMetric(ms(wall), "wall-ms")
				b.ReportMetric(float64(stmts), "statements")
			})
		}
	}
}
