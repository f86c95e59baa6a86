package compiler

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// PathStepRows is the LIMIT of each statement of the multi-step path_finding plan. When a
// statement returns that many rows, its rows may be incomplete and the executor runs the
// one-statement form instead.
const PathStepRows = 20000

// pathSteps is what the lowering of a path_finding query leaves for the multi-step plan
// (docs/compiler.md, "Path finding in steps").
type pathSteps struct {
	first          *selectStmt // the anchors (unless anchorsLate) and the edges adjacent to them
	from, to       *entity
	fromSel, toSel *nodeSel
	fMids, bMids   []*entity // kinds of the second node and of the node before the last
	// anchorsLate: both anchors name their ids (idsNamed), the first statement returns only
	// the edges at the anchors (still seeded by the anchor sets, which it does not return),
	// and the second statement reads the anchor sets a0 and a1, with their hydration
	// columns, with the middles; the join keeps a path only when both of its ends are in them.
	anchorsLate bool
	depth       int
	types       []string
	nb          nsBinding
	pageSize    int
	cursor      bool      // the answer carries the sort keys (_k0.._k2)
	after       []*string // the cursor's keys, nil without "after"
	// For the cached form (pathcache.go): the end kinds of f1 and the start kinds of b1, and
	// the relationship types of f1, b1 and m1, as their scans list them.
	fEnds, bStarts            []*entity
	f1Types, b1Types, m1Types []string
	cachePairs                []EdgePair // the edge sets the scans read (PathCachePairs)
}

// Path finding in steps (docs/compiler.md, "Path finding in steps").
//
// The one-statement form assembles the paths of one, two and three edges in SQL. The
// multi-step plan reads, first ([Plan.Edges]), the two anchor sets and the edges adjacent to
// them, each edge scan seeded by its anchor set as in the one-statement form; Go lists the
// ends of those edges that a longer path could pass through ([Plan.PathCandidates]); the
// second statement ([Compiler.PathStep]) keeps those the caller may read that are live (an
// ordinary scoped FINAL scan per kind, the ids only narrowing it) and, for paths of three
// edges, reads the edges between them, seeded by that checked set in the same statement; and
// Go joins the rows into the one-statement form's rows ([Plan.JoinPaths]). Every node of a
// path is thus an anchor or a node the second statement proved readable and live, and every
// edge is one an edge scan seeded by such nodes returned: the same rule, checked by the same
// security check, as the one-statement form.
//
// When both anchors name their ids (anchorsLate), the first statement returns only the edges
// at the anchors, its scans still seeded by the anchor sets (ids only), and the second reads
// the anchor sets with their hydration columns, with the middles: the join keeps a path only
// when its ends are in them.

// pathPart names the sets the rows of the two statements carry, in their part column.
const (
	partFrom = "a0"  // the start anchors
	partTo   = "a1"  // the end anchors
	partF1   = "f1"  // edges out of the start anchors
	partB1   = "b1"  // edges into the end anchors
	partF1V  = "f1v" // readable live second nodes
	partB1V  = "b1v" // readable live nodes before the last
	partV    = "v"   // readable live nodes among both kinds of candidates
	partM1   = "m1"  // edges from f1v to b1v
)

// stepCols are the columns of both statements' rows.
var stepCols = []string{"part", "x", "x_kind", "y", "y_kind", "kind", "tp", "props"}

// nodeArm selects the stepCols of the node set (a CTE) name; kind is the set's one entity
// ("": the set's kind column), props its hydration columns (none: an empty props column).
func nodeArm(name, kind string, withTP bool, props ...string) *selectStmt {
	a := &selectStmt{from: &cteRef{name: name, alias: "o"}}
	var k expr = prm(kind, typString)
	if kind == "" {
		k = col("o", "kind")
	}
	a.cols = nodeStepCols("o", name, k, withTP, props)
	return a
}

// nodeStepCols are the stepCols of a node row read as alias and tagged part: its id at both
// ends, of kind k, with its traversal_path when withTP and its hydration columns props.
func nodeStepCols(alias, part string, k expr, withTP bool, props []string) []selItem {
	var tp expr = prm("", typString)
	if withTP {
		tp = castStr(col(alias, tpProp.name))
	}
	pa := arrayExpr{}
	for _, c := range props {
		pa = append(pa, fn("toString", col(alias, c)))
	}
	return []selItem{as(prm(part, typString), "part"), as(col(alias, "id"), "x"), as(k, "x_kind"),
		as(col(alias, "id"), "y"), as(k, "y_kind"), as(prm("", typString), "kind"), as(tp, "tp"),
		as(&castExpr{e: pa, typ: "Array(Nullable(String))"}, "props")}
}

// stepEdges turns the edge scan s (pathEdges, with its filters) into an arm of the step
// statement: its rows, as the stepCols, tagged part.
func stepEdges(part string, s *selectStmt, withTP bool) *selectStmt {
	cols := []selItem{as(prm(part, typString), "part")}
	cols = append(cols, s.cols[:5]...) // x, x_kind, y, y_kind, kind
	var tp expr = prm("", typString)
	if withTP {
		tp = castStr(s.cols[5].e)
	}
	s.cols = append(cols, as(tp, "tp"), as(&castExpr{e: arrayExpr{}, typ: "Array(Nullable(String))"}, "props"))
	return s
}

// stepStatement is a statement of the multi-step plan: the node sets ctes, each computed at
// every reference (they are read by id, a few rows, which costs less than the scalar
// sub-query that would compute them once), and arms, one UNION ALL whose every arm stops at
// PathStepRows rows. The edge scans are arms themselves, not CTEs: a statement with fewer
// sub-queries costs the engine less to analyse and plan (docs/compiler.md, "Path finding in
// steps").
func stepStatement(ctes []*cte, arms []*selectStmt) *selectStmt {
	for _, c := range ctes {
		c.inline = true
	}
	for _, a := range arms {
		if a.limit == 0 || a.limit > PathStepRows { // an anchor scan keeps its 500
			a.limit = PathStepRows
		}
	}
	s := arms[0]
	s.with, s.union = ctes, arms[1:]
	return s
}

// Paths reports whether p is a multi-step path_finding plan.
func (p *Plan) Paths() bool { return p != nil && p.paths != nil && p.edges != nil }

// stepRow is one row of either statement.
type stepRow struct {
	part     string
	x, y     graphresponse.NodeRef
	kind, tp string
	props    any
}

func stepRows(rows graphresponse.Rows) ([]stepRow, error) {
	ix, err := columnsOf(rows.Columns, stepCols...)
	if err != nil {
		return nil, err
	}
	out := make([]stepRow, len(rows.Values))
	for i, row := range rows.Values {
		var ok [7]bool
		r := &out[i]
		r.part, ok[0] = row[ix[0]].(string)
		r.x.ID, ok[1] = row[ix[1]].(int64)
		r.x.Kind, ok[2] = row[ix[2]].(string)
		r.y.ID, ok[3] = row[ix[3]].(int64)
		r.y.Kind, ok[4] = row[ix[4]].(string)
		r.kind, ok[5] = row[ix[5]].(string)
		r.tp, ok[6] = row[ix[6]].(string)
		r.props = row[ix[7]]
		if slices.Contains(ok[:], false) {
			return nil, fmt.Errorf("step row %d: want strings and integer ids, got %v", i, row)
		}
	}
	return out, nil
}

// limitHit reports whether some arm of a step statement returned PathStepRows rows, so that
// its rows may be incomplete.
func limitHit(rows []stepRow) bool {
	n := map[string]int{}
	for _, r := range rows {
		if n[r.part]++; n[r.part] >= PathStepRows {
			return true
		}
	}
	return false
}

// PathCandidates lists, from the rows of the first statement, the nodes the second statement
// must check: near, the second nodes of longer paths (ends of f1 edges of the kinds a second
// node may have), and far, the nodes before the last of three-edge paths. complete is false
// when the first statement stopped at its limit: the caller then runs the one-statement form.
func (p *Plan) PathCandidates(first graphresponse.Rows) (near, far []graphresponse.NodeRef, complete bool, err error) {
	if !p.Paths() {
		return nil, nil, false, newErr("", ErrCompilerBug, "path candidates of a query without a path plan")
	}
	rows, err := stepRows(first)
	if err != nil || limitHit(rows) {
		return nil, nil, false, err
	}
	st := p.paths
	seen := map[graphresponse.NodeRef]bool{}
	add := func(list *[]graphresponse.NodeRef, kinds []*entity, n graphresponse.NodeRef, tag bool) {
		if !slices.ContainsFunc(kinds, func(e *entity) bool { return e.name == n.Kind }) {
			return
		}
		key := n
		if tag {
			key.Kind = "\x00" + key.Kind
		}
		if !seen[key] {
			seen[key] = true
			*list = append(*list, n)
		}
	}
	for _, r := range rows {
		switch {
		case r.part == partF1 && st.depth >= 2:
			add(&near, st.fMids, r.y, false)
		case r.part == partB1 && st.depth >= 3:
			add(&far, st.bMids, r.x, true)
		}
	}
	return near, far, true, nil
}

// PathStep builds the second statement of the multi-step path_finding plan: the nodes among
// near (of the second-node kinds) and far (of the kinds before the last) that the caller may
// read and that are live, as one node set v (one scan per kind, so a kind that is both is
// read once), and, for paths of three edges, the edges that leave a node of v of a second-node
// kind for a node of v of a kind before the last, seeded by v. With props, the nodes carry
// their hydration columns. near and far are candidates handed over from the first statement
// and are trusted for nothing: every node arm is an ordinary scoped, live entity scan
// narrowed by the ids, which are query parameters, and a kind outside the plan's is refused.
// When the anchors come late (anchorsLate) it also reads the anchor sets a0 and a1, with
// their hydration columns. It returns nil when there is nothing to check.
func (c *Compiler) PathStep(q *Query, near, far []graphresponse.NodeRef, props bool) (*Query, error) {
	stmt, err := c.pathStepStmt(q, near, far, props)
	if stmt == nil || err != nil {
		return nil, err
	}
	// Nothing after this statement confirms the ends of its middle edges (the first statement
	// confirmed the anchors' edges), so it must do so itself, at both ends.
	if err := checkBothEndsSeeded(stmt, c.catalogFor(q.Plan.caller)); err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}

// pathStepStmt builds PathStep's statement, before the checks; nil when there is nothing to
// check.
func (c *Compiler) pathStepStmt(q *Query, near, far []graphresponse.NodeRef, props bool) (*selectStmt, error) {
	if q == nil || !q.Plan.Paths() {
		return nil, newErr("", ErrCompilerBug, "path step requested for a query without a path plan")
	}
	return c.stepStmt(q, near, far, props, q.Plan.paths.anchorsLate, true)
}

// stepStmt builds the statement of PathStep (withM1) and of PathCachedStep (without m1): the
// anchor sets when anchors, and the candidates near and far; nil when there is nothing to read.
func (c *Compiler) stepStmt(q *Query, near, far []graphresponse.NodeRef, props, anchors, withM1 bool) (*selectStmt, error) {
	st := q.Plan.paths
	if st.depth < 3 {
		far = nil
	}
	if len(near) == 0 && !anchors {
		return nil, nil
	}
	cat := c.catalogFor(q.Plan.caller)
	l := &lowerer{cat: cat, caller: q.Plan.caller, scopes: newScopeCache(q.Plan.caller), plan: q.Plan.Build}
	var ctes []*cte
	var arms []*selectStmt
	if anchors {
		_, arms = l.stepAnchors(st, false)
	}
	if len(near) == 0 {
		stmt := stepStatement(ctes, arms)
		placePrewhere(stmt, cat)
		return stmt, nil
	}
	byKind := map[string][]int64{}
	var fKinds, bKinds []*entity
	for _, list := range []struct {
		refs  []graphresponse.NodeRef
		kinds []*entity
		used  *[]*entity
	}{{near, st.fMids, &fKinds}, {far, st.bMids, &bKinds}} {
		for _, r := range list.refs {
			i := slices.IndexFunc(list.kinds, func(e *entity) bool { return e.name == r.Kind })
			if i < 0 {
				return nil, newErr("", ErrCompilerBug, "path step of a kind the plan does not pass through there: "+r.Kind)
			}
			if !slices.Contains(*list.used, list.kinds[i]) {
				*list.used = append(*list.used, list.kinds[i])
			}
			byKind[r.Kind] = append(byKind[r.Kind], r.ID)
		}
	}
	var v *selectStmt
	for _, e := range cat.entityNames {
		ids := byKind[e]
		if len(ids) == 0 {
			continue
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
		ent := cat.entities[e]
		arm := l.entityScan(ent, idsIn(col("t", "id"), ids))
		arm.cols = []selItem{as(col("t", "id"), "id"), as(prm(ent.name, typString), "kind")}
		if st.nb.on() {
			var tp expr = col("t", tpProp.name)
			if ent.global {
				tp = prm("", typString)
			}
			arm.cols = append(arm.cols, as(tp, tpProp.name))
		}
		pa := arrayExpr{}
		if props {
			pk, err := hydrationColumns(q.Plan, ent)
			if err != nil {
				return nil, err
			}
			for _, c := range pk {
				pa = append(pa, fn("toString", col("t", c)))
			}
		}
		arm.cols = append(arm.cols, as(&castExpr{e: pa, typ: "Array(Nullable(String))"}, "props"))
		if v == nil {
			v = arm
		} else {
			v.union = append(v.union, arm)
		}
	}
	ctes = append(ctes, &cte{name: partV, body: v})
	node := nodeArm(partV, "", st.nb.on())
	node.cols[len(node.cols)-1] = as(col("o", "props"), "props")
	arms = append(arms, node)
	if withM1 && len(bKinds) > 0 {
		m1 := l.pathEdges(cat.edgeTable, l.pairTypes(st.types, fKinds, bKinds), st.nb)
		// v holds both sets: of several kinds, both ends are matched on (id, kind); of one,
		// on the id with the kind fixed, which costs the engine less.
		for _, end := range []struct {
			idCol string
			kinds []*entity
		}{{"source_id", fKinds}, {"target_id", bKinds}} {
			if len(byKind) == 1 {
				m1.where = append(m1.where, startsAt(end.idCol, partV, end.kinds)...)
			} else {
				m1.where = append(m1.where, kindsIn(kindCol(end.idCol), end.kinds), in(tupleExpr{col("t", end.idCol), col("t", kindCol(end.idCol))}, idsFrom(partV, "id", "kind")))
			}
		}
		// The candidates' ids again as constants, which the engine can prune by (see knownIDs).
		m1.where = append(m1.where, idsIn(col("t", "source_id"), refIDs(near)), idsIn(col("t", "target_id"), refIDs(far)))
		arms = append(arms, stepEdges(partM1, noSelfLoops(m1, fKinds, bKinds), st.nb.on()))
	}
	stmt := stepStatement(ctes, arms)
	placePrewhere(stmt, cat)
	return stmt, nil
}

// hydrationColumns are the columns the hydration statement reads of e's nodes.
func hydrationColumns(p *Plan, e *entity) ([]string, error) {
	for _, pk := range p.Build.Hydration {
		if pk.Entity != e.name {
			continue
		}
		var out []string
		for _, pc := range pk.Columns {
			if e.prop(pc.Name) == nil { // a withheld column (admin-only, unserved virtual)
				return nil, newErr("", ErrCompilerBug, "hydration of a column the caller may not read")
			}
			out = append(out, pc.Name)
		}
		return out, nil
	}
	return nil, nil
}

// PathHydration returns, from the node rows of the two statements (second nil when none
// ran), the rows the hydration statement returns for those nodes: kind, id, props. The
// anchors carry their hydration columns always, the nodes of the second statement when it
// was built with props.
func (p *Plan) PathHydration(first graphresponse.Rows, second *graphresponse.Rows) (graphresponse.Rows, error) {
	out := graphresponse.Rows{Columns: []string{"kind", "id", "props"}}
	seen := map[graphresponse.NodeRef]bool{}
	for _, rs := range []*graphresponse.Rows{&first, second} {
		if rs == nil {
			continue
		}
		rows, err := stepRows(*rs)
		if err != nil {
			return out, err
		}
		for _, r := range rows {
			if (r.part == partFrom || r.part == partTo || r.part == partV) && !seen[r.x] {
				seen[r.x] = true
				out.Values = append(out.Values, []any{r.x.Kind, r.x.ID, r.props})
			}
		}
	}
	return out, nil
}

// nodeTP is a node with a traversal_path, for the same_namespace bindings.
type nodeTP struct {
	n  graphresponse.NodeRef
	tp string
}

// pathRow is one assembled path with its sort keys.
type pathRow struct {
	depth        int64
	nodes, kinds string // toString of path_nodes and path_kinds, as the engine writes them
	row          []any
}

// JoinPaths assembles, from the rows of the two statements (second nil when none ran), the
// rows the one-statement form returns: every path of one, two and three edges, ordered by
// depth and the text of its nodes and kinds, after the cursor, at most a page plus the probe
// row. complete is false when the second statement stopped at its limit.
func (p *Plan) JoinPaths(first graphresponse.Rows, second *graphresponse.Rows) (base graphresponse.Rows, complete bool, err error) {
	if !p.Paths() {
		return base, false, newErr("", ErrCompilerBug, "path join of a query without a path plan")
	}
	st := p.paths
	rows, err := stepRows(first)
	if err != nil {
		return base, false, err
	}
	if second != nil {
		more, err := stepRows(*second)
		if err != nil || limitHit(more) {
			return base, false, err
		}
		rows = append(rows, more...)
	}
	// Node sets: members, and members with their paths.
	in := map[string]map[graphresponse.NodeRef]bool{}
	inTP := map[string]map[nodeTP]bool{}
	byPart := map[string][]stepRow{}
	for _, r := range rows {
		switch r.part {
		case partFrom, partTo, partV:
			// v holds both sets: a node of a second-node kind is in f1v, of a kind
			// before the last in b1v.
			parts := []string{r.part}
			if r.part == partV {
				parts = nil
				if slices.ContainsFunc(st.fMids, func(e *entity) bool { return e.name == r.x.Kind }) {
					parts = append(parts, partF1V)
				}
				if slices.ContainsFunc(st.bMids, func(e *entity) bool { return e.name == r.x.Kind }) {
					parts = append(parts, partB1V)
				}
			}
			for _, part := range parts {
				if in[part] == nil {
					in[part], inTP[part] = map[graphresponse.NodeRef]bool{}, map[nodeTP]bool{}
				}
				in[part][r.x] = true
				inTP[part][nodeTP{r.x, r.tp}] = true
			}
		case partF1, partB1, partM1:
			byPart[r.part] = append(byPart[r.part], r)
		default:
			return base, false, fmt.Errorf("step row of unknown part %q", r.part)
		}
	}
	// matchIn: an edge with path tp may end at node n of set.
	match := func(tp, set string, n graphresponse.NodeRef) bool {
		if st.nb.unbound(tp) {
			return true
		}
		return inTP[set][nodeTP{n, tp}]
	}
	endAt := func(e *entity, tp, set string, n graphresponse.NodeRef) bool {
		return !st.nb.on() || e.global || match(tp, set, n)
	}
	mid := func(tp, set string, n graphresponse.NodeRef) bool { return !st.nb.on() || match(tp, set, n) }
	f1, b1, m1 := byPart[partF1], byPart[partB1], byPart[partM1]
	var out []pathRow
	add := func(nodes []graphresponse.NodeRef, kinds []string) {
		out = append(out, newPathRow(nodes, kinds))
	}
	// Every path starts in a0 and ends in a1. The first statement's scans are seeded by them,
	// unless the anchors come late: then these membership tests are what keeps an anchor the
	// caller may not read, or one that is not live, out of every path.
	for _, f := range f1 {
		if in[partFrom][f.x] && f.y.Kind == st.to.name && in[partTo][f.y] && endAt(st.from, f.tp, partFrom, f.x) && endAt(st.to, f.tp, partTo, f.y) {
			add([]graphresponse.NodeRef{f.x, f.y}, []string{f.kind})
		}
	}
	if st.depth >= 2 {
		bAt := map[graphresponse.NodeRef][]stepRow{}
		for _, b := range b1 {
			bAt[b.x] = append(bAt[b.x], b)
		}
		mAt := map[graphresponse.NodeRef][]stepRow{}
		for _, m := range m1 {
			mAt[m.x] = append(mAt[m.x], m)
		}
		for _, f := range f1 {
			if !in[partFrom][f.x] || !endAt(st.from, f.tp, partFrom, f.x) {
				continue
			}
			if in[partF1V][f.y] && mid(f.tp, partF1V, f.y) {
				for _, b := range bAt[f.y] {
					if b.y != f.x && in[partTo][b.y] && endAt(st.to, b.tp, partTo, b.y) && mid(b.tp, partF1V, b.x) && st.nb.agrees(f.tp, b.tp) {
						add([]graphresponse.NodeRef{f.x, f.y, b.y}, []string{f.kind, b.kind})
					}
				}
			}
			if st.depth < 3 || !mid(f.tp, partF1V, f.y) {
				continue
			}
			for _, m := range mAt[f.y] {
				if m.y == f.x || !in[partF1V][m.x] || !in[partB1V][m.y] || !mid(m.tp, partF1V, m.x) || !mid(m.tp, partB1V, m.y) || !st.nb.agrees(f.tp, m.tp) {
					continue
				}
				for _, b := range bAt[m.y] {
					if b.y != f.x && b.y != f.y && in[partTo][b.y] && endAt(st.to, b.tp, partTo, b.y) && mid(b.tp, partB1V, b.x) && st.nb.agrees(m.tp, b.tp) {
						add([]graphresponse.NodeRef{f.x, f.y, m.y, b.y}, []string{f.kind, m.kind, b.kind})
					}
				}
			}
		}
	}
	if st.after != nil {
		a, err := afterKeys(st.after)
		if err != nil {
			return base, false, err
		}
		out = slices.DeleteFunc(out, func(r pathRow) bool { return comparePaths(r, a) <= 0 })
	}
	slices.SortStableFunc(out, comparePaths)
	base.Columns = []string{"depth", "path_nodes", "path_kinds"}
	if st.cursor {
		base.Columns = append(base.Columns, "_k0", "_k1", "_k2")
	}
	for _, r := range out[:min(len(out), st.pageSize+1)] {
		row := r.row
		if st.cursor {
			row = append(row, strconv.FormatInt(r.depth, 10), r.nodes, r.kinds)
		}
		base.Values = append(base.Values, row)
	}
	return base, true, nil
}

func comparePaths(a, b pathRow) int {
	return cmp.Or(cmp.Compare(a.depth, b.depth), strings.Compare(a.nodes, b.nodes), strings.Compare(a.kinds, b.kinds))
}

// afterKeys reads the cursor's three keys (depth, nodes, kinds).
func afterKeys(after []*string) (pathRow, error) {
	if len(after) != 3 || after[0] == nil || after[1] == nil || after[2] == nil {
		return pathRow{}, newErr("/cursor/after", ErrInvalidCursor, "the cursor does not fit this query")
	}
	d, err := strconv.ParseInt(*after[0], 10, 64)
	if err != nil {
		return pathRow{}, newErr("/cursor/after", ErrInvalidCursor, "the cursor does not fit this query")
	}
	return pathRow{depth: d, nodes: *after[1], kinds: *after[2]}, nil
}

// newPathRow builds the row of a path as the engine returns it, with the text of its
// path_nodes (Array(Tuple(Int64, String))) and path_kinds (Array(String)) as toString writes it.
func newPathRow(nodes []graphresponse.NodeRef, kinds []string) pathRow {
	var nb, kb strings.Builder
	nv := make([]any, len(nodes))
	nb.WriteByte('[')
	for i, n := range nodes {
		if i > 0 {
			nb.WriteByte(',')
		}
		nb.WriteString("(" + strconv.FormatInt(n.ID, 10) + "," + quoteCH(n.Kind) + ")")
		nv[i] = []any{n.ID, n.Kind}
	}
	nb.WriteByte(']')
	kv := make([]any, len(kinds))
	kb.WriteByte('[')
	for i, k := range kinds {
		if i > 0 {
			kb.WriteByte(',')
		}
		kb.WriteString(quoteCH(k))
		kv[i] = k
	}
	kb.WriteByte(']')
	d := int64(len(kinds))
	return pathRow{depth: d, nodes: nb.String(), kinds: kb.String(), row: []any{uint8(d), nv, kv}}
}

// quoteCH quotes s as the engine's text format writes a string inside an array or tuple.
func quoteCH(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func (st *pathSteps) firstStmt() *selectStmt {
	if st == nil {
		return nil
	}
	return st.first
}

// refIDs lists the distinct ids of refs, in order.
func refIDs(refs []graphresponse.NodeRef) []int64 {
	out := make([]int64, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	slices.Sort(out)
	return slices.Compact(out)
}
