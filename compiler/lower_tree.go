package compiler

import (
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// hop is one relationship selector placed in the join tree: near was visited first.
type hop struct {
	rs         *relSel
	near, far  *nodeSel
	nearIsFrom bool
}

// ends returns the columns of the hop's CTE that hold its near and far ends: a is the
// relationship's from side, b its to side.
func (h hop) ends() (near, far string) {
	if h.nearIsFrom {
		return "a", "b"
	}
	return "b", "a"
}

func nName(n *nodeSel) string { return "n" + strconv.Itoa(n.idx) }
func hName(rs *relSel) string { return "h" + strconv.Itoa(rs.idx) }

// pickRoot returns the node the join tree starts from, the most selective one: the first
// node with node_ids, else the first with an id_range, else the first with filters, else the
// first node. Every other scan is seeded from it, so starting narrow keeps them small.
func pickRoot(nodes []*nodeSel) *nodeSel {
	for _, test := range []func(*nodeSel) bool{
		func(n *nodeSel) bool { return n.hasIDs },
		func(n *nodeSel) bool { return n.idRange != nil },
		func(n *nodeSel) bool { return len(n.filters) > 0 },
	} {
		for _, n := range nodes {
			if test(n) {
				return n
			}
		}
	}
	return nodes[0]
}

// joinTree orders the hops breadth-first from root.
func joinTree(r *request, root *nodeSel) []hop {
	byAlias := map[string]*nodeSel{}
	for _, n := range r.nodes {
		byAlias[n.alias] = n
	}
	visited := map[string]bool{root.alias: true}
	queue := []*nodeSel{root}
	var hops []hop
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, rs := range r.rels {
			switch {
			case rs.from == cur.alias && !visited[rs.to]:
				far := byAlias[rs.to]
				hops = append(hops, hop{rs: rs, near: cur, far: far, nearIsFrom: true})
				visited[far.alias] = true
				queue = append(queue, far)
			case rs.to == cur.alias && !visited[rs.from]:
				far := byAlias[rs.from]
				hops = append(hops, hop{rs: rs, near: cur, far: far, nearIsFrom: false})
				visited[far.alias] = true
				queue = append(queue, far)
			}
		}
	}
	return hops
}

// edgeArm is one stored orientation a hop reads.
type edgeArm struct {
	srcEnt, tgtEnt string
	aCol, bCol     string // columns holding the from (a) and to (b) endpoint ids
	fwd            bool
}

func hopArms(h hop) []edgeArm {
	var fromEnt, toEnt string
	if h.nearIsFrom {
		fromEnt, toEnt = h.near.ent.name, h.far.ent.name
	} else {
		fromEnt, toEnt = h.far.ent.name, h.near.ent.name
	}
	out := edgeArm{srcEnt: fromEnt, tgtEnt: toEnt, aCol: "source_id", bCol: "target_id", fwd: true}
	inc := edgeArm{srcEnt: toEnt, tgtEnt: fromEnt, aCol: "target_id", bCol: "source_id", fwd: false}
	switch h.rs.direction {
	case "incoming":
		return []edgeArm{inc}
	case "both":
		return []edgeArm{out, inc}
	}
	return []edgeArm{out}
}

func (l *lowerer) tableFor(idCol string) string {
	if idCol == "source_id" {
		return l.cat.edgeTable
	}
	return l.cat.edgeByTarget
}

func kindCol(idCol string) string { return strings.TrimSuffix(idCol, "_id") + "_kind" }

func castStr(e expr) expr { return &castExpr{e: e, typ: "String"} }

// hopCTEs lowers one hop to its CTEs: h<j> for a single hop, or the steps h<j>s<k> and the
// arm union h<j> for a variable-length hop (docs/compiler.md, "SQL shapes").
//
// It also returns the set the far node's CTE is seeded with: the far ends of the hop's edges,
// or for a variable-length hop the ends of its steps of the far kind. The latter is a superset
// of the walks' far ends (the join with h<j> keeps the right ones) that does not need h<j>
// itself, so h<j> is read once, by the final join, and not computed into an array.
//
// With joined, a single hop's edge scan has no seed at all: the final join binds its near end
// to the near node's CTE (a join-bound edge scan, see check.go and joinedHop).
func (l *lowerer) hopCTEs(h hop, joined bool) ([]*cte, *selectStmt) {
	rs := h.rs
	near := nName(h.near)
	if rs.maxHops == 1 {
		var body *selectStmt
		for _, arm := range hopArms(h) {
			nearCol := arm.bCol
			if h.nearIsFrom {
				nearCol = arm.aCol
			}
			s := l.edgeScan(l.tableFor(nearCol), rs.concrete, rs.preds)
			s.cols = []selItem{
				as(col("t", arm.aCol), "a"), as(col("t", arm.bCol), "b"),
				as(castStr(col("t", "relationship_kind")), "kind"),
				as(litBool(arm.fwd), "fwd"), as(litInt(1), "depth"),
			}
			if nb := l.hopBinding(h); nb.on() {
				s.cols = append(s.cols, as(nb.tp, "tp"))
			}
			s.where = append(s.where,
				eq(col("t", "source_kind"), prm(arm.srcEnt, typString)),
				eq(col("t", "target_kind"), prm(arm.tgtEnt, typString)))
			// A near node that names its ids bounds the scan by those constants alone; the
			// final join with its CTE keeps only the edges of nodes the caller may read (a
			// join-bound edge scan, see check.go). Otherwise the scan starts at its CTE.
			if ids := knownIDs(h.near, col("t", nearCol)); len(ids) > 0 {
				s.where = append(s.where, ids...)
			} else if !joined {
				s.where = append(s.where, in(col("t", nearCol), idsFrom(near, "id")))
			}
			if body == nil {
				body = s
			} else {
				body.union = append(body.union, s)
			}
		}
		_, farCol := h.ends()
		return []*cte{{name: hName(rs), body: body}}, idsFrom(hName(rs), farCol)
	}
	// Variable-length: walk from the near side. Step k (k ≥ 2) reads the edges leaving the
	// nodes step k-1 reached, but only from nodes in h<j>r<k-1>, those of them the caller may
	// read (a live node of a kind a walk can pass through, scoped like any other scan); so
	// every intermediate node of a walk is authorised like a node the query names, and the
	// far end is authorised by its node CTE. Each step and each set is read more than once and
	// so computed once (see arrayCTEs): the walk is not re-run per step.
	walkForward := (rs.direction == "outgoing") == h.nearIsFrom
	var orient []bool // true: x = source (gl_edge); false: x = target (gl_edge_by_target)
	if rs.direction == "both" {
		orient = []bool{true, false}
	} else {
		orient = []bool{walkForward}
	}
	maxHops := rs.maxHops
	inner := [][]*entity{nil} // inner[k]: kinds after k edges that a walk can leave again
	at := []*entity{h.near.ent}
	for k := 1; k < rs.maxHops; k++ {
		if at = l.innerKinds(rs.concrete, at, slices.Contains(orient, true), slices.Contains(orient, false)); len(at) == 0 {
			maxHops = k // no walk goes on; validation guarantees minHops <= k
			break
		}
		inner = append(inner, at)
	}
	nb := l.hopBinding(h)
	// Keep only the inner kinds from which the far node is still reachable in the hops left
	// (a walk that cannot end at the far node is never joined), so that a relationship type
	// with pairs away from the far node (CONTAINS from a Project into its code tree, on a
	// Group → Project walk) adds no scans. A walk that could not be as long as minHops keeps
	// the kinds as they were: its statement returns nothing either way.
	pruned := make([][]*entity, len(inner))
	next := []*entity{h.far.ent}
	ok := true
	newMax := maxHops
	for k := maxHops - 1; k >= 1; k-- {
		pruned[k] = keepIf(inner[k], func(e *entity) bool {
			return l.stepsTo(rs.concrete, e, next, slices.Contains(orient, true), slices.Contains(orient, false))
		})
		if len(pruned[k]) == 0 {
			if k < rs.minHops {
				ok = false
				break
			}
			newMax = k
		}
		next = append([]*entity{h.far.ent}, pruned[k]...)
	}
	if ok {
		inner, maxHops = pruned[:newMax], newMax
	}
	if l.walks == nil {
		l.walks = l.walkCacheFor(h, inner, maxHops, walkForward)
	}
	// With small tables, the steps share one edge scan (see shareSteps): h<j>r, every readable
	// node of every kind a walk can pass through, read once; h<j>e, the edges leaving those
	// nodes, read once; step k reads h<j>e. Step 1 reads it too when the near node's kind is
	// one of those kinds, else it keeps its own scan h<j>s1.
	var shared []*entity // the inner kinds, when the steps share h<j>e
	if l.shareSteps(h, inner, maxHops, orient) {
		for _, ks := range inner[1:maxHops] {
			for _, e := range ks {
				if !slices.Contains(shared, e) {
					shared = append(shared, e)
				}
			}
		}
	}
	nearShared := slices.Contains(shared, h.near.ent)
	stepCTE := func(k int) string {
		if shared != nil && (k >= 2 || nearShared) {
			return hName(rs) + "e"
		}
		return hName(rs) + "s" + strconv.Itoa(k)
	}
	var ctes []*cte
	if shared != nil {
		readable := hName(rs) + "r"
		ctes = append(ctes, &cte{name: readable, body: l.readableSet(shared, "", "", "", false)})
		ends := []any{h.far.ent.name}
		for _, e := range shared {
			if e != h.far.ent {
				ends = append(ends, e.name)
			}
		}
		ctes = append(ctes, &cte{name: stepCTE(2), body: l.stepScans(rs, orient, nb, ends, func(xc string) []expr {
			return startsAt(xc, readable, shared)
		})})
	}
	for k := 1; k <= maxHops; k++ {
		if shared != nil && (k >= 2 || nearShared) {
			continue
		}
		name := hName(rs) + "s" + strconv.Itoa(k)
		var readable string
		if k >= 2 {
			readable = hName(rs) + "r" + strconv.Itoa(k-1)
			prev := hName(rs) + "s" + strconv.Itoa(k-1)
			ctes = append(ctes, &cte{name: readable, body: l.readableSet(inner[k-1], prev, "y", "y_kind", false)})
		}
		// The far end of step k matters only as the far node of a walk of length k or
		// as a node the walk goes on from.
		ends := []any{h.far.ent.name}
		if k < maxHops {
			for _, e := range inner[k] {
				if e != h.far.ent {
					ends = append(ends, e.name)
				}
			}
		}
		ctes = append(ctes, &cte{name: name, body: l.stepScans(rs, orient, nb, ends, func(xc string) []expr {
			if k == 1 {
				return append([]expr{
					eq(col("t", kindCol(xc)), prm(h.near.ent.name, typString)),
					in(col("t", xc), idsFrom(near, "id"))},
					knownIDs(h.near, col("t", xc))...)
			}
			return startsAt(xc, readable, inner[k-1])
		})})
	}
	fwd := rs.direction != "incoming"
	var union *selectStmt
	for d := rs.minHops; d <= maxHops; d++ {
		s := &selectStmt{distinct: true, from: &cteRef{name: stepCTE(1), alias: "s1"}}
		sn := func(i int) string { return "s" + strconv.Itoa(i) }
		var kindConds []expr
		if nearShared {
			// The shared edges leave every readable node of the inner kinds; the walk
			// starts at the near node's (its constants, else its set; the final join binds
			// the start to the near node either way).
			if len(shared) > 1 {
				kindConds = append(kindConds, eq(col("s1", "x_kind"), prm(h.near.ent.name, typString)))
			}
			if ids := knownIDs(h.near, col("s1", "x")); len(ids) > 0 {
				kindConds = append(kindConds, ids...)
			} else {
				kindConds = append(kindConds, in(col("s1", "x"), idsFrom(near, "id")))
			}
		}
		for i := 2; i <= d; i++ {
			on := []expr{eq(col(sn(i), "x"), col(sn(i-1), "y"))}
			// Step i starts only at nodes of the kinds in inner[i-1]; with one such kind,
			// comparing step i-1's end kind to it is cheaper than a string join key. A
			// shared edge scan starts at every inner kind, so with several of them the
			// kinds are joined too, and a position that admits fewer is narrowed to them.
			ks := inner[i-1]
			if len(ks) == 1 {
				kindConds = append(kindConds, eq(col(sn(i-1), "y_kind"), prm(ks[0].name, typString)))
			} else if len(shared) > 1 && len(ks) < len(shared) {
				kindConds = append(kindConds, inValues(col(sn(i-1), "y_kind"), entityNames(ks), typString))
			}
			if len(ks) > 1 || len(shared) > 1 {
				on = append(on, eq(col(sn(i), "x_kind"), col(sn(i-1), "y_kind")))
			}
			if nb.on() {
				// Consecutive bound edges agree on the path of the node between them.
				on = append(on, nb.agree(col(sn(i-1), "tp"), col(sn(i), "tp")))
			}
			s.joins = append(s.joins, join{right: &cteRef{name: stepCTE(i), alias: sn(i)}, on: on})
		}
		var a, b, kind expr
		if h.nearIsFrom {
			a, b, kind = col("s1", "x"), col(sn(d), "y"), col("s1", "kind")
		} else {
			a, b, kind = col(sn(d), "y"), col("s1", "x"), col(sn(d), "kind")
		}
		if len(rs.concrete) == 1 {
			// One relationship type: every edge has it, so the steps need not carry it.
			kind = prm(rs.concrete[0], typString)
		}
		s.cols = []selItem{as(a, "a"), as(b, "b"), as(kind, "kind"), as(litBool(fwd), "fwd"), as(litInt(d), "depth")}
		if nb.on() {
			// The walk starts at the near node (s1.x) and ends at the far one (s<d>.y).
			s.cols = append(s.cols, as(col("s1", "tp"), "tpn"), as(col(sn(d), "tp"), "tpf"))
		}
		s.where = append([]expr{eq(col(sn(d), "y_kind"), prm(h.far.ent.name, typString))}, kindConds...)
		// Walk nodes w0 = s1.x, w_i = s_i.y; non-adjacent pairs must differ. A node's kind is
		// known without reading it when the walk fixes it: the near node's, the far node's,
		// and an inner node's when one kind can sit there. Two nodes of known kinds that
		// differ always differ; of the same known kind, their ids decide.
		w := func(i int) (id expr, known string, tuple expr) {
			if i == 0 {
				return col("s1", "x"), h.near.ent.name, tupleExpr{col("s1", "x"), col("s1", "x_kind")}
			}
			switch {
			case i == d:
				known = h.far.ent.name
			case len(inner[i]) == 1:
				known = inner[i][0].name
			}
			return col(sn(i), "y"), known, tupleExpr{col(sn(i), "y"), col(sn(i), "y_kind")}
		}
		for i := 2; i <= d; i++ {
			for j := 0; j <= i-2; j++ {
				idI, kI, tI := w(i)
				idJ, kJ, tJ := w(j)
				switch {
				case kI != "" && kJ != "" && kI != kJ:
				case kI != "" && kI == kJ:
					s.where = append(s.where, ne(idI, idJ))
				default:
					s.where = append(s.where, ne(tI, tJ))
				}
			}
		}
		if union == nil {
			union = s
		} else {
			union.union = append(union.union, s)
		}
	}
	var far *selectStmt
	var seen []string
	for d := rs.minHops; d <= maxHops; d++ {
		if slices.Contains(seen, stepCTE(d)) {
			continue
		}
		seen = append(seen, stepCTE(d))
		arm := idsFrom(stepCTE(d), "y")
		arm.where = []expr{eq(col("", "y_kind"), prm(h.far.ent.name, typString))}
		if far == nil {
			far = arm
		} else {
			far.union = append(far.union, arm)
		}
	}
	return append(ctes, &cte{name: hName(rs), body: union}), far
}

// stepScans is the body of one edge CTE of a variable-length hop: one scan per orientation
// (x = source on gl_edge, x = target on gl_edge_by_target) of the hop's relationship types,
// without self-loops, whose y end is of a kind in ends and whose x end starts where start
// says (start gets the x column's name).
func (l *lowerer) stepScans(rs *relSel, orient []bool, nb nsBinding, ends []any, start func(xc string) []expr) *selectStmt {
	var body *selectStmt
	for _, fwdOrient := range orient {
		xc, yc := "source_id", "target_id"
		if !fwdOrient {
			xc, yc = "target_id", "source_id"
		}
		s := l.edgeScan(l.tableFor(xc), rs.concrete, rs.preds)
		s.cols = []selItem{
			as(col("t", xc), "x"), as(castStr(col("t", kindCol(xc))), "x_kind"),
			as(col("t", yc), "y"), as(castStr(col("t", kindCol(yc))), "y_kind"),
			as(castStr(col("t", "relationship_kind")), "kind"),
		}
		if nb.on() {
			s.cols = append(s.cols, as(nb.tp, "tp"))
		}
		// The start (the x end's kind and set) first, then the y end's kinds, and the
		// self-loop test last (noSelfLoops): PREWHERE runs its conjuncts in this order and
		// reads a column only for the rows the earlier ones kept. With the self-loop test
		// first, the admin walk's shared edge scan read 18.8 MB at scale 100 instead of 11.1.
		s.where = append(s.where, start(xc)...)
		s.where = append(s.where, inValues(col("t", kindCol(yc)), ends, typString))
		noSelfLoops(s, nil, nil)
		if body == nil {
			body = s
		} else {
			body.union = append(body.union, s)
		}
	}
	return body
}

// sharedStepRows is the most rows each of the two shared scans of a variable-length hop may
// read for its steps to share them (shareSteps): the tables of the inner kinds together, and
// the edges leaving them. Both are read whole, where separate steps read only the nodes and
// edges the step before reached, so the bound keeps the shared form to graphs where reading
// them whole is cheap (the seeded graph at scale 100 has about 600 groups).
const sharedStepRows = 16384

// shareSteps reports whether the steps of a variable-length hop share one edge scan over
// every readable node of the kinds a walk passes through, instead of one scan per step
// seeded from the readable ends of the step before (docs/compiler.md, "SQL shapes", rule 7).
// Sharing reads two tables where the steps after the first read 2(k-1) of them (k steps), so
// it is cheaper whenever the whole readable set and the edges leaving it are small: the
// tables of the inner kinds hold at most sharedStepRows rows together, and the edges of the
// hop's types between those kinds and the far node's, in the directions the walk goes, are at
// most sharedStepRows (counted by the engine, see EdgeSizes). When a size is unknown, the
// steps stay separate, which is correct at any size.
func (l *lowerer) shareSteps(h hop, inner [][]*entity, maxHops int, orient []bool) bool {
	if maxHops < 2 || l.sizes == nil {
		return false
	}
	es, ok := l.sizes.(EdgeSizes)
	if !ok {
		return false
	}
	var kinds []*entity
	var nodes int64
	for _, ks := range inner[1:maxHops] {
		for _, e := range ks {
			if slices.Contains(kinds, e) {
				continue
			}
			kinds = append(kinds, e)
			rows, ok := l.sizes.Rows(e.table)
			if !ok {
				return false
			}
			if nodes += rows; nodes > sharedStepRows {
				return false
			}
		}
	}
	ends := kinds
	if !slices.Contains(ends, h.far.ent) {
		ends = append(slices.Clone(kinds), h.far.ent)
	}
	var edges int64
	for _, t := range h.rs.concrete {
		for _, a := range kinds {
			for _, b := range ends {
				for _, fwd := range orient {
					from, to := a, b
					if !fwd {
						from, to = b, a
					}
					n, ok := es.EdgeRows(t, from.name, to.name)
					if !ok {
						return false
					}
					if edges += n; edges > sharedStepRows {
						return false
					}
				}
			}
		}
	}
	return true
}

// entityNames is the names of es, as parameter values.
func entityNames(es []*entity) []any {
	out := make([]any, len(es))
	for i, e := range es {
		out[i] = e.name
	}
	return out
}

// startsAt limits an edge scan to edges whose idCol end is a node of the set CTE (columns
// id and kind) of the given kinds: with one kind, kind = k AND id IN (…), which the primary key
// and the id bloom filters can use; else (id, kind) IN (…).
func startsAt(idCol, set string, kinds []*entity) []expr {
	if len(kinds) == 1 {
		return []expr{eq(col("t", kindCol(idCol)), prm(kinds[0].name, typString)), in(col("t", idCol), idsFrom(set, "id"))}
	}
	return []expr{in(tupleExpr{col("t", idCol), col("t", kindCol(idCol))}, idsFrom(set, "id", "kind"))}
}

// treeColumns computes, per node, the properties its CTE must select.
func (l *lowerer) treeColumns(extra map[int][]*property, withSelection func(*nodeSel) bool) map[int][]*property {
	out := map[int][]*property{}
	for _, n := range l.r.nodes {
		var ps []*property
		if withSelection(n) {
			ps = slices.Clone(selection(n))
		}
		for _, p := range extra[n.idx] {
			if p != idProp && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		out[n.idx] = ps
	}
	return out
}

// lowerTree builds the CTE chain and joins shared by traversal and aggregation.
func (l *lowerer) lowerTree(cols map[int][]*property) (*selectStmt, []hop) {
	r := l.r
	root := pickRoot(r.nodes)
	hops := joinTree(r, root)
	s := &selectStmt{from: &cteRef{name: nName(root)}}
	cols = l.withBoundPaths(cols, hops)
	s.with = append(s.with, &cte{name: nName(root), body: l.nodeScan(root, cols[root.idx])})
	for _, h := range hops {
		nearCol, farCol := h.ends()
		if l.hopped != nil {
			// The hops were found on cached edges (hopcache.go): the far node, read or
			// narrowed, as the one statement narrows it, to the ids the edges reached (a
			// small leaf is read whole, as there), then the edges.
			var seed []expr
			if l.narrowFar(h.far, hops) {
				seed = append(seed, idsIn(col("t", "id"), l.hopped.cands[h.far.idx]))
			}
			s.with = append(s.with, &cte{name: nName(h.far), body: l.nodeScan(h.far, cols[h.far.idx], seed...)})
			s.with = append(s.with, l.hoppedCTEs(h)...)
		} else if l.walked != nil && h.rs.maxHops > 1 {
			// The walks were found on cached edges (walkcache.go): the far node, narrowed to
			// the ends they reached, then the walks, which read it.
			ctes, ends := l.walkedCTEs(h)
			s.with = append(s.with, &cte{name: nName(h.far), body: l.nodeScan(h.far, cols[h.far.idx], idsIn(col("t", "id"), ends))})
			s.with = append(s.with, ctes...)
		} else {
			ctes, farSeed := l.hopCTEs(h, l.joinedHop(h, root, hops))
			s.with = append(s.with, ctes...)
			var seed []expr
			if l.narrowFar(h.far, hops) {
				seed = append(seed, in(col("t", "id"), farSeed))
			}
			s.with = append(s.with, &cte{name: nName(h.far), body: l.nodeScan(h.far, cols[h.far.idx], seed...)})
		}
		nearOn := []expr{eq(col(hName(h.rs), nearCol), col(nName(h.near), "id"))}
		farOn := []expr{eq(col(nName(h.far), "id"), col(hName(h.rs), farCol))}
		if nb := l.hopBinding(h); nb.on() {
			tpn, tpf := "tp", "tp"
			if h.rs.maxHops > 1 {
				tpn, tpf = "tpn", "tpf"
			}
			nearOn = append(nearOn, nb.match(col(hName(h.rs), tpn), col(nName(h.near), tpProp.name)))
			farOn = append(farOn, nb.match(col(hName(h.rs), tpf), col(nName(h.far), tpProp.name)))
		}
		s.joins = append(s.joins,
			join{right: &cteRef{name: hName(h.rs)}, on: nearOn},
			join{right: &cteRef{name: nName(h.far)}, on: farOn})
	}
	return s, hops
}

// joinedHop reports whether hop h reads its edges unseeded, bound by the final join alone
// (hopCTEs with joined), rather than seeded by its near node's CTE. A seed costs the near node
// computed into an array, since the seed and the join both read it (arrayCTEs), and the array
// is built, then the edges read, then the join streamed from the array on one thread, each
// after the other; unseeded, the three scans run side by side and the near node is read once.
// A seed pays when it is narrow: the edge scan then reads a few granules by the key. It is not
// narrow when the near node's filters are coarse (coarseFilters: an enum value keeps a share
// of a table, not a handful of rows), and there the join reads about the same edges with the
// scans overlapping (docs/compiler.md, "SQL shapes", rule 8); the cost of the bet, where an
// enum value keeps few rows after all, is measured in docs/sql-bench.md. So: a single hop from
// the root, the root without ids and with only coarse filters, and a far node the hop does not
// narrow (a small leaf read whole, see narrowFar), so the edges are read by the join alone.
func (l *lowerer) joinedHop(h hop, root *nodeSel, hops []hop) bool {
	return h.near == root && h.rs.maxHops == 1 && !root.hasIDs && root.idRange == nil &&
		coarseFilters(root) && !l.narrowFar(h.far, hops)
}

// coarseFilters reports whether every filter of n keeps a share of its table rather than a
// few rows, as far as the ontology says: equality with, or membership in, values of an enum or
// a Bool property. No filter at all is coarse too.
func coarseFilters(n *nodeSel) bool {
	for _, p := range n.preds {
		prop := n.ent.prop(p.col)
		if p.tpath || prop == nil || (p.op != "eq" && p.op != "in") || (len(prop.enum) == 0 && prop.typ != typBool) {
			return false
		}
	}
	return true
}

// hopBinding is how the edges of hop h bind to their ends (namespace.go). A hop with a global
// end never binds: no same_namespace pair has one, so none of its edges is of such a type.
func (l *lowerer) hopBinding(h hop) nsBinding {
	if h.near.ent.global || h.far.ent.global {
		return nsBinding{}
	}
	kinds := []*entity{h.near.ent, h.far.ent}
	if h.rs.maxHops > 1 {
		// Any kind a walk can pass through (innerKinds in both directions, as deep as it goes).
		at := kinds
		for k := 1; k < h.rs.maxHops && len(at) > 0; k++ {
			at = l.innerKinds(h.rs.concrete, at, true, true)
			for _, e := range at {
				if !slices.Contains(kinds, e) {
					kinds = append(kinds, e)
				}
			}
		}
	}
	return l.binding(h.rs.concrete, kinds)
}

// withBoundPaths adds traversal_path to the columns of every node at an end of a hop whose
// edges bind to their ends, for the joins to compare.
func (l *lowerer) withBoundPaths(cols map[int][]*property, hops []hop) map[int][]*property {
	out := map[int][]*property{}
	for k, v := range cols {
		out[k] = v
	}
	for _, h := range hops {
		if !l.hopBinding(h).on() {
			continue
		}
		for _, n := range []*nodeSel{h.near, h.far} {
			if !slices.Contains(out[n.idx], tpProp) {
				out[n.idx] = append(slices.Clone(out[n.idx]), tpProp)
			}
		}
	}
	return out
}

// smallTable is the most rows a node table may hold for the lowering to read it whole (with
// its scope, filters and constant ids) rather than narrow it to the far ends of a hop's edges.
// Narrowing costs the hop's edges computed into an array and a set built from it; reading a
// small table whole costs a scan the engine's join filters cut short. Measured on the seeded
// graph (docs/sql-bench.md): a 100,000-row merge request table read whole was still 13 %
// cheaper than narrowed.
const smallTable = 131072

// narrowFar reports whether the far node of a hop is narrowed to the ends of the hop's edges:
// not when it names its own ids (its scan is already bounded by constants) nor when it is a
// leaf of the join tree whose table is known to be small. A node that further hops start from
// stays narrowed even when small, so that the next hop's seed stays narrow too.
func (l *lowerer) narrowFar(n *nodeSel, hops []hop) bool {
	if n.hasIDs || n.idRange != nil {
		return false
	}
	for _, h := range hops {
		if h.near == n {
			return true
		}
	}
	if l.sizes == nil {
		return true
	}
	rows, ok := l.sizes.Rows(n.ent.table)
	return !ok || rows > smallTable
}

func (l *lowerer) lowerTraversal() (*selectStmt, error) {
	r := l.r
	extra := map[int][]*property{}
	var orderNode *nodeSel
	var orderProp *property
	desc := false
	if r.orderBy != "" {
		spec := strings.TrimPrefix(r.orderBy, "-")
		desc = spec != r.orderBy
		a, p, _ := strings.Cut(spec, ".")
		for _, n := range r.nodes {
			if n.alias == a {
				orderNode, orderProp = n, n.ent.prop(p)
			}
		}
		extra[orderNode.idx] = append(extra[orderNode.idx], orderProp)
	}
	cols := l.treeColumns(extra, func(*nodeSel) bool { return true })
	s, hops := l.lowerTree(cols)
	if l.hopped == nil && l.walks == nil {
		l.hops = l.hopCacheFor(pickRoot(r.nodes), hops)
	}
	for _, n := range r.nodes {
		pn := graphresponse.PlanNode{Alias: n.alias, Entity: n.ent.name, Columns: planColumns(selection(n))}
		l.plan.Nodes = append(l.plan.Nodes, pn)
		s.cols = append(s.cols, as(col(nName(n), "id"), nName(n)+"_id"))
		for _, p := range selection(n) {
			s.cols = append(s.cols, as(col(nName(n), p.name), nName(n)+"_"+p.name))
		}
	}
	idx := map[string]int{}
	for _, n := range r.nodes {
		idx[n.alias] = n.idx
	}
	for _, rs := range r.rels {
		e := "e" + strconv.Itoa(rs.idx)
		s.cols = append(s.cols, as(col(hName(rs), "kind"), e+"_kind"), as(col(hName(rs), "fwd"), e+"_fwd"), as(col(hName(rs), "depth"), e+"_depth"))
		l.plan.Edges = append(l.plan.Edges, graphresponse.PlanEdge{From: idx[rs.from], To: idx[rs.to], Depth: rs.maxHops > 1})
	}
	var keys []sortKey
	if orderNode != nil {
		keys = append(keys, sortKey{e: col(nName(orderNode), orderProp.name), desc: desc, nullable: orderProp.nullable, typ: keyType(orderProp)})
	}
	for _, n := range r.nodes {
		keys = append(keys, sortKey{e: col(nName(n), "id"), typ: typInt64})
	}
	for _, rs := range r.rels {
		if len(rs.concrete) > 1 {
			keys = append(keys, sortKey{e: col(hName(rs), "kind"), typ: typString})
		}
		if rs.direction == "both" {
			keys = append(keys, sortKey{e: col(hName(rs), "fwd"), typ: typBool})
		}
		if rs.maxHops > rs.minHops {
			keys = append(keys, sortKey{e: col(hName(rs), "depth"), typ: typInt64})
		}
	}
	if err := l.finishPaged(s, keys, false); err != nil {
		return nil, err
	}
	if len(r.rels) == 0 && flattenScan(s) && !deferredText(s, r.nodes[0].ent) {
		s.settings = append(s.settings, noLazyColumns)
	}
	return s, nil
}

// noLazyColumns turns off the engine's lazy materialization: after ORDER BY … LIMIT, a second
// read of the rows kept for the columns neither filtered nor sorted on. That pays where those
// columns are long text (a search selecting a title or a description reads it for 51 rows, not
// for every row the filters keep: at scale 100, 65 against 140 ms of CPU with every column of a
// merge request); where they are numbers, dates or flags the second read costs more than
// reading them with the rest (the search of docs/duckdb.md, scale 10: 5.3 → 4.7 ms of CPU,
// scale 100: 14.4 → 12.2 ms).
var noLazyColumns = Setting{Key: "query_plan_optimize_lazy_materialization", Value: int64(0)}

// deferredText reports whether the flat scan s selects a column of e of type String that
// neither its conjuncts nor its order read: one the engine's lazy materialization would read
// after the limit. A column it cannot name counts as text.
func deferredText(s *selectStmt, e *entity) bool {
	read := map[string]bool{}
	for _, list := range [][]expr{s.prewhere, s.where} {
		for _, w := range list {
			walk(w, func(n sqlNode) {
				if c, ok := n.(*colRef); ok {
					read[c.name] = true
				}
			})
		}
	}
	for _, o := range s.orderBy {
		walk(o.e, func(n sqlNode) {
			if c, ok := n.(*colRef); ok {
				read[c.name] = true
			}
		})
	}
	text := false
	for _, it := range s.cols {
		walk(it.e, func(n sqlNode) {
			c, ok := n.(*colRef)
			if !ok || read[c.name] {
				return
			}
			if p := e.prop(c.name); p == nil || p.typ != typInt64 && p.typ != typFloat64 && p.typ != typBool &&
				p.typ != typDate32 && p.typ != typDateTime && p.typ != typLC {
				text = true
			}
		})
	}
	return text
}

// flattenScan turns a select that reads one CTE of one table scan, "WITH n0 AS (SELECT t.c AS
// c, … FROM <table> AS t FINAL …) SELECT n0.c … FROM n0 [WHERE …] [GROUP BY … HAVING …] ORDER BY
// … LIMIT …", into that scan with the outer select's columns, conjuncts, grouping, order and
// limit: "SELECT t.c … FROM <table> AS t FINAL … ORDER BY t.… LIMIT …". The rows are the same
// (the outer select only narrows, groups, orders and renames the scan's rows, and its
// conjuncts follow the scan's, after FINAL), and the engine analyses and plans one select
// fewer: 0.4 of 4.8 ms of CPU for the search of docs/duckdb.md ("Search and aggregation
// against DuckDB"), 0.1–0.3 of 2.7–3.2 ms for a count by state. The scan keeps everything the
// security check requires of it; placePrewhere later moves a sorting-key-only conjunct of the
// outer select (a cursor's seek on id) ahead of FINAL, as in any scan. s is left as it is
// unless every column of the CTE is a column of the table under its own name and the outer
// select reads nothing but those columns and its own aliases (an aggregation's order and seek
// name its metrics so), without joins or sub-queries.
func flattenScan(s *selectStmt) bool {
	if len(s.with) != 1 || len(s.joins) > 0 || len(s.union) > 0 || s.distinct {
		return false
	}
	c := s.with[0]
	ref, ok := s.from.(*cteRef)
	if !ok || ref.name != c.name || ref.qual() != c.name {
		return false
	}
	b := c.body
	t, ok := b.from.(*tableRef)
	if !ok || len(b.with) > 0 || b.distinct || len(b.joins) > 0 || len(b.groupBy) > 0 || len(b.having) > 0 ||
		len(b.orderBy) > 0 || b.limit != 0 || len(b.union) > 0 || len(b.settings) > 0 {
		return false
	}
	cols := map[string]bool{}
	for _, it := range b.cols {
		cr, ok := it.e.(*colRef)
		if !ok || cr.qual != t.alias || it.alias != cr.name {
			return false
		}
		cols[cr.name] = true
	}
	aliases := map[string]bool{}
	for _, it := range s.cols {
		if it.alias != "" {
			aliases[it.alias] = true
		}
	}
	outer := *s
	outer.with = nil
	var refs []*colRef
	foreign := false
	walk(&outer, func(n sqlNode) {
		switch x := n.(type) {
		case *selectStmt:
			if x != &outer {
				foreign = true // a sub-query: its references are not the outer select's
			}
		case *colRef:
			switch {
			case x.qual == "" && aliases[x.name] && !cols[x.name]:
				// One of the select's own aliases (m0, g1, n0_id), which reads the same in
				// either form; never a name the scan also gives a column.
			case x.qual == c.name && cols[x.name]:
				refs = append(refs, x)
			default:
				foreign = true
			}
		}
	})
	if foreign {
		return false
	}
	for _, r := range refs {
		r.qual = t.alias
	}
	s.with = nil
	s.from = t
	s.prewhere = b.prewhere
	s.where = append(slices.Clone(b.where), s.where...)
	return true
}

// finishPaged adds readback columns, the seek predicate, ORDER BY and LIMIT.
func (l *lowerer) finishPaged(s *selectStmt, keys []sortKey, having bool) error {
	r := l.r
	if r.cursor != nil {
		s.cols = append(s.cols, readback(keys)...)
		l.plan.SortKeys = len(keys)
	}
	if l.after != nil {
		p, err := l.seek(keys)
		if err != nil {
			return err
		}
		if having {
			s.having = append(s.having, p)
		} else {
			s.where = append(s.where, p)
		}
	}
	s.orderBy = orderItems(keys)
	s.limit = r.pageSize() + 1
	return nil
}

var truncations = map[string]struct{ fn, wrap string }{
	"minute":  {"toStartOfMinute", "toDateTime64"},
	"hour":    {"toStartOfHour", "toDateTime64"},
	"day":     {"toStartOfDay", "toDate32"},
	"week":    {"toStartOfWeek", "toDate32"},
	"month":   {"toStartOfMonth", "toDate32"},
	"quarter": {"toStartOfQuarter", "toDate32"},
	"year":    {"toStartOfYear", "toDate32"},
}

func truncExpr(c expr, unit string) expr {
	t := truncations[unit]
	var inner expr
	if unit == "week" {
		inner = fn(t.fn, c, litInt(0))
	} else {
		inner = fn(t.fn, c)
	}
	if t.wrap == "toDateTime64" {
		return fn("toDateTime64", inner, litInt(0))
	}
	return fn("toDate32", inner)
}

func (l *lowerer) lowerAggregation() (*selectStmt, error) {
	r := l.r
	byAlias := map[string]*nodeSel{}
	for _, n := range r.nodes {
		byAlias[n.alias] = n
	}
	extra := map[int][]*property{}
	groupNode := map[int]bool{}
	for _, g := range r.groupBy {
		n := byAlias[g.alias]
		if g.prop == "" {
			groupNode[n.idx] = true
		} else {
			extra[n.idx] = append(extra[n.idx], n.ent.prop(g.prop))
		}
	}
	for _, a := range r.aggs {
		if a.prop != "" {
			n := byAlias[a.target]
			extra[n.idx] = append(extra[n.idx], n.ent.prop(a.prop))
		}
	}
	cols := l.treeColumns(extra, func(n *nodeSel) bool { return groupNode[n.idx] })
	s, _ := l.lowerTree(cols)
	for _, n := range r.nodes {
		l.plan.Nodes = append(l.plan.Nodes, graphresponse.PlanNode{Alias: n.alias, Entity: n.ent.name, Columns: planColumns(selection(n))})
	}
	outCol := map[string]sortKey{}
	var tieKeys []sortKey
	for gi, g := range r.groupBy {
		n := byAlias[g.alias]
		pg := graphresponse.PlanGroup{Name: g.name, Node: n.idx, Alias: g.alias, Entity: n.ent.name}
		if g.prop == "" {
			pg.Kind = graphresponse.GroupKindNode
			pg.Column = nName(n) + "_id"
			s.cols = append(s.cols, as(col(nName(n), "id"), nName(n)+"_id"))
			for _, p := range selection(n) {
				s.cols = append(s.cols, as(fn("any", col(nName(n), p.name)), nName(n)+"_"+p.name))
			}
			s.groupBy = append(s.groupBy, col(nName(n), "id"))
			k := sortKey{e: col("", nName(n)+"_id"), typ: typInt64}
			outCol[g.name] = k
			tieKeys = append(tieKeys, k)
		} else {
			p := n.ent.prop(g.prop)
			pg.Kind = graphresponse.GroupKindProperty
			pg.Property = g.prop
			pg.Column = "g" + strconv.Itoa(gi)
			var e expr = col(nName(n), p.name)
			typ := keyType(p)
			pg.Type = p.typ
			if g.truncate != "" {
				e = truncExpr(e, g.truncate)
				if g.truncate == "minute" || g.truncate == "hour" {
					typ, pg.Type = "DateTime64(6, 'UTC')", typDateTime
				} else {
					typ, pg.Type = typDate32, typDate32
				}
			}
			s.cols = append(s.cols, as(e, pg.Column))
			s.groupBy = append(s.groupBy, e)
			k := sortKey{e: col("", pg.Column), typ: typ, nullable: p.nullable}
			outCol[g.name] = k
			tieKeys = append(tieKeys, k)
		}
		l.plan.Groups = append(l.plan.Groups, pg)
	}
	for k, a := range r.aggs {
		n := byAlias[a.target]
		m := "m" + strconv.Itoa(k)
		pm := graphresponse.PlanMetric{Name: a.name, Function: a.fn, Target: a.target, Property: a.prop, Column: m}
		var e expr
		key := sortKey{e: col("", m), typ: typInt64}
		switch {
		case a.fn == "count" && a.prop == "":
			e = fn("count")
		case a.fn == "count":
			e = fn("count", col(nName(n), a.prop))
		default:
			p := n.ent.prop(a.prop)
			e = fn(a.fn+"OrNull", col(nName(n), a.prop))
			key.nullable = true
			switch a.fn {
			case "avg":
				key.typ = typFloat64
			default:
				key.typ = keyType(p)
			}
		}
		s.cols = append(s.cols, as(e, m))
		outCol[a.name] = key
		l.plan.Metrics = append(l.plan.Metrics, pm)
	}
	if len(r.groupBy) > 0 {
		var keys []sortKey
		if r.aggSort != "" {
			name := strings.TrimPrefix(r.aggSort, "-")
			k := outCol[name]
			k.desc = name != r.aggSort
			keys = append(keys, k)
		}
		keys = append(keys, tieKeys...)
		if err := l.finishPaged(s, keys, true); err != nil {
			return nil, err
		}
	}
	if len(r.rels) == 0 {
		flattenScan(s)
	}
	return s, nil
}
