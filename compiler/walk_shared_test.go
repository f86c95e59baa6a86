package compiler

import (
	"errors"
	"slices"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// walkSizes reports every table as holding rows rows (1 when 0) and every (relationship, from,
// to) combination as holding edges rows; with unknown, the edge counts are unknown.
type walkSizes struct {
	rows, edges int64
	unknown     bool
}

func (w walkSizes) Rows(string) (int64, bool) { return max(w.rows, 1), true }

func (w walkSizes) EdgeRows(string, string, string) (int64, bool) { return w.edges, !w.unknown }

// sharedWalkQueries are walks whose steps can share one edge scan: from a node of an inner
// kind (Group, so step 1 reads the shared scan too), in one direction and in both; from a
// node of another kind (a Project reached back from its groups, so step 1 keeps its own
// scan); and an aggregation over a walk.
var sharedWalkQueries = []string{
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1,2]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}]}`,
	`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3],"direction":"both"}]}`,
	`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"name":"x"}},{"id":"g","entity":"Group"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[2,3]}]}`,
	`{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","filters":{"name":"x"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,2]}],"group_by":["g"],"aggregations":[{"count":"p"}]}`,
}

func compilerWith(t *testing.T, sizes TableSizes) *Compiler {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ont, Options{Sizes: sizes, MaxWalkCost: -1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func cteNames(stmt *selectStmt) []string {
	var out []string
	for _, c := range stmt.with {
		out = append(out, c.name)
	}
	return out
}

// TestWalkSharedSteps: with small tables and few edges, every query of sharedWalkQueries reads
// its walk's edges once (h0e, seeded from h0r, the readable nodes of the inner kinds) and no
// step after the first has a scan of its own; with many edges, or edge counts unknown, the
// steps stay separate. Every form passes the security check, for every caller.
func TestWalkSharedSteps(t *testing.T) {
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	for _, tc := range []struct {
		name   string
		sizes  TableSizes
		shared bool
	}{
		{"few edges", walkSizes{edges: 1}, true},
		{"many edges", walkSizes{edges: sharedStepRows + 1}, false},
		{"large inner tables", walkSizes{rows: sharedStepRows + 1, edges: 1}, false},
		{"edge counts unknown", walkSizes{unknown: true}, false},
		{"no edge counts", smallSizes{}, false},
		{"no sizes", nil, false},
	} {
		c := compilerWith(t, tc.sizes)
		for _, q := range sharedWalkQueries {
			for ci, caller := range callers {
				stmt, _, err := c.lower([]byte(q), caller)
				if err != nil {
					t.Fatalf("%s: lower %s: %v", tc.name, q, err)
				}
				if err := check(stmt, c.cat, caller); err != nil {
					t.Errorf("%s, caller %d: %.70s fails the check: %v", tc.name, ci, q, err)
				}
				names := cteNames(stmt)
				shared := slices.Contains(names, "h0e") && slices.Contains(names, "h0r")
				if shared != tc.shared || (shared && slices.Contains(names, "h0s2")) {
					t.Errorf("%s, caller %d: %.70s has CTEs %v; shared steps: want %v", tc.name, ci, q, names, tc.shared)
				}
			}
		}
	}
}

// TestCheckRefusesSharedStepsThroughUnreadableNodes: the shared edge scan of a walk is what
// keeps its intermediate nodes authorised, so the check refuses it when it skips that: its
// seed dropped, its set of readable nodes read from the edges instead of the node tables, or a
// scan of that set without the caller's scope or liveness.
func TestCheckRefusesSharedStepsThroughUnreadableNodes(t *testing.T) {
	c := compilerWith(t, walkSizes{edges: 1})
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	refused := 0
	for _, q := range sharedWalkQueries {
		for ci, caller := range callers {
			for _, m := range []struct {
				name   string
				mutate func(stmt *selectStmt) bool
			}{
				{"shared edges without their seed", func(stmt *selectStmt) bool {
					sets := nodeSets(stmt, c.cat)
					dropped := false
					for _, arm := range cteArms(stmt, "h0e") {
						dropped = dropSeeds(arm, sets) || dropped
					}
					return dropped
				}},
				{"readable set taken from the edges' far ends", func(stmt *selectStmt) bool {
					for _, x := range stmt.with {
						if x.name == "h0r" {
							edges := cteArms(stmt, "h0e")[0]
							arm := *edges
							arm.union = nil
							arm.cols = []selItem{as(col("t", "target_id"), "id"), as(prm("Group", typString), "kind")}
							x.body = &arm
							return true
						}
					}
					return false
				}},
				{"readable set without liveness", func(stmt *selectStmt) bool {
					arms := cteArms(stmt, "h0r")
					for _, arm := range arms {
						arm.where = slices.DeleteFunc(slices.Clone(arm.where), func(e expr) bool {
							b, ok := e.(*binOp)
							if !ok {
								return false
							}
							l, ok := b.l.(*colRef)
							return ok && l.name == "_deleted"
						})
					}
					return len(arms) > 0
				}},
				{"readable set without scope", func(stmt *selectStmt) bool {
					arms := cteArms(stmt, "h0r")
					for _, arm := range arms {
						arm.prewhere = slices.DeleteFunc(slices.Clone(arm.prewhere), func(e expr) bool { _, ok := e.(*scopePred); return ok })
						arm.where = slices.DeleteFunc(slices.Clone(arm.where), func(e expr) bool { _, ok := e.(*scopePred); return ok })
					}
					return len(arms) > 0 && !caller.Admin
				}},
			} {
				stmt, _, err := c.lower([]byte(q), caller)
				if err != nil {
					t.Fatal(err)
				}
				if !m.mutate(stmt) {
					continue
				}
				refused++
				if err := check(stmt, c.cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, %.70s: %s passed the check", ci, q, m.name)
				}
			}
		}
	}
	if refused < len(sharedWalkQueries)*len(callers)*3 {
		t.Fatalf("only %d mutants: the shared shape was not compiled", refused)
	}
}
