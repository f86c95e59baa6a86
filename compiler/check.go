package compiler

import (
	"slices"
)

// allowedFunctions is the renderer's function allow-list (docs/compiler.md, "Stages", check.go).
var allowedFunctions = map[string]bool{
	"startsWith": true, "endsWith": true, "substring": true, "positionCaseInsensitiveUTF8": true,
	"toString": true, "any": true, "count": true, "sumOrNull": true, "avgOrNull": true,
	"minOrNull": true, "maxOrNull": true, "toDate32": true, "toDateTime64": true,
	"toStartOfMinute": true, "toStartOfHour": true, "toStartOfDay": true, "toStartOfWeek": true,
	"toStartOfMonth": true, "toStartOfQuarter": true, "toStartOfYear": true,
	"hasToken": true, "hasAllTokens": true, "hasAnyTokens": true,
}

func checkErr(msg string) error { return newErr("", ErrSecurityCheckFailed, msg) }

// check is stage 6 (docs/compiler.md, "Stages"): it re-derives from the caller and the
// catalog what every table scan must carry and refuses a statement that lacks it. It trusts
// nothing the earlier stages decided.
func check(stmt *selectStmt, cat *catalog, c *Caller) error {
	var err error
	scopes := newScopeCache(c)
	sets := nodeSets(stmt, cat)
	walk(stmt, func(n sqlNode) {
		if err != nil {
			return
		}
		switch x := n.(type) {
		case *selectStmt:
			err = checkSelect(x, cat, c, scopes, sets)
		case *lit:
			switch v := x.v.(type) {
			case bool:
			case int:
				if v < 0 || v > 1001 {
					err = checkErr("literal out of the constant range")
				}
			default:
				err = checkErr("literal of an unexpected type")
			}
		case *call:
			if !allowedFunctions[x.fn] {
				err = checkErr("function " + x.fn + " is not allowed")
			}
		case *castExpr:
			if _, ok := castTypes[x.typ]; !ok {
				err = checkErr("cast type is not allowed")
			}
		}
	})
	return err
}

// nodeSets lists the CTEs of stmt that are sets of nodes: every arm of the body scans an
// entity table (whose scope checkSelect verifies), none reads edges or another CTE.
func nodeSets(stmt *selectStmt, cat *catalog) map[string]bool {
	out := map[string]bool{}
	for _, c := range stmt.with {
		ok := true
		for _, arm := range append([]*selectStmt{c.body}, c.body.union...) {
			t, isTable := arm.from.(*tableRef)
			if !isTable || cat.tables[t.table] == nil {
				ok = false
			}
		}
		out[c.name] = ok
	}
	return out
}

// seeded reports whether one conjunct of an edge scan limits it to edges that start at a
// node set: "… IN (SELECT … FROM <node set>)".
func seeded(s *selectStmt, sets map[string]bool) bool {
	for _, w := range slices.Concat(s.prewhere, s.where) {
		if x, ok := w.(*inSub); ok {
			if r, ok := x.sub.from.(*cteRef); ok && sets[r.name] && len(x.sub.union) == 0 {
				return true
			}
		}
	}
	return false
}

func checkSelect(s *selectStmt, cat *catalog, c *Caller, scopes *scopeCache, sets map[string]bool) error {
	t, ok := s.from.(*tableRef)
	if !ok {
		if len(s.prewhere) > 0 {
			return checkErr("PREWHERE on a select that reads no table")
		}
		for _, j := range s.joins {
			if _, isTable := j.right.(*tableRef); isTable {
				return checkErr("a table is joined")
			}
		}
		return nil
	}
	floor := 0
	namespaced := false
	if t.table == cat.edgeTable || t.table == cat.edgeByTarget {
		floor, namespaced = edgeFloor, true
	} else if e, known := cat.tables[t.table]; known {
		floor, namespaced = e.floor, !e.global
	} else {
		return checkErr("table " + t.table + " is not in the registry")
	}
	if len(s.joins) > 0 {
		return checkErr("scan of " + t.table + " has joins")
	}
	if !t.final {
		return checkErr("scan of " + t.table + " lacks FINAL")
	}
	// PREWHERE runs before FINAL picks the latest version of a row, so it may only read the
	// sorting key, which every version of a row shares: a filter on another column (or on
	// _deleted) there would let an old version stand in for the latest.
	key := sortingKey(cat, t.table)
	for _, w := range s.prewhere {
		if !keyOnly(w, t.alias, key) {
			return checkErr("scan of " + t.table + " filters a column outside the sorting key before FINAL")
		}
	}
	deleted := false
	var scope *scopePred
	for i, w := range slices.Concat(s.where, s.prewhere) {
		if sp, ok := w.(*scopePred); ok && sp.alias == t.alias {
			if scope != nil {
				return checkErr("scan of " + t.table + " has two scope predicates")
			}
			scope = sp
			continue
		}
		if i >= len(s.where) {
			continue // _deleted = false must be in WHERE, after FINAL
		}
		switch x := w.(type) {
		case *binOp:
			if l, ok := x.l.(*colRef); ok && x.op == "=" && l.qual == t.alias && l.name == "_deleted" {
				if r, ok := x.r.(*lit); ok && r.v == false {
					deleted = true
				}
			}
		}
	}
	if !deleted {
		return checkErr("scan of " + t.table + " lacks _deleted = false")
	}
	if !namespaced {
		if scope != nil {
			return checkErr("scan of global table " + t.table + " has a scope predicate")
		}
		return nil
	}
	if scope == nil {
		return checkErr("scan of " + t.table + " is not scoped")
	}
	// An edge scan starts at nodes the caller may read, never at the far ends of other edge
	// rows: that is what keeps every intermediate node of a walk authorised.
	if (t.table == cat.edgeTable || t.table == cat.edgeByTarget) && !seeded(s, sets) {
		return checkErr("scan of " + t.table + " does not start at a set of authorised nodes")
	}
	want := scopes.at(floor)
	switch scope.mode {
	case scopeAllowAll:
		if !c.Admin {
			return checkErr("scan of " + t.table + " is unrestricted for a non-admin caller")
		}
	case scopeDenyAll:
		if len(want) != 0 && !c.Admin {
			return checkErr("scan of " + t.table + " denies all although paths are eligible")
		}
	default:
		if c.Admin {
			return nil
		}
		if !slices.Equal(scope.paths, want) {
			return checkErr("scan of " + t.table + " has the wrong scope")
		}
	}
	return nil
}
