package compilertest_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// readable is what one caller may read, computed with plain SQL written for the tests (one
// startsWith per granted scope, no prefix collapsing): the live node ids per entity and the
// live edges whose traversal_path lies under a scope of level 10 or more.
type readable struct {
	nodes map[string]map[int64]bool
	edges []walkEdge // deduplicated, in source order
}

// walkEdge is one stored edge, source to target.
type walkEdge struct {
	srcKind string
	src     int64
	tgtKind string
	tgt     int64
	rel     string
}

// scopeSQL is the plain-SQL test of a row's traversal_path for caller c at floor.
func scopeSQL(c *compiler.Caller, floor int) string {
	if c.Admin {
		return "true"
	}
	var or []string
	for _, s := range c.Scopes {
		if s.Level >= floor {
			or = append(or, "startsWith(traversal_path, '"+s.Path+"')")
		}
	}
	if len(or) == 0 {
		return "false"
	}
	return "(" + strings.Join(or, " OR ") + ")"
}

func readableFor(t *testing.T, c *compiler.Caller) *readable {
	t.Helper()
	w := loadWorld(t)
	rd := &readable{nodes: map[string]map[int64]bool{}}
	for _, e := range env.ont.Entities {
		where := "true"
		if w.floors[e.Name] > 0 {
			where = scopeSQL(c, w.floors[e.Name])
		}
		rd.nodes[e.Name] = map[int64]bool{}
		for _, id := range int64s(plain(t, "SELECT id FROM "+e.Table+" "+live+" AND "+where)) {
			rd.nodes[e.Name][id] = true
		}
	}
	for _, r := range plain(t, "SELECT DISTINCT source_kind, source_id, target_kind, target_id, relationship_kind FROM gl_edge "+live+" AND "+scopeSQL(c, 10)+
		" ORDER BY source_kind, source_id, target_kind, target_id, relationship_kind") {
		rd.edges = append(rd.edges, walkEdge{r[0].(string), r[1].(int64), r[2].(string), r[3].(int64), r[4].(string)})
	}
	return rd
}

// walkShape is a relationship selector with variable-length hops between two entities.
type walkShape struct {
	from, to  string
	types     []string
	direction string
	min, max  int
	width     int64 // ids in the id_range of the ranged node
}

func (s walkShape) String() string {
	return fmt.Sprintf("%s-%v(%s,%d..%d)->%s", s.from, s.types, s.direction, s.min, s.max, s.to)
}

// walkShapes pass through entities of every floor and through global ones.
var walkShapes = []walkShape{
	{"MergeRequest", "Project", []string{"FIXES", "IN_PROJECT"}, "outgoing", 2, 2, 100000},                    // via Vulnerability (25)
	{"MergeRequest", "Project", []string{"FIXES", "IN_PROJECT"}, "outgoing", 1, 2, 60},                        // direct and via Vulnerability
	{"Project", "MergeRequest", []string{"FIXES", "IN_PROJECT"}, "incoming", 2, 2, 100000},                    // the same walk written backwards
	{"MergeRequest", "Project", []string{"HAS_HEAD_PIPELINE", "HAS_JOB", "IN_PROJECT"}, "outgoing", 1, 3, 60}, // via Pipeline, Job (20)
	{"User", "Project", []string{"AUTHORED", "IN_PROJECT"}, "outgoing", 2, 2, 10},                             // from a global entity
	{"Vulnerability", "Project", []string{"HAS_NOTE", "IN_PROJECT"}, "outgoing", 1, 2, 60},                    // via Note (20)
	{"Job", "Job", []string{"RUNS_ON"}, "both", 2, 2, 4},                                                      // via Runner (global)
	{"Group", "Project", []string{"CONTAINS", "IN_GROUP"}, "both", 1, 3, 100},                                 // via Group, WorkItem, Label, Milestone
	{"WorkItem", "WorkItem", []string{"CONTAINS", "RELATED_TO"}, "both", 1, 3, 30},
}

// query writes s as a traversal or an aggregation; rangeOnFrom puts the id_range (and so
// the root of the join tree) on the from node, otherwise on the to node.
func (s walkShape) query(queryType string, rangeOnFrom bool, lo int64) string {
	rng := fmt.Sprintf(`,"id_range":{"start":%d,"end":%d}`, lo, lo+s.width-1)
	fromRange, toRange := rng, ""
	if !rangeOnFrom {
		fromRange, toRange = "", rng
	}
	q := fmt.Sprintf(`{"query_type":%q,"nodes":[{"id":"a","entity":%q%s},{"id":"b","entity":%q%s}],"relationships":[{"type":%s,"from":"a","to":"b","direction":%q,"hops":[%d,%d]}],"limit":1000`,
		queryType, s.from, fromRange, s.to, toRange, jsonStrings(s.types), s.direction, s.min, s.max)
	if queryType == "aggregation" {
		q += `,"group_by":["a"],"aggregations":[{"count":"b"}]`
	}
	return q + "}"
}

// jsonStrings writes names (ontology names, plain ASCII) as a JSON array.
func jsonStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// walkKey is one row of a variable-length hop: the from and to endpoints, the type of the
// edge at the from end and the length of the walk.
type walkKey struct {
	from, to int64
	typ      string
	depth    int64
}

// walkNode is one node of a walk.
type walkNode struct {
	kind string
	id   int64
}

func (n walkNode) String() string { return fmt.Sprint(n.kind, n.id) }

// enumerate calls fn for every simple walk over the readable edges of s's types, of length
// min..max, from a readable from-node with an id in fromIDs to a readable to-node with an id
// in toIDs, whose intermediate nodes are all readable; rels are the relationship types of its
// edges in walk order.
func (rd *readable) enumerate(s walkShape, fromIDs, toIDs func(int64) bool, fn func(path []walkNode, rels []string)) {
	type step struct {
		to  walkNode
		rel string
	}
	adj := map[walkNode][]step{}
	for _, e := range rd.edges {
		if !slices.Contains(s.types, e.rel) || !declared(e) {
			continue
		}
		src, tgt := walkNode{e.srcKind, e.src}, walkNode{e.tgtKind, e.tgt}
		if src == tgt {
			continue
		}
		if s.direction != "incoming" {
			adj[src] = append(adj[src], step{tgt, e.rel})
		}
		if s.direction != "outgoing" {
			adj[tgt] = append(adj[tgt], step{src, e.rel})
		}
	}
	var walk func(path []walkNode, rels []string)
	walk = func(path []walkNode, rels []string) {
		cur := path[len(path)-1]
		if !rd.nodes[cur.kind][cur.id] {
			return // an unreadable node ends (or never starts) a walk
		}
		if d := len(rels); d >= s.min && cur.kind == s.to && toIDs(cur.id) {
			fn(path, rels)
		}
		if len(rels) == s.max {
			return
		}
		for _, st := range adj[cur] {
			if !slices.Contains(path, st.to) {
				walk(append(slices.Clone(path), st.to), append(slices.Clone(rels), st.rel))
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(rd.nodes[s.from])) {
		if fromIDs(id) {
			walk([]walkNode{{s.from, id}}, nil)
		}
	}
}

// walks lists the rows a variable-length hop of shape s should give: the endpoints, the
// type of the edge at the from end and the length of every walk enumerate finds.
func (rd *readable) walks(s walkShape, fromIDs, toIDs func(int64) bool) map[walkKey]bool {
	out := map[walkKey]bool{}
	rd.enumerate(s, fromIDs, toIDs, func(path []walkNode, rels []string) {
		out[walkKey{path[0].id, path[len(path)-1].id, rels[0], int64(len(rels))}] = true
	})
	return out
}

// paths lists the paths path_finding should give as "User1>Group2|MEMBER_OF,…" strings.
func (rd *readable) paths(s walkShape, fromIDs, toIDs func(int64) bool) []string {
	out := []string{}
	rd.enumerate(s, fromIDs, toIDs, func(path []walkNode, rels []string) {
		out = append(out, pathString(path, rels))
	})
	slices.Sort(out)
	return out
}

func pathString(path []walkNode, rels []string) string {
	ns := make([]string, len(path))
	for i, n := range path {
		ns[i] = n.String()
	}
	return strings.Join(ns, ">") + "|" + strings.Join(rels, ",")
}

// gotPaths reads the paths of a path_finding response in the same form.
func gotPaths(r *graphresponse.Response) []string {
	byID := map[int64][]graphresponse.Edge{}
	for _, e := range r.Edges {
		byID[e.PathID.Value] = append(byID[e.PathID.Value], e)
	}
	out := []string{}
	for _, es := range byID {
		slices.SortFunc(es, func(a, b graphresponse.Edge) int { return int(a.Step.Value - b.Step.Value) })
		path := []walkNode{{es[0].From, es[0].FromID}}
		var rels []string
		for _, e := range es {
			path = append(path, walkNode{e.To, e.ToID})
			rels = append(rels, e.Type)
		}
		out = append(out, pathString(path, rels))
	}
	slices.Sort(out)
	return out
}

// pathEnd is one end of a path_finding query: its id selector in the DSL and the ids it admits.
type pathEnd struct {
	sel string
	ids func(int64) bool
}

// idsEnd is the end node_ids [id].
func idsEnd(id int64) pathEnd {
	return pathEnd{fmt.Sprintf(`"node_ids":[%d]`, id), func(x int64) bool { return x == id }}
}

// rangeEnd is the end id_range lo..lo+width-1.
func rangeEnd(lo, width int64) pathEnd {
	return pathEnd{fmt.Sprintf(`"id_range":{"start":%d,"end":%d}`, lo, lo+width-1), idRange(true, lo, width)}
}

// visibleEnd is every Project, selected by a filter on visibility_level that admits all its
// values, and no ids: a path plan reads such an anchor set in its first statement.
func visibleEnd() pathEnd {
	return pathEnd{`"filters":{"visibility_level":["private","internal","public"]}`, func(int64) bool { return true }}
}

// checkPaths runs shortest path finding along s (forward, up to s.max edges, over s.types)
// between the ends from (of s.from) and to (of s.to) for caller c and compares its paths with
// every simple walk over c's readable nodes and edges. It returns "" when they agree or when
// the page is truncated, and a description of the difference otherwise.
func checkPaths(t *testing.T, s walkShape, c *compiler.Caller, from, to pathEnd) string {
	q := fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"a","entity":%q,%s},{"id":"b","entity":%q,%s}],"path":{"type":"shortest","from":"a","to":"b","max_depth":%d,"rel_types":%s},"limit":1000}`,
		s.from, from.sel, s.to, to.sel, s.max, jsonStrings(s.types))
	got, err := tryRun(t, q, c)
	if err != nil {
		return q + ": " + err.Error()
	}
	if got.Pagination.HasMore {
		return ""
	}
	want := readableFor(t, c).paths(s, from.ids, to.ids)
	if diff := cmp.Diff(want, gotPaths(got)); diff != "" {
		return fmt.Sprintf("%s for admin=%v %+v: paths (-want +got):\n%s", q, c.Admin, c.Scopes, diff)
	}
	return ""
}

// gotWalks reads the variable-length edges of a traversal response as walk keys.
func gotWalks(s walkShape, r *graphresponse.Response) map[walkKey]bool {
	out := map[walkKey]bool{}
	for _, e := range r.Edges {
		k := walkKey{e.FromID, e.ToID, e.Type, e.Depth.Value}
		if !e.Depth.Valid {
			k.depth = 1 // hops [1,1] is a plain single hop, whose edges carry no depth
		}
		if s.direction == "incoming" { // the response gives the stored direction, to -> from
			k.from, k.to = e.ToID, e.FromID
		}
		out[k] = true
	}
	return out
}

// gotCounts reads the metric per group node a of an aggregation response.
func gotCounts(r *graphresponse.Response, metric string) map[string]int64 {
	out := map[string]int64{}
	for _, row := range r.Rows {
		a, _ := row.Get("a")
		id, _ := a.Get("id")
		c, _ := row.Get(metric)
		out[id.Str()] = c.Int()
	}
	return out
}

// unordered forgets the orientation of the walks of a plain single hop in both directions
// between nodes of one entity:
// its response gives each edge as stored, once, whichever end the walk started from.
func unordered(s walkShape, ws map[walkKey]bool) map[walkKey]bool {
	if s.max != 1 || s.direction != "both" || s.from != s.to {
		return ws
	}
	out := map[walkKey]bool{}
	for k := range ws {
		k.from, k.to = min(k.from, k.to), max(k.from, k.to)
		out[k] = true
	}
	return out
}

func wantCounts(ws map[walkKey]bool) map[string]int64 {
	out := map[string]int64{}
	for k := range ws {
		out[fmt.Sprint(k.from)]++
	}
	return out
}

func idRange(on bool, lo, width int64) func(int64) bool {
	if !on {
		return func(int64) bool { return true }
	}
	return func(id int64) bool { return id >= lo && id < lo+width }
}

// checkWalks runs shape s as a traversal and (unless its direction is both, which
// aggregations reject) as an aggregation for caller c and compares both
// with the walks over c's readable nodes and edges. It returns "" when they agree or when
// the page is truncated, and a description of the difference otherwise.
func checkWalks(t *testing.T, s walkShape, c *compiler.Caller, rangeOnFrom bool, lo int64) string {
	rd := readableFor(t, c)
	want := rd.walks(s, idRange(rangeOnFrom, lo, s.width), idRange(!rangeOnFrom, lo, s.width))
	q := s.query("traversal", rangeOnFrom, lo)
	got, err := tryRun(t, q, c)
	if err != nil {
		return q + ": " + err.Error()
	}
	if !got.Pagination.HasMore {
		if diff := cmp.Diff(unordered(s, want), unordered(s, gotWalks(s, got))); diff != "" {
			return fmt.Sprintf("%s for %+v: walks (-want +got):\n%s", q, c.Scopes, diff)
		}
	}
	if s.direction == "both" {
		return "" // aggregations allow only outgoing or incoming relationships
	}
	q = s.query("aggregation", rangeOnFrom, lo)
	got, err = tryRun(t, q, c)
	if w := loadWorld(t); errors.Is(err, compiler.ErrGlobalNodeUnscoped) && !c.Admin && w.floors[s.from] == 0 && w.floors[s.to] == 0 {
		return "" // a non-admin aggregates global nodes only through namespaced ones
	}
	if err != nil {
		return q + ": " + err.Error()
	}
	if !got.Pagination.HasMore {
		if diff := cmp.Diff(wantCounts(want), gotCounts(got, "count_b")); diff != "" {
			return fmt.Sprintf("%s for %+v: counts (-want +got):\n%s", q, c.Scopes, diff)
		}
	}
	return ""
}

// topLevel lists the top-level group paths of the seeded graph ("1/", "2/", …).
func topLevel(w *world) []string {
	var out []string
	for _, p := range w.paths {
		if strings.Count(p, "/") == 1 {
			out = append(out, p)
		}
	}
	return out
}

// TestVariableLengthHopsReadIntermediates: a walk of a variable-length hop may pass only
// through nodes the caller can read. A Reporter (level 20) reads no Vulnerability (floor
// 25), so merge requests reach projects through FIXES+IN_PROJECT only for a Developer.
func TestVariableLengthHopsReadIntermediates(t *testing.T) {
	w := loadWorld(t)
	var reporter, developer []scopeSpec
	for _, p := range topLevel(w) {
		reporter = append(reporter, scopeSpec{p, 20})
		developer = append(developer, scopeSpec{p, 30})
	}
	s := walkShapes[0]
	// The data must contain a walk through a Vulnerability, or the test proves nothing.
	dev := readableFor(t, callerWith(developer...))
	if len(dev.walks(s, idRange(true, 1, s.width), idRange(false, 0, 0))) == 0 {
		t.Fatal("the seeded graph has no MergeRequest-FIXES-Vulnerability-IN_PROJECT-Project walk")
	}
	for _, c := range []struct {
		name   string
		caller *compiler.Caller
	}{
		{"reporter", callerWith(reporter...)},
		{"developer", callerWith(developer...)},
		{"admin", admin},
	} {
		for _, shape := range []walkShape{walkShapes[0], walkShapes[2]} {
			for _, rangeOnFrom := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/range_on_from=%v", c.name, shape, rangeOnFrom), func(t *testing.T) {
					if msg := checkWalks(t, shape, c.caller, rangeOnFrom, 1); msg != "" {
						t.Error(msg)
					}
				})
			}
		}
	}
}
