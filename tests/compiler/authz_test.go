package compilertest_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

type scopeSpec struct {
	path  string
	level int
}

func callerWith(scopes ...scopeSpec) *compiler.Caller {
	c := &compiler.Caller{Subject: "7"}
	for _, s := range scopes {
		c.Scopes = append(c.Scopes, compiler.Scope{Path: s.path, Level: s.level})
	}
	return c
}

// world is the seeded data as plain maps, read once with plain SQL: where every node and
// every edge lives.
type world struct {
	paths     []string                    // every group and project path
	nodePath  map[string]map[int64]string // entity -> id -> traversal_path ("" for global)
	edgePaths map[edgeID][]string
	floors    map[string]int // entity -> floor; 0 for global
	tables    map[string]string
	maxID     map[string]int64
}

var (
	worldOnce sync.Once
	theWorld  *world
)

func loadWorld(t testing.TB) *world {
	engine(t)
	worldOnce.Do(func() {
		w := &world{nodePath: map[string]map[int64]string{}, edgePaths: map[edgeID][]string{}, floors: map[string]int{}, tables: map[string]string{}, maxID: map[string]int64{}}
		for _, e := range env.ont.Entities {
			w.tables[e.Name] = e.Table
			w.nodePath[e.Name] = map[int64]string{}
			sql := "SELECT id, '' FROM " + e.Table + " " + live
			if e.Namespaced() {
				w.floors[e.Name] = max(e.MinAccessLevel, 10)
				if e.MinAccessLevel == 0 {
					w.floors[e.Name] = max(env.ont.DefaultMinAccessLevel, 10)
				}
				sql = "SELECT id, traversal_path FROM " + e.Table + " " + live
			}
			for _, r := range plain(t, sql+" AND id < 1000000") {
				id := r[0].(int64)
				w.nodePath[e.Name][id] = r[1].(string)
				w.maxID[e.Name] = max(w.maxID[e.Name], id)
			}
		}
		for _, r := range plain(t, "SELECT DISTINCT traversal_path FROM gl_group "+live+" UNION DISTINCT SELECT DISTINCT traversal_path FROM gl_project "+live) {
			w.paths = append(w.paths, r[0].(string))
		}
		slices.Sort(w.paths)
		for _, r := range plain(t, "SELECT source_kind, source_id, target_kind, target_id, relationship_kind, traversal_path FROM gl_edge "+live) {
			k := edgeID{r[0].(string), r[1].(int64), r[2].(string), r[3].(int64), r[4].(string)}
			w.edgePaths[k] = append(w.edgePaths[k], r[5].(string))
		}
		theWorld = w
	})
	return theWorld
}

func under(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// violations lists every node or edge of r that lies outside the caller's scopes.
func (w *world) violations(r *graphresponse.Response, c *compiler.Caller) []string {
	var out []string
	for _, n := range r.Nodes {
		floor := w.floors[n.Type]
		if floor == 0 {
			continue // global entity: readable by everyone
		}
		p, ok := w.nodePath[n.Type][n.ID]
		if !ok || (!c.Admin && !under(p, c.PathsAtLeast(floor))) {
			out = append(out, fmt.Sprintf("node %s %d at %q", n.Type, n.ID, p))
		}
	}
	for _, e := range r.Edges {
		if e.Depth.Valid && e.Depth.Value > 1 {
			continue // a variable-length hop summarises a walk; each step was scoped in SQL
		}
		k := edgeID{e.From, e.FromID, e.To, e.ToID, e.Type}
		rev := edgeID{e.To, e.ToID, e.From, e.FromID, e.Type}
		ok := false
		for _, p := range append(slices.Clone(w.edgePaths[k]), w.edgePaths[rev]...) {
			if c.Admin || under(p, c.PathsAtLeast(10)) {
				ok = true
			}
		}
		if !ok {
			out = append(out, fmt.Sprintf("edge %v at %q", k, w.edgePaths[k]))
		}
	}
	return out
}

var levels = []int{5, 10, 15, 20, 25, 30, 40, 50}

// queryTemplates build random queries from random integers.
var queryTemplates = []func(w *world, a, b int) string{
	func(w *world, a, _ int) string { // search over any entity
		e := env.ont.Entities[a%len(env.ont.Entities)]
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"x","entity":%q,"id_range":{"start":1,"end":100000}}],"limit":1000}`, e.Name)
	},
	func(w *world, a, b int) string { // one hop over a random relationship pair, random direction of writing
		rel := env.ont.Relationships[a%len(env.ont.Relationships)]
		p := rel.Pairs[b%len(rel.Pairs)]
		if b%2 == 0 {
			return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"a","entity":%q,"id_range":{"start":1,"end":400}},{"id":"b","entity":%q}],"relationships":[{"type":%q,"from":"a","to":"b"}],"limit":1000}`, p.From, p.To, rel.Name)
		}
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"a","entity":%q,"id_range":{"start":1,"end":400}},{"id":"b","entity":%q}],"relationships":[{"type":%q,"from":"a","to":"b","direction":"incoming"}],"limit":1000}`, p.To, p.From, rel.Name)
	},
	func(w *world, a, b int) string { // neighbors of a few nodes
		e := env.ont.Entities[a%len(env.ont.Entities)]
		lo := int64(b%40) + 1
		return fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"c","entity":%q,"id_range":{"start":%d,"end":%d}}],"neighbors":{"direction":"both"},"limit":1000}`, e.Name, lo, lo+10)
	},
	func(w *world, a, b int) string { // paths from a user to projects
		return fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d]},{"id":"p","entity":"Project","id_range":{"start":1,"end":400}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":1000}`, a%40+1)
	},
	func(w *world, a, b int) string { // variable-length hop
		return fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":100}},{"id":"x","entity":%q}],"relationships":[{"type":["CONTAINS","IN_GROUP"],"from":"g","to":"x","hops":[1,%d],"direction":"both"}],"limit":1000}`,
			[]string{"Project", "Group", "WorkItem", "Label"}[a%4], b%3+1)
	},
}

// TestAuthorizationProperty: for random queries × random scopes over the seeded data, no
// returned node or edge lies outside the caller's scopes, scoped results are a subset of the
// admin result, and aggregate counts equal the count of rows the caller may see. Variable-
// length hops (traversal and aggregation) and paths equal, exactly, the walks over the
// nodes and edges the caller may read, computed from plain SQL (walks_test.go).
func TestAuthorizationProperty(t *testing.T) {
	w := loadWorld(t)
	props := gopter.NewProperties(propParameters(t, 20261121, 25))
	genScope, genWideScope := scopeGens(w, 10, 20, 25)
	props.Property("results stay inside the caller's scopes", prop.ForAll(
		func(scopes []scopeSpec, tmpl, a, b int) string {
			q := queryTemplates[tmpl](w, a, b)
			caller := callerWith(scopes...)
			got, err := tryRun(t, q, caller)
			if err != nil {
				return "scoped run: " + err.Error()
			}
			if v := w.violations(got, caller); len(v) > 0 {
				return fmt.Sprintf("%s with %v: %v", q, scopes, v)
			}
			all, err := tryRun(t, q, admin)
			if err != nil {
				return "admin run: " + err.Error()
			}
			if all.Pagination.HasMore {
				return "" // the admin page is truncated; the subset check does not apply
			}
			if v := w.violations(all, admin); len(v) > 0 {
				return fmt.Sprintf("admin sees rows that do not exist: %v", v)
			}
			adminEdges := map[edgeID]bool{}
			for _, e := range edgeIDs(all) {
				adminEdges[e] = true
			}
			for _, e := range edgeIDs(got) {
				if !adminEdges[e] {
					return fmt.Sprintf("%s: scoped edge %v not in the admin result", q, e)
				}
			}
			adminNodes := map[string]bool{}
			for _, n := range all.Nodes {
				adminNodes[fmt.Sprint(n.Type, n.ID)] = true
			}
			for _, n := range got.Nodes {
				if !adminNodes[fmt.Sprint(n.Type, n.ID)] {
					return fmt.Sprintf("%s: scoped node %s %d not in the admin result", q, n.Type, n.ID)
				}
			}
			return ""
		},
		gen.SliceOfN(3, genScope),
		gen.IntRange(0, len(queryTemplates)-1),
		gen.IntRange(0, 1000),
		gen.IntRange(0, 1000),
	))
	props.Property("aggregate counts equal the visible rows", prop.ForAll(
		func(scopes []scopeSpec, ei int) string {
			e := env.ont.Entities[ei%len(env.ont.Entities)]
			if !e.Namespaced() {
				return ""
			}
			caller := callerWith(scopes...)
			got, err := tryRun(t, fmt.Sprintf(`{"query_type":"aggregation","nodes":[{"id":"x","entity":%q,"id_range":{"start":1,"end":100000}}],"aggregations":[{"count":"x"}]}`, e.Name), caller)
			if err != nil {
				return err.Error()
			}
			want := 0
			for id, p := range w.nodePath[e.Name] {
				if id <= 100000 && under(p, caller.PathsAtLeast(w.floors[e.Name])) {
					want++
				}
			}
			c, _ := got.Rows[0].Get("count_x")
			if c.Int() != int64(want) {
				return fmt.Sprintf("count %s with %v = %d, want %d", e.Name, scopes, c.Int(), want)
			}
			return ""
		},
		gen.SliceOfN(2, genScope),
		gen.IntRange(0, 100),
	))
	props.Property("variable-length hops pass only through readable nodes", prop.ForAll(
		func(scopes []scopeSpec, shape, lo int, rangeOnFrom bool) string {
			return checkWalks(t, walkShapes[shape], callerWith(scopes...), rangeOnFrom, int64(lo))
		},
		// Wide scopes at the levels around the floors (10, 20, 25) make walks through
		// nodes hidden from an otherwise readable neighbourhood likely.
		gen.SliceOfN(3, gen.OneGenOf(genScope, genWideScope)),
		gen.IntRange(0, len(walkShapes)-1),
		gen.IntRange(1, 200),
		gen.Bool(),
	))
	props.Property("paths pass only through readable nodes", prop.ForAll(
		func(scopes []scopeSpec, u, lo int, byFilter bool) string {
			s := walkShape{"User", "Project", []string{"MEMBER_OF", "CONTAINS"}, "outgoing", 1, 3, 40}
			to := rangeEnd(int64(lo), s.width)
			if byFilter { // no ids: the plan reads the anchor sets first (docs/compiler.md, "Path finding in steps")
				to = visibleEnd()
			}
			return checkPaths(t, s, callerWith(scopes...), idsEnd(int64(u)), to)
		},
		gen.SliceOfN(3, genScope),
		gen.IntRange(1, 40),
		gen.IntRange(1, 200),
		gen.Bool(),
	))
	props.TestingRun(t)
}

// TestGlobalNodesInAggregation: a non-admin may count users only through namespaced rows.
func TestGlobalNodesInAggregation(t *testing.T) {
	engine(t)
	q := `{"query_type":"aggregation","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":1000}}],"aggregations":[{"count":"u"}]}`
	if _, err := tryRun(t, q, callerWith(scopeSpec{"1/", 50})); err == nil {
		t.Fatal("a non-admin counted users without a scoped anchor")
	}
	if _, err := tryRun(t, q, admin); err != nil {
		t.Fatalf("admin: %v", err)
	}
	got := run(t, `{"query_type":"aggregation","nodes":[{"id":"u","entity":"User"},{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],
		"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"aggregations":[{"count":"u"}]}`, callerWith(scopeSpec{"1/", 20}))
	want := plain(t, "SELECT count() FROM gl_merge_request "+live+" AND startsWith(traversal_path, '1/')")
	if c, _ := got.Rows[0].Get("count_u"); c.Int() != want[0][0].(int64) {
		t.Errorf("count_u = %d, want %d", c.Int(), want[0][0])
	}
}
