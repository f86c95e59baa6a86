package compiler

import (
	"strconv"
	"strings"
)

// edgeFloor is the access level every edge scan requires (docs/compiler.md, "Security rules in
// SQL"): 10 is the lowest level a scope can grant, so any scope that covers an edge's path
// reaches it.
const edgeFloor = 10

// scopeFor computes the scope predicate of a scan of an entity or edge table at floor.
func scopeFor(s *scopeCache, alias string, floor int) *scopePred {
	if s.c.Admin {
		return &scopePred{alias: alias, mode: scopeAllowAll}
	}
	paths := s.at(floor)
	if len(paths) == 0 {
		return &scopePred{alias: alias, mode: scopeDenyAll}
	}
	return &scopePred{alias: alias, mode: scopePaths, paths: paths}
}

// restrict is stage 4 (docs/compiler.md, "Stages"): it checks user traversal_path
// filters against the caller's scopes and enforces aggregation reachability.
func restrict(r *request, c *Caller) error {
	// A caller who is not an administrator and holds no scope may read no namespace: like
	// Orbit, refuse the query instead of answering it empty (docs/dsl.md, "Errors").
	if !c.Admin && len(c.PathsAtLeast(0)) == 0 {
		return newErr("", ErrNoScopes, "the caller has no traversal_path scope, so it may read no namespace; a token needs at least one scope (administrators need none)")
	}
	check := func(preds []*pred, floor int) error {
		if c.Admin {
			return nil
		}
		allowed := c.PathsAtLeast(floor)
		inside := func(v string) bool {
			for _, a := range allowed {
				if strings.HasPrefix(v, a) {
					return true
				}
			}
			return false
		}
		for _, p := range preds {
			if !p.tpath {
				continue
			}
			vals := p.vals
			if p.val != nil {
				vals = []any{p.val}
			}
			for i, v := range vals {
				if !inside(v.(string)) {
					at := p.path
					if p.op == "in" {
						at = sub(at, i)
					}
					return newErr(at, ErrScopeViolation, "traversal_path filter lies outside the caller's scopes")
				}
			}
		}
		return nil
	}
	for _, n := range r.nodes {
		if err := check(n.preds, n.ent.floor); err != nil {
			return err
		}
	}
	for _, rs := range r.rels {
		if err := check(rs.preds, edgeFloor); err != nil {
			return err
		}
	}
	if r.queryType == qAggregation && !c.Admin {
		byAlias := map[string]*nodeSel{}
		for _, n := range r.nodes {
			byAlias[n.alias] = n
		}
		for _, n := range r.nodes {
			if !n.ent.global {
				continue
			}
			anchored := false
			for _, rs := range r.rels {
				if (rs.from == n.alias && !byAlias[rs.to].ent.global) || (rs.to == n.alias && !byAlias[rs.from].ent.global) {
					anchored = true
				}
			}
			if !anchored {
				return newErr(ptr("nodes", n.idx), ErrGlobalNodeUnscoped, "node "+strconv.Quote(n.alias)+" of global entity "+n.ent.name+" must be connected to a namespaced node in an aggregation")
			}
		}
	}
	return nil
}
