package sqlbench_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/seed"
)

// benchCallers are the admin and a member fitted to the seeded, churned graph in e
// (seed.ScopedGrants over the paths the scoped questions start from).
func benchCallers(ctx context.Context, e executor.Executor) ([]caller, error) {
	in, err := readInterest(ctx, e)
	if err != nil {
		return nil, err
	}
	grants := seed.ScopedGrants(in)
	if len(grants) == 0 {
		return nil, fmt.Errorf("no scoped caller fits this graph (paths of interest %+v)", in)
	}
	return []caller{
		{"admin", &compiler.Caller{Subject: "1", Admin: true}},
		{"scoped", &compiler.Caller{Subject: "7", Scopes: grants}},
	}, nil
}

// readInterest reads, from the live rows of the graph in e, the paths the scoped questions
// start from: the ids are the questions' own values, so the two cannot drift.
func readInterest(ctx context.Context, e executor.Executor) (seed.Interest, error) {
	var in seed.Interest
	for _, q := range []struct {
		dst      *[]string
		question string
		value    string // the question's value bound to {ids:Array(Int64)}
		sql      string
	}{
		{&in.Neighbors, "neighbors", "mr_ids", "SELECT traversal_path FROM gl_merge_request FINAL WHERE _deleted = false AND id IN {ids:Array(Int64)} ORDER BY id"},
		{&in.PathFinding, "path_finding", "user_ids", "SELECT traversal_path FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'MEMBER_OF' AND source_kind = 'User' AND source_id IN {ids:Array(Int64)} ORDER BY traversal_path"},
		{&in.Walk, "variable_length", "group_ids", "SELECT traversal_path FROM gl_group FINAL WHERE _deleted = false AND id IN {ids:Array(Int64)} ORDER BY traversal_path"},
		{&in.OneHop, "traversal_1hop", "project_ids", "SELECT traversal_path FROM gl_project FINAL WHERE _deleted = false AND id IN {ids:Array(Int64)} ORDER BY id"},
		{&in.TwoHop, "traversal_2hop", "user_ids", "SELECT mr.traversal_path FROM (SELECT target_id FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'AUTHORED' AND source_kind = 'User' AND source_id IN {ids:Array(Int64)} AND target_kind = 'MergeRequest') AS e " +
			"INNER JOIN (SELECT id, traversal_path FROM gl_merge_request FINAL WHERE _deleted = false) AS mr ON mr.id = e.target_id ORDER BY mr.traversal_path"},
	} {
		i := slices.IndexFunc(questions, func(x question) bool { return x.name == q.question })
		if i < 0 {
			return in, fmt.Errorf("paths of interest: no question %s", q.question)
		}
		ids, ok := questions[i].params[q.value].([]int64)
		if !ok {
			return in, fmt.Errorf("paths of interest: question %s has no []int64 value %s", q.question, q.value)
		}
		res, err := collect(ctx, e, &compiler.Query{SQL: q.sql, Params: []compiler.Param{{Name: "ids", Type: "Array(Int64)", Value: ids}}})
		if err != nil {
			return in, fmt.Errorf("paths of interest of %s: %w", q.question, err)
		}
		for _, r := range res.Rows {
			*q.dst = append(*q.dst, r[0].(string))
		}
	}
	return in, nil
}

// describeScopes is the prefixes the scoped caller of cs admits at each floor, for logs and
// the table's note.
func describeScopes(cs []caller) string {
	var parts []string
	for _, c := range cs {
		if c.caller.Admin {
			continue
		}
		for _, f := range floors {
			parts = append(parts, fmt.Sprintf("floor %d: %s", f, strings.Join(seed.PrefixesAt(c.caller.Scopes, f), " ")))
		}
	}
	return strings.Join(parts, "; ")
}

// checkScoped fails a scoped caller's answer that is empty, or equal to the admin's answer to
// the same question: either compares little (no scope rule at work, or none that drops a row),
// and an empty one lets a compiled statement and a reference that both find nothing pass for
// equal. Both harnesses call it on every scoped case: the test, and the benchmark before it
// measures.
func checkScoped(scoped, admin *outcome) error {
	if len(scoped.rows) == 0 {
		return fmt.Errorf("the scoped answer is empty: the scoped caller's prefixes admit nothing the question reaches")
	}
	if scoped.digest == admin.digest {
		return fmt.Errorf("the scoped answer equals the admin's (%d rows): the scoped caller's prefixes admit everything the question reaches", len(scoped.rows))
	}
	return nil
}

// adminAnswer is the compiled answer of the admin to c's question, for checkScoped.
func adminAnswer(ctx context.Context, e executor.Executor, c benchCase) (*outcome, error) {
	for _, a := range cases() {
		if a.q.name == c.q.name && a.caller.caller.Admin {
			p, err := prepareCompiled(a)
			if err != nil {
				return nil, err
			}
			return p.runCompiled(ctx, e)
		}
	}
	return nil, fmt.Errorf("%s: no admin case", c.q.name)
}

// TestScopedCheckFires: the check on scoped answers fails a member whose prefixes admit
// nothing (an empty answer, which a compiled statement and its reference agree on) and a
// member whose prefixes admit every top-level group (the admin's answer), on every question,
// through the same runs the benchmark makes; and the fitted member passes it.
func TestScopedCheckFires(t *testing.T) {
	e := engine(t)
	res, err := collect(t.Context(), e, &compiler.Query{SQL: "SELECT DISTINCT traversal_path FROM gl_group FINAL WHERE length(splitByChar('/', traversal_path)) = 2 ORDER BY traversal_path"})
	if err != nil {
		t.Fatal(err)
	}
	var everything []compiler.Scope
	for _, r := range res.Rows {
		everything = append(everything, compiler.Scope{Path: r[0].(string), Level: 50})
	}
	nothing := []compiler.Scope{{Path: "999999999/", Level: 50}}
	for _, c := range cases() {
		if c.caller.caller.Admin {
			continue
		}
		t.Run(c.q.name, func(t *testing.T) {
			admin, err := adminAnswer(t.Context(), e, c)
			if err != nil {
				t.Fatal(err)
			}
			for _, tt := range []struct {
				name   string
				scopes []compiler.Scope
				fails  bool
			}{
				{"fitted", c.caller.caller.Scopes, false},
				{"admits nothing", nothing, true},
				{"admits every top-level group", everything, true},
			} {
				x := c
				x.caller = caller{"scoped", &compiler.Caller{Subject: "7", Scopes: tt.scopes}}
				p, err := prepareCompiled(x)
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.runCompiled(t.Context(), e)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkScoped(got, admin); (err != nil) != tt.fails {
					t.Errorf("%s (%d rows): checkScoped = %v, want failing %v", tt.name, len(got.rows), err, tt.fails)
				}
			}
		})
	}
}
