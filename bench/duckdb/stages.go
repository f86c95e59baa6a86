package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// The stage breakdown (docs/duckdb.md, "Where graphwire's time goes"): for each statement
// executor.Respond runs, the CPU and wall of EXPLAIN AST (parse), EXPLAIN QUERY TREE (parse and
// analysis, which runs the scalar sub-queries) and EXPLAIN PLAN (parse, analysis and planning)
// of that statement, and of the statement itself, next to DuckDB's whole query. Each stage
// includes the ones before it and the per-statement floor (SELECT 1).

// stagePrefixes are the EXPLAIN forms timed, in stage order.
var stagePrefixes = []struct{ name, prefix string }{
	{"ast", "EXPLAIN AST "},
	{"tree", "EXPLAIN QUERY TREE "},
	{"plan", "EXPLAIN PLAN "},
	{"run", ""},
}

// stageStatement is one statement of one case, with its timings per stage (stagePrefixes order).
type stageStatement struct {
	Label  string
	Chars  int // length of the SQL
	Stages []timing
	// Profile is the engine's own account of one run of the statement: the growth of each of
	// profileEvents in system.events over several runs, divided by their number.
	Profile map[string]float64
}

// profileEvents are the engine's counters (system.events) the profile reports: its own timers
// of each stage (wall time, microseconds; analysis includes running the scalar sub-queries),
// its CPU, and the work behind it.
var profileEvents = []string{
	"QueryParseMicroseconds", "QueryAnalysisMicroseconds", "QueryPlanBuildMicroseconds",
	"QueryPlanOptimizeMicroseconds", "QueryPipelineBuildMicroseconds", "CompileExpressionsMicroseconds",
	"UserTimeMicroseconds", "QueriesWithSubqueries", "ScalarSubqueriesCacheMiss", "SelectedRows",
}

// profileRuns is how many runs of a statement one profile averages.
const profileRuns = 5

// events reads the engine's cumulative counters.
func events(ctx context.Context, e executor.Executor) (map[string]float64, error) {
	r, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: "SELECT event, toFloat64(value) FROM system.events"})
	if err != nil {
		return nil, fmt.Errorf("read system.events: %w", err)
	}
	m := make(map[string]float64, len(r.Values))
	for _, v := range r.Values {
		name, _ := v[0].(string)
		x, _ := v[1].(float64)
		m[name] = x
	}
	return m, nil
}

// profile runs q profileRuns times and returns the growth of profileEvents per run.
func profile(ctx context.Context, e executor.Executor, q *compiler.Query) (map[string]float64, error) {
	before, err := events(ctx, e)
	if err != nil {
		return nil, err
	}
	for i := 0; i < profileRuns; i++ {
		if _, err := executor.CollectRows(ctx, e, q); err != nil {
			return nil, err
		}
	}
	after, err := events(ctx, e)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, k := range profileEvents {
		out[k] = (after[k] - before[k]) / profileRuns
	}
	return out, nil
}

type stageCase struct {
	Name       string
	Statements []stageStatement
	Respond    timing // executor.Respond end to end, as the bench times graphwire
	Duck       timing // DuckDB's statement, versioned layout
	Equal      bool   // graphwire's and DuckDB's projections are equal
}

type stagesResult struct {
	Load       string // /proc/loadavg before → after the rounds
	MaxThreads int    // max_threads of the query connection, as serve sets it
	Floor      timing // SELECT 1 through executor/chdb
	// PlanCache lists the engine's settings whose name mentions a plan cache (none in 26.7).
	PlanCache []string
	Cases     []stageCase
}

// serveMaxThreads is the max_threads serve's executor gets: chdb.Options' default for its
// default pool of 4 connections.
func serveMaxThreads() int { return max(1, runtime.NumCPU()/4) }

// withPrefix is q with its SQL prefixed (an EXPLAIN form), the same parameters and settings.
func withPrefix(q *compiler.Query, prefix string) *compiler.Query {
	return &compiler.Query{SQL: prefix + q.SQL, Params: q.Params, Settings: q.Settings}
}

// stages times the stages of every case's statements on the prepared data in dir: one
// untimed round, then rounds interleaved rounds, each running every measurement of every case
// once, in an order that rotates from round to round.
func stages(dir string, rounds, cacheMB int) (*stagesResult, error) {
	ctx := context.Background()
	ont, err := loadOntology()
	if err != nil {
		return nil, err
	}
	res := &stagesResult{Load: loadavg(), MaxThreads: serveMaxThreads()}
	e, err := openChDBThreads(dir, res.MaxThreads)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	c, err := sizedCompiler(ctx, e, ont)
	if err != nil {
		return nil, err
	}
	db, err := openDuckReadOnly(dir)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	pc, err := collect(ctx, e, "SELECT name FROM system.settings WHERE name ILIKE '%plan%cache%' ORDER BY name")
	if err != nil {
		return nil, err
	}
	for _, r := range pc.Rows {
		res.PlanCache = append(res.PlanCache, r[0].(string))
	}

	type measure struct {
		t   *timing
		run func() error
	}
	floor := measure{&res.Floor, func() error {
		_, err := executor.CollectRows(ctx, e, &compiler.Query{SQL: "SELECT 1"})
		return err
	}}
	type item struct {
		sh       shape
		caller   string
		q        *compiler.Query
		measures []measure
	}
	callers, err := loadCallers(dir)
	if err != nil {
		return nil, err
	}
	var items []*item
	for _, cl := range callers {
		for _, s := range shapes(sqlgen{c: cl, versioned: true}) {
			q, err := c.Compile([]byte(s.dsl), cl.compilerCaller())
			if err != nil {
				return nil, fmt.Errorf("compile %s: %w", s.name, err)
			}
			items = append(items, &item{sh: s, caller: cl.Name, q: q})
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		qi, _, _ := strings.Cut(items[i].sh.name, "/")
		qj, _, _ := strings.Cut(items[j].sh.name, "/")
		return slices.Index(questionOrder, qi) < slices.Index(questionOrder, qj)
	})
	var cache *executor.EdgeCache
	if cacheMB > 0 {
		// As bench and serve: nothing writes the graph meanwhile, one generation; each case
		// reads its edge sets in a first, untimed run, and the statements of a warm run are
		// the ones timed.
		if cache, err = executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: int64(cacheMB) << 20, Generation: func() uint64 { return 0 }}); err != nil {
			return nil, err
		}
	}
	respond := func(q *compiler.Query) (executor.Executed, error) {
		_, ex, err := executor.RespondWith(ctx, e, c, q, executor.RespondOptions{Edges: cache})
		return ex, err
	}
	res.Cases = make([]stageCase, len(items))
	for i, it := range items {
		if _, err := respond(it.q); err != nil {
			return nil, fmt.Errorf("%s: %w", it.sh.name, err)
		}
		cs := &res.Cases[i]
		cs.Name = it.sh.name
		// The statements Respond runs: the data does not change, so they are the same each time.
		ex, err := respond(it.q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.sh.name, err)
		}
		ours, err := project(ex.Base.Columns, ex.Base.Values, it.sh.fields)
		if err != nil {
			return nil, fmt.Errorf("%s (graphwire): %w", it.sh.name, err)
		}
		duck, err := runDuck(ctx, db, it.sh)
		if err != nil {
			return nil, err
		}
		cs.Equal = slices.Equal(ours, duck)
		cs.Statements = make([]stageStatement, len(ex.Statements))
		for j, st := range ex.Statements {
			ss := &cs.Statements[j]
			ss.Label, ss.Chars = st.Label, len(st.Query.SQL)
			ss.Stages = make([]timing, len(stagePrefixes))
			for k, sp := range stagePrefixes {
				q := withPrefix(st.Query, sp.prefix)
				label := it.sh.name + " " + st.Label + " " + sp.name
				it.measures = append(it.measures, measure{&ss.Stages[k], func() error {
					if _, err := executor.CollectRows(ctx, e, q); err != nil {
						return fmt.Errorf("%s: %w", label, err)
					}
					return nil
				}})
			}
		}
		it.measures = append(it.measures,
			measure{&cs.Respond, func() error {
				_, err := respond(it.q)
				return err
			}},
			measure{&cs.Duck, func() error { _, err := runDuck(ctx, db, it.sh); return err }},
			floor,
		)
	}
	for round := 0; round <= rounds; round++ {
		for i, it := range items {
			ms := slices.Clone(it.measures)
			k := (round + i) % len(ms)
			ms = append(ms[k:], ms[:k]...)
			for _, m := range ms {
				start, cpu0 := time.Now(), cpuNow()
				if err := m.run(); err != nil {
					return nil, err
				}
				wall, cpu := time.Since(start), cpuNow()-cpu0
				if round > 0 {
					m.t.add(wall, cpu)
				}
			}
		}
	}
	res.Load += " → " + loadavg()
	for i, it := range items {
		ex, err := respond(it.q)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.sh.name, err)
		}
		for j, st := range ex.Statements {
			if j >= len(res.Cases[i].Statements) {
				break
			}
			if res.Cases[i].Statements[j].Profile, err = profile(ctx, e, st.Query); err != nil {
				return nil, fmt.Errorf("%s %s: profile: %w", it.sh.name, st.Label, err)
			}
		}
	}
	return res, nil
}

// stageCPU is the CPU of stage k (stagePrefixes) of a case, summed over its statements (medians).
func (cs stageCase) stageCPU(k int) float64 {
	var sum float64
	for _, s := range cs.Statements {
		sum += median(s.Stages[k].CPU)
	}
	return sum
}

// above names what of DuckDB's whole query (CPU, wall) x exceeds.
func above(x, cpu, wall float64) string {
	var over []string
	if x > cpu {
		over = append(over, "CPU")
	}
	if x > wall {
		over = append(over, "wall")
	}
	return orNone(over)
}

// stagesMarkdown writes the stage breakdown of one scale: per statement, then per case the
// planning CPU against DuckDB's whole query.
func stagesMarkdown(r *stagesResult, scale float64, rounds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### Stages at scale %g\n\nmax_threads %d (as serve). Load average (1, 5, 15 min) before → after: %s. Medians of %d interleaved rounds, ms; each stage includes the ones before it. `SELECT 1` through executor/chdb: CPU %.1f, wall %.1f. Engine settings naming a plan cache: %s.\n\n",
		scale, r.MaxThreads, r.Load, rounds, median(r.Floor.CPU), median(r.Floor.Wall), orNone(r.PlanCache))
	b.WriteString("| query | statement | SQL chars | AST CPU | QUERY TREE CPU | PLAN CPU | run CPU | run wall |\n|---|---|---|---|---|---|---|---|\n")
	for _, cs := range r.Cases {
		for _, s := range cs.Statements {
			fmt.Fprintf(&b, "| %s | %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f |\n", cs.Name, s.Label, s.Chars,
				median(s.Stages[0].CPU), median(s.Stages[1].CPU), median(s.Stages[2].CPU), median(s.Stages[3].CPU), median(s.Stages[3].Wall))
		}
	}
	b.WriteString("\n| query | statements | graphwire analysis CPU (Σ QUERY TREE) | graphwire planning CPU (Σ EXPLAIN PLAN) | graphwire CPU | graphwire wall | DuckDB CPU | DuckDB wall | analysis alone above DuckDB's | planning alone above DuckDB's | answers |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, cs := range r.Cases {
		a, p, dc, dw := cs.stageCPU(1), cs.stageCPU(2), median(cs.Duck.CPU), median(cs.Duck.Wall)
		eq := "equal"
		if !cs.Equal {
			eq = "DIFFER"
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s | %s | %s |\n", cs.Name, len(cs.Statements), a, p,
			median(cs.Respond.CPU), median(cs.Respond.Wall), dc, dw, above(a, dc, dw), above(p, dc, dw), eq)
	}
	if len(r.Cases) > 0 && len(r.Cases[0].Statements) > 0 && r.Cases[0].Statements[0].Profile != nil {
		fmt.Fprintf(&b, "\nThe engine's profile of one run of each statement (growth of `system.events` over %d runs, divided by %d; the engine's own timers, wall ms, analysis including the scalar sub-queries it runs; CPU is the engine's user time):\n\n", profileRuns, profileRuns)
		b.WriteString("| query | statement | parse | analysis | plan build | plan optimize | pipeline build | JIT compile | engine CPU | sub-queries | scalar sub-queries run | rows selected |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, cs := range r.Cases {
			for _, s := range cs.Statements {
				p := s.Profile
				ms := func(k string) float64 { return p[k] / 1000 }
				fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f |\n", cs.Name, s.Label,
					ms("QueryParseMicroseconds"), ms("QueryAnalysisMicroseconds"), ms("QueryPlanBuildMicroseconds"),
					ms("QueryPlanOptimizeMicroseconds"), ms("QueryPipelineBuildMicroseconds"), ms("CompileExpressionsMicroseconds"),
					ms("UserTimeMicroseconds"), p["QueriesWithSubqueries"], p["ScalarSubqueriesCacheMiss"], p["SelectedRows"])
			}
		}
	}
	b.WriteString("\n")
	return b.String()
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// printStages prints the markdown of a stages answer read from a file (the step's JSON).
func printStages(file string, scale float64, rounds int) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var r stagesResult
	if err := json.Unmarshal(b, &r); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	fmt.Print(stagesMarkdown(&r, scale, rounds))
	return nil
}
