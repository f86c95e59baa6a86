package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// TestProjectionAcrossEngines: a ClickHouse path (array of (id, kind) tuples, Int64, Date) and
// the DuckDB form of the same answer (list of structs, int64, time.Time) project to the same
// line, and a different id does not.
func TestProjectionAcrossEngines(t *testing.T) {
	ch, err := project([]string{"depth", "path_nodes", "g1"}, [][]any{{
		uint64(2), []any{[]any{int64(1), "User"}, []any{int64(5), "Group"}}, executor.Date{Year: 2026, Month: 3, Day: 1},
	}}, []string{"depth", "path_nodes", "g1"})
	if err != nil {
		t.Fatal(err)
	}
	duck, err := project([]string{"g1", "depth", "path_nodes"}, [][]any{{
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), int32(2),
		[]any{map[string]any{"b": "User", "a": int64(1)}, map[string]any{"a": int64(5), "b": "Group"}},
	}}, []string{"depth", "path_nodes", "g1"})
	if err != nil {
		t.Fatal(err)
	}
	if ch.digest() != duck.digest() {
		t.Fatalf("same answer, different projections:\n  %q\n  %q", ch, duck)
	}
	other, err := project([]string{"depth", "path_nodes", "g1"}, [][]any{{
		uint64(2), []any{[]any{int64(1), "User"}, []any{int64(6), "Group"}}, executor.Date{Year: 2026, Month: 3, Day: 1},
	}}, []string{"depth", "path_nodes", "g1"})
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := project([]string{"depth", "path_nodes", "g1"}, [][]any{{
		uint8(2), []any{[]any{int64(1), "User"}, []any{int64(5), "Group"}}, executor.Date{Year: 2026, Month: 3, Day: 1},
	}}, []string{"depth", "path_nodes", "g1"})
	if err != nil {
		t.Fatal(err)
	}
	if narrow.digest() != duck.digest() {
		t.Fatalf("a UInt8 depth projects differently: %q vs %q", narrow, duck)
	}
	if other.digest() == ch.digest() {
		t.Fatal("different answers, same projection")
	}
	if _, err := project([]string{"n0_id"}, nil, []string{"n1_id"}); err == nil {
		t.Fatal("a missing column must be an error")
	}
}

// TestLiveAppliesTheRules: on the versioned layout, the scope and key filters run before the
// deduplication and the tombstone filter after it; a scoped caller's predicate names its
// floor's prefixes; users are global.
func TestLiveAppliesTheRules(t *testing.T) {
	scoped := sqlgen{c: sqlbenchMember, versioned: true}
	got := scoped.live("gl_merge_request", "id IN (1)")
	q := strings.Index(got, "QUALIFY")
	for _, want := range []string{"starts_with(traversal_path, '1/4/')", "starts_with(traversal_path, '2/')", "id IN (1)"} {
		if i := strings.Index(got, want); i < 0 || i > q {
			t.Errorf("%q missing or after the deduplication in %s", want, got)
		}
	}
	if strings.Contains(got, "'3/'") {
		t.Errorf("floor 20 admits 3/ only at 10: %s", got)
	}
	if i := strings.Index(got, "NOT _deleted"); i < q {
		t.Errorf("tombstones must be dropped after the deduplication: %s", got)
	}
	if u := scoped.live("gl_user", ""); strings.Contains(u, "traversal_path") {
		t.Errorf("users are global: %s", u)
	}
	if l := (sqlgen{c: sqlbenchMember}).live("gl_edge", ""); strings.Contains(l, "QUALIFY") || !strings.Contains(l, "live_gl_edge") {
		t.Errorf("live-only layout: %s", l)
	}
}

// sqlbenchMember is tests/sqlbench's scoped caller: 1/4/, 2/ and 3/ at floor 10, 1/4/ and 2/
// at 20, 2/10/ at 25.
var sqlbenchMember = callerSpec{Name: "scoped", Grants: []compiler.Scope{
	{Path: "2/", Level: 20}, {Path: "2/10/", Level: 30}, {Path: "1/4/", Level: 20}, {Path: "3/", Level: 10},
}}

// TestOneDefinitionBothSides: the prefixes DuckDB's SQL admits at each floor are those the
// compiler's grants admit there, and the compiler gets the grants themselves.
func TestOneDefinitionBothSides(t *testing.T) {
	for f, want := range map[int][]string{10: {"1/4/", "2/", "3/"}, 20: {"1/4/", "2/"}, 25: {"2/10/"}, 30: {"2/10/"}, 40: nil} {
		if got := sqlbenchMember.prefixes(f); !slices.Equal(got, want) {
			t.Errorf("floor %d: got %q, want %q", f, got, want)
		}
	}
	cc := sqlbenchMember.compilerCaller()
	if cc.Admin || !slices.Equal(cc.Scopes, sqlbenchMember.Grants) {
		t.Errorf("compiler caller %+v, want the grants %+v", cc, sqlbenchMember.Grants)
	}
	if a := (callerSpec{Name: "admin", Admin: true}).compilerCaller(); !a.Admin {
		t.Errorf("admin: %+v", a)
	}
}

// TestCheckScoped: an empty scoped answer, or one equal to the admin's, fails the run.
func TestCheckScoped(t *testing.T) {
	admin := projection{"1", "2", "3"}
	if err := checkScoped("neighbors/scoped", nil, admin); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty answer: %v", err)
	}
	if err := checkScoped("neighbors/scoped", projection{"1", "2", "3"}, admin); err == nil || !strings.Contains(err.Error(), "equals") {
		t.Errorf("the admin's answer: %v", err)
	}
	if err := checkScoped("neighbors/scoped", projection{"2"}, admin); err != nil {
		t.Errorf("some of the admin's answer: %v", err)
	}
}

// TestStagesMarkdownVerdict: a case whose EXPLAIN QUERY TREE or EXPLAIN PLAN CPU, summed over its
// statements, is above DuckDB's whole-query CPU or wall is flagged on that; one below on neither.
func TestStagesMarkdownVerdict(t *testing.T) {
	st := func(tree, plan float64) stageStatement {
		s := stageStatement{Label: "base"}
		for _, x := range []float64{tree / 2, tree, plan, plan + 5} {
			s.Stages = append(s.Stages, timing{CPU: []float64{x}, Wall: []float64{x}})
		}
		return s
	}
	duck := timing{CPU: []float64{45}, Wall: []float64{40}}
	r := &stagesResult{Cases: []stageCase{
		{Name: "slow/admin", Statements: []stageStatement{st(25, 30), st(20, 20)}, Duck: duck, Equal: true},
		{Name: "mid/admin", Statements: []stageStatement{st(10, 35)}, Duck: timing{CPU: []float64{45}, Wall: []float64{30}}, Equal: true},
		{Name: "fast/admin", Statements: []stageStatement{st(4, 9)}, Duck: duck},
	}}
	md := stagesMarkdown(r, 10, 1)
	for _, want := range []string{
		"| slow/admin | 2 | 45.0 | 50.0 | 0.0 | 0.0 | 45.0 | 40.0 | wall | CPU, wall | equal |",
		"| mid/admin | 1 | 10.0 | 35.0 | 0.0 | 0.0 | 45.0 | 30.0 | none | wall | equal |",
		"| fast/admin | 1 | 4.0 | 9.0 | 0.0 | 0.0 | 45.0 | 40.0 | none | none | DIFFER |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}

// TestWithPrefixKeepsBindings: the EXPLAIN form of a statement binds the same parameters and
// settings, and leaves the statement itself alone.
func TestWithPrefixKeepsBindings(t *testing.T) {
	q := &compiler.Query{SQL: "SELECT {a:Int64}", Params: []compiler.Param{{Name: "a", Type: "Int64", Value: int64(1)}},
		Settings: []compiler.Setting{{Key: "max_threads", Value: int64(1)}}}
	p := withPrefix(q, "EXPLAIN PLAN ")
	if p.SQL != "EXPLAIN PLAN SELECT {a:Int64}" || len(p.Params) != 1 || len(p.Settings) != 1 || q.SQL != "SELECT {a:Int64}" {
		t.Fatalf("got %+v from %+v", p, q)
	}
}

func TestParseVariants(t *testing.T) {
	vs, err := parseVariants("-- what this file is\n\n-- variant a\nSELECT 1\n-- variant b\nSELECT 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].name != "a" || strings.TrimSpace(vs[0].sql) != "SELECT 1" || vs[1].name != "b" || strings.TrimSpace(vs[1].sql) != "SELECT 2" {
		t.Fatalf("got %+v", vs)
	}
	for _, bad := range []string{"SELECT 1\n-- variant a\nSELECT 2\n", "-- only a comment\n", ""} {
		if _, err := parseVariants(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := parseVariants("-- c\nSELECT 1\n-- variant a\nSELECT 2\n"); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("SQL before the first block: %v, want an error naming line 2", err)
	}
}
