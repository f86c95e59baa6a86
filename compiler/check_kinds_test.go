package compiler

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// seedSite is one conjunct of an edge scan that seeds it from a node set: the statement's
// index of the scan (in scans order), of the conjunct (in PREWHERE then WHERE order), and the
// set it reads.
type seedSite struct {
	scan, conj int
	set        string
	pair       bool // (id, kind) IN (SELECT id, kind …), else id IN (SELECT id …)
}

// seedSites lists the node-set seeds of every edge scan of stmt.
func seedSites(stmt *selectStmt, cat *catalog) []seedSite {
	sets := nodeSets(stmt, cat)
	var out []seedSite
	for i, s := range scans(stmt) {
		if tb := s.from.(*tableRef).table; tb != cat.edgeTable && tb != cat.edgeByTarget {
			continue
		}
		for k, w := range slices.Concat(s.prewhere, s.where) {
			if x, ok := w.(*inSub); ok {
				if r, ok := x.sub.from.(*cteRef); ok && sets[r.name] {
					_, pair := x.l.(tupleExpr)
					out = append(out, seedSite{scan: i, conj: k, set: r.name, pair: pair})
				}
			}
		}
	}
	return out
}

// conjunct returns a pointer to conjunct k of s (PREWHERE, then WHERE).
func conjunct(s *selectStmt, k int) *expr {
	if k < len(s.prewhere) {
		return &s.prewhere[k]
	}
	return &s.where[k-len(s.prewhere)]
}

// retable makes arm read entity e's table instead, with e's scope for caller and its
// liveness (a correct scan of e), and select kind as its kind column when it has one.
func retable(arm *selectStmt, e *entity, kind string, caller *Caller) {
	t := arm.from.(*tableRef)
	t.table = e.table
	notScope := func(x expr) bool { _, ok := x.(*scopePred); return ok }
	arm.prewhere = slices.DeleteFunc(slices.Clone(arm.prewhere), notScope)
	arm.where = slices.DeleteFunc(slices.Clone(arm.where), notScope)
	if !e.global {
		arm.where = append(arm.where, scopeFor(newScopeCache(caller), t.alias, e.floor))
	}
	for i, it := range arm.cols {
		if _, ok := it.e.(*param); ok && it.alias == "kind" {
			arm.cols[i] = as(prm(kind, typString), "kind")
		}
	}
}

// otherEntity is the first namespaced entity of cat (by name) that is none of not.
func otherEntity(cat *catalog, not ...string) *entity {
	for _, n := range cat.entityNames {
		if e := cat.entities[n]; !e.global && !slices.Contains(not, n) {
			return e
		}
	}
	return nil
}

// setEntities is the entities the arms of the CTE name read, in arm order.
func setEntities(stmt *selectStmt, cat *catalog, name string) []string {
	var out []string
	for _, arm := range cteArms(stmt, name) {
		out = append(out, cat.tables[arm.from.(*tableRef).table].name)
	}
	return out
}

// seedRefusal matches the reasons the check gives for a seed it refuses: a kind not tied,
// another column matched, a shadowed set name, or (when the mutated set also binds a
// join-bound scan, which then binds nothing) a scan that starts nowhere.
var seedRefusal = regexp.MustCompile(`kind|other than|named|WITH|does not start at a set of authorised nodes`)

var walkStepSet = regexp.MustCompile(`^h\d+r\d+$`)
var sharedStepSet = regexp.MustCompile(`^h\d+r$`)

// seedCategory names the shape a seed belongs to, for the coverage count.
func seedCategory(q string, stmtIdx int, site seedSite) string {
	switch {
	case strings.Contains(q, `"neighbors"`) && stmtIdx == 0:
		return "neighbors, one statement"
	case strings.Contains(q, `"neighbors"`):
		return "neighbors, two steps"
	case strings.Contains(q, `"path_finding"`):
		return "path_finding"
	case walkStepSet.MatchString(site.set):
		return "walk step"
	case sharedStepSet.MatchString(site.set):
		return "shared walk steps"
	default:
		return "hop or walk start"
	}
}

// TestCheckTiesSeedsToTheirKind: ids are unique within a kind only, so an edge scan seeded by
// a node set must keep only edges whose end is of a kind the set holds (check.go, seeded).
// For every node-set seed of every edge scan — fixed hops, walk steps (separate and shared),
// path_finding, neighbors in both forms — it rewrites the statement so that ids of one kind
// seed edges of another: the set reads another entity's table (with that entity's own scope
// and liveness) while the edges keep their kind; the edges' kind is changed while the set
// keeps its own; a set of several kinds lies about an arm's kind; an (id, kind) seed is
// loosened to ids alone; the seed matches another column of the set; another CTE of the set's
// name, or one a sub-query defines, stands in for it. Each mutant must be refused, for one of
// those reasons (seedRefusal). A set that tells the truth about the kinds it reads stays
// accepted under (id, kind) matching.
func TestCheckTiesSeedsToTheirKind(t *testing.T) {
	plain := newTestCompiler(t)
	sized := compilerWith(t, smallSizes{})
	shared := compilerWith(t, walkSizes{edges: 1})
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	queries := slices.Concat(seedQueries, broadCheckQueries, sharedWalkQueries, []string{
		// Centers found by a filter: both neighbors statements start at the center set.
		`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","filters":{"name":"x"}}],"neighbors":{"direction":"both"}}`,
	})
	covered := map[string]int{}
	refused, accepted := 0, 0
	for _, c := range []*Compiler{plain, sized, shared} {
		for _, q := range queries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				builds := []func() *selectStmt{func() *selectStmt {
					stmt, _, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatalf("lower %s: %v", q, err)
					}
					return stmt
				}}
				if _, plan, _ := c.lower([]byte(q), caller); plan != nil && plan.steps != nil {
					builds = append(builds, func() *selectStmt {
						_, plan, _ := c.lower([]byte(q), caller)
						return plan.steps.first
					})
				}
				for bi, build := range builds {
					check := check
					if bi == 1 { // the first statement of the two-step plan
						check = checkEdges
					}
					stmt := build()
					if err := check(stmt, cat, caller); err != nil {
						t.Fatalf("caller %d: unmutated statement %d of %s fails the check: %v", ci, bi, q, err)
					}
					for _, site := range seedSites(stmt, cat) {
						where := fmt.Sprintf("caller %d, statement %d, scan %d seeded by %s, of %.90s", ci, bi, site.scan, site.set, q)
						shape := seedCategory(q, bi, site)
						kinds := setEntities(stmt, cat, site.set)
						other := otherEntity(cat, kinds...)
						mustRefuse := func(what string, m func(stmt *selectStmt, scan *selectStmt)) {
							t.Helper()
							fresh := build()
							m(fresh, scans(fresh)[site.scan])
							refused++
							covered[shape]++
							err := check(fresh, cat, caller)
							if !errors.Is(err, ErrSecurityCheckFailed) {
								t.Errorf("%s: %s passed the check", where, what)
							} else if !seedRefusal.MatchString(err.Error()) {
								t.Errorf("%s: %s refused for another reason: %v", where, what, err)
							}
						}
						// The rules resolve a set by its name: another CTE of that name, or one a
						// sub-query defines, must not stand in for it.
						shadow := func() *cte {
							return &cte{name: site.set, body: &selectStmt{
								from:  &tableRef{table: other.table, alias: "t", final: true},
								cols:  []selItem{as(col("t", "id"), "id"), as(prm(kinds[0], typString), "kind")},
								where: []expr{eq(col("t", "_deleted"), litBool(false)), scopeFor(newScopeCache(caller), "t", other.floor)},
							}}
						}
						mustRefuse("a second CTE named "+site.set+", ahead of it, reading "+other.name, func(stmt, _ *selectStmt) {
							stmt.with = append([]*cte{shadow()}, stmt.with...)
						})
						mustRefuse("a seed whose sub-query defines its own "+site.set+" reading "+other.name, func(_, scan *selectStmt) {
							(*conjunct(scan, site.conj)).(*inSub).sub.with = []*cte{shadow()}
						})
						// A seed matches the set's id, never another of its columns.
						for _, it := range cteArms(stmt, site.set)[0].cols {
							if it.alias != "id" && it.alias != "kind" {
								mustRefuse("a seed matching the set's "+it.alias, func(_, scan *selectStmt) {
									(*conjunct(scan, site.conj)).(*inSub).sub.cols[0] = selItem{e: col("", it.alias)}
								})
								break
							}
						}
						if !site.pair {
							// The set holds one kind (K); the seed must fix the edge end's kind to K.
							mustRefuse("a seed set reading "+other.name+" for edges of kind "+kinds[0], func(stmt, _ *selectStmt) {
								for _, arm := range cteArms(stmt, site.set) {
									retable(arm, other, other.name, caller)
								}
							})
							mustRefuse("edges of kind "+other.name+" seeded by a set of "+kinds[0], func(_, scan *selectStmt) {
								x := (*conjunct(scan, site.conj)).(*inSub)
								kc := kindCol(x.l.(*colRef).name)
								for _, w := range slices.Concat(scan.prewhere, scan.where) {
									if b, ok := w.(*binOp); ok {
										if l, ok := b.l.(*colRef); ok && l.name == kc {
											b.r = prm(other.name, typString)
										}
									}
								}
							})
							continue
						}
						covered["(id, kind) seeds"]++
						// A set of several kinds, matched on (id, kind): each arm must name its own
						// entity as kind.
						mustRefuse("a seed set whose "+kinds[0]+" arm reads "+other.name, func(stmt, _ *selectStmt) {
							retable(cteArms(stmt, site.set)[0], other, kinds[0], caller)
						})
						mustRefuse("an (id, kind) seed loosened to ids of a set of several kinds", func(_, scan *selectStmt) {
							x := (*conjunct(scan, site.conj)).(*inSub)
							l := x.l.(tupleExpr)
							x.l, x.sub.cols = l[0], x.sub.cols[:1]
							var ks []any
							for _, k := range kinds {
								ks = append(ks, k)
							}
							scan.where = append(scan.where, &binOp{op: "IN", l: l[1], r: prm(ks, "Array(String)")})
						})
						// Telling the truth about the other entity is safe: the engine compares kinds.
						fresh := build()
						retable(cteArms(fresh, site.set)[0], other, other.name, caller)
						if err := check(fresh, cat, caller); err != nil {
							t.Errorf("%s: a set arm of %s that says so fails the check: %v", where, other.name, err)
						}
						accepted++
					}
				}
			}
		}
	}
	for _, want := range []string{"hop or walk start", "walk step", "shared walk steps", "path_finding",
		"neighbors, one statement", "neighbors, two steps", "(id, kind) seeds"} {
		if covered[want] == 0 {
			t.Errorf("no mutant of %s: the test exercised nothing there (covered: %v)", want, covered)
		}
	}
	t.Logf("%d mutants refused, %d truthful sets accepted; by shape: %v", refused, accepted, covered)
}
