package compiler

import (
	"errors"
	"slices"
	"testing"
)

// TestCheckEdgesRefusesLooseBindings: more ways to loosen the center binding of the first
// neighbors statement than TestCheckEdgesCenterBound's, each refused by checkEdges: the binding
// ORed away, moved into or beside a union arm of the top select, the edge rows joined a
// second time, the center set of another entity, a binding through the edge rows themselves or
// on the neighbor's kind, a center kind that admits another kind, and the center set seeding
// one arm only.
func TestCheckEdgesRefusesLooseBindings(t *testing.T) {
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	bindingAt := func(stmt *selectStmt) int {
		for i, w := range stmt.where {
			if x, ok := w.(*inSub); ok {
				if r, ok := x.l.(*colRef); ok && r.qual == "n" && r.name == "center_id" {
					return i
				}
			}
		}
		return -1
	}
	xArms := func(stmt *selectStmt) []*selectStmt {
		for _, c := range stmt.with {
			if c.name == "x" {
				return c.arms()
			}
		}
		return nil
	}
	mutants := []struct {
		name   string
		mutate func(stmt *selectStmt) bool
	}{
		{"binding ORed with true", func(s *selectStmt) bool {
			i := bindingAt(s)
			s.where[i] = orExpr{s.where[i], litBool(true)}
			return true
		}},
		{"binding moved into a union arm of the top select", func(s *selectStmt) bool {
			i := bindingAt(s)
			arm := &selectStmt{cols: s.cols, from: &cteRef{name: "x", alias: "n"}, where: []expr{s.where[i]}}
			s.where = slices.Delete(s.where, i, i+1)
			s.union = append(s.union, arm)
			return true
		}},
		{"a second, unbound top-level read of x in a union arm", func(s *selectStmt) bool {
			s.union = append(s.union, &selectStmt{cols: s.cols, from: &cteRef{name: "x", alias: "n"}})
			return true
		}},
		{"x joined a second time", func(s *selectStmt) bool {
			s.joins = append(s.joins, join{right: &cteRef{name: "x", alias: "m"}, on: []expr{eq(col("m", "nbr_id"), col("n", "nbr_id"))}})
			return true
		}},
		{"c's entity changed", func(s *selectStmt) bool {
			for _, c := range s.with {
				if c.name == "c" {
					for _, a := range c.arms() {
						if a.from.(*tableRef).table == "gl_note" {
							return false
						}
						a.from.(*tableRef).table = "gl_note"
					}
				}
			}
			return true
		}},
		{"binding through a sub-query reading x", func(s *selectStmt) bool {
			i := bindingAt(s)
			s.where[i] = in(col("n", "center_id"), idsFrom("x", "nbr_id"))
			return true
		}},
		{"binding on (center_id, nbr_kind)", func(s *selectStmt) bool {
			i := bindingAt(s)
			s.where[i] = in(tupleExpr{col("n", "center_id"), col("n", "nbr_kind")}, idsFrom("c", "id", "id"))
			return true
		}},
		{"an arm's center kind loosened to an IN list with another kind", func(s *selectStmt) bool {
			done := false
			for _, a := range xArms(s) {
				for _, list := range [][]expr{a.prewhere, a.where} {
					for i, w := range list {
						if b, ok := w.(*binOp); ok && b.op == "=" {
							if l, ok := b.l.(*colRef); ok && (l.name == "source_kind" || l.name == "target_kind") {
								if p, ok := b.r.(*param); ok {
									list[i] = &binOp{op: "IN", l: l, r: prm([]any{p.val, "Note"}, "Array(String)")}
									done = true
								}
							}
						}
					}
				}
			}
			return done
		}},
		{"center ids bound only in one arm", func(s *selectStmt) bool {
			arms := xArms(s)
			if len(arms) < 2 {
				return false
			}
			i := bindingAt(s)
			s.where = slices.Delete(s.where, i, i+1)
			arms[0].where = append(arms[0].where, in(col("t", arms[0].cols[0].e.(*colRef).name), idsFrom("c", "id")))
			return true
		}},
	}
	tried := 0
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for _, q := range centerBoundQueries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				for _, m := range mutants {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatal(err)
					}
					s := plan.steps.first
					if bindingAt(s) < 0 || !m.mutate(s) {
						continue
					}
					tried++
					if err := checkEdges(s, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("caller %d, %.70s: mutant %q passed checkEdges: %v", ci, q, m.name, err)
					}
				}
			}
		}
	}
	if tried < 100 {
		t.Fatalf("only %d mutants applied", tried)
	}
	t.Logf("%d mutants refused", tried)
}
