package compiler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

// isDeletedFalse reports whether w is the conjunct "t._deleted = false".
func isDeletedFalse(w expr) bool {
	b, ok := w.(*binOp)
	if !ok || b.op != "=" {
		return false
	}
	c, ok := b.l.(*colRef)
	return ok && c.name == "_deleted"
}

// TestEdgeSetChecked: the statement of an edge set (docs/compiler.md, "Path finding on cached
// edges") is built for every relationship type and caller, passes the security check and the
// path step's rule that an edge scan is seeded at both ends; with either seed dropped, the
// node sets' liveness dropped, or their scopes dropped (a caller with scopes), it is refused.
func TestEdgeSetChecked(t *testing.T) {
	c := newTestCompiler(t)
	admin := &Caller{Admin: true}
	callers := append(slices.Clone(checkCallers), admin)
	mutants := map[string]int{}
	var pairs []EdgePair
	for _, name := range slices.Sorted(maps.Keys(c.cat.rels)) {
		for _, p := range c.cat.rels[name].pairs {
			pairs = append(pairs, EdgePair{name, p.from, p.to})
		}
	}
	for _, rel := range pairs {
		for ci, caller := range callers {
			cat := c.catalogFor(caller)
			if rt := cat.rels[rel.Type]; rt == nil || !slices.Contains(rt.pairs, pair{rel.From, rel.To}) || cat.entities[rel.From] == nil || cat.entities[rel.To] == nil {
				if _, err := c.EdgeSet(caller, rel, 1000); err == nil {
					t.Errorf("caller %d: edge set of %s, a pair it may not read, was built", ci, rel)
				}
				continue
			}
			q, err := c.EdgeSet(caller, rel, 1000)
			if err != nil {
				t.Fatalf("caller %d, %s: %v", ci, rel, err)
			}
			if strings.Contains(q.SQL, "'"+rel.Type+"'") || strings.Contains(q.SQL, "'"+rel.From+"'") {
				t.Errorf("caller %d, %s: the type is in the SQL text: %s", ci, rel, q.SQL)
			}
			checkAll := func(stmt *selectStmt) error {
				if err := check(stmt, cat, caller); err != nil {
					return err
				}
				return checkBothEndsSeeded(stmt, cat)
			}
			build := func() *selectStmt {
				stmt, err := c.edgeSetStmt(caller, rel, 1000)
				if err != nil {
					t.Fatal(err)
				}
				return stmt
			}
			refused := func(what string, stmt *selectStmt) {
				mutants[what]++
				if err := checkAll(stmt); !errors.Is(err, ErrSecurityCheckFailed) {
					t.Errorf("caller %d, %s, %s: passed the check (%v)", ci, rel, what, err)
				}
			}
			for _, end := range []string{"source_id", "target_id"} {
				stmt := build()
				if !dropEndSeed(stmt, nodeSets(stmt, cat), end) {
					t.Fatalf("caller %d, %s: no seed on %s", ci, rel, end)
				}
				refused("without its "+end+" seed", stmt)
			}
			for _, set := range []string{"es", "ed"} {
				for i := range cteArms(build(), set) {
					stmt := build()
					arm := cteArms(stmt, set)[i]
					arm.where = slices.DeleteFunc(slices.Clone(arm.where), isDeletedFalse)
					arm.prewhere = slices.DeleteFunc(slices.Clone(arm.prewhere), isDeletedFalse)
					refused(set+" arm without _deleted = false", stmt)
					if caller.Admin {
						continue
					}
					stmt = build()
					arm = cteArms(stmt, set)[i]
					before := len(arm.where) + len(arm.prewhere)
					keep := func(w expr) bool { return !isDeletedFalse(w) }
					arm.where = slices.DeleteFunc(slices.Clone(arm.where), keep)
					arm.prewhere = slices.DeleteFunc(slices.Clone(arm.prewhere), keep)
					if len(arm.where)+len(arm.prewhere) < before && !tableGlobal(cat, arm.from.(*tableRef).table) {
						refused(set+" arm without its scope", stmt)
					}
				}
			}
		}
	}
	if _, err := c.EdgeSet(admin, EdgePair{"MEMBER_OF", "User", "MergeRequest"}, 10); err == nil {
		t.Error("edge set of a pair the type does not have was built")
	}
	for _, want := range []string{"without its source_id seed", "without its target_id seed", "es arm without _deleted = false", "ed arm without its scope"} {
		if mutants[want] == 0 {
			t.Errorf("no mutant %q (%v)", want, mutants)
		}
	}
	t.Logf("mutants: %v", fmt.Sprint(mutants))
}

// tableGlobal reports whether table is a global entity's (no scope to drop).
func tableGlobal(cat *catalog, table string) bool {
	for _, e := range cat.entities {
		if e.table == table {
			return e.global
		}
	}
	return false
}
