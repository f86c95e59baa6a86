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
	"hasToken": true, "hasAllTokens": true, "hasAnyTokens": true, "if": true,
}

func checkErr(msg string) error { return newErr("", ErrSecurityCheckFailed, msg) }

// check is stage 6 (docs/compiler.md, "Stages"): it re-derives from the caller and the
// catalog what every table scan must carry and refuses a statement that lacks it. It trusts
// nothing the earlier stages decided.
func check(stmt *selectStmt, cat *catalog, c *Caller) error { return checkEnds(stmt, cat, c, 2) }

// checkEdges is check for the first statement of a plan in steps ([Plan.Edges]): its rows are
// edges whose far ends are only candidates, which a later statement must confirm
// ([Compiler.Lookup], [Compiler.PathStep]) before any reaches an answer, so an edge scan needs
// to start at authorised nodes at one end only. There, a CTE of edge scans whose rows the
// top-level select keeps only when one end is in a node set (and which nothing else reads) is
// as good as scans seeded by that set at that end: see joinBound. Everywhere else both ends
// must be bound.
func checkEdges(stmt *selectStmt, cat *catalog, c *Caller) error { return checkEnds(stmt, cat, c, 1) }

// checkEnds is check, with the number of ends the top-level select must bind to node sets for
// a CTE of edge scans to need no seed (joinBound).
func checkEnds(stmt *selectStmt, cat *catalog, c *Caller, ends int) error {
	// The rules resolve a CTE name to the top-level CTE of that name, which holds only when
	// no name is defined twice and no sub-query defines a WITH of its own that could shadow it.
	names := map[string]bool{}
	for _, x := range stmt.with {
		if names[x.name] {
			return checkErr("two CTEs are named " + x.name)
		}
		names[x.name] = true
	}
	var err error
	walk(stmt, func(n sqlNode) {
		if s, ok := n.(*selectStmt); ok && s != stmt && len(s.with) > 0 && err == nil {
			err = checkErr("a sub-query has a WITH clause of its own")
		}
	})
	if err != nil {
		return err
	}
	scopes := newScopeCache(c)
	sets := nodeSets(stmt, cat)
	facts := nodeSetFacts(stmt, cat, sets)
	bound := joinBound(stmt, cat, sets, facts, ends)
	walk(stmt, func(n sqlNode) {
		if err != nil {
			return
		}
		switch x := n.(type) {
		case *selectStmt:
			err = checkSelect(x, cat, c, scopes, facts, bound)
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
	if err != nil {
		return err
	}
	return meetingsConfirmed(stmt, cat, facts)
}

// meetingsConfirmed refuses a select that joins the rows of two edge CTEs end to end (a
// conjunct "a.<end> = b.<end>" of a join or of its WHERE) unless the select equates the two
// ends' kinds (or both are fixed to one kind, see kindsEquated) and a node set confirms the
// node where they meet: every arm of one side is seeded on that end (seeded has already
// checked the seed), or the select keeps only rows whose meeting node is in a node set
// ("(a.<end>, a.<end kind>) IN (SELECT id, kind FROM <set>)", every arm of the set naming its
// own entity as kind). A path's middle edges are seeded at both ends; without this rule one
// seed would pass, and a path could go through a node the caller may not read between the
// middle edge and the next. It sees edge CTEs read directly in a FROM or join, which is how
// the lowering reads them.
func meetingsConfirmed(stmt *selectStmt, cat *catalog, facts map[string]setFacts) error {
	edgeCTEs := map[string][]*selectStmt{}
	for _, c := range stmt.with {
		if _, ok := edgeEnds(c.arms(), cat); ok {
			edgeCTEs[c.name] = c.arms()
		}
	}
	var err error
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok || err != nil || len(s.joins) == 0 {
			return
		}
		arms := map[string][]*selectStmt{} // alias -> arms of the edge CTE it reads
		for _, f := range s.fromItems() {
			if r, ok := f.(*cteRef); ok && edgeCTEs[r.name] != nil {
				arms[r.qual()] = edgeCTEs[r.name]
			}
		}
		conjuncts := slices.Clone(s.where)
		for _, j := range s.joins {
			conjuncts = append(conjuncts, j.on...)
		}
		for _, w := range conjuncts {
			b, ok := w.(*binOp)
			if !ok || b.op != "=" {
				continue
			}
			l, lok := b.l.(*colRef)
			r, rok := b.r.(*colRef)
			if !lok || !rok || arms[l.qual] == nil || arms[r.qual] == nil {
				continue
			}
			lEnd, rEnd := endSeededAll(arms[l.qual], l.name, facts), endSeededAll(arms[r.qual], r.name, facts)
			if lEnd == "" || rEnd == "" {
				continue // not an id end of both (a kind, or another column)
			}
			// Ids are unique within a kind only: a node confirmed on one side is the other
			// side's node only if the select equates their kinds as well.
			if !kindsEquated(conjuncts, l, r, arms) {
				err = checkErr("edge rows " + l.qual + " and " + r.qual + " meet at " + l.qual + "." + l.name + " = " + r.qual + "." + r.name + " without equating the kinds of those ends")
				return
			}
			if lEnd == "seeded" || rEnd == "seeded" || confirmedIn(s, l, arms[l.qual], facts) || confirmedIn(s, r, arms[r.qual], facts) {
				continue
			}
			err = checkErr("edge rows " + l.qual + " and " + r.qual + " meet at " + l.qual + "." + l.name + " = " + r.qual + "." + r.name + ", a node no node set confirms: seed one side on that end")
			return
		}
	})
	return err
}

// checkBothEndsSeeded is the check of a statement whose edge rows no later statement confirms
// (path_finding's second step, PathStep): every edge scan is seeded by a node set at both
// ends, so that both ends of each middle edge are nodes the caller may read.
func checkBothEndsSeeded(stmt *selectStmt, cat *catalog) error {
	facts := nodeSetFacts(stmt, cat, nodeSets(stmt, cat))
	var err error
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok || err != nil {
			return
		}
		t, ok := s.from.(*tableRef)
		if !ok || (t.table != cat.edgeTable && t.table != cat.edgeByTarget) {
			return
		}
		for _, idCol := range []string{"source_id", "target_id"} {
			if !endSeed(s, idCol, facts) {
				err = checkErr("scan of " + t.table + " in a path step has no node-set seed on " + idCol + ": a middle edge must start and end at nodes the caller may read")
				return
			}
		}
	})
	return err
}

// kindsEquated reports whether one of conjuncts equates the kind outputs of ends l and r of
// edge rows (arms by alias), the same output in every arm of each side.
func kindsEquated(conjuncts []expr, l, r *colRef, arms map[string][]*selectStmt) bool {
	kindOf := func(e *colRef) string {
		_, k := armEnd(arms[e.qual][0], e.name)
		for _, a := range arms[e.qual][1:] {
			if _, ka := armEnd(a, e.name); ka != k {
				return ""
			}
		}
		return k
	}
	lk, rk := kindOf(l), kindOf(r)
	// The kind a side's end has in every row the select keeps: fixed by every arm, or by a
	// conjunct "<alias>.<kind output> = 'K'" of the select.
	sideKind := func(e *colRef, k string) string {
		if fixed := fixedKind(arms[e.qual], e.name); fixed != "" {
			return fixed
		}
		for _, w := range conjuncts {
			if b, ok := w.(*binOp); ok && b.op == "=" {
				c, cok := b.l.(*colRef)
				p, pok := b.r.(*param)
				if cok && pok && k != "" && c.qual == e.qual && c.name == k {
					if v, ok := p.val.(string); ok {
						return v
					}
				}
			}
		}
		return ""
	}
	if fixed := sideKind(l, lk); fixed != "" && fixed == sideKind(r, rk) {
		return true // both ends are of one and the same kind in every row kept
	}
	if lk == "" || rk == "" {
		return false
	}
	for _, w := range conjuncts {
		b, ok := w.(*binOp)
		if !ok || b.op != "=" {
			continue
		}
		x, xok := b.l.(*colRef)
		y, yok := b.r.(*colRef)
		if !xok || !yok {
			continue
		}
		if (x.qual == l.qual && x.name == lk && y.qual == r.qual && y.name == rk) || (x.qual == r.qual && x.name == rk && y.qual == l.qual && y.name == lk) {
			return true
		}
	}
	return false
}

// fixedKind returns the entity every arm fixes the kind of its output end out to ("t.<end
// kind> = 'K'" or IN a list of K alone), or "".
func fixedKind(arms []*selectStmt, out string) string {
	k := ""
	for _, a := range arms {
		idCol, _ := armEnd(a, out)
		t := a.from.(*tableRef)
		got := ""
		for _, w := range slices.Concat(a.prewhere, a.where) {
			b, ok := w.(*binOp)
			if !ok {
				continue
			}
			if l, ok := b.l.(*colRef); ok && l.qual == t.alias && l.name == kindCol(idCol) {
				if p, ok := b.r.(*param); ok {
					if e, ok := p.val.(string); ok && keepsKind(a, []expr{w}, kindCol(idCol), e) {
						got = e
					} else if vals, ok := p.val.([]any); ok && len(vals) > 0 {
						if e, ok := vals[0].(string); ok && keepsKind(a, []expr{w}, kindCol(idCol), e) {
							got = e
						}
					}
				}
			}
		}
		if got == "" || (k != "" && got != k) {
			return ""
		}
		k = got
	}
	return k
}

// endSeededAll tells, for output column out of an edge CTE's arms, "" when it is not an
// edge end's id in every arm, "seeded" when every arm is seeded on that end by a node set,
// else "open".
func endSeededAll(arms []*selectStmt, out string, facts map[string]setFacts) string {
	state := "seeded"
	for _, a := range arms {
		idCol, _ := armEnd(a, out)
		if idCol != "source_id" && idCol != "target_id" {
			return ""
		}
		if !endSeed(a, idCol, facts) {
			state = "open"
		}
	}
	return state
}

// endSeed reports whether edge scan a has a node-set seed on its id column idCol.
func endSeed(a *selectStmt, idCol string, facts map[string]setFacts) bool {
	t := a.from.(*tableRef)
	for _, w := range slices.Concat(a.prewhere, a.where) {
		x, ok := w.(*inSub)
		if !ok {
			continue
		}
		r, ok := x.sub.from.(*cteRef)
		if _, isSet := facts[r.name]; !ok || !isSet {
			continue
		}
		l := x.l
		if tu, ok := l.(tupleExpr); ok && len(tu) > 0 {
			l = tu[0]
		}
		if c, ok := l.(*colRef); ok && c.qual == t.alias && c.name == idCol {
			return true
		}
	}
	return false
}

// confirmedIn reports whether select s keeps only rows whose end e (of edge rows whose arms
// are given) is in a node set, matched on (id, kind) with a set whose arms name their own
// entity as kind.
func confirmedIn(s *selectStmt, e *colRef, arms []*selectStmt, facts map[string]setFacts) bool {
	_, kindOut := armEnd(arms[0], e.name)
	for _, a := range arms[1:] {
		if _, k := armEnd(a, e.name); k != kindOut {
			return false
		}
	}
	if kindOut == "" {
		return false
	}
	for _, w := range s.where {
		x, ok := w.(*inSub)
		if !ok {
			continue
		}
		r, ok := x.sub.from.(*cteRef)
		if !ok || !facts[r.name].kindsTrue || len(x.sub.joins) > 0 || len(x.sub.union) > 0 || len(x.sub.cols) != 2 {
			continue
		}
		tu, ok := x.l.(tupleExpr)
		if !ok || len(tu) != 2 {
			continue
		}
		id, iok := tu[0].(*colRef)
		k, kok := tu[1].(*colRef)
		sid, sok := x.sub.cols[0].e.(*colRef)
		sk, skok := x.sub.cols[1].e.(*colRef)
		if iok && kok && sok && skok && id.qual == e.qual && id.name == e.name && k.qual == e.qual && k.name == kindOut &&
			sid.name == "id" && sk.name == "kind" && (sid.qual == "" || sid.qual == r.qual()) && (sk.qual == "" || sk.qual == r.qual()) {
			return true
		}
	}
	return false
}

// nodeSets lists the CTEs of stmt that are sets of nodes: every arm of the body scans an
// entity table (whose scope checkSelect verifies), none reads edges or another CTE, and every
// arm selects that table's id column as id, in the same place.
func nodeSets(stmt *selectStmt, cat *catalog) map[string]bool {
	out := map[string]bool{}
	for _, c := range stmt.with {
		arms := c.arms()
		ok := sameColumns(arms)
		for _, arm := range arms {
			t, isTable := arm.from.(*tableRef)
			if !isTable || cat.tables[t.table] == nil {
				ok = false
				continue
			}
			hasID := false
			for _, it := range arm.cols {
				if r, isCol := it.e.(*colRef); isCol && it.alias == "id" && r.qual == t.alias && r.name == "id" {
					hasID = true
				}
			}
			ok = ok && hasID
		}
		out[c.name] = ok
	}
	return out
}

// sameColumns reports whether every arm of a union names its columns alike, in the same
// order. The engine takes a union's column names from its first arm and fills them by
// position, so only then does an output name mean the same expression in every arm, as the
// rules that read arms by column name assume.
func sameColumns(arms []*selectStmt) bool {
	for _, a := range arms[1:] {
		if len(a.cols) != len(arms[0].cols) {
			return false
		}
		for i, it := range a.cols {
			if it.alias == "" || it.alias != arms[0].cols[i].alias {
				return false
			}
		}
	}
	for _, it := range arms[0].cols {
		if it.alias == "" {
			return false
		}
	}
	return true
}

// nodeSetFacts returns what the rules need of each node set of stmt, computed once.
func nodeSetFacts(stmt *selectStmt, cat *catalog, sets map[string]bool) map[string]setFacts {
	facts := map[string]setFacts{}
	for _, c := range stmt.with {
		if sets[c.name] {
			facts[c.name] = setFacts{entity: setEntity(c, cat), kindsTrue: setKindsTrue(c, cat)}
		}
	}
	return facts
}

// seeded reports whether edge scan s (alias t) starts at a node set: a conjunct
// "t.<end>_id IN (SELECT id FROM <set>)" where every arm of the set reads the table of one
// entity K and s keeps only rows whose <end>_kind is K ("t.<end>_kind = 'K'", or IN a list
// of K alone), or "(t.<end>_id, t.<end>_kind) IN (SELECT id, kind FROM <set>)" where every arm
// of the set selects its own entity's name as kind. Ids are unique within a kind only, so a
// seed that does not tie the edge's kind to the kinds the set holds would let a readable node
// of one kind start edges at an unreadable node of another kind with the same id. Every
// conjunct that reads a node set this way must be such a seed: the error says which is not.
func seeded(s *selectStmt, facts map[string]setFacts) (bool, error) {
	t := s.from.(*tableRef)
	all := slices.Concat(s.prewhere, s.where)
	found := false
	for _, w := range all {
		x, ok := w.(*inSub)
		if !ok {
			continue
		}
		r, ok := x.sub.from.(*cteRef)
		if !ok {
			continue
		}
		set, isSet := facts[r.name]
		if !isSet {
			continue
		}
		what := "scan of " + t.table + " seeded by node set " + r.name
		if len(x.sub.joins) > 0 || len(x.sub.union) > 0 {
			return false, checkErr(what + " joined or united with other rows")
		}
		subCol := func(i int, name string) bool {
			c, ok := x.sub.cols[i].e.(*colRef)
			return ok && (c.qual == "" || c.qual == r.qual()) && c.name == name
		}
		endCol := func(e expr) string {
			c, ok := e.(*colRef)
			if !ok || c.qual != t.alias || (c.name != "source_id" && c.name != "target_id") {
				return ""
			}
			return c.name
		}
		switch l := x.l.(type) {
		case *colRef:
			idCol := endCol(l)
			if idCol == "" || len(x.sub.cols) != 1 || !subCol(0, "id") {
				return false, checkErr(what + " matches something other than an edge end's id with the set's id")
			}
			if set.entity == "" {
				return false, checkErr(what + " on " + idCol + " alone, but the set holds several kinds: match (" + idCol + ", " + kindCol(idCol) + ") with (id, kind)")
			}
			if !keepsKind(s, all, kindCol(idCol), set.entity) {
				return false, checkErr(what + " on " + idCol + " without fixing " + kindCol(idCol) + " to " + set.entity + ", the kind of the set")
			}
		case tupleExpr:
			idCol, kindOK := "", false
			if len(l) == 2 {
				idCol = endCol(l[0])
				k, ok := l[1].(*colRef)
				kindOK = ok && idCol != "" && k.qual == t.alias && k.name == kindCol(idCol)
			}
			if !kindOK || len(x.sub.cols) != 2 || !subCol(0, "id") || !subCol(1, "kind") {
				return false, checkErr(what + " matches something other than an edge end's (id, kind) with the set's (id, kind)")
			}
			if !set.kindsTrue {
				return false, checkErr(what + " on (" + idCol + ", " + kindCol(idCol) + "), but an arm of the set does not select its own entity as kind")
			}
		default:
			return false, checkErr(what + " matches something other than an edge end")
		}
		found = true
	}
	return found, nil
}

// keepsKind reports whether one of the conjuncts of edge scan s keeps only rows whose kind
// column k is entity: "t.k = 'entity'", or "t.k IN [...]" whose every value is entity.
func keepsKind(s *selectStmt, conjuncts []expr, k, entity string) bool {
	t := s.from.(*tableRef)
	for _, w := range conjuncts {
		b, ok := w.(*binOp)
		if !ok {
			continue
		}
		l, ok := b.l.(*colRef)
		p, isParam := b.r.(*param)
		if !ok || !isParam || l.qual != t.alias || l.name != k {
			continue
		}
		switch b.op {
		case "=":
			if p.val == entity {
				return true
			}
		case "IN":
			vals, ok := p.val.([]any)
			if ok && len(vals) > 0 && !slices.ContainsFunc(vals, func(v any) bool { return v != entity }) {
				return true
			}
		}
	}
	return false
}

// joinBound returns the edge scans that need no seed: the arms of a CTE whose rows reach the
// answer only through the top-level select, which reads the CTE once and binds both of its
// endpoint columns to node sets of the right entity (minEnds = 2), or at least one of them
// (minEnds = 1, checkEdges: the first statement of a plan in steps, whose far ends are candidates that
// a later statement confirms; one bound end then does what a seed at that end would, and a
// row of a center the caller may not read never leaves the statement). A binding is a join conjunct
// "<cte>.<end> = <node set>.id", or a WHERE conjunct "<cte>.<end> IN (SELECT id FROM <node
// set>)", where every arm of the CTE fixes that end's kind to the node set's one entity; or
// "(<cte>.<end>, <cte>.<end kind>) IN (SELECT id, kind FROM <node set>)", which compares the
// kinds at run time. Elsewhere the CTE may only narrow the node set an end is bound to (see
// narrowsOnly). A row of such a scan whose end the caller may not read meets no node row and
// goes no further, which is what a seed would have ensured earlier.
func joinBound(stmt *selectStmt, cat *catalog, sets map[string]bool, facts map[string]setFacts, minEnds int) map[*selectStmt]bool {
	// One walk notes every lookup (an IN sub-query that is itself a conjunct of a select: the
	// select that owns it and the conjunct) and every CTE read in a FROM or join; the reads are
	// sorted once the walk has seen every lookup.
	lookupAt := map[*selectStmt]lookupSite{}
	type cteRead struct {
		s *selectStmt
		r *cteRef
	}
	var reads []cteRead
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok {
			return
		}
		for _, w := range slices.Concat(s.prewhere, s.where) {
			if x, ok := w.(*inSub); ok {
				lookupAt[x.sub] = lookupSite{owner: s, in: x}
			}
		}
		for _, f := range s.fromItems() {
			if r, ok := f.(*cteRef); ok {
				reads = append(reads, cteRead{s, r})
			}
		}
	})
	topRefs := map[string][]*cteRef{} // CTE name -> its reads in the top-level FROM and joins
	lookups := map[string][]*selectStmt{}
	elsewhere := map[string]bool{}
	for _, rd := range reads {
		switch s := rd.s; {
		case s == stmt:
			topRefs[rd.r.name] = append(topRefs[rd.r.name], rd.r)
		case lookupAt[s].owner != nil && len(s.union) == 0 && len(s.joins) == 0:
			lookups[rd.r.name] = append(lookups[rd.r.name], s)
		default:
			elsewhere[rd.r.name] = true
		}
	}
	// The node sets the top-level select reads, by qualifier.
	topSets := map[string]string{}
	for name, refs := range topRefs {
		for _, r := range refs {
			if sets[name] {
				topSets[r.qual()] = name
			}
		}
	}
	var conjuncts []expr
	for _, j := range stmt.joins {
		conjuncts = append(conjuncts, j.on...)
	}
	conjuncts = append(conjuncts, stmt.where...)
	// The node set each arm belongs to.
	setOf := map[*selectStmt]string{}
	for _, c := range stmt.with {
		if !sets[c.name] {
			continue
		}
		for _, a := range c.arms() {
			if _, seen := setOf[a]; !seen {
				setOf[a] = c.name
			}
		}
	}
	out := map[*selectStmt]bool{}
	for _, c := range stmt.with {
		if len(topRefs[c.name]) != 1 || elsewhere[c.name] || sets[c.name] {
			continue
		}
		q := topRefs[c.name][0].qual()
		arms := c.arms()
		ends, ok := edgeEnds(arms, cat)
		if !ok {
			continue
		}
		boundTo := map[string]string{} // end -> the node set the top-level select binds it to
		for _, end := range ends {
			if set := boundEnd(q, end, arms, conjuncts, topSets, facts); set != "" {
				boundTo[end] = set
			}
		}
		if len(boundTo) < minEnds || !narrowsOnly(lookups[c.name], boundTo, lookupAt, setOf) {
			continue
		}
		for _, a := range arms {
			out[a] = true
		}
	}
	return out
}

// lookupSite is where a lookup sits: the select whose PREWHERE or WHERE conjunct it is, and
// that conjunct.
type lookupSite struct {
	owner *selectStmt
	in    *inSub
}

// setFacts is what joinBound needs to know of a node set: the one entity its arms read (""
// when they read several) and whether every arm selects that entity's name as its kind.
type setFacts struct {
	entity    string
	kindsTrue bool
}

// narrowsOnly reports whether every lookup of a join-bound CTE narrows the node set its end
// is bound to: "t.id IN (SELECT <end> FROM cte [WHERE …])" as a conjunct of an arm of that
// set (setOf names the node set of each arm). The final join keeps only ids the lookup lets
// through, so such a lookup cannot change the answer; anywhere else the CTE's rows, some of
// which start at nodes the caller may not read, could decide which rows other scans return.
func narrowsOnly(subs []*selectStmt, boundTo map[string]string, lookupAt map[*selectStmt]lookupSite, setOf map[*selectStmt]string) bool {
	for _, sub := range subs {
		arm, x := lookupAt[sub].owner, lookupAt[sub].in
		t, ok := arm.from.(*tableRef)
		if !ok || len(sub.cols) != 1 {
			return false
		}
		l, ok := x.l.(*colRef)
		if !ok || l.qual != t.alias || l.name != "id" {
			return false
		}
		end, ok := sub.cols[0].e.(*colRef)
		if !ok || end.qual != "" || boundTo[end.name] == "" || boundTo[end.name] != setOf[arm] {
			return false
		}
	}
	return true
}

// edgeEnds returns the two output names under which every arm (an edge scan) selects its
// source_id and target_id columns, unchanged.
func edgeEnds(arms []*selectStmt, cat *catalog) ([2]string, bool) {
	var ends [2]string
	if len(arms) == 0 || !sameColumns(arms) {
		return ends, false
	}
	for i, a := range arms {
		t, ok := a.from.(*tableRef)
		if !ok || (t.table != cat.edgeTable && t.table != cat.edgeByTarget) || len(a.with) > 0 || len(a.joins) > 0 || a.distinct || len(a.groupBy) > 0 {
			return ends, false
		}
		src, tgt := "", ""
		for _, it := range a.cols {
			if r, ok := it.e.(*colRef); ok && r.qual == t.alias && it.alias != "" {
				switch r.name {
				case "source_id":
					src = it.alias
				case "target_id":
					tgt = it.alias
				}
			}
		}
		if src == "" || tgt == "" || src == tgt {
			return ends, false
		}
		got := [2]string{src, tgt}
		if got[0] > got[1] {
			got[0], got[1] = got[1], got[0]
		}
		if i > 0 && got != ends {
			return ends, false
		}
		ends = got
	}
	return ends, len(arms) > 0
}

// armEnd returns, for the arm's output column end, the stored id column it selects and the
// output name of that end's kind (the CAST of its kind column), if the arm selects it.
func armEnd(a *selectStmt, end string) (idCol, kindOut string) {
	t := a.from.(*tableRef)
	for _, it := range a.cols {
		if r, ok := it.e.(*colRef); ok && r.qual == t.alias && it.alias == end {
			idCol = r.name
		}
	}
	for _, it := range a.cols {
		if ce, ok := it.e.(*castExpr); ok {
			if r, ok := ce.e.(*colRef); ok && r.qual == t.alias && r.name == kindCol(idCol) && it.alias != "" {
				kindOut = it.alias
			}
		}
	}
	return idCol, kindOut
}

// fixesKind reports whether arm a keeps only rows whose kind column k equals entity.
func fixesKind(a *selectStmt, k, entity string) bool {
	t := a.from.(*tableRef)
	for _, w := range slices.Concat(a.prewhere, a.where) {
		if b, ok := w.(*binOp); ok && b.op == "=" {
			if l, ok := b.l.(*colRef); ok && l.qual == t.alias && l.name == k {
				if p, ok := b.r.(*param); ok && p.val == entity {
					return true
				}
			}
		}
	}
	return false
}

// setEntity returns the one entity a node set's arms all read, or "" when they read several.
func setEntity(c *cte, cat *catalog) string {
	name := ""
	for _, arm := range c.arms() {
		e := cat.tables[arm.from.(*tableRef).table]
		if name != "" && e.name != name {
			return ""
		}
		name = e.name
	}
	return name
}

// boundEnd returns the node set the top-level conjuncts bind the end column of the CTE read as
// q to, one of the entity every arm fixes for that end (or whose kinds are compared at run
// time); "" when there is none.
func boundEnd(q, end string, arms []*selectStmt, conjuncts []expr, topSets map[string]string, facts map[string]setFacts) string {
	isEnd := func(e expr) bool {
		r, ok := e.(*colRef)
		return ok && r.qual == q && r.name == end
	}
	kindsFixed := func(set string) bool {
		ent := facts[set].entity
		if ent == "" {
			return false
		}
		for _, a := range arms {
			idCol, _ := armEnd(a, end)
			if !fixesKind(a, kindCol(idCol), ent) {
				return false
			}
		}
		return true
	}
	for _, w := range conjuncts {
		switch x := w.(type) {
		case *binOp:
			if x.op != "=" {
				continue
			}
			for _, pair := range [][2]expr{{x.l, x.r}, {x.r, x.l}} {
				if r, ok := pair[1].(*colRef); ok && isEnd(pair[0]) && r.name == "id" && topSets[r.qual] != "" && kindsFixed(topSets[r.qual]) {
					return topSets[r.qual]
				}
			}
		case *inSub:
			from, ok := x.sub.from.(*cteRef)
			if !ok || len(x.sub.union) > 0 || len(x.sub.joins) > 0 {
				continue
			}
			set, isSet := facts[from.name]
			if !isSet {
				continue
			}
			subCol := func(i int, name string) bool {
				r, ok := x.sub.cols[i].e.(*colRef)
				return ok && r.qual == "" && r.name == name
			}
			switch l := x.l.(type) {
			case *colRef:
				if isEnd(l) && len(x.sub.cols) == 1 && subCol(0, "id") && kindsFixed(from.name) {
					return from.name
				}
			case tupleExpr:
				if len(l) == 2 && isEnd(l[0]) && len(x.sub.cols) == 2 && subCol(0, "id") && subCol(1, "kind") &&
					kindOutputs(l[1], q, end, arms) && set.kindsTrue {
					return from.name
				}
			}
		}
	}
	return ""
}

// kindOutputs reports whether e is the CTE's output column (read as q) that every arm fills
// with the kind of its end column.
func kindOutputs(e expr, q, end string, arms []*selectStmt) bool {
	r, ok := e.(*colRef)
	if !ok || r.qual != q {
		return false
	}
	for _, a := range arms {
		if _, k := armEnd(a, end); k != r.name {
			return false
		}
	}
	return true
}

// setKindsTrue reports whether every arm of a node set selects, as kind, the name of the
// entity whose table it reads.
func setKindsTrue(c *cte, cat *catalog) bool {
	for _, arm := range c.arms() {
		e := cat.tables[arm.from.(*tableRef).table]
		ok := false
		for _, it := range arm.cols {
			if p, isParam := it.e.(*param); isParam && it.alias == "kind" && p.val == e.name {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func checkSelect(s *selectStmt, cat *catalog, c *Caller, scopes *scopeCache, facts map[string]setFacts, bound map[*selectStmt]bool) error {
	t, ok := s.from.(*tableRef)
	if !ok {
		if len(s.prewhere) > 0 {
			return checkErr("PREWHERE on a select that reads no table")
		}
		// Rows given as parameters (the walks or hops of a traversal on cached edges) are trusted for
		// nothing: they may meet the scans only where the other rules see the join, never
		// within their own select.
		if _, isParams := s.from.(*paramRows); isParams && len(s.joins) > 0 {
			return checkErr("rows given as parameters are joined in their own select")
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
	// rows: that is what keeps every intermediate node of a walk authorised. The exception is
	// a scan whose rows reach the answer only joined with node sets at both ends.
	if t.table == cat.edgeTable || t.table == cat.edgeByTarget {
		ok, err := seeded(s, facts)
		if err != nil {
			return err
		}
		if !ok && !bound[s] {
			return checkErr("scan of " + t.table + " does not start at a set of authorised nodes")
		}
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
