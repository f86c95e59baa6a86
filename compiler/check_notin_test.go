package compiler

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// TestCheckNotInIsNoSeed: the incoming scan of a direction "both" neighbors query drops the
// edges the outgoing scan keeps with "t.source_id NOT IN (SELECT id FROM c)". A NOT IN only
// narrows, and the check must never take one for the seed it negates: every seed of the
// statement, turned into its NOT IN, must be refused, for every caller, with and without
// table sizes.
func TestCheckNotInIsNoSeed(t *testing.T) {
	q := `{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":30}}],"neighbors":{"direction":"both","rel_types":["CONTAINS","MEMBER_OF"]},"limit":40}`
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for ci, caller := range callers {
			cat := c.catalogFor(caller)
			stmt, _, err := c.lower([]byte(q), caller)
			if err != nil {
				t.Fatalf("lower: %v", err)
			}
			if err := check(stmt, cat, caller); err != nil {
				t.Fatalf("caller %d: the unmutated statement fails the check: %v", ci, err)
			}
			hasNotIn := false
			walk(stmt, func(n sqlNode) {
				if _, ok := n.(*notInSub); ok {
					hasNotIn = true
				}
			})
			if !hasNotIn {
				t.Fatalf("caller %d: no NOT IN in the statement: the incoming scan keeps edges between centres", ci)
			}
			// Count the seeds and the bindings to node sets (an IN whose sub-query reads a node
			// set, in any select), then negate them one at a time on a fresh statement.
			seeds := func(stmt *selectStmt) []*expr {
				sets := nodeSets(stmt, cat)
				var out []*expr
				walk(stmt, func(n sqlNode) {
					s, ok := n.(*selectStmt)
					if !ok {
						return
					}
					for _, list := range [][]expr{s.prewhere, s.where} {
						for i := range list {
							if x, ok := list[i].(*inSub); ok {
								if r, ok := x.sub.from.(*cteRef); ok && sets[r.name] {
									out = append(out, &list[i])
								}
							}
						}
					}
				})
				return out
			}
			n := len(seeds(stmt))
			if n == 0 {
				t.Fatalf("caller %d: no seeded scan found", ci)
			}
			for i := range n {
				stmt, _, _ := c.lower([]byte(q), caller)
				p := seeds(stmt)[i]
				x := (*p).(*inSub)
				*p = notIn(x.l, x.sub)
				mutants++
				if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, seed %d negated: %s", ci, i, fmt.Sprint("passed the check: ", err))
				}
			}
		}
	}
	if mutants == 0 {
		t.Fatal("no mutant was made")
	}
	t.Logf("%d negated seeds and bindings, all refused", mutants)
}
