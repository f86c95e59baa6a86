package compiler

import (
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Hydrate builds the second statement of a neighbors or path_finding query: the properties of
// the nodes refs of the base page (docs/compiler.md, "Stages"), one UNION ALL arm per kind,
// each scoped for the same caller and verified by the security check. It returns nil when
// refs is empty.
func (c *Compiler) Hydrate(q *Query, refs []graphresponse.NodeRef) (*Query, error) {
	if q == nil || !q.Plan.NeedsHydration() {
		return nil, newErr("", ErrCompilerBug, "hydration requested for a query that has none")
	}
	if len(refs) == 0 {
		return nil, nil
	}
	stmt, err := c.hydration(q.Plan, refs, hydrateOpts{})
	if err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}

// hydrateOpts varies the hydration statement for [Compiler.Lookup].
type hydrateOpts struct {
	noProps bool // props is an empty array: the statement only says which nodes are live and readable
	tp      bool // each arm also selects the node's traversal_path as tp ('' for a global kind)
}

// hydration builds the statement tree of [Compiler.Hydrate] and [Compiler.Lookup] before the
// security check; refs must not be empty.
func (c *Compiler) hydration(plan *Plan, refs []graphresponse.NodeRef, o hydrateOpts) (*selectStmt, error) {
	byKind := map[string][]int64{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	cat := c.catalogFor(plan.caller)
	l := &lowerer{cat: cat, caller: plan.caller, scopes: newScopeCache(plan.caller)}
	var stmt *selectStmt
	for _, pk := range plan.Build.Hydration {
		ids, ok := byKind[pk.Entity]
		if !ok {
			continue
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		e := cat.entities[pk.Entity]
		props := arrayExpr{}
		for _, pc := range pk.Columns {
			if o.noProps {
				break
			}
			if e.prop(pc.Name) == nil { // a withheld column (admin-only, unserved virtual)
				return nil, newErr("", ErrCompilerBug, "hydration of a column the caller may not read")
			}
			props = append(props, fn("toString", col("t", pc.Name)))
		}
		arm := l.entityScan(e, idsIn(col("t", "id"), ids))
		arm.cols = []selItem{
			as(prm(e.name, typString), "kind"), as(col("t", "id"), "id"),
			as(&castExpr{e: props, typ: "Array(Nullable(String))"}, "props"),
		}
		if o.tp {
			var tp expr = col("t", tpProp.name)
			if e.global {
				tp = prm("", typString)
			}
			arm.cols = append(arm.cols, as(tp, "tp"))
		}
		if stmt == nil {
			stmt = arm
		} else {
			stmt.union = append(stmt.union, arm)
		}
		delete(byKind, pk.Entity)
	}
	if len(byKind) > 0 || stmt == nil {
		return nil, newErr("", ErrCompilerBug, "hydration of a kind the plan does not know")
	}
	// The scope predicate and the ids read only sorting-key columns: in PREWHERE they drop
	// rows before FINAL merges versions, as in every other statement (docs/compiler.md, rule
	// 2); in WHERE every row of the granules the ids select was read whole and merged first.
	placePrewhere(stmt, cat)
	return stmt, nil
}
