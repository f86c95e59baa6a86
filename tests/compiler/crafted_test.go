package compilertest_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// The crafted graph: nodes and edges from rvBase up, under namespaces 9734/ and 9735/ that no
// seeded node uses, made to trip the statements that bind edge scans late (a center or a
// root the caller may not read: under another namespace, below its level, deleted, two live
// copies of one id under two paths, a node of another kind with the same id; edges readable
// where an end is not, deleted edges). Each test checks its answers against an oracle
// computed from these rows. With GRAPHWIRE_ANSWERS_OUT=<file> every answer is appended to
// the file (cursors blanked), so that two versions of the compiler can be compared byte for
// byte on the same graph.
const rvBase = int64(7340000)

type rvNode struct {
	kind, table, path string
	id                int64
	deleted           bool
	extra             map[string]any
}

type rvEdge struct {
	rel, sk string
	sid     int64
	tk      string
	tid     int64
	path    string
	deleted bool
}

func rvData() ([]rvNode, []rvEdge) {
	b := rvBase
	p := func(parts ...int64) string {
		s := ""
		for _, x := range parts {
			s += fmt.Sprint(x) + "/"
		}
		return s
	}
	nodes := []rvNode{
		{kind: "Group", table: "gl_group", path: p(9734, b+1), id: b + 1},
		{kind: "Group", table: "gl_group", path: p(9735, b+2), id: b + 2},
		{kind: "Group", table: "gl_group", path: p(9734, b+3), id: b + 3, deleted: true},
		{kind: "Group", table: "gl_group", path: p(9734, b+4), id: b + 4},
		{kind: "Group", table: "gl_group", path: p(9735, b+4), id: b + 4},
		{kind: "Group", table: "gl_group", path: p(9734, b+5), id: b + 5},
		{kind: "Project", table: "gl_project", path: p(9734, b+1, b+2), id: b + 2},
		{kind: "Project", table: "gl_project", path: p(9735, b+6), id: b + 6},
		{kind: "User", table: "gl_user", id: b + 1},
		{kind: "User", table: "gl_user", id: b + 3, deleted: true},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9734, b+1, b+2), id: b + 1, extra: map[string]any{"status": "failed"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9735, b+6), id: b + 2, extra: map[string]any{"status": "failed"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9734, b+1, b+2), id: b + 3, deleted: true, extra: map[string]any{"status": "failed"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9734, b+1, b+2), id: b + 4, extra: map[string]any{"status": "failed"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9735, b+6), id: b + 4, extra: map[string]any{"status": "failed"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9734, b+1, b+2), id: b + 5, extra: map[string]any{"status": "success"}},
		{kind: "Pipeline", table: "gl_pipeline", path: p(9734, b+1, b+2), id: b + 7, extra: map[string]any{"status": "failed"}},
		{kind: "MergeRequest", table: "gl_merge_request", path: p(9735, b+6), id: b + 1, extra: map[string]any{"state": "opened"}},
	}
	g, pr, u, pl, mr := "Group", "Project", "User", "Pipeline", "MergeRequest"
	edges := []rvEdge{
		{"CONTAINS", g, b + 1, g, b + 2, p(9734, b+1), false},
		{"CONTAINS", g, b + 2, g, b + 1, p(9734), false},
		{"CONTAINS", g, b + 1, g, b + 3, p(9734, b+1), false},
		{"CONTAINS", g, b + 3, g, b + 5, p(9734), false},
		{"CONTAINS", g, b + 1, g, b + 4, p(9734, b+1), false},
		{"CONTAINS", g, b + 4, g, b + 1, p(9735), false},
		{"CONTAINS", g, b + 4, g, b + 5, p(9734), false},
		{"CONTAINS", g, b + 5, g, b + 4, p(9734), false},
		{"CONTAINS", g, b + 1, pr, b + 2, p(9734, b+1), false},
		{"CONTAINS", g, b + 2, pr, b + 2, p(9734), false},
		{"CONTAINS", g, b + 1, pr, b + 6, p(9734), false},
		{"CONTAINS", g, b + 5, g, b + 1, p(9734), false},
		{"CONTAINS", g, b + 1, g, b + 5, p(9734), false},
		{"CONTAINS", g, b + 5, pr, b + 2, p(9734), true},
		{"CONTAINS", g, b + 4, pr, b + 2, p(9734), false},
		{"CONTAINS", g, b + 4, pr, b + 2, p(9735), false},
		{"MEMBER_OF", u, b + 1, g, b + 1, p(9734, b+1), false},
		{"MEMBER_OF", u, b + 1, g, b + 2, p(9735), false},
		{"MEMBER_OF", u, b + 3, g, b + 1, p(9734), false},
		{"MEMBER_OF", u, b + 1, g, b + 5, p(9734), false},
		{"MEMBER_OF", u, b + 2, g, b + 4, p(9734), false},
		{"IN_PROJECT", pl, b + 1, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", pl, b + 2, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", pl, b + 3, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", pl, b + 4, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", pl, b + 5, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", pl, b + 7, pr, b + 2, p(9735), false},
		{"IN_PROJECT", pl, b + 1, pr, b + 6, p(9734), false},
		{"IN_PROJECT", mr, b + 1, pr, b + 2, p(9734, b+1, b+2), false},
		{"IN_PROJECT", mr, b + 4, pr, b + 2, p(9734, b+1, b+2), false},
	}
	return nodes, edges
}

// rvGen numbers the loads of the crafted graph: each test loads it with versions above the
// last load's tombstones.
var rvGen int64

// rvLoad writes the crafted graph for one test and, when the test ends, a tombstone for every
// row it wrote, so that the package's other tests (admin aggregations over whole tables) never
// see it.
func rvLoad(t *testing.T) {
	e := engine(t)
	rvGen++
	v := rvGen * 10
	nodes, edges := rvData()
	write := func(tomb bool) error {
		ctx := context.Background()
		for _, n := range nodes {
			cols := []string{"id", "_version", "_deleted"}
			row := []any{n.id, v + 1, false}
			if n.path != "" {
				cols = append(cols, "traversal_path")
				row = append(row, n.path)
			}
			if n.kind == "User" {
				cols = append(cols, "username")
				row = append(row, fmt.Sprint("rv", n.id))
			}
			keys := make([]string, 0, len(n.extra))
			for k := range n.extra {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				cols = append(cols, k)
				row = append(row, n.extra[k])
			}
			rows := [][]any{row}
			if n.deleted || tomb {
				del := slices.Clone(row)
				del[1], del[2] = v+2, true
				if tomb {
					del[1] = v + 3
					rows = rows[:0]
				}
				rows = append(rows, del)
			}
			if err := e.Insert(ctx, n.table, cols, rows); err != nil {
				return err
			}
		}
		ecols := []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "_version", "_deleted"}
		for _, x := range edges {
			var rows [][]any
			switch {
			case tomb:
				rows = [][]any{{x.path, x.rel, x.sk, x.sid, x.tk, x.tid, v + 3, true}}
			case x.deleted:
				rows = [][]any{{x.path, x.rel, x.sk, x.sid, x.tk, x.tid, v + 1, false}, {x.path, x.rel, x.sk, x.sid, x.tk, x.tid, v + 2, true}}
			default:
				rows = [][]any{{x.path, x.rel, x.sk, x.sid, x.tk, x.tid, v + 1, false}}
			}
			if err := e.Insert(ctx, "gl_edge", ecols, rows); err != nil {
				return err
			}
		}
		return nil
	}
	if err := write(false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := write(true); err != nil {
			t.Errorf("remove the crafted graph: %v", err)
		}
	})
}

var rvFloors = map[string]int{"Group": 10, "Project": 10, "Pipeline": 20, "MergeRequest": 20, "User": 0}

// rvReadable: a live copy of the node under a path the caller reads at the kind's floor.
func rvReadable(c *compiler.Caller, kind string, id int64) bool {
	nodes, _ := rvData()
	for _, n := range nodes {
		if n.kind != kind || n.id != id || n.deleted {
			continue
		}
		if n.path == "" || c.Admin || under(n.path, c.PathsAtLeast(rvFloors[kind])) {
			return true
		}
	}
	return false
}

func rvEdgeReadable(c *compiler.Caller, rel, sk string, sid int64, tk string, tid int64) bool {
	_, edges := rvData()
	for _, x := range edges {
		if x.rel == rel && x.sk == sk && x.sid == sid && x.tk == tk && x.tid == tid && !x.deleted && (c.Admin || under(x.path, c.PathsAtLeast(10))) {
			return true
		}
	}
	return false
}

var rvCallers = []struct {
	name string
	c    *compiler.Caller
}{
	{"admin", admin},
	{"9734@30", callerWith(scopeSpec{"9734/", 30})},
	{"9734@10", callerWith(scopeSpec{"9734/", 10})},
	{"9735@30", callerWith(scopeSpec{"9735/", 30})},
	{"9734@30+9735@10", callerWith(scopeSpec{"9734/", 30}, scopeSpec{"9735/", 10})},
	{"9734/sub@30", callerWith(scopeSpec{fmt.Sprintf("9734/%d/", rvBase+1), 30})},
}

// answerDump appends answers to GRAPHWIRE_ANSWERS_OUT, if set.
type answerDump struct {
	f *os.File
}

func (d *answerDump) write(name string, r *graphresponse.Response) {
	if d.f == nil {
		return
	}
	cp := *r
	if cp.Pagination != nil {
		p := *cp.Pagination
		if p.NextCursor != nil {
			s := "<cursor>"
			p.NextCursor = &s
		}
		cp.Pagination = &p
	}
	fmt.Fprintf(d.f, "%s\t%s\n", name, graphresponse.Marshal(&cp))
}

func rvEdgeKey(e graphresponse.Edge) string {
	return fmt.Sprintf("%s %d -%s-> %s %d", e.From, e.FromID, e.Type, e.To, e.ToID)
}

// TestCraftedNeighborsPages: neighbors of crafted centers named by id (the first statement
// binds them at the top, checkEdges), in every direction, every caller, pages of 1, 2 or 3
// (rotating over the cases) walked to the end: the pages together are the unpaged answer, and
// that answer is exactly the readable edges of readable centers to readable neighbors.
func TestCraftedNeighborsPages(t *testing.T) {
	rvLoad(t)
	d := &answerDump{}
	if p := os.Getenv("GRAPHWIRE_ANSWERS_OUT"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d.f = f
	}
	b := rvBase
	type nq struct {
		name    string
		centers string
		ids     []int64
		kind    string
		nb      string
	}
	qs := []nq{
		{"groups by ids, both", fmt.Sprintf(`"node_ids":[%d,%d,%d,%d,%d]`, b+1, b+2, b+3, b+4, b+5), []int64{b + 1, b + 2, b + 3, b + 4, b + 5}, "Group", `{"direction":"both"}`},
		{"groups by ids, both, contains", fmt.Sprintf(`"node_ids":[%d,%d,%d,%d,%d]`, b+1, b+2, b+3, b+4, b+5), []int64{b + 1, b + 2, b + 3, b + 4, b + 5}, "Group", `{"direction":"both","rel_types":["CONTAINS"]}`},
		{"groups by range, both", fmt.Sprintf(`"id_range":{"start":%d,"end":%d}`, b+1, b+6), []int64{b + 1, b + 2, b + 3, b + 4, b + 5, b + 6}, "Group", `{"direction":"both"}`},
		{"groups by ids, incoming", fmt.Sprintf(`"node_ids":[%d,%d,%d]`, b+1, b+4, b+5), []int64{b + 1, b + 4, b + 5}, "Group", `{"direction":"incoming"}`},
		{"groups by ids, outgoing", fmt.Sprintf(`"node_ids":[%d,%d,%d]`, b+1, b+2, b+4), []int64{b + 1, b + 2, b + 4}, "Group", `{"direction":"outgoing"}`},
		{"project by id, both", fmt.Sprintf(`"node_ids":[%d,%d]`, b+2, b+6), []int64{b + 2, b + 6}, "Project", `{"direction":"both"}`},
		{"users by ids, both", fmt.Sprintf(`"node_ids":[%d,%d,%d]`, b+1, b+2, b+3), []int64{b + 1, b + 2, b + 3}, "User", `{"direction":"both"}`},
	}
	for qi, q := range qs {
		for ci, cl := range rvCallers {
			orders := []string{""}
			if qi < 2 {
				orders = append(orders, `,"order_by":"c.id"`)
			}
			for oi, order := range orders {
				base := fmt.Sprintf(`{"query_type":"neighbors","nodes":[{"id":"c","entity":%q,%s}],"neighbors":%s%s`, q.kind, q.centers, q.nb, order)
				name := q.name + "/" + cl.name + order
				whole, ok := rvRun(t, name, base+`,"limit":500}`, cl.c)
				if !ok {
					continue
				}
				d.write(name+"/whole", whole)
				// The oracle: every edge of the answer readable, its ends readable, one end a
				// named center; every such edge of the crafted graph in the answer.
				got := map[string]int{}
				for _, e := range whole.Edges {
					got[rvEdgeKey(e)]++
					if !rvEdgeReadable(cl.c, e.Type, e.From, e.FromID, e.To, e.ToID) || !rvReadable(cl.c, e.From, e.FromID) || !rvReadable(cl.c, e.To, e.ToID) {
						t.Errorf("%s: edge %s is not readable", name, rvEdgeKey(e))
					}
				}
				for k, n := range got {
					if n > 1 {
						t.Errorf("%s: edge %s %d times", name, k, n)
					}
				}
				for _, n := range whole.Nodes {
					if !rvReadable(cl.c, n.Type, n.ID) && n.ID >= rvBase {
						t.Errorf("%s: node %s %d is not readable", name, n.Type, n.ID)
					}
				}
				_, edges := rvData()
				for _, x := range edges {
					centerOut := x.sk == q.kind && slices.Contains(q.ids, x.sid)
					centerIn := x.tk == q.kind && slices.Contains(q.ids, x.tid)
					dirOK := (strings.Contains(q.nb, "both") && (centerOut || centerIn)) ||
						(strings.Contains(q.nb, "outgoing") && centerOut) || (strings.Contains(q.nb, "incoming") && centerIn)
					if strings.Contains(q.nb, "CONTAINS") && x.rel != "CONTAINS" {
						dirOK = false
					}
					k := rvEdgeKey(graphresponse.Edge{From: x.sk, FromID: x.sid, To: x.tk, ToID: x.tid, Type: x.rel})
					if dirOK && rvEdgeReadable(cl.c, x.rel, x.sk, x.sid, x.tk, x.tid) && rvReadable(cl.c, x.sk, x.sid) && rvReadable(cl.c, x.tk, x.tid) && got[k] == 0 {
						t.Errorf("%s: readable edge %s missing", name, k)
					}
				}
				var want []string
				for _, e := range whole.Edges {
					want = append(want, rvEdgeKey(e))
				}
				for _, size := range []int{(qi+ci+oi)%3 + 1} { // every size over the cases
					var paged []string
					after := ""
					pages := 0
					for ; pages < 200; pages++ {
						r, err := tryRun(t, base+fmt.Sprintf(`,"cursor":{"page_size":%d%s}}`, size, after), cl.c)
						if err != nil {
							t.Errorf("%s: page %d: %v", name, pages, err)
							break
						}
						d.write(fmt.Sprintf("%s/size%d/page%d", name, size, pages), r)
						for _, e := range r.Edges {
							paged = append(paged, rvEdgeKey(e))
						}
						if r.Pagination == nil || !r.Pagination.HasMore {
							break
						}
						after = `,"after":"` + *r.Pagination.NextCursor + `"`
					}
					if !slices.Equal(paged, want) {
						t.Errorf("%s: pages of %d:\n%v\nwant\n%v", name, size, paged, want)
					}
				}
			}
		}
	}
}

// TestCraftedJoinedHopCounts: rule 8 shapes (a coarse root, one hop, a far node read whole) on
// the crafted pipelines, every caller: the sized compiler (joined) and the plain one (seeded)
// answer alike (tryRun), and the counts of the crafted project are the readable pipelines'.
func TestCraftedJoinedHopCounts(t *testing.T) {
	rvLoad(t)
	d := &answerDump{}
	if p := os.Getenv("GRAPHWIRE_ANSWERS_OUT"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d.f = f
	}
	qs := []string{
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}],"aggregation_sort":"-count_pl","limit":1000}`,
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":["failed","success"]}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}],"limit":1000}`,
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"aggregations":[{"count":"pl"},{"count":"p"}]}`,
		`{"query_type":"traversal","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"limit":1000}`,
		`{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}],"group_by":["p"],"aggregations":[{"count":"mr"}],"limit":1000}`,
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"tag":false}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}],"limit":1000}`,
		`{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"tag":false,"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"group_by":["pl.status"],"aggregations":[{"count":"p"}],"limit":1000}`,
	}
	for qi, q := range qs {
		for _, cl := range rvCallers {
			name := fmt.Sprintf("agg%d/%s", qi, cl.name)
			r, ok := rvRun(t, name, q, cl.c)
			if !ok {
				continue
			}
			d.write(name, r)
			rvCheckReadable(t, name, cl.c, r)
			if qi == 0 {
				// Walked by cursor, pages of 1 and 2 rows hold the unpaged rows in order.
				rowBytes := func(r *graphresponse.Response) []string {
					var out []string
					for _, row := range r.Rows {
						out = append(out, string(answerBytes(&graphresponse.Response{QueryType: r.QueryType, Columns: r.Columns, GroupColumns: r.GroupColumns, Rows: []graphresponse.Row{row}})))
					}
					return out
				}
				want := rowBytes(r)
				for _, size := range []int{1, 2} {
					var got []string
					after := ""
					pages := 0
					for page := 0; page < 100; page++ {
						pages++
						pr, err := tryRun(t, strings.Replace(q, `"limit":1000`, fmt.Sprintf(`"cursor":{"page_size":%d%s}`, size, after), 1), cl.c)
						if err != nil {
							t.Fatalf("%s: page %d: %v", name, page, err)
						}
						got = append(got, rowBytes(pr)...)
						if pr.Pagination == nil || !pr.Pagination.HasMore {
							break
						}
						after = `,"after":"` + *pr.Pagination.NextCursor + `"`
					}
					if len(want) > size && pages < 2 {
						t.Errorf("%s: %d rows in one page of %d", name, len(want), size)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s: pages of %d rows:\n%v\nwant\n%v", name, size, got, want)
					}
				}
			}
			if qi == 0 {
				// The crafted project's failed pipelines the caller may read, one per copy.
				want := 0
				nodes, edges := rvData()
				for _, x := range edges {
					if x.rel != "IN_PROJECT" || x.sk != "Pipeline" || x.tid != rvBase+2 || x.deleted || !(cl.c.Admin || under(x.path, cl.c.PathsAtLeast(10))) {
						continue
					}
					if !rvReadable(cl.c, "Project", rvBase+2) {
						continue
					}
					for _, n := range nodes {
						if n.kind == "Pipeline" && n.id == x.sid && !n.deleted && n.extra["status"] == "failed" && (cl.c.Admin || under(n.path, cl.c.PathsAtLeast(20))) {
							want++
						}
					}
				}
				got := 0
				m := regexp.MustCompile(fmt.Sprintf(`"id":"%d"[^}]*}},"count_pl":(\d+)`, rvBase+2)).FindSubmatch(answerBytes(r))
				if m != nil {
					got, _ = strconv.Atoi(string(m[1]))
				}
				if got != want {
					t.Errorf("%s: the crafted project counts %d failed pipelines, want %d:\n%s", name, got, want, answerBytes(r))
				}
			}
		}
	}
}

// TestCraftedPathAnchors: path finding between crafted anchors named by ids or a narrow id range
// (read without ORDER BY/LIMIT), every caller: no node or edge the caller may not read, and
// (tryRun) the plan in steps answers as the one-statement form.
func TestCraftedPathAnchors(t *testing.T) {
	rvLoad(t)
	d := &answerDump{}
	if p := os.Getenv("GRAPHWIRE_ANSWERS_OUT"); p != "" {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		d.f = f
	}
	b := rvBase
	qs := []string{
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d,%d]},{"id":"p","entity":"Project","id_range":{"start":%d,"end":%d}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":50}`, b+1, b+2, b+1, b+6),
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[%d,%d]},{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}}],"path":{"type":"shortest","from":"u","to":"g","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":50}`, b+1, b+2, b+1, b+6),
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"p","entity":"Project","node_ids":[%d,%d]}],"path":{"type":"shortest","from":"g","to":"p","max_depth":3,"rel_types":["CONTAINS"]},"limit":50}`, b+1, b+5, b+2, b+6),
		fmt.Sprintf(`{"query_type":"path_finding","nodes":[{"id":"g","entity":"Group","id_range":{"start":%d,"end":%d}},{"id":"p","entity":"Project","node_ids":[%d,%d]}],"path":{"type":"shortest","from":"g","to":"p","max_depth":2,"rel_types":["CONTAINS"]},"limit":50}`, b+1, b+5, b+2, b+6),
	}
	for qi, q := range qs {
		for _, cl := range rvCallers {
			name := fmt.Sprintf("path%d/%s", qi, cl.name)
			r, ok := rvRun(t, name, q, cl.c)
			if !ok {
				continue
			}
			d.write(name, r)
			rvCheckReadable(t, name, cl.c, r)
			t.Logf("%s: %d nodes, %d edges", name, len(r.Nodes), len(r.Edges))
		}
	}
}

// rvCheckReadable fails t for every crafted node of r, and every edge of r from a crafted
// node, that caller c may not read (an edge also needs both of its ends readable).
func rvCheckReadable(t *testing.T, name string, c *compiler.Caller, r *graphresponse.Response) {
	t.Helper()
	for _, n := range r.Nodes {
		if n.ID >= rvBase && !rvReadable(c, n.Type, n.ID) {
			t.Errorf("%s: node %s %d is not readable", name, n.Type, n.ID)
		}
	}
	for _, e := range r.Edges {
		if e.FromID >= rvBase && (!rvEdgeReadable(c, e.Type, e.From, e.FromID, e.To, e.ToID) || !rvReadable(c, e.From, e.FromID) || !rvReadable(c, e.To, e.ToID)) {
			t.Errorf("%s: edge %s is not readable", name, rvEdgeKey(e))
		}
	}
}

// rvRun runs query q for caller c. A NO_SCOPES refusal (the caller's levels admit none of the
// query's types) is logged and, like any other error, reported as not ok; other errors fail t.
func rvRun(t *testing.T, name, q string, c *compiler.Caller) (*graphresponse.Response, bool) {
	t.Helper()
	r, err := tryRun(t, q, c)
	switch {
	case err == nil:
		return r, true
	case strings.Contains(err.Error(), "NO_SCOPES"):
		t.Logf("%s: refused with NO_SCOPES, nothing to check", name)
	default:
		t.Errorf("%s: %v", name, err)
	}
	return nil, false
}
