package compiler

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// dropEndSeed removes from edge scan s its node-set seeds on end ("source_id" or
// "target_id") and reports whether it had one.
func dropEndSeed(s *selectStmt, sets map[string]bool, end string) bool {
	dropped := false
	onEnd := func(w expr) bool {
		x, ok := w.(*inSub)
		if !ok {
			return false
		}
		if r, ok := x.sub.from.(*cteRef); !ok || !sets[r.name] {
			return false
		}
		l := x.l
		if tu, ok := l.(tupleExpr); ok {
			l = tu[0]
		}
		c, ok := l.(*colRef)
		if ok && c.name == end {
			dropped = true
		}
		return ok && c.name == end
	}
	s.prewhere = slices.DeleteFunc(slices.Clone(s.prewhere), onEnd)
	s.where = slices.DeleteFunc(slices.Clone(s.where), onEnd)
	return dropped
}

// dropKindJoin removes, from every select that joins the edge rows read as alias, the join
// conjuncts that compare alias.kindOut with another end's kind, and reports whether it did.
func dropKindJoin(stmt *selectStmt, alias, kindOut string) bool {
	dropped := false
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok {
			return
		}
		for i := range s.joins {
			s.joins[i].on = slices.DeleteFunc(slices.Clone(s.joins[i].on), func(w expr) bool {
				b, ok := w.(*binOp)
				if !ok || b.op != "=" {
					return false
				}
				for _, e := range []expr{b.l, b.r} {
					if c, ok := e.(*colRef); ok && c.qual == alias && c.name == kindOut {
						dropped = true
						return true
					}
				}
				return false
			})
		}
	})
	return dropped
}

var middleRefusal = regexp.MustCompile(`meet at .* a node no node set confirms|in a path step has no node-set seed on (source|target)_id`)

// TestCheckSeedsMiddleEdgesAtBothEnds: path_finding's middle edges (m1) are seeded at both
// ends, the source by the readable near set and the target by the readable far set; the node
// before the last is proved readable only by the target seed. The check needed one seed per
// edge scan, so dropping either one passed, and a path could go through a node the caller may
// not read. Now, in the one-statement form, rows of two edge CTEs joined end to end must meet
// at a node a node set confirms (check.go, meetingsConfirmed), and path_finding's second step
// must seed every edge scan at both ends (checkBothEndsSeeded). Each mutant, for every
// caller, both forms, depth 3, must be refused for that reason; the unmutated statements pass.
func TestCheckSeedsMiddleEdgesAtBothEnds(t *testing.T) {
	queries := []string{
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":5}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"v","entity":"Vulnerability","id_range":{"start":1,"end":100}}],"path":{"type":"shortest","from":"u","to":"v","max_depth":3,"rel_types":"*"}}`,
	}
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	forms := map[string]int{}
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for _, q := range queries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				// One statement: the middle edges are the CTE m1 of the lowered statement.
				if stmt, _, err := c.lower([]byte(q), caller); err != nil {
					t.Fatalf("lower %s: %v", q, err)
				} else if len(cteArms(stmt, partM1)) > 0 {
					if err := check(stmt, cat, caller); err != nil {
						t.Fatalf("caller %d: unmutated %s fails the check: %v", ci, q, err)
					}
					for _, end := range []string{"source_id", "target_id"} {
						stmt, _, _ := c.lower([]byte(q), caller)
						for _, arm := range cteArms(stmt, partM1) {
							if !dropEndSeed(arm, nodeSets(stmt, cat), end) {
								t.Fatalf("caller %d: m1 of %s has no seed on %s", ci, q, end)
							}
						}
						forms["one statement"]++
						err := check(stmt, cat, caller)
						where := fmt.Sprintf("caller %d, one statement, m1 without its %s seed, of %.90s", ci, end, q)
						if !errors.Is(err, ErrSecurityCheckFailed) {
							t.Errorf("%s: passed the check", where)
						} else if !middleRefusal.MatchString(err.Error()) {
							t.Errorf("%s: refused for another reason: %v", where, err)
						}
					}
					// The meeting node is confirmed on one side only if the kinds agree too.
					stmt, _, _ := c.lower([]byte(q), caller)
					if dropKindJoin(stmt, "m", "x_kind") {
						forms["kind join"]++
						err := check(stmt, cat, caller)
						where := fmt.Sprintf("caller %d, one statement, m1 joined without its kind, of %.90s", ci, q)
						if !errors.Is(err, ErrSecurityCheckFailed) {
							t.Errorf("%s: passed the check", where)
						} else if !strings.Contains(err.Error(), "without equating the kinds") {
							t.Errorf("%s: refused for another reason: %v", where, err)
						}
					}
				}
				// In steps: the second statement's middle edges.
				cq, err := c.Compile([]byte(q), caller)
				if err != nil {
					t.Fatalf("compile %s: %v", q, err)
				}
				if !cq.Plan.Paths() {
					continue
				}
				st := cq.Plan.paths
				near := []graphresponse.NodeRef{{Kind: st.fMids[0].name, ID: 3}, {Kind: st.fMids[0].name, ID: 4}}
				far := []graphresponse.NodeRef{{Kind: st.bMids[0].name, ID: 5}}
				build := func() *selectStmt {
					stmt, err := c.pathStepStmt(cq, near, far, false)
					if err != nil || stmt == nil {
						t.Fatalf("path step of %s: %v", q, err)
					}
					return stmt
				}
				checkStep := func(stmt *selectStmt) error {
					if err := check(stmt, cat, caller); err != nil {
						return err
					}
					return checkBothEndsSeeded(stmt, cat)
				}
				if err := checkStep(build()); err != nil {
					t.Fatalf("caller %d: unmutated path step of %s fails the check: %v", ci, q, err)
				}
				if _, err := c.PathStep(cq, near, far, false); err != nil {
					t.Fatalf("caller %d: PathStep of %s: %v", ci, q, err)
				}
				for _, end := range []string{"source_id", "target_id"} {
					stmt := build()
					arms := stepArms(stmt, partM1)
					if len(arms) == 0 {
						t.Fatalf("path step of %s has no middle edges", q)
					}
					for _, arm := range arms {
						if !dropEndSeed(arm, nodeSets(stmt, cat), end) {
							t.Fatalf("caller %d: m1 of the path step of %s has no seed on %s", ci, q, end)
						}
					}
					forms["in steps"]++
					where := fmt.Sprintf("caller %d, path step, m1 without its %s seed, of %.90s", ci, end, q)
					// check alone accepts it: one seed is a valid start.
					if err := check(stmt, cat, caller); err != nil {
						t.Errorf("%s: check refused a one-seed scan: %v", where, err)
					}
					err := checkStep(stmt)
					if !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("%s: passed the check", where)
					} else if !middleRefusal.MatchString(err.Error()) {
						t.Errorf("%s: refused for another reason: %v", where, err)
					}
				}
			}
		}
	}
	for _, want := range []string{"one statement", "in steps", "kind join"} {
		if forms[want] == 0 {
			t.Errorf("no mutant of the %s form: the test exercised nothing there (%v)", want, forms)
		}
	}
	t.Logf("mutants by form: %v", forms)
}
