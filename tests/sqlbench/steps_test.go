package sqlbench_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/cputime"
)

// A two-step question (question.steps) is compared as a plan, not as one statement
// (docs/sql-bench.md, "Two-step plans"): the compiled side runs the plan's first statement,
// the lookup of the neighbors it reached without hydration columns (Compiler.Lookup), and
// Plan.JoinNeighbors; the reference runs testdata/<question>_<caller>.sql, then the arms of
// testdata/<question>_<caller>.lookup.sql for the kinds its rows reached, each bound to those
// ids as {ids_<Kind>:Array(Int64)}, and the same join. Both sides are timed from the first
// statement's start to the join's end, and their joined rows are compared like any result.

// steps is the second half of a two-step case.
type steps struct {
	plan   *compiler.Query // the compiled query whose Plan joins the rows (both sides use it)
	lookup string          // the reference's lookup template
	values map[string]any  // what the reference may bind
}

// lookupArm finds the kind of one arm of a lookup template.
var lookupArm = regexp.MustCompile(`\{ids_([A-Za-z]+):Array\(Int64\)\}`)

// prepareSteps reads the reference lookup of a two-step case.
func prepareSteps(c benchCase, comp *compiler.Query) (*steps, error) {
	if comp.Plan.Edges() == nil {
		return nil, fmt.Errorf("%s: the compiled query has no two-step plan", c.name)
	}
	text, err := os.ReadFile(filepath.Join("testdata", strings.TrimSuffix(c.file, ".sql")+".lookup.sql"))
	if err != nil {
		return nil, err
	}
	return &steps{plan: comp, lookup: string(text), values: c.values()}, nil
}

// compiledLookup is the compiled side's second statement.
func (s *steps) compiledLookup(edges graphresponse.Rows) (*compiler.Query, error) {
	refs, err := s.plan.Plan.Neighbors(edges)
	if err != nil {
		return nil, err
	}
	return env.compiler.Lookup(s.plan, refs, false)
}

// referenceLookup is the reference's second statement: the template's arms of the kinds the
// edges reached, bound to their ids.
func (s *steps) referenceLookup(edges graphresponse.Rows) (*compiler.Query, error) {
	ids := map[string][]int64{}
	nid, nkind := slices.Index(edges.Columns, "nbr_id"), slices.Index(edges.Columns, "nbr_kind")
	if nid < 0 || nkind < 0 {
		return nil, fmt.Errorf("reference edges lack nbr_id or nbr_kind: %v", edges.Columns)
	}
	for _, row := range edges.Values {
		k := row[nkind].(string)
		ids[k] = append(ids[k], row[nid].(int64))
	}
	values := maps.Clone(s.values)
	var arms []string
	for _, arm := range strings.Split(s.lookup, "\nUNION ALL\n") {
		m := lookupArm.FindStringSubmatch(arm)
		if m == nil {
			return nil, fmt.Errorf("lookup arm without {ids_<Kind>:Array(Int64)}: %.80s", arm)
		}
		if got, ok := ids[m[1]]; ok {
			slices.Sort(got)
			values["ids_"+m[1]] = slices.Compact(got)
			arms = append(arms, arm)
			delete(ids, m[1])
		}
	}
	if len(ids) > 0 {
		return nil, fmt.Errorf("the lookup has no arm for %v", slices.Sorted(maps.Keys(ids)))
	}
	sql := strings.Join(arms, "\nUNION ALL\n")
	params, err := bindAll(sql, values)
	if err != nil {
		return nil, err
	}
	return &compiler.Query{SQL: sql, Params: params, Settings: s.plan.Settings}, nil
}

// executeSteps runs a two-step plan: first, then the statement lookup builds from its rows
// (none when they reach nothing), then the join; the outcome is the joined rows with first's
// columns but nbr_tp, and the time and engine counters of both statements.
func executeSteps(ctx context.Context, e executor.Executor, first *compiler.Query, s *steps, lookup func(graphresponse.Rows) (*compiler.Query, error)) (*outcome, error) {
	start := time.Now()
	cpu0, _ := cputime.Process()
	res, err := collect(ctx, e, first)
	if err != nil {
		return nil, fmt.Errorf("first statement: %w", err)
	}
	edges := asRows(res)
	live := graphresponse.Rows{Columns: []string{"kind", "id", "props", "tp"}}
	var lres *executor.Result
	if len(edges.Values) > 0 {
		lq, err := lookup(edges)
		if err != nil {
			return nil, err
		}
		if lres, err = collect(ctx, e, lq); err != nil {
			return nil, fmt.Errorf("lookup: %w\n%s", err, lq.SQL)
		}
		live = asRows(lres)
	}
	base, complete, err := s.plan.Plan.JoinNeighbors(edges, live)
	if err != nil {
		return nil, err
	}
	wall := time.Since(start)
	cpu1, _ := cputime.Process()
	if !complete {
		return nil, fmt.Errorf("the first statement stopped at its limit before the page filled")
	}
	var cols []executor.Column
	for _, c := range res.Columns {
		if c.Name != "nbr_tp" {
			cols = append(cols, c)
		}
	}
	stats := res.Stats
	if lres != nil {
		stats.RowsRead += lres.Stats.RowsRead
		stats.BytesRead += lres.Stats.BytesRead
		stats.Elapsed += lres.Stats.Elapsed
	}
	return newOutcome(cols, base.Values, stats, wall, cpu1-cpu0), nil
}

func collect(ctx context.Context, e executor.Executor, q *compiler.Query) (*executor.Result, error) {
	rows, err := e.Run(ctx, q)
	if err != nil {
		return nil, err
	}
	return executor.Collect(rows)
}

func asRows(res *executor.Result) graphresponse.Rows {
	out := graphresponse.Rows{Values: res.Rows}
	for _, c := range res.Columns {
		out.Columns = append(out.Columns, c.Name)
	}
	return out
}

// runCompiled runs the compiled side of p: its statement, or its two-step plan.
func (p pair) runCompiled(ctx context.Context, e executor.Executor) (*outcome, error) {
	if p.steps == nil {
		return execute(ctx, e, p.compiled)
	}
	return executeSteps(ctx, e, p.compiled.Plan.Edges(), p.steps, p.steps.compiledLookup)
}

// runReference runs the reference side of p.
func (p pair) runReference(ctx context.Context, e executor.Executor) (*outcome, error) {
	if p.steps == nil {
		return execute(ctx, e, p.reference)
	}
	return executeSteps(ctx, e, p.reference, p.steps, p.steps.referenceLookup)
}
