package compiler

import (
	"fmt"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// NeighborEdgesLimit is the LIMIT of the first statement of the two-step neighbors plan: the
// most edges it reads before the second statement looks their neighbors up. When it returns
// that many and too few of them lead to readable, live neighbors to fill the page,
// [Plan.JoinNeighbors] says so and the executor runs the one-statement form instead.
const NeighborEdgesLimit = 1001

// neighborSteps is what the lowering of a neighbors query leaves for the two-step plan.
type neighborSteps struct {
	first *selectStmt // the edges of the centers, in answer order (neighborsFirst)
	nb    nsBinding   // how the edges bind to their ends on traversal_path
	// For the form on cached edges (neighborcache.go): the arms, the center selector,
	// whether an order_by property sorts the answer, and the cursor (readback columns, keys).
	arms    []nbrArm
	center  *nodeSel
	ordered bool
	cursor  bool
	after   []*string
}

// Two-step neighbors (docs/compiler.md, "Two-step neighbors").
//
// The one-statement form of a neighbors query looks up, in the statement itself, every kind
// an edge of the center could reach, and each such lookup costs the engine the same whether
// or not an edge reaches that kind. The two-step plan reads the edges first ([Plan.Edges]),
// then looks up only the (kind, id) pairs they reach ([Compiler.Lookup]), and joins the two
// in Go ([Plan.JoinNeighbors]). Both statements pass the security check on their own:
//
//   - The first reads the centers like the one-statement form (scope, FINAL, not deleted) and
//     edge scans that each start at that center set (scoped at the edge floor); when the
//     centers are named by id, the scans are bounded by those ids instead and the statement
//     keeps only the rows whose center is in the set, before its LIMIT (checkEdges). So every
//     row is an edge the caller may read leaving a center the caller may read. Its neighbor
//     columns are not bound to anything: they are candidates, never an answer.
//   - The second is an entity scan per kind with the kind's own scope at its floor, FINAL and
//     _deleted = false, narrowed by id to the candidates, which are query parameters. Whatever
//     ids it is handed (a forged list, ids of other namespaces, deleted nodes), it returns only
//     nodes the caller may read and that are live: the ids can narrow what it returns, never
//     widen it. Kinds outside the plan's hydration kinds are refused, so the list cannot name
//     a table either.
//   - JoinNeighbors keeps an edge only when its neighbor is among the second statement's rows
//     (and, for same_namespace edges, under the same path), which is the binding the
//     one-statement form expresses in SQL with its set of live, readable neighbors.
//
// So a row of the answer needs an edge the first statement proved readable from a readable
// center and a neighbor the second proved readable and live, as before.

// Edges returns the first statement of the two-step neighbors plan or of the multi-step
// path_finding plan ([Plan.Paths]), or nil when the query runs as one statement (other query
// types, and neighbors whose types cannot link the center).
func (p *Plan) Edges() *Query {
	if p == nil {
		return nil
	}
	return p.edges
}

// OneStatement returns a copy of p without the two-step plan: the executor then runs the
// one-statement form. Tests use it to compare the two forms.
func (p *Plan) OneStatement() *Plan {
	if p == nil {
		return nil
	}
	c := *p
	c.steps, c.edges, c.paths = nil, nil, nil
	return &c
}

// Reached lists the nodes the rows of the first statement (edges) reach, with the centers, in
// first appearance order after the centers named by id ([graphresponse.BuildPlan.Centers]):
// what [Compiler.Lookup] must look up when it hydrates the page.
func (p *Plan) Reached(edges graphresponse.Rows) ([]graphresponse.NodeRef, error) {
	return p.reached(edges, true)
}

// Neighbors lists the neighbors the rows of the first statement (edges) reach, in first
// appearance order, without the centers (unless a center is also a neighbor): all that
// [Plan.JoinNeighbors] reads of the lookup, so what [Compiler.Lookup] must look up when it does
// not hydrate (the page is hydrated after, centers included).
func (p *Plan) Neighbors(edges graphresponse.Rows) ([]graphresponse.NodeRef, error) {
	return p.reached(edges, false)
}

func (p *Plan) reached(edges graphresponse.Rows, centers bool) ([]graphresponse.NodeRef, error) {
	if p.Edges() == nil || p.steps == nil {
		return nil, newErr("", ErrCompilerBug, "reached nodes of a query without a two-step plan")
	}
	b := p.Build
	ix, err := columnsOf(edges.Columns, "center_id", "nbr_id", "nbr_kind")
	if err != nil {
		return nil, err
	}
	center := b.Nodes[0].Entity
	seen := map[graphresponse.NodeRef]bool{}
	var out []graphresponse.NodeRef
	add := func(r graphresponse.NodeRef) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	if centers {
		for _, id := range b.Centers {
			add(graphresponse.NodeRef{Kind: center, ID: id})
		}
	}
	for i, row := range edges.Values {
		c, n, err := edgeRefs(ix, row, center)
		if err != nil {
			return nil, fmt.Errorf("edge row %d: %w", i, err)
		}
		if centers {
			add(c)
		}
		add(n)
	}
	return out, nil
}

// JoinNeighbors joins the rows of the two statements of the two-step plan into the rows the
// one-statement form returns: the edges whose neighbor the lookup returned (and, for an edge
// of a same_namespace type, whose path is that neighbor's), in the first statement's order, at
// most a page plus the probe row, without the nbr_tp column. complete is false when the first
// statement stopped at [NeighborEdgesLimit] before the page was full: the answer is then not
// known from these rows, and the caller runs the one-statement form.
func (p *Plan) JoinNeighbors(edges, lookup graphresponse.Rows) (base graphresponse.Rows, complete bool, err error) {
	st := p.steps
	if p.Edges() == nil || st == nil {
		return base, false, newErr("", ErrCompilerBug, "join of a query without a two-step plan")
	}
	ix, err := columnsOf(edges.Columns, "center_id", "nbr_id", "nbr_kind")
	if err != nil {
		return base, false, err
	}
	tpAt := slices.Index(edges.Columns, "nbr_tp")
	if st.nb.on() != (tpAt >= 0) {
		return base, false, fmt.Errorf("edge rows: nbr_tp column %v, want %v", tpAt >= 0, st.nb.on())
	}
	lx, err := columnsOf(lookup.Columns, "kind", "id", "tp")
	if err != nil {
		return base, false, err
	}
	// A node's id may be live under more than one path (the node tables are keyed by
	// traversal_path and id): an edge bound to its namespace may end at any of them, as in
	// the one-statement form's (id, kind, traversal_path) IN live.
	type under struct {
		n  graphresponse.NodeRef
		tp string
	}
	live := make(map[graphresponse.NodeRef]bool, len(lookup.Values))
	paths := make(map[under]bool, len(lookup.Values))
	for i, row := range lookup.Values {
		kind, ok1 := row[lx[0]].(string)
		id, ok2 := row[lx[1]].(int64)
		tp, ok3 := row[lx[2]].(string)
		if !ok1 || !ok2 || !ok3 {
			return base, false, fmt.Errorf("lookup row %d: want a kind, an integer id and a path, got %v", i, row)
		}
		n := graphresponse.NodeRef{Kind: kind, ID: id}
		live[n] = true
		paths[under{n, tp}] = true
	}
	for _, c := range edges.Columns {
		if c != "nbr_tp" {
			base.Columns = append(base.Columns, c)
		}
	}
	want := p.Build.PageSize + 1
	center := p.Build.Nodes[0].Entity
	for i, row := range edges.Values {
		if len(base.Values) == want {
			break
		}
		_, n, err := edgeRefs(ix, row, center)
		if err != nil {
			return base, false, fmt.Errorf("edge row %d: %w", i, err)
		}
		if !live[n] {
			continue
		}
		if tpAt >= 0 {
			etp, ok := row[tpAt].(string)
			if !ok {
				return base, false, fmt.Errorf("edge row %d: nbr_tp is %T, want a string", i, row[tpAt])
			}
			if !paths[under{n, etp}] && !st.nb.unbound(etp) {
				continue
			}
			row = slices.Delete(slices.Clone(row), tpAt, tpAt+1)
		}
		base.Values = append(base.Values, row)
	}
	complete = len(base.Values) == want || len(edges.Values) < NeighborEdgesLimit
	return base, complete, nil
}

// columnsOf returns the positions of names in cols.
func columnsOf(cols []string, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		if out[i] = slices.Index(cols, n); out[i] < 0 {
			return nil, fmt.Errorf("rows lack column %s (have %v)", n, cols)
		}
	}
	return out, nil
}

// edgeRefs reads the center and the neighbor of one row of the first statement; ix holds the
// positions of center_id, nbr_id and nbr_kind.
func edgeRefs(ix []int, row []any, center string) (c, n graphresponse.NodeRef, err error) {
	cid, ok1 := row[ix[0]].(int64)
	nid, ok2 := row[ix[1]].(int64)
	kind, ok3 := row[ix[2]].(string)
	if !ok1 || !ok2 || !ok3 {
		return c, n, fmt.Errorf("want integer ids and a kind, got %v", row)
	}
	return graphresponse.NodeRef{Kind: center, ID: cid}, graphresponse.NodeRef{Kind: kind, ID: nid}, nil
}

// Lookup builds the second statement of the two-step neighbors plan: for each kind of refs,
// the nodes of that kind among refs that the caller may read and that are live, with columns
// kind, id, props and tp (the node's traversal_path, ” for a global kind). With props, props
// holds the node's hydration columns, as [Compiler.Hydrate] reads them, so the statement
// serves as the hydration of the page too; without, it is empty. refs are candidates handed
// over from the first statement and are trusted for nothing: every arm is scoped and checked
// like any entity scan (see "Two-step neighbors" above). It returns nil when refs is empty.
func (c *Compiler) Lookup(q *Query, refs []graphresponse.NodeRef, props bool) (*Query, error) {
	if q == nil || q.Plan.Edges() == nil || q.Plan.steps == nil {
		return nil, newErr("", ErrCompilerBug, "lookup requested for a query without a two-step plan")
	}
	if len(refs) == 0 {
		return nil, nil
	}
	stmt, err := c.hydration(q.Plan, refs, hydrateOpts{noProps: !props, tp: true})
	if err != nil {
		return nil, err
	}
	return c.finish(stmt, q.Plan.caller, q.Plan.Build.QueryType, nil)
}
