package compiler

import (
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Derived text (docs/dsl.md, "Virtual content"). Orbit fetches MergeRequest.diff and
// MergeRequestDiff.patch from the repository service after the query; graphwire holds no
// such text, but when MergeRequestDiffFile.diff is loaded it holds every file's part of it.
// A query that names one of these properties gets, after its statement, a second one that
// reads the files' diffs of the nodes in the answer (Compiler.Derive), and the executor
// joins them, ordered by path, into the property (graphresponse.ApplyDerived). A node whose
// files were not loaded, or have no diff text (too large, binary), keeps null.

// derivation names where a virtual property's text comes from.
type derivation struct {
	entity, prop string // the virtual property: MergeRequest.diff
	key          string // the column of MergeRequestDiffFile naming the node: merge_request_id
	latest       bool   // only the files of the merge request's latest diff
}

// diffFile is the entity whose diff text the derivations read, with the columns they need.
const diffFile = "MergeRequestDiffFile"

var derivations = []derivation{
	{entity: "MergeRequest", prop: "diff", key: "merge_request_id", latest: true},
	{entity: "MergeRequestDiff", prop: "patch", key: "merge_request_diff_id"},
}

// markDerived flags the virtual properties a derivation can serve, when the ontology has
// every entity and column the derivation reads.
func (c *catalog) markDerived() {
	f := c.entities[diffFile]
	if f == nil {
		return
	}
	for _, d := range derivations {
		e := c.entities[d.entity]
		if e == nil {
			continue
		}
		p := e.byName[d.prop]
		need := []string{"diff", "new_path", "merge_request_diff_id", d.key}
		if p == nil || !p.virtual || p.stored || slices.ContainsFunc(need, func(n string) bool { return f.byName[n] == nil }) {
			continue
		}
		if d.latest && e.byName["latest_merge_request_diff_id"] == nil {
			continue
		}
		p.derived = true
	}
}

// derivationOf returns the derivation of entity's derived property, if any.
func derivationOf(entity string) (derivation, bool) {
	for _, d := range derivations {
		if d.entity == entity {
			return d, true
		}
	}
	return derivation{}, false
}

// planDerived records in the plan the derived properties the nodes of r select.
func (l *lowerer) planDerived() {
	for _, n := range l.r.nodes {
		for _, p := range selection(n) {
			if !p.derived {
				continue
			}
			d := graphresponse.PlanDerived{Entity: n.ent.name, Property: p.name}
			if !slices.Contains(l.plan.Derived, d) {
				l.plan.Derived = append(l.plan.Derived, d)
			}
		}
	}
}

// Derive builds the statement that reads the diff text of the nodes refs of an answer whose
// plan has derived properties: rows (kind, id, path, text), ordered, one per diff file, each
// arm scoped for the same caller and verified by the security check. It returns nil when refs
// holds no node of a derived kind.
func (c *Compiler) Derive(q *Query, refs []graphresponse.NodeRef) (*Query, error) {
	if q == nil || q.Plan == nil || q.Plan.Build == nil || len(q.Plan.Build.Derived) == 0 {
		return nil, newErr("", ErrCompilerBug, "derived text requested for a query that has none")
	}
	byKind := map[string][]int64{}
	for _, r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	cat := c.catalogFor(q.Plan.caller)
	l := &lowerer{cat: cat, caller: q.Plan.caller, scopes: newScopeCache(q.Plan.caller)}
	f := cat.entities[diffFile]
	var stmt *selectStmt
	for _, pd := range q.Plan.Build.Derived {
		ids := byKind[pd.Entity]
		d, ok := derivationOf(pd.Entity)
		if len(ids) == 0 || !ok || f == nil {
			continue
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		where := []expr{idsIn(col("t", d.key), ids), &isNull{e: col("t", "diff"), not: true}}
		if d.latest {
			// The merge request's latest diff, read from the merge requests the caller may read.
			mr := l.entityScan(cat.entities[d.entity], idsIn(col("t", "id"), ids))
			mr.cols = []selItem{as(col("t", "latest_merge_request_diff_id"), "latest_merge_request_diff_id")}
			where = append(where, in(col("t", "merge_request_diff_id"), mr))
		}
		arm := l.entityScan(f, where...)
		arm.cols = []selItem{
			as(prm(pd.Entity, typString), "kind"), as(col("t", d.key), "id"),
			as(col("t", "new_path"), "path"), as(col("t", "diff"), "text"),
		}
		if stmt == nil {
			stmt = arm
		} else {
			stmt.union = append(stmt.union, arm)
		}
	}
	if stmt == nil {
		return nil, nil
	}
	placePrewhere(stmt, cat)
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}

// Derived reports whether graphwire serves the virtual property entity.prop from the text of
// other rows (MergeRequest.diff, MergeRequestDiff.patch from MergeRequestDiffFile.diff), when
// the ontology holds what the derivation reads. The schemas use it to tell agents which
// virtual properties they may name.
func Derived(entity, prop string) bool {
	d, ok := derivationOf(entity)
	return ok && d.prop == prop
}
