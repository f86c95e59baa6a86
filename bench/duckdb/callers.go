package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/compiler"
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

// Grant levels: a grant at level L admits its path on every table whose floor is at most L
// (floors: 10 groups, projects, edges; 20 merge requests and the like; 25 vulnerabilities).
const (
	levelNodes = 10
	levelMRs   = 20
	levelAll   = 30
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
// inside another.
func (c callerSpec) prefixes(f int) []string {
	var ps []string
	for _, g := range c.Grants {
		if g.Level >= f {
			ps = append(ps, g.Path)
		}
	}
	slices.Sort(ps)
	ps = slices.Compact(ps)
	var out []string
	for _, p := range ps {
		if len(out) == 0 || !strings.HasPrefix(p, out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return out
}

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

// interest is the traversal paths the scoped shapes start from, per shape: neighbors' centre
// merge requests, path_finding's users' MEMBER_OF targets, traversal_2hop's users' authored
// merge requests.
type interest struct {
	Neighbors, PathFinding, TwoHop []string
	OneHop                         []string // traversal_1hop's projects, by id
	Walk                           []string // variable_length's groups
}

// readInterest reads the paths of interest from the live-only layout of a DuckDB file.
func readInterest(db *sql.DB) (interest, error) {
	var in interest
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

// prefixOf is the first depth segments of path p ("2/15/16/" at 2: "2/15/"), or "" when p
// has fewer.
func prefixOf(p string, depth int) string {
	segs := strings.SplitAfter(p, "/")
	if len(segs) <= depth || segs[depth-1] == "" {
		return ""
	}
	return strings.Join(segs[:depth], "")
}

// commonest is the prefix at depth most of paths have (ties: the numerically smallest),
// among those keep accepts; "" when none.
func commonest(paths []string, depth int, keep func(string) bool) string {
	n := map[string]int{}
	for _, p := range paths {
		if x := prefixOf(p, depth); x != "" && keep(x) {
			n[x]++
		}
	}
	best := ""
	for x, c := range n {
		if best == "" || c > n[best] || c == n[best] && pathLess(x, best) {
			best = x
		}
	}
	return best
}

func pathLess(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

// chooseGrants fits the scoped caller to a graph, with the structure of tests/sqlbench's
// member (several floors, top-level and second-level prefixes): the top-level prefix holding
// most of neighbors' centres at level 20, the commonest second-level prefix of the authored
// merge requests outside it at level 20, the top-level prefix holding most of path_finding's
// memberships outside those (preferably one holding a variable_length group) at level 10, and
// the commonest second-level prefix of the merge requests inside the first at level 30
// (floor 25: vulnerabilities). Each shape then admits some of its start nodes; whether it
// admits some but not all of its answer, the bench checks (checkScoped). When every path of
// interest lies under one top-level group, the same choice is made one level down (and so on).
func chooseGrants(in interest) []compiler.Scope {
	every := func(string) bool { return true }
	mrs := append(slices.Clone(in.Neighbors), in.TwoHop...)
	all := append(slices.Clone(mrs), in.PathFinding...)
	top := 1
	for ; top < 8; top++ {
		seen := map[string]bool{}
		for _, p := range all {
			if x := prefixOf(p, top); x != "" {
				seen[x] = true
			}
		}
		if len(seen) != 1 {
			break
		}
	}
	second := top + 1
	outside := func(ps ...string) func(string) bool {
		return func(x string) bool {
			for _, p := range ps {
				if p != "" && (strings.HasPrefix(x, p) || strings.HasPrefix(p, x)) {
					return false
				}
			}
			return true
		}
	}
	// traversal_1hop answers its first project's merge requests up to its limit: the merge
	// request grants leave that project out, so that its answer is another.
	first := ""
	if len(in.OneHop) > 0 {
		first = prefixOf(in.OneHop[0], top)
	}
	a := commonest(in.Neighbors, top, outside(first))
	if a == "" {
		a = commonest(mrs, top, outside(first))
	}
	if a == "" {
		a = commonest(mrs, top, every)
	}
	c := commonest(in.TwoHop, second, outside(a, first))
	if c == "" {
		c = commonest(mrs, second, outside(a, first))
	}
	if c == "" {
		c = commonest(mrs, second, outside(a))
	}
	// The level-10 prefix holds one of variable_length's groups too, where one can.
	topC := prefixOf(c, top)
	walks := func(x string) bool {
		return outside(a, topC)(x) && slices.ContainsFunc(in.Walk, func(p string) bool { return strings.HasPrefix(p, x) })
	}
	b := commonest(in.PathFinding, top, walks)
	if b == "" {
		b = commonest(in.Walk, top, outside(a, topC))
	}
	if b == "" {
		b = commonest(in.PathFinding, top, outside(a, topC))
	}
	if b == "" {
		b = commonest(in.PathFinding, top, outside(a))
	}
	d := commonest(mrs, second, func(x string) bool { return a != "" && strings.HasPrefix(x, a) })
	var gs []compiler.Scope
	for _, g := range []compiler.Scope{{Path: a, Level: levelMRs}, {Path: c, Level: levelMRs}, {Path: b, Level: levelNodes}, {Path: d, Level: levelAll}} {
		if g.Path != "" && !slices.ContainsFunc(gs, func(h compiler.Scope) bool { return h.Path == g.Path }) {
			gs = append(gs, g)
		}
	}
	return gs
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
