package compiler

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// checkQueries cover every lowering: scans in CTEs, union arms, IN sub-queries and anchors.
var checkQueries = []string{
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}},{"id":"mr","entity":"MergeRequest"},{"id":"p","entity":"Project"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"},{"type":"IN_PROJECT","from":"mr","to":"p","direction":"both"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3],"direction":"both"}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}]}`,
	`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","node_ids":[1000]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
	`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"neighbors":{"direction":"both"}}`,
	// One node: the select of the answer reads the table itself (flattenScan).
	`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","title":{"contains":"fix"}},"columns":["iid","merged_at"]}],"order_by":"-mr.merged_at","cursor":{"page_size":5}}`,
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"draft":false}}],"group_by":["mr.state"],"aggregations":[{"count":"mr"},{"max":"mr.iid"}],"aggregation_sort":"-count_mr","cursor":{"page_size":5}}`,
}

var checkCallers = []*Caller{
	{Scopes: []Scope{{Path: "100/", Level: 30}, {Path: "200/201/", Level: 10}}},
	{Scopes: []Scope{{Path: "300/", Level: 5}}}, // below every floor: every scan denies all
}

func newTestCompiler(t *testing.T) *Compiler {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ont, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// scans returns every SELECT of the tree that reads a table.
func scans(stmt *selectStmt) []*selectStmt {
	var out []*selectStmt
	walk(stmt, func(n sqlNode) {
		if s, ok := n.(*selectStmt); ok {
			if _, isTable := s.from.(*tableRef); isTable {
				out = append(out, s)
			}
		}
	})
	return out
}

func scopedBy(s *selectStmt) *scopePred {
	for _, w := range slices.Concat(s.prewhere, s.where) {
		if sp, ok := w.(*scopePred); ok {
			return sp
		}
	}
	return nil
}

// checkMutations weaken one scan of a compiled statement each; the security check must
// refuse every mutant.
var checkMutations = []struct {
	name   string
	mutate func(s *selectStmt) bool // false: not applicable to this scan
}{
	{"drop scope", func(s *selectStmt) bool {
		for _, list := range []*[]expr{&s.prewhere, &s.where} {
			for i, w := range *list {
				if _, ok := w.(*scopePred); ok {
					*list = append((*list)[:i:i], (*list)[i+1:]...)
					return true
				}
			}
		}
		return false
	}},
	{"allow all", func(s *selectStmt) bool {
		if sp := scopedBy(s); sp != nil {
			sp.mode, sp.paths = scopeAllowAll, nil
			return true
		}
		return false
	}},
	{"foreign path", func(s *selectStmt) bool {
		if sp := scopedBy(s); sp != nil {
			sp.mode, sp.paths = scopePaths, []string{"999/"}
			return true
		}
		return false
	}},
	{"drop FINAL", func(s *selectStmt) bool { s.from.(*tableRef).final = false; return true }},
	{"drop _deleted", func(s *selectStmt) bool { s.where = s.where[1:]; return true }},
	// PREWHERE runs before FINAL: _deleted there would drop a tombstone and bring back
	// the version it deletes.
	{"_deleted before FINAL", func(s *selectStmt) bool {
		s.prewhere, s.where = append(s.prewhere, s.where[0]), s.where[1:]
		return true
	}},
	// A filter on a column outside the sorting key before FINAL matches old versions.
	{"non-key filter before FINAL", func(s *selectStmt) bool {
		s.prewhere = append(s.prewhere, eq(col("t", "_version"), litInt(1)))
		return true
	}},
	{"unknown table", func(s *selectStmt) bool { s.from.(*tableRef).table = "system_users"; return true }},
}

// TestCheckRejectsMutations compiles real queries, then weakens one scan at a time (drop the
// scope predicate, widen it to AllowAll, change its paths, drop FINAL, drop _deleted = false,
// read an unknown table) and requires the security check to refuse every mutant.
func TestCheckRejectsMutations(t *testing.T) {
	c := newTestCompiler(t)
	mutants := 0
	for _, q := range checkQueries {
		for ci, caller := range checkCallers {
			stmt, _, err := c.lower([]byte(q), caller)
			if err != nil {
				t.Fatalf("lower %s: %v", q, err)
			}
			if err := check(stmt, c.cat, caller); err != nil {
				t.Fatalf("unmutated %s fails the check: %v", q, err)
			}
			n := len(scans(stmt))
			for _, m := range checkMutations {
				for i := range n {
					fresh, _, _ := c.lower([]byte(q), caller)
					target := scans(fresh)[i]
					table := target.from.(*tableRef).table
					if !m.mutate(target) {
						continue
					}
					mutants++
					if err := check(fresh, c.cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("caller %d, scan %d (%s) of %.60s: mutation %q passed the check", ci, i, table, q, m.name)
					}
				}
			}
		}
	}
	t.Logf("%d mutants rejected", mutants)
}

// smallSizes reports every table as holding a single row, so the lowering reads far nodes
// whole and their hops' edges are read once, unseeded unless their near node has no ids.
type smallSizes struct{}

func (smallSizes) Rows(string) (int64, bool) { return 1, true }

// seedQueries are checkQueries plus shapes whose edge scans are bound by constant ids: a hop
// from named nodes, neighbors ordered by a center property (a join with the centers) and a
// two-step walk from an id range; and hops from a root with coarse filters, whose edge scans
// the sized compilers leave unseeded (joinedHop): from the to side of a relationship, and with
// two of them from one root.
var seedQueries = append(slices.Clone(checkQueries),
	`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}},{"id":"p","entity":"Project"}],"relationships":[{"type":["FIXES","IN_PROJECT"],"from":"mr","to":"p","hops":[2,2]}],"aggregations":[{"count":"p"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[1,2]},{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}},{"id":"u","entity":"User"}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"},{"type":["AUTHORED","REVIEWER"],"from":"u","to":"mr","direction":"both"}]}`,
	`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2]}],"neighbors":{"direction":"both"},"order_by":"-mr.created_at"}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2]},{"id":"w","entity":"WorkItem"},{"id":"l","entity":"Label"}],"relationships":[{"type":["CONTAINS","IN_GROUP"],"from":"g","to":"w","direction":"both"},{"type":"HAS_LABEL","from":"w","to":"l"}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":["opened","merged"]}},{"id":"u","entity":"User"}],"relationships":[{"type":["AUTHORED","REVIEWER"],"from":"u","to":"mr"}],"group_by":["u"],"aggregations":[{"count":"mr"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}},{"id":"p","entity":"Project"},{"id":"u","entity":"User"}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"},{"type":"AUTHORED","from":"u","to":"mr"}]}`)

// edgeCTE names the CTE whose body (or union arm) is the edge scan s.
func edgeCTE(stmt *selectStmt, s *selectStmt) string {
	for _, c := range stmt.with {
		if c.body == s || slices.Contains(c.body.union, s) {
			return c.name
		}
	}
	return ""
}

// cteArms returns the body and union arms of the CTE name of stmt.
func cteArms(stmt *selectStmt, name string) []*selectStmt {
	for _, c := range stmt.with {
		if c.name == name {
			return c.arms()
		}
	}
	return nil
}

// stepArms returns the arms of a path step statement's union whose part column is part.
func stepArms(stmt *selectStmt, part string) []*selectStmt {
	var out []*selectStmt
	for _, a := range append([]*selectStmt{stmt}, stmt.union...) {
		if p, ok := a.cols[0].e.(*param); ok && a.cols[0].alias == "part" && p.val == part {
			out = append(out, a)
		}
	}
	return out
}

// boundSets lists the other CTEs that the top-level conjuncts mentioning the CTE name (read
// as n when it is the neighbors' x) compare it with: the node sets its ends are bound to.
func boundSets(stmt *selectStmt, name string) []string {
	q := name
	if name == "x" {
		q = "n"
	}
	var out []string
	add := func(other string) {
		for _, c := range stmt.with {
			if c.name == other && other != name && !slices.Contains(out, other) {
				out = append(out, other)
			}
		}
	}
	conjuncts := slices.Clone(stmt.where)
	for _, j := range stmt.joins {
		conjuncts = append(conjuncts, j.on...)
	}
	for _, w := range conjuncts {
		mentions := false
		walk(w, func(n sqlNode) {
			if r, ok := n.(*colRef); ok && r.qual == q {
				mentions = true
			}
		})
		switch x := w.(type) {
		case *binOp:
			for _, e := range []expr{x.l, x.r} {
				if r, ok := e.(*colRef); ok && mentions {
					add(r.qual)
				}
			}
		case *inSub:
			if r, ok := x.sub.from.(*cteRef); ok && mentions {
				add(r.name)
			}
		}
	}
	return out
}

// readAtTop reports whether the top-level select reads the CTE name in its FROM or joins.
func readAtTop(stmt *selectStmt, name string) bool {
	for _, f := range stmt.fromItems() {
		if r, ok := f.(*cteRef); ok && r.name == name {
			return true
		}
	}
	return false
}

// dropSeeds removes the node-set seeds ("… IN (SELECT … FROM <node set>)") of scan s and
// reports whether it had one.
func dropSeeds(s *selectStmt, sets map[string]bool) bool {
	all := slices.Concat(s.prewhere, s.where)
	kept := all[:0:0]
	for _, w := range all {
		if x, ok := w.(*inSub); ok {
			if r, ok := x.sub.from.(*cteRef); ok && sets[r.name] {
				continue
			}
		}
		kept = append(kept, w)
	}
	s.prewhere, s.where = nil, kept
	return len(kept) < len(all)
}

// TestCheckEdgeScansSeededOrJoinBound: an edge scan either starts at a set of authorised nodes
// or is join-bound (check.go, joinBound): its CTE is read once by the top-level select, which
// binds both of its ends to node sets of the ends' kinds. Walk steps and path middles are never
// join-bound, so dropping their seed must fail the check (it would let a walk pass through
// nodes the caller may not read); a fixed hop or a neighbors scan keeps passing without its
// seed, but not once a binding is dropped, a kind is changed, or its rows are read a second way.
func TestCheckEdgeScansSeededOrJoinBound(t *testing.T) {
	plain, sized := newTestCompiler(t), sizedCompiler(t, smallSizes{})
	// With edge counts too, variable-length walks share one edge scan (shareSteps).
	shared := sizedCompiler(t, walkSizes{edges: 1})
	refused, accepted, bound, looked := 0, 0, 0, 0
	mustFail := func(what string, stmt *selectStmt, caller *Caller) {
		t.Helper()
		refused++
		if err := check(stmt, plain.cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
			t.Errorf("%s passed the check", what)
		}
	}
	for _, c := range []*Compiler{plain, sized, shared} {
		for _, q := range seedQueries {
			for ci, caller := range append(slices.Clone(checkCallers), &Caller{Admin: true}) {
				lower := func() *selectStmt {
					stmt, _, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatalf("lower %s: %v", q, err)
					}
					return stmt
				}
				stmt := lower()
				if err := check(stmt, c.cat, caller); err != nil {
					t.Fatalf("unmutated %s fails the check: %v", q, err)
				}
				for i, target := range scans(stmt) {
					if tb := target.from.(*tableRef).table; tb != c.cat.edgeTable && tb != c.cat.edgeByTarget {
						continue
					}
					where := fmt.Sprintf("sized=%v shared=%v caller %d, scan %d of %.70s", c == sized, c == shared, ci, i, q)
					fresh := lower()
					target = scans(fresh)[i]
					name := edgeCTE(fresh, target)
					seeded := dropSeeds(target, nodeSets(fresh, c.cat))
					if !readAtTop(fresh, name) {
						if !seeded {
							t.Errorf("%s: a walk step without a node-set seed was compiled", where)
							continue
						}
						mustFail(where+": a walk step without its seed", fresh, caller)
						continue
					}
					// Join-bound: no seed needed ...
					if err := check(fresh, c.cat, caller); err != nil {
						t.Errorf("%s: a join-bound edge scan without a seed fails the check: %v", where, err)
						continue
					}
					accepted++
					// ... but every binding is.
					mutate := func(what string, m func(stmt, scan *selectStmt)) {
						t.Helper()
						stmt := lower()
						scan := scans(stmt)[i]
						sets := nodeSets(stmt, c.cat)
						for _, c := range stmt.with {
							if c.name == name {
								for _, arm := range c.arms() {
									dropSeeds(arm, sets)
								}
							}
						}
						m(stmt, scan)
						mustFail(where+": "+what, stmt, caller)
					}
					mentions := func(e expr) bool {
						found := false
						walk(e, func(n sqlNode) {
							if r, ok := n.(*colRef); ok && (r.qual == name || r.qual == "n" && name == "x") {
								found = true
							}
						})
						return found
					}
					for j := range stmt.joins {
						for k, on := range stmt.joins[j].on {
							if mentions(on) {
								bound++
								mutate(fmt.Sprintf("join %d without ON conjunct %d", j, k), func(stmt, _ *selectStmt) {
									stmt.joins[j].on = slices.Delete(slices.Clone(stmt.joins[j].on), k, k+1)
								})
							}
						}
					}
					for k, w := range stmt.where {
						if x, ok := w.(*inSub); ok && mentions(x.l) {
							bound++
							mutate(fmt.Sprintf("without WHERE conjunct %d", k), func(stmt, _ *selectStmt) {
								stmt.where = slices.Delete(slices.Clone(stmt.where), k, k+1)
							})
						}
					}
					for k, w := range slices.Concat(target.prewhere, target.where) {
						b, ok := w.(*binOp)
						if !ok || b.op != "=" {
							continue
						}
						if l, ok := b.l.(*colRef); ok && (l.name == "source_kind" || l.name == "target_kind") {
							mutate(fmt.Sprintf("%s of another kind", l.name), func(_, scan *selectStmt) {
								all := slices.Concat(scan.prewhere, scan.where)
								all[k] = eq(col("t", l.name), prm("Note", typString))
								scan.prewhere, scan.where = nil, all
							})
						}
					}
					mutate("read twice at the top", func(stmt, _ *selectStmt) {
						stmt.joins = append(stmt.joins, join{right: &cteRef{name: name, alias: "again"}})
					})
					// A join-bound CTE may only narrow the node set an end is bound to.
					mutate("looked up by the top-level select", func(stmt, _ *selectStmt) {
						ends, _ := edgeEnds(cteArms(stmt, name), c.cat)
						stmt.where = append(stmt.where, in(stmt.cols[0].e, idsFrom(name, ends[0])))
					})
					// lookup calls fn with the first conjunct (PREWHERE or WHERE) of any select
					// that looks the CTE up; it reports whether there was one.
					lookup := func(stmt *selectStmt, fn func(list []expr, i int, x *inSub)) bool {
						found := false
						walk(stmt, func(n sqlNode) {
							s, ok := n.(*selectStmt)
							if !ok || found {
								return
							}
							for _, list := range [][]expr{s.prewhere, s.where} {
								for i, w := range list {
									if x, ok := w.(*inSub); ok && !found {
										if r, ok := x.sub.from.(*cteRef); ok && r.name == name {
											found = true
											fn(list, i, x)
										}
									}
								}
							}
						})
						return found
					}
					if lookup(lower(), func([]expr, int, *inSub) {}) {
						looked++
						mutate("looked up for its other end", func(stmt, _ *selectStmt) {
							ends, _ := edgeEnds(cteArms(stmt, name), c.cat)
							lookup(stmt, func(_ []expr, _ int, x *inSub) {
								other := ends[0]
								if r, ok := x.sub.cols[0].e.(*colRef); ok && r.name == ends[0] {
									other = ends[1]
								}
								x.sub.cols = []selItem{{e: col("", other)}}
							})
						})
						mutate("looked up inside an OR", func(stmt, _ *selectStmt) {
							lookup(stmt, func(list []expr, i int, x *inSub) {
								list[i] = orExpr{x, eq(col("t", "id"), litInt(0))}
							})
						})
					}
					mutate("read by another CTE", func(stmt, _ *selectStmt) {
						stmt.with = append(stmt.with, &cte{name: "leak", body: &selectStmt{from: &cteRef{name: name}, cols: []selItem{{e: col("", "rel_kind")}}}})
					})
					// The engine names a union's columns by the first arm and fills them by
					// position: an arm that lists its ends in another order puts the far end in
					// the column bound to the near node set, whatever its aliases say.
					if arms := cteArms(stmt, name); len(arms) > 1 {
						mutate("an arm that lists its ends in another order", func(stmt, _ *selectStmt) {
							arm := cteArms(stmt, name)[1]
							arm.cols[0], arm.cols[1] = arm.cols[1], arm.cols[0]
						})
					}
					// A node set binds an end only through the ids of the nodes it reads.
					for _, set := range boundSets(stmt, name) {
						mutate("node set "+set+" whose id is another column", func(stmt, _ *selectStmt) {
							for _, arm := range cteArms(stmt, set) {
								arm.cols[0] = as(col("t", "author_id"), "id")
							}
						})
					}
					if name == "x" {
						mutate("neighbor set lying about a kind", func(stmt, _ *selectStmt) {
							for _, c := range stmt.with {
								if c.name == "live" {
									c.body.cols[1] = as(prm("Note", typString), "kind")
								}
							}
						})
					}
				}
			}
		}
	}
	if accepted == 0 || bound == 0 || refused == 0 || looked == 0 {
		t.Fatalf("join-bound scans accepted %d, bindings %d, looked up %d, mutants %d: the test exercised nothing", accepted, bound, looked, refused)
	}
	t.Logf("%d join-bound scans accepted without a seed; %d mutants refused", accepted, refused)
}

// TestCheckLiteralsAndFunctions: only small constants and allow-listed functions pass.
func TestCheckLiteralsAndFunctions(t *testing.T) {
	c := newTestCompiler(t)
	stmt, _, err := c.lower([]byte(checkQueries[0]), checkCallers[0])
	if err != nil {
		t.Fatal(err)
	}
	stmt.where = append(stmt.where, eq(col("n0", "id"), litInt(123456)))
	if err := check(stmt, c.cat, checkCallers[0]); !errors.Is(err, ErrSecurityCheckFailed) {
		t.Errorf("a large literal passed the check: %v", err)
	}
	stmt2, _, _ := c.lower([]byte(checkQueries[0]), checkCallers[0])
	stmt2.where = append(stmt2.where, fn("sleep", litInt(3)))
	if err := check(stmt2, c.cat, checkCallers[0]); !errors.Is(err, ErrSecurityCheckFailed) {
		t.Errorf("a function outside the allow-list passed the check: %v", err)
	}
}

// TestWalkPanicsOnUnknownNode keeps the AST sealed: a node type walk does not know fails.
func TestWalkPanicsOnUnknownNode(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("walk accepted an unknown node type")
		}
	}()
	walk(unknownNode{}, func(sqlNode) {})
}

type unknownNode struct{}

func (unknownNode) sqlNode() {}

// TestPrewherePlacement: in every scan the sorting-key conjuncts (scope, ids, edge kinds, id
// sets) filter before FINAL, and _deleted = false and the other columns' filters after it.
func TestPrewherePlacement(t *testing.T) {
	c := newTestCompiler(t)
	queries := append(slices.Clone(checkQueries),
		`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","traversal_path":{"starts_with":"100/"}}}]}`)
	for _, q := range queries {
		for ci, caller := range checkCallers {
			stmt, _, err := c.lower([]byte(q), caller)
			if errors.Is(err, ErrScopeViolation) && ci > 0 {
				continue // the traversal_path filter lies outside this caller's scopes
			}
			if err != nil {
				t.Fatalf("lower %s: %v", q, err)
			}
			for i, s := range scans(stmt) {
				tr := s.from.(*tableRef)
				key := sortingKey(c.cat, tr.table)
				for _, w := range s.where {
					if keyOnly(w, tr.alias, key) {
						t.Errorf("caller %d, scan %d (%s) of %.60s: a sorting-key conjunct stays after FINAL", ci, i, tr.table, q)
					}
				}
				if len(s.where) == 0 {
					t.Errorf("caller %d, scan %d (%s) of %.60s: _deleted = false is not after FINAL", ci, i, tr.table, q)
				}
				if e := c.cat.tables[tr.table]; e != nil && e.global {
					continue
				}
				found := false
				for _, w := range s.prewhere {
					if _, ok := w.(*scopePred); ok {
						found = true
					}
				}
				if !found {
					t.Errorf("caller %d, scan %d (%s) of %.60s: the scope predicate is not before FINAL", ci, i, tr.table, q)
				}
			}
		}
	}
}

// broadCheckQueries reach the statement shapes the speed rewrite introduced: walks with
// readable sets of intermediates (every hop range, both directions, aggregation walks),
// neighbors in both directions with a joined center, path finding over many types, cursors,
// global-entity searches and the code-graph, security and CI entities.
var broadCheckQueries = []string{
	`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100}},{"id":"p","entity":"Project"}],"relationships":[{"type":["FIXES","IN_PROJECT"],"from":"mr","to":"p","hops":[1,3],"direction":"both"}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100}},{"id":"p","entity":"Project"}],"relationships":[{"type":["HAS_HEAD_PIPELINE","HAS_JOB","IN_PROJECT"],"from":"mr","to":"p","hops":[2,3]}],"group_by":["p"],"aggregations":[{"count":"mr"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"w","entity":"WorkItem","node_ids":[1,2]},{"id":"o","entity":"WorkItem"}],"relationships":[{"type":["CONTAINS","RELATED_TO"],"from":"w","to":"o","hops":[1,3],"direction":"incoming"}],"cursor":{"page_size":5}}`,
	`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1,2,3]}],"neighbors":{"direction":"both"},"order_by":"-p.name"}`,
	`{"query_type":"neighbors","nodes":[{"id":"j","entity":"Job","id_range":{"start":1,"end":50}}],"neighbors":{"direction":"incoming","rel_types":["HAS_JOB","RAN_BY"]}}`,
	`{"query_type":"neighbors","nodes":[{"id":"d","entity":"Definition","node_ids":[1,2]}],"neighbors":{"direction":"both"},"cursor":{"page_size":5}}`,
	`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"v","entity":"Vulnerability","id_range":{"start":1,"end":100}}],"path":{"type":"shortest","from":"u","to":"v","max_depth":3,"rel_types":"*"}}`,
	`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":{"token_match":"alice"}}},{"id":"r","entity":"Runner"}],"relationships":[{"type":"*","from":"u","to":"r","hops":[1,2],"direction":"both"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"f","entity":"File","id_range":{"start":1,"end":100}},{"id":"d","entity":"Definition"},{"id":"x","entity":"Definition"}],"relationships":[{"type":"DEFINES","from":"f","to":"d"},{"type":"CALLS","from":"d","to":"x","hops":[1,2]}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"o","entity":"VulnerabilityOccurrence","id_range":{"start":1,"end":1000}},{"id":"s","entity":"VulnerabilityScanner"}],"relationships":[{"type":"DETECTED_BY","from":"o","to":"s"}],"group_by":["s"],"aggregations":[{"count":"o"}]}`,
}

// TestCheckRejectsMutationsEverywhere applies checkMutations to every scan of every
// statement — the base statements of broadCheckQueries and checkQueries and the hydration
// statements of their neighbors and path_finding queries — for scoped callers, a caller
// with no scope at all and an administrator, each through the catalog view the compiler
// gives that caller.
func TestCheckRejectsMutationsEverywhere(t *testing.T) {
	c := newTestCompiler(t)
	callers := append(slices.Clone(checkCallers),
		&Caller{Scopes: []Scope{{Path: "1/", Level: 20}, {Path: "1/4/", Level: 25}, {Path: "3/", Level: 10}}},
		&Caller{Admin: true})
	mutants, statements := 0, 0
	for _, q := range slices.Concat(checkQueries, broadCheckQueries) {
		for ci, caller := range callers {
			cat := c.catalogFor(caller)
			builds := []func() (*selectStmt, error){func() (*selectStmt, error) {
				stmt, _, err := c.lower([]byte(q), caller)
				return stmt, err
			}}
			_, plan, err := c.lower([]byte(q), caller)
			if err != nil {
				t.Fatalf("lower %s: %v", q, err)
			}
			if plan.NeedsHydration() {
				refs := twoOfEachKind(plan)
				builds = append(builds, func() (*selectStmt, error) {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						return nil, err
					}
					return c.hydration(plan, refs, hydrateOpts{})
				})
			}
			edgesAt := -1 // the build of the first statement, checked by checkEdges
			if plan.steps != nil {
				// The two-step neighbors plan: its first statement, and the lookup with and
				// without hydration columns.
				refs := twoOfEachKind(plan)
				edgesAt = len(builds)
				builds = append(builds, func() (*selectStmt, error) {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						return nil, err
					}
					return plan.steps.first, nil
				})
				for _, o := range []hydrateOpts{{tp: true}, {tp: true, noProps: true}} {
					builds = append(builds, func() (*selectStmt, error) {
						_, plan, err := c.lower([]byte(q), caller)
						if err != nil {
							return nil, err
						}
						return c.hydration(plan, refs, o)
					})
				}
			}
			for bi, build := range builds {
				check := check
				if bi == edgesAt {
					check = checkEdges
				}
				stmt, err := build()
				if err != nil {
					t.Fatalf("build %d of %s: %v", bi, q, err)
				}
				statements++
				if err := check(stmt, cat, caller); err != nil {
					t.Fatalf("caller %d: unmutated statement %d of %s fails the check: %v", ci, bi, q, err)
				}
				for _, m := range checkMutations {
					if caller.Admin && (m.name == "allow all" || m.name == "foreign path") {
						continue // an administrator's scans are unrestricted by design
					}
					for i := range scans(stmt) {
						fresh, _ := build()
						target := scans(fresh)[i]
						table := target.from.(*tableRef).table
						if !m.mutate(target) {
							continue
						}
						mutants++
						if err := check(fresh, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
							t.Errorf("caller %d, statement %d, scan %d (%s) of %.80s: mutation %q passed the check", ci, bi, i, table, q, m.name)
						}
					}
				}
			}
		}
	}
	t.Logf("%d statements, %d mutants rejected", statements, mutants)
}

// scanStart matches the start of one table scan in emitted SQL.
var scanStart = regexp.MustCompile(`FROM (gl_[a-z_]+) AS t FINAL\b`)

// scopeText matches the SQL forms of a scope predicate on the scan alias t: startsWith on
// traversal_path, the grouped substring lookup, or false for a caller with no eligible path.
var scopeText = regexp.MustCompile(`startsWith\(t\.traversal_path, \{p\d+:String\}\)|substring\(t\.traversal_path, 1, \d+\) IN \{p\d+:Array\(String\)\}|(PREWHERE|AND) false\b`)

// TestEmittedScansCarryTheScope checks the emitted text, after the emitter has turned CTEs
// read more than once into scalar arrays, merged lookups and dropped unused columns: it
// holds exactly the scans of the checked tree, and every scan of a namespaced table, in
// every scalar sub-query and UNION arm and in the hydration statement, filters by the
// caller's scope (or by false) and by _deleted before the next scan begins.
func TestEmittedScansCarryTheScope(t *testing.T) {
	c := newTestCompiler(t)
	callers := append(slices.Clone(checkCallers),
		&Caller{Scopes: []Scope{{Path: "1/", Level: 20}, {Path: "1/4/", Level: 25}, {Path: "3/", Level: 10}}})
	for i := range 12 { // more paths than the OR form takes
		callers[len(callers)-1].Scopes = append(callers[len(callers)-1].Scopes, Scope{Path: fmt.Sprintf("%d/%d/", 10+i, 100+i), Level: 30})
	}
	for _, q := range slices.Concat(checkQueries, broadCheckQueries) {
		for ci, caller := range callers {
			stmt, plan, err := c.lower([]byte(q), caller)
			if err != nil {
				t.Fatalf("lower %s: %v", q, err)
			}
			compiled, err := c.finish(stmt, caller, plan.Build.QueryType, plan)
			if err != nil {
				t.Fatalf("compile %s: %v", q, err)
			}
			texts := map[string]int{compiled.SQL: len(scans(stmt))}
			if plan.NeedsHydration() {
				var refs []graphresponse.NodeRef
				for _, k := range plan.Build.Hydration {
					refs = append(refs, graphresponse.NodeRef{Kind: k.Entity, ID: 1})
				}
				hs, err := c.hydration(plan, refs, hydrateOpts{})
				if err != nil {
					t.Fatal(err)
				}
				hq, err := c.Hydrate(compiled, refs)
				if err != nil {
					t.Fatal(err)
				}
				texts[hq.SQL] = len(scans(hs))
			}
			if plan.steps != nil {
				var refs []graphresponse.NodeRef
				for _, k := range plan.Build.Hydration {
					refs = append(refs, graphresponse.NodeRef{Kind: k.Entity, ID: 1})
				}
				first, err := c.finishEdges(plan.steps.first, caller, plan.Build.QueryType)
				if err != nil {
					t.Fatalf("compile the first statement of %s: %v", q, err)
				}
				texts[first.SQL] = len(scans(plan.steps.first))
				ls, err := c.hydration(plan, refs, hydrateOpts{tp: true})
				if err != nil {
					t.Fatal(err)
				}
				plan.edges = first
				lq, err := c.Lookup(&Query{Plan: plan}, refs, true)
				if err != nil {
					t.Fatal(err)
				}
				texts[lq.SQL] = len(scans(ls))
			}
			for sql, want := range texts {
				starts := scanStart.FindAllStringSubmatchIndex(sql, -1)
				if len(starts) != want || strings.Count(sql, " FINAL") != want {
					t.Errorf("caller %d, %.80s: %d scans in the SQL text, %d in the checked tree:\n%s", ci, q, len(starts), want, sql)
				}
				for i, m := range starts {
					end := len(sql)
					if i+1 < len(starts) {
						end = starts[i+1][0]
					}
					table, scan := sql[m[2]:m[3]], sql[m[0]:end]
					if !strings.Contains(scan, "t._deleted = false") {
						t.Errorf("caller %d, %.80s: scan of %s without _deleted = false: %q", ci, q, table, scan)
					}
					if e := c.cat.tables[table]; e != nil && e.global {
						continue
					}
					if !scopeText.MatchString(scan) {
						t.Errorf("caller %d, %.80s: scan of %s without the caller's scope: %q", ci, q, table, scan)
					}
				}
			}
		}
	}
}

// twoOfEachKind is a hydration or lookup list of ids 1 and 2 of every kind plan hydrates.
func twoOfEachKind(plan *Plan) []graphresponse.NodeRef {
	var refs []graphresponse.NodeRef
	for _, k := range plan.Build.Hydration {
		refs = append(refs, graphresponse.NodeRef{Kind: k.Entity, ID: 1}, graphresponse.NodeRef{Kind: k.Entity, ID: 2})
	}
	return refs
}
