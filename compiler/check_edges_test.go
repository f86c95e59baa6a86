package compiler

import (
	"errors"
	"slices"
	"testing"
)

// centerBoundQueries are neighbors queries whose centers are named by id: the first statement
// of their two-step plan bounds its edge scans by those ids and keeps only the rows whose
// center is in the center set c, at the top (checkEdges).
var centerBoundQueries = []string{
	`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"both"},"limit":8}`,
	`{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":30}}],"neighbors":{"direction":"both","rel_types":["CONTAINS","MEMBER_OF"]},"limit":40}`,
	`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1,2,3]}],"neighbors":{"direction":"incoming"},"limit":20}`,
	`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,5]}],"neighbors":{"direction":"outgoing"},"limit":20}`,
}

// TestCheckEdgesCenterBound: the first statement of a two-step neighbors plan whose centers
// are named by id has edge scans that start at no node set; the top-level select keeps only
// rows whose center end is in c. checkEdges accepts that (one end bound), check does not
// (both ends), and checkEdges refuses every way of loosening it: no binding, a NOT IN, the
// neighbor end bound instead, a kind of the center end not fixed (or fixed to another
// entity), and the edge rows read a second time, by a sub-query of the top-level select.
func TestCheckEdgesCenterBound(t *testing.T) {
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	type mutant struct {
		name   string
		mutate func(stmt *selectStmt) bool // false: does not apply to this statement
	}
	binding := func(stmt *selectStmt) *inSub {
		for _, w := range stmt.where {
			if x, ok := w.(*inSub); ok {
				if r, ok := x.l.(*colRef); ok && r.qual == "n" && r.name == "center_id" {
					return x
				}
			}
		}
		return nil
	}
	dropBinding := func(stmt *selectStmt) bool {
		x := binding(stmt)
		stmt.where = slices.DeleteFunc(stmt.where, func(w expr) bool { return w == expr(x) })
		return x != nil
	}
	// centerKind finds, in every arm of x, the conjunct fixing the center end's kind.
	centerKinds := func(stmt *selectStmt) []*expr {
		var out []*expr
		for _, c := range stmt.with {
			if c.name != "x" {
				continue
			}
			for _, a := range c.arms() {
				end := "source_kind"
				if a.from.(*tableRef).table == "gl_edge_by_target" {
					end = "target_kind"
				}
				for _, list := range [][]expr{a.prewhere, a.where} {
					for i := range list {
						if b, ok := list[i].(*binOp); ok && b.op == "=" {
							if l, ok := b.l.(*colRef); ok && l.name == end {
								out = append(out, &list[i])
							}
						}
					}
				}
			}
		}
		return out
	}
	mutants := []mutant{
		{"no binding", dropBinding},
		{"binding negated", func(stmt *selectStmt) bool {
			x := binding(stmt)
			if x == nil {
				return false
			}
			i := slices.Index(stmt.where, expr(x))
			stmt.where[i] = notIn(x.l, x.sub)
			return true
		}},
		{"neighbor end bound instead", func(stmt *selectStmt) bool {
			x := binding(stmt)
			if x == nil {
				return false
			}
			x.l = col("n", "nbr_id")
			return true
		}},
		{"center kind not fixed", func(stmt *selectStmt) bool {
			ks := centerKinds(stmt)
			for _, k := range ks {
				*k = litBool(true)
			}
			return len(ks) > 0
		}},
		{"center kind fixed to another entity", func(stmt *selectStmt) bool {
			ks := centerKinds(stmt)
			for _, k := range ks {
				(*k).(*binOp).r = prm("Note", typString)
			}
			return len(ks) > 0
		}},
		{"edge rows read again by a sub-query", func(stmt *selectStmt) bool {
			stmt.where = append(stmt.where, in(col("n", "nbr_id"), idsFrom("x", "nbr_id")))
			return true
		}},
	}
	refused := 0
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for _, q := range centerBoundQueries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				first := func() *selectStmt {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatalf("lower %s: %v", q, err)
					}
					if plan.steps == nil {
						t.Fatalf("%s: no two-step plan", q)
					}
					return plan.steps.first
				}
				stmt := first()
				if binding(stmt) == nil {
					t.Fatalf("caller %d, %.80s: the first statement binds no center at the top", ci, q)
				}
				if err := checkEdges(stmt, cat, caller); err != nil {
					t.Fatalf("caller %d, %.80s: the first statement fails checkEdges: %v", ci, q, err)
				}
				if err := check(first(), cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, %.80s: the first statement passes the check that wants both ends bound: %v", ci, q, err)
				}
				for _, m := range mutants {
					fresh := first()
					if !m.mutate(fresh) {
						t.Fatalf("caller %d, %.80s: mutation %q does not apply", ci, q, m.name)
					}
					refused++
					if err := checkEdges(fresh, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
						t.Errorf("caller %d, %.80s: mutation %q passed checkEdges: %v", ci, q, m.name, err)
					}
				}
			}
		}
	}
	t.Logf("%d mutants refused", refused)
}
