package seed

import (
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/compiler"
)

// Interest is, for the questions the SQL benchmarks ask (tests/sqlbench, and bench/duckdb
// against DuckDB), the traversal paths a scoped caller's answer starts from, read from one
// seeded graph after its churn. [ScopedGrants] fits a caller to them; each harness reads them
// from its own engine, since the paths change with the scale.
type Interest struct {
	Neighbors   []string // neighbors: the centre merge requests' paths, by id
	PathFinding []string // path_finding: the paths of the users' MEMBER_OF edges, sorted
	TwoHop      []string // traversal_2hop: the paths of the merge requests the users authored, sorted
	OneHop      []string // traversal_1hop: the projects' paths, by id
	Walk        []string // variable_length: the start groups' paths, sorted
}

// Grant levels of [ScopedGrants]: a grant at level L admits its path on every table whose
// access floor is at most L (floors: 10 groups, projects and edges; 20 merge requests,
// pipelines and the like; 25 vulnerabilities).
const (
	levelNodes = 10
	levelMRs   = 20
	levelAll   = 30
)

// ScopedGrants fits a scoped member to a graph, with grants at several levels so that the
// floors 10, 20 and 25 each admit different prefixes: the top-level prefix holding most of
// neighbors' centres at level 20, the commonest second-level prefix of the authored merge
// requests outside it at level 20, the top-level prefix holding most of path_finding's
// memberships outside those (preferably one holding a variable_length group) at level 10,
// and the commonest second-level prefix of the merge requests inside the first at level 30
// (floor 25: vulnerabilities). Each question then admits some of its start nodes; whether
// its answer is neither empty nor the admin's, the harness checks on the answers. When every
// path of interest lies under one top-level group, the same choice is made one level down
// (and so on). Floor 10 gets at most 3 prefixes, 20 at most 2 and 25 at most 1
// ([PrefixesAt]); an empty choice is left out, so a floor may get fewer.
func ScopedGrants(in Interest) []compiler.Scope {
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

// PrefixesAt is the traversal-path prefixes that grants admit on a table of access floor f
// (the paths of the grants whose level reaches f), sorted, without duplicates and without one
// inside another. It is written apart from the compiler's scope code, so that hand-written SQL
// bound to it does not inherit a mistake of the code it is compared with.
func PrefixesAt(grants []compiler.Scope, f int) []string {
	var ps []string
	for _, g := range grants {
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

// pathLess orders paths by their segments as numbers.
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
