package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/seed"
)

// The start nodes the shapes name, shared by their DSL, their DuckDB SQL and the choice of the
// scoped caller's prefixes.
const (
	oneHopProjects = "1,2,3,4,5"       // traversal_1hop: projects whose merge requests are read
	twoHopUsers    = "1,2,3,4,5,6,7,8" // traversal_2hop: users whose authored MRs are walked
	pathUsers      = "1,2,3,6,8,21,23" // path_finding: users whose memberships are walked
	walkGroups     = "1,2,3"           // variable_length: groups whose projects are walked to
	neighborsMRs   = "1,2,3,9,10,14"   // neighbors: the merge requests at the centre
)

const callersFile = "callers.json" // in a scale's work directory, written by prepare

// callerSpec is one caller, the one definition both sides use: the compiler gets its grants
// as compiler.Scopes (compilerCaller), DuckDB's SQL the prefixes its grants admit at each
// table's access floor (prefixes), so the two cannot drift.
type callerSpec struct {
	Name   string
	Admin  bool
	Grants []compiler.Scope // a grant at Level admits its Path on every table whose floor ≤ Level
}

// compilerCaller is the caller as the compiler sees it.
func (c callerSpec) compilerCaller() *compiler.Caller {
	if c.Admin {
		return &compiler.Caller{Subject: "1", Admin: true}
	}
	return &compiler.Caller{Subject: "7", Scopes: slices.Clone(c.Grants)}
}

// prefixes are the traversal-path prefixes the caller's grants admit at floor f, sorted, none
// inside another (seed.PrefixesAt, as tests/sqlbench binds them).
func (c callerSpec) prefixes(f int) []string { return seed.PrefixesAt(c.Grants, f) }

// describe is the caller's grants as the report header prints them.
func (c callerSpec) describe() string {
	if c.Admin {
		return "(admin)"
	}
	var s []string
	for _, f := range []int{10, 20, 25} {
		s = append(s, fmt.Sprintf("floor %d: %s", f, strings.Join(c.prefixes(f), " ")))
	}
	return strings.Join(s, "; ")
}

// callersOf are the admin and a scoped member holding grants.
func callersOf(grants []compiler.Scope) []callerSpec {
	return []callerSpec{{Name: "admin", Admin: true}, {Name: "scoped", Grants: grants}}
}

// readInterest reads the paths of interest from the live-only layout of a DuckDB file.
func readInterest(db *sql.DB) (seed.Interest, error) {
	var in seed.Interest
	for _, q := range []struct {
		dst *[]string
		sql string
	}{
		{&in.Neighbors, "SELECT traversal_path FROM live_gl_merge_request WHERE id IN (" + neighborsMRs + ") ORDER BY id"},
		{&in.PathFinding, "SELECT traversal_path FROM live_gl_edge WHERE relationship_kind = 'MEMBER_OF' AND source_kind = 'User' AND source_id IN (" + pathUsers + ") ORDER BY ALL"},
		{&in.Walk, "SELECT traversal_path FROM live_gl_group WHERE id IN (" + walkGroups + ") ORDER BY ALL"},
		{&in.OneHop, "SELECT traversal_path FROM live_gl_project WHERE id IN (" + oneHopProjects + ") ORDER BY id"},
		{&in.TwoHop, "SELECT mr.traversal_path FROM live_gl_edge AS e JOIN live_gl_merge_request AS mr ON mr.id = e.target_id WHERE e.relationship_kind = 'AUTHORED' AND e.source_kind = 'User' AND e.source_id IN (" + twoHopUsers + ") AND e.target_kind = 'MergeRequest' ORDER BY ALL"},
	} {
		rows, err := db.Query(q.sql)
		if err != nil {
			return in, fmt.Errorf("paths of interest: %s: %w", q.sql, err)
		}
		for rows.Next() {
			var p string
			if err := rows.Scan(&p); err != nil {
				rows.Close()
				return in, fmt.Errorf("paths of interest: %s: %w", q.sql, err)
			}
			*q.dst = append(*q.dst, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return in, fmt.Errorf("paths of interest: %s: %w", q.sql, err)
		}
	}
	return in, nil
}

// writeCallers records a scale's callers in its work directory, for the later steps.
func writeCallers(dir string, cs []callerSpec) error {
	b, err := json.Marshal(cs)
	if err != nil {
		return fmt.Errorf("encode callers: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, callersFile), b, 0o644); err != nil {
		return fmt.Errorf("write callers: %w", err)
	}
	return nil
}

// loadCallers reads the callers prepare chose for the data in dir.
func loadCallers(dir string) ([]callerSpec, error) {
	f := filepath.Join(dir, callersFile)
	b, err := os.ReadFile(f)
	if err != nil {
		return nil, fmt.Errorf("read callers (run the prepare step first): %w", err)
	}
	var cs []callerSpec
	if err := json.Unmarshal(b, &cs); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	if len(cs) != 2 || !cs[0].Admin || cs[1].Admin || len(cs[1].Grants) == 0 {
		return nil, fmt.Errorf("%s: want an admin and a scoped caller with grants, got %+v", f, cs)
	}
	return cs, nil
}

// checkScoped fails when a scoped caller's answer is empty, or equal to the admin's answer to
// the same question: either compares little.
func checkScoped(name string, scoped, admin projection) error {
	if len(scoped) == 0 {
		return fmt.Errorf("%s: the scoped answer is empty; its prefixes admit nothing the question reaches", name)
	}
	if slices.Equal(scoped, admin) {
		return fmt.Errorf("%s: the scoped answer equals the admin's (%d rows); its prefixes admit everything the question reaches", name, len(scoped))
	}
	return nil
}
