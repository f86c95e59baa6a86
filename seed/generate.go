package seed

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/ontology"
)

// Options configures [Generate] and [Load]. The zero value means scale 1, seed 42.
type Options struct {
	// Scale multiplies the entity counts: 1 gives 14 327 nodes and 46 124 edges at seed 42, 100
	// gives 1 431 577 nodes (measured with Generate). Default 1.
	Scale float64
	// Seed selects the graph; the same Scale and Seed always give the same rows. Zero means 42.
	Seed uint64
	// BatchSize is the number of rows per insert. Default 50 000.
	BatchSize int
	// Progress, when set, is told how far [Generate] and [Load] have come, from the goroutine
	// that called them: phase "generate" counts the rows generated so far against an estimate
	// of the total ([ExpectedRows], raised when done comes close), and ends with the one call
	// where done equals total, the rows generated; phase "load" counts the rows inserted
	// against all rows of the graph, from 0 before the first batch and then after every batch.
	// Generation reports about once per percent of the estimate.
	Progress func(phase string, done, total int64)
	// Merge, when set, merges one table's parts after [Load] has written it, instead of
	// OPTIMIZE TABLE … FINAL on the engine: on a cluster the graph tables are Distributed
	// tables, which do not merge, and package cluster merges the shards' local tables.
	Merge func(ctx context.Context, table string) error
	// Logger receives diagnostics. Nil discards them.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Scale <= 0 {
		o.Scale = 1
	}
	if o.Seed == 0 {
		o.Seed = 42
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 50_000
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Graph is a generated graph: one table per entity, in table-name order, then the edge table.
type Graph struct {
	Tables []*Table
}

// Table holds the rows of one table in column order. Rows are in id order for entity tables
// and in generation order for the edge table.
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// Nodes returns the number of entity rows.
func (g *Graph) Nodes() int {
	n := 0
	for _, t := range g.Tables[:len(g.Tables)-1] {
		n += len(t.Rows)
	}
	return n
}

// Edges returns the number of edge rows.
func (g *Graph) Edges() int { return len(g.Tables[len(g.Tables)-1].Rows) }

// Table returns the table called name, or nil.
func (g *Graph) Table(name string) *Table {
	for _, t := range g.Tables {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// LargeID is the id of the extra row every entity gets: above 2^53, so it exercises string ids
// and int64 handling downstream (docs/clickhouse.md, "Seed data and raw SQL").
const LargeID = 9007199254740993

// Epoch is the fixed "now" of the generated graph; timestamps lie in the two years before it.
var Epoch = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

// table is an entity table under construction.
type table struct {
	ent  *ontology.Entity
	t    *Table
	idx  map[string]int
	zero []any
}

type row struct {
	tb   *table
	vals []any
}

// set assigns a property. An unknown name is a bug in the generator, caught by its tests.
func (r row) set(name string, v any) row {
	i, ok := r.tb.idx[name]
	if !ok {
		panic(fmt.Sprintf("seed: %s has no column %s", r.tb.ent.Name, name))
	}
	r.vals[i] = v
	return r
}

type edgeKey struct {
	kind, from string
	fromID     int64
	to         string
	toID       int64
}

type gen struct {
	ont    *ontology.Ontology
	opts   Options
	tables map[string]*table
	edges  *Table
	seen   map[edgeKey]bool
	// fullPaths maps group ids to their full path ("acme/parser-team-1").
	fullPaths map[int64]string
	// nodes counts the entity rows generated; when they and the edges reach nextReport,
	// generated tells opts.Progress.
	nodes, nextReport, expected int64
}

// ExpectedRows estimates how many rows (nodes and edges) [Generate] makes at scale: rows grow
// linearly with the scale, from a few hundred fixed rows (the special rows with hostile
// strings and one row per entity with [LargeID]). It is an estimate for progress bars, within a quarter of
// the real count for scales from 0.01 up.
func ExpectedRows(scale float64) int64 {
	if scale <= 0 {
		scale = 1
	}
	return int64(math.Round(60_500*scale)) + 400
}

// generated tells opts.Progress about every hundredth of the estimate: it runs after every
// node, and edges come in between.
func (g *gen) generated() {
	rows := g.nodes + int64(len(g.edges.Rows))
	if g.opts.Progress == nil || rows < g.nextReport {
		return
	}
	step := max(g.expected/100, 1)
	// Until the last call, total stays above done: done = total says generation has ended.
	g.opts.Progress("generate", rows, max(g.expected, rows+step))
	g.nextReport = rows + step
}

func newTable(e *ontology.Entity) *table {
	tb := &table{ent: e, t: &Table{Name: e.Table, Columns: e.Columns()}, idx: map[string]int{}}
	tb.zero = make([]any, len(tb.t.Columns))
	for i, c := range tb.t.Columns {
		tb.idx[c] = i
		switch c {
		case "id", "traversal_path":
			continue
		case "_version":
			tb.zero[i] = int64(1)
			continue
		case "_deleted":
			tb.zero[i] = false
			continue
		}
		p, _ := e.Property(c)
		if p.Nullable {
			continue
		}
		switch p.Type {
		case "Int64":
			tb.zero[i] = int64(0)
		case "Float64":
			tb.zero[i] = 0.0
		case "Bool":
			tb.zero[i] = false
		case "Date32":
			tb.zero[i] = Epoch
		case "DateTime64(0, 'UTC')":
			tb.zero[i] = Epoch
		case "LowCardinality(String)":
			tb.zero[i] = ""
			if len(p.Enum) > 0 {
				tb.zero[i] = p.Enum[0]
			}
		default:
			tb.zero[i] = ""
		}
	}
	return tb
}

// node appends a row for entity with the given id and path ("" for global entities).
func (g *gen) node(entity string, id int64, path string) row {
	tb, ok := g.tables[entity]
	if !ok {
		panic("seed: unknown entity " + entity)
	}
	vals := make([]any, len(tb.zero))
	copy(vals, tb.zero)
	vals[0] = id
	if tb.ent.Namespaced() {
		vals[1] = path
	}
	tb.t.Rows = append(tb.t.Rows, vals)
	g.nodes++
	g.generated()
	return row{tb: tb, vals: vals}
}

// edge appends an edge row. path is the path of the namespaced endpoint (docs/loading.md,
// "Paths and foreign keys").
// An edge that exists already (a reviewer picked twice) is dropped: it has the same key.
func (g *gen) edge(kind, from string, fromID int64, to string, toID int64, path string) {
	k := edgeKey{kind, from, fromID, to, toID}
	if g.seen[k] {
		return
	}
	g.seen[k] = true
	// Not counted here: a call would stop edge from being inlined, and its constant arguments
	// would then be boxed on the heap (a third more allocations). node counts the edges too.
	g.edges.Rows = append(g.edges.Rows, []any{path, kind, from, fromID, to, toID, int64(0), "", int64(1), false})
}

// codeEdge appends a code-graph edge, which carries the project and branch of the indexed
// code (ontology edge_properties).
func (g *gen) codeEdge(projectID int64, branch, kind, from string, fromID int64, to string, toID int64, path string) {
	k := edgeKey{kind, from, fromID, to, toID}
	if g.seen[k] {
		return
	}
	g.seen[k] = true
	g.edges.Rows = append(g.edges.Rows, []any{path, kind, from, fromID, to, toID, projectID, branch, int64(1), false})
}

// Generate builds the synthetic SDLC graph the package documentation describes for the ontology.
// It is deterministic: the same ontology and options give identical tables.
func Generate(ont *ontology.Ontology, opts Options) (g *Graph, err error) {
	opts = opts.withDefaults()
	defer func() {
		// The generator panics only on a mismatch between itself and the ontology.
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("seed: generate: %v", r)
		}
	}()
	gn := &gen{ont: ont, opts: opts, tables: map[string]*table{}, fullPaths: map[int64]string{}, seen: map[edgeKey]bool{},
		edges: &Table{Name: ont.EdgeTable, Columns: ontology.EdgeColumns}, expected: ExpectedRows(opts.Scale)}
	for _, e := range ont.Entities {
		gn.tables[e.Name] = newTable(e)
	}
	gn.run()
	gn.orbit() // the entities and properties of Orbit parity (generate_orbit.go)
	// One extra row per entity with an id above 2^53, a copy of its first row.
	for _, e := range ont.Entities {
		tb := gn.tables[e.Name]
		if len(tb.t.Rows) == 0 {
			continue
		}
		extra := append([]any(nil), tb.t.Rows[0]...)
		extra[0] = int64(LargeID)
		tb.t.Rows = append(tb.t.Rows, extra)
		gn.nodes++
	}
	if opts.Progress != nil {
		rows := gn.nodes + int64(len(gn.edges.Rows))
		opts.Progress("generate", rows, rows)
	}
	g = &Graph{}
	for _, e := range sortedByTable(ont.Entities) {
		g.Tables = append(g.Tables, gn.tables[e.Name].t)
	}
	g.Tables = append(g.Tables, gn.edges)
	return g, nil
}

func sortedByTable(es []*ontology.Entity) []*ontology.Entity {
	out := append([]*ontology.Entity(nil), es...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Table < out[j-1].Table; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

type group struct {
	id     int64
	path   string
	tenant int
	depth  int
}

type project struct {
	id, nsID int64
	path     string
	tenant   int
	group    *group
	labels   []int64
	miles    []int64
	mrs      []int64
	items    []int64
	nextIID  int64
	nextPIID int64
	nextWIID int64
}

type mr struct {
	id      int64
	proj    *project
	author  int64
	created time.Time
	state   string
	row     row
}

type workItem struct {
	id     int64
	proj   *project // nil for group-level items
	group  *group
	path   string
	tenant int
}

// Special strings (quotes, backslashes, control characters, placeholder and SQL lookalikes;
// docs/clickhouse.md, "Seed data and raw SQL"), spread over titles and notes.
var hostile = []string{
	"It's a quote: '",
	`Say "hello"`,
	`C:\path\to\file`,
	"tab\tseparated",
	"line one\nline two",
	"carriage\rreturn",
	"nul\x00byte",
	`\N is not NULL`,
	"{p0:String} is not a placeholder",
	"100% of_all",
	"'); DROP TABLE gl_note; --",
	"Emoji 🚀🎉 and right-to-left עברית العربية",
	// Code points that split lines or steer a terminal or a bidi renderer:
	// LLM formats must never write them raw (docs/formats.md).
	"line\u2028separator and paragraph\u2029separator",
	"next\u0085line, escape \x1b[31mred\x1b[0m, form\ffeed",
	"bidi \u202eevil\u202c and isolate \u2066x\u2069, bom \ufeff",
}

var (
	firstNames = []string{"Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Margaret", "Dennis", "Frances", "Donald", "Radia", "Tim", "Anita", "Niklaus", "Hedy", "Alan", "Sophie", "John", "Katherine", "Bjarne", "José", "Zoë", "Łukasz", "Søren", "Chloé", "Björn", "Åsa", "Jürgen", "Noémie", "Dmitri", "Yuki", "Wei", "Priya", "Olúwaseun", "Mateo"}
	lastNames  = []string{"Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Hamilton", "Ritchie", "Allen", "Knuth", "Perlman", "Berners-Lee", "Borg", "Wirth", "Lamarr", "Turing", "Wilson", "McCarthy", "Johnson", "Stroustrup", "Müller", "García", "Nakamura", "Kowalski", "Andersen", "O'Brien", "Ng", "Petrov", "Silva", "Dubois"}
	words      = []string{"parser", "cache", "pipeline", "runner", "auth", "billing", "search", "graph", "api", "ui", "docs", "storage", "metrics", "deploy", "login", "export", "import", "queue", "scheduler", "webhook"}
	verbs      = []string{"Fix", "Add", "Refactor", "Improve", "Remove", "Update", "Document", "Speed up", "Harden", "Simplify"}
	stages     = []string{"build", "test", "lint", "security", "deploy"}
	tenantName = []string{"acme", "globex", "initech"}
)

func (g *gen) ts(r *rng) time.Time {
	return Epoch.Add(-time.Duration(r.intn(730*24*3600)) * time.Second)
}

func (g *gen) run() {
	s := g.opts.Scale
	seed := g.opts.Seed
	scaled := func(n float64) int { return max(1, int(math.Round(n*s))) }

	// Groups: tenants and subgroups; group ids are namespace ids.
	rg := stream(seed, "Group")
	var groups []*group
	var tenants []*group
	nsNext := int64(0)
	addGroup := func(parent *group, name string, tenant int) *group {
		nsNext++
		gr := &group{id: nsNext, tenant: tenant}
		path := strconv.FormatInt(gr.id, 10) + "/"
		var parentID any
		fullPath := name
		if parent != nil {
			gr.path = parent.path + path
			gr.depth = parent.depth + 1
			parentID = parent.id
			fullPath = g.fullPath(parent) + "/" + name
		} else {
			gr.path = path
			gr.depth = 1
		}
		groups = append(groups, gr)
		g.fullPaths[gr.id] = fullPath
		g.node("Group", gr.id, gr.path).
			set("name", name).set("full_path", fullPath).
			set("description", "The "+name+" group.").
			set("visibility_level", []string{"private", "internal", "public"}[rg.intn(3)]).
			set("parent_id", parentID).set("created_at", g.ts(rg))
		if parent != nil {
			g.edge("CONTAINS", "Group", parent.id, "Group", gr.id, parent.path)
		}
		return gr
	}
	nTenants := max(3, int(math.Round(3*math.Sqrt(s))))
	for t := range nTenants {
		name := fmt.Sprintf("tenant-%02d", t+1)
		if t < len(tenantName) {
			name = tenantName[t]
		}
		tenants = append(tenants, addGroup(nil, name, t))
	}
	for t, top := range tenants {
		for i := range rg.between(2, 4) {
			sub := addGroup(top, fmt.Sprintf("%s-team-%d", words[(t+i)%len(words)], i+1), t)
			for j := range rg.between(0, 2) {
				addGroup(sub, fmt.Sprintf("squad-%d", j+1), t)
			}
		}
	}

	// Projects, assigned to groups by Zipf(1.2) over a shuffled group order.
	rp := stream(seed, "Project")
	order := make([]*group, len(groups))
	copy(order, groups)
	for i := len(order) - 1; i > 0; i-- {
		j := rp.intn(i + 1)
		order[i], order[j] = order[j], order[i]
	}
	zg := newZipf(len(order), 1.2)
	nProjects := scaled(40)
	projects := make([]*project, nProjects)
	for i := range projects {
		gr := order[zg.sample(rp)]
		nsNext++
		p := &project{id: int64(i + 1), nsID: nsNext, tenant: gr.tenant, group: gr, nextIID: 1, nextPIID: 1, nextWIID: 1}
		p.path = gr.path + strconv.FormatInt(p.nsID, 10) + "/"
		projects[i] = p
		name := fmt.Sprintf("%s-%s-%d", words[rp.intn(len(words))], words[rp.intn(len(words))], i+1)
		if i == 0 {
			name = "Alice Admin" // differs only in case from project 2
		} else if i == 1 {
			name = "alice admin"
		}
		g.node("Project", p.id, p.path).
			set("name", name).set("full_path", g.fullPath(gr)+"/"+name).
			set("description", "Project "+name+".").
			set("visibility_level", []string{"private", "internal", "public"}[rp.weighted([]float64{5, 3, 2})]).
			set("archived", rp.chance(0.05)).set("star_count", int64(rp.geometric(0.1, 1000))).
			set("namespace_id", gr.id).set("project_namespace_id", p.nsID).
			set("created_at", g.ts(rp)).set("last_activity_at", Epoch.Add(-time.Duration(rp.intn(30*24))*time.Hour))
		g.edge("CONTAINS", "Group", gr.id, "Project", p.id, gr.path)
	}
	byTenant := make([][]*project, nTenants)
	for _, p := range projects {
		byTenant[p.tenant] = append(byTenant[p.tenant], p)
	}
	groupsByTenant := make([][]*group, nTenants)
	for _, gr := range groups {
		groupsByTenant[gr.tenant] = append(groupsByTenant[gr.tenant], gr)
	}

	// Users: 95 % in one tenant, 5 % in two; memberships at tenant, subgroup or project level.
	ru := stream(seed, "User")
	nUsers := max(scaled(500), 5)
	members := make([][]int64, nTenants)
	zt := newZipf(nTenants, 0.8)
	for i := range nUsers {
		id := int64(i + 1)
		first, last := firstNames[ru.intn(len(firstNames))], lastNames[ru.intn(len(lastNames))]
		username := strings.ToLower(strings.NewReplacer(" ", "", "'", "").Replace(last)) + strconv.Itoa(i+1)
		name := first + " " + last
		switch i {
		case 0:
			username, name = "alice", "Alice Admin"
		case 1:
			username, name = "bob", `Bob "the Builder"`
		case 2:
			username, name = "zoe", "Zoë Ångström 🚀"
		case 3:
			username, name = "Alice", "alice admin" // differs from user 1 only in case
		}
		state := []string{"active", "blocked", "deactivated", "banned"}[ru.weighted([]float64{90, 4, 5, 1})]
		if i < 4 {
			state = "active"
		}
		var lastAct any
		if ru.chance(0.9) {
			lastAct = Epoch.AddDate(0, 0, -ru.intn(365))
		}
		g.node("User", id, "").
			set("username", username).set("name", name).set("state", state).
			set("user_type", []string{"human", "bot", "service_account"}[ru.weighted([]float64{94, 4, 2})]).
			set("created_at", g.ts(ru)).set("last_activity_on", lastAct)
		ts := []int{zt.sample(ru)}
		if i == 0 {
			ts = []int{0}
		}
		if ru.chance(0.05) && nTenants > 1 {
			ts = append(ts, (ts[0]+1+ru.intn(nTenants-1))%nTenants)
		}
		for _, t := range ts {
			members[t] = append(members[t], id)
			switch x := ru.float(); {
			case x < 0.5 || i == 0:
				top := tenants[t]
				g.edge("MEMBER_OF", "User", id, "Group", top.id, top.path)
			case x < 0.8:
				gr := groupsByTenant[t][ru.intn(len(groupsByTenant[t]))]
				g.edge("MEMBER_OF", "User", id, "Group", gr.id, gr.path)
			default:
				if len(byTenant[t]) == 0 {
					g.edge("MEMBER_OF", "User", id, "Group", tenants[t].id, tenants[t].path)
					continue
				}
				p := byTenant[t][ru.intn(len(byTenant[t]))]
				g.edge("MEMBER_OF", "User", id, "Project", p.id, p.path)
			}
		}
	}
	for t := range members {
		if len(members[t]) == 0 {
			members[t] = []int64{1}
		}
	}
	pickMember := func(r *rng, z *zipf, t int) int64 {
		m := members[t]
		if z == nil || len(z.cdf) != len(m) {
			return m[r.intn(len(m))]
		}
		return m[z.sample(r)]
	}
	memberZipf := make([]*zipf, nTenants)
	for t := range members {
		memberZipf[t] = newZipf(len(members[t]), 1.05)
	}

	// Runners: 4 instance runners, the rest belong to a tenant.
	rr := stream(seed, "Runner")
	nRunners := 10 + int(math.Round(2*s))
	runnersOf := make([][]int64, nTenants)
	var instance []int64
	for i := range nRunners {
		id := int64(i + 1)
		typ := "instance_type"
		if i >= 4 {
			typ = []string{"group_type", "project_type"}[rr.intn(2)]
			t := rr.intn(nTenants)
			runnersOf[t] = append(runnersOf[t], id)
		} else {
			instance = append(instance, id)
		}
		g.node("Runner", id, "").
			set("name", fmt.Sprintf("runner-%03d", id)).set("description", "A "+strings.TrimSuffix(typ, "_type")+" runner.").
			set("runner_type", typ).set("active", rr.chance(0.9)).set("locked", rr.chance(0.2)).
			set("created_at", g.ts(rr)).set("contacted_at", Epoch.Add(-time.Duration(rr.intn(3600))*time.Second))
	}

	// Labels: 3 per project and 2 per top-level group.
	rl := stream(seed, "Label")
	labelID := int64(0)
	colors := []string{"#dc143c", "#009966", "#6699cc", "#ed9121", "#8fbc8f"}
	for _, p := range projects {
		for _, name := range []string{"bug", "feature", "security"} {
			labelID++
			p.labels = append(p.labels, labelID)
			g.node("Label", labelID, p.path).
				set("title", name).set("color", colors[rl.intn(len(colors))]).set("description", "Label "+name+".").
				set("created_at", g.ts(rl)).set("project_id", p.id)
			g.edge("IN_PROJECT", "Label", labelID, "Project", p.id, p.path)
		}
	}
	for _, top := range tenants {
		for _, name := range []string{"priority::high", "priority::low"} {
			labelID++
			g.node("Label", labelID, top.path).
				set("title", name).set("color", colors[rl.intn(len(colors))]).
				set("created_at", g.ts(rl)).set("group_id", top.id)
			g.edge("IN_GROUP", "Label", labelID, "Group", top.id, top.path)
		}
	}

	// Milestones: 1.5 per project on average.
	rm := stream(seed, "Milestone")
	mileID := int64(0)
	for i, p := range projects {
		for k := range 1 + i%2 {
			mileID++
			p.miles = append(p.miles, mileID)
			start := Epoch.AddDate(0, 0, -rm.intn(700))
			g.node("Milestone", mileID, p.path).
				set("iid", int64(k+1)).set("title", fmt.Sprintf("v%d.%d", 1+i%5, k)).
				set("state", []string{"active", "closed"}[rm.intn(2)]).
				set("start_date", start).set("due_date", start.AddDate(0, 0, 30)).
				set("created_at", start).set("project_id", p.id)
			g.edge("IN_PROJECT", "Milestone", mileID, "Project", p.id, p.path)
		}
	}

	// Merge requests: per project Zipf(1.1), authors Zipf(1.05) over the tenant's members.
	rmr := stream(seed, "MergeRequest")
	zp := newZipf(nProjects, 1.1)
	nMRs := scaled(1000)
	mrs := make([]*mr, nMRs)
	for i := range mrs {
		p := projects[zp.sample(rmr)]
		m := &mr{id: int64(i + 1), proj: p, author: pickMember(rmr, memberZipf[p.tenant], p.tenant), created: g.ts(rmr)}
		if i == 0 {
			p, m.author = projects[0], 1
			m.proj = p
		}
		m.state = []string{"merged", "opened", "closed", "locked"}[rmr.weighted([]float64{60, 20, 18, 2})]
		title := fmt.Sprintf("%s %s %s", verbs[rmr.intn(len(verbs))], words[rmr.intn(len(words))], words[rmr.intn(len(words))])
		switch {
		case i == 0:
			title = "Fix path handling:\nescape C:\\temp correctly"
		case i <= len(hostile):
			title = hostile[i-1]
		}
		r := g.node("MergeRequest", m.id, p.path).
			set("iid", p.nextIID).set("title", title).set("description", "Changes for "+title).
			set("state", m.state).set("draft", rmr.chance(0.1)).
			set("source_branch", fmt.Sprintf("feature/%s-%d", words[rmr.intn(len(words))], i+1)).set("target_branch", "main").
			set("added_lines", int64(rmr.geometric(0.01, 5000))).set("removed_lines", int64(rmr.geometric(0.02, 5000))).
			set("created_at", m.created).set("updated_at", m.created.Add(time.Duration(rmr.intn(72))*time.Hour)).
			set("project_id", p.id).set("author_id", m.author)
		m.row = r
		p.nextIID++
		switch m.state {
		case "merged":
			merger := pickMember(rmr, nil, p.tenant)
			r.set("merged_at", m.created.Add(time.Duration(1+rmr.intn(240))*time.Hour)).set("merge_user_id", merger)
			g.edge("MERGED", "User", merger, "MergeRequest", m.id, p.path)
		case "closed":
			r.set("closed_at", m.created.Add(time.Duration(1+rmr.intn(240))*time.Hour))
		}
		if rmr.chance(0.5) && len(p.miles) > 0 {
			ms := p.miles[rmr.intn(len(p.miles))]
			r.set("milestone_id", ms)
			g.edge("IN_MILESTONE", "MergeRequest", m.id, "Milestone", ms, p.path)
		}
		g.edge("IN_PROJECT", "MergeRequest", m.id, "Project", p.id, p.path)
		g.edge("AUTHORED", "User", m.author, "MergeRequest", m.id, p.path)
		if rmr.chance(0.6) {
			g.edge("ASSIGNED", "User", pickMember(rmr, nil, p.tenant), "MergeRequest", m.id, p.path)
		}
		for range rmr.intn(3) {
			g.edge("REVIEWER", "User", pickMember(rmr, nil, p.tenant), "MergeRequest", m.id, p.path)
		}
		if rmr.chance(0.4) {
			g.edge("HAS_LABEL", "MergeRequest", m.id, "Label", p.labels[rmr.intn(len(p.labels))], p.path)
		}
		p.mrs = append(p.mrs, m.id)
		mrs[i] = m
	}

	// Pipelines: 1 + Geometric(0.55) per merge request (cap 10), plus about 20 % push pipelines.
	rpl := stream(seed, "Pipeline")
	rj := stream(seed, "Job")
	pipeID, jobID := int64(0), int64(0)
	statuses := []string{"success", "failed", "canceled", "running", "pending", "created", "skipped", "manual"}
	statusW := []float64{70, 18, 5, 3, 1, 1, 1, 1}
	addPipeline := func(p *project, m *mr, user int64) int64 {
		pipeID++
		created := g.ts(rpl)
		source := "push"
		ref := "main"
		if m != nil {
			created = m.created.Add(time.Duration(rpl.intn(48)) * time.Hour)
			source = "merge_request_event"
			ref = fmt.Sprintf("refs/merge-requests/%d/head", m.id)
		} else if rpl.chance(0.3) {
			source = []string{"schedule", "web", "api", "trigger", "parent_pipeline"}[rpl.intn(5)]
		}
		status := statuses[rpl.weighted(statusW)]
		r := g.node("Pipeline", pipeID, p.path).
			set("iid", p.nextPIID).set("status", status).set("source", source).set("ref", ref).
			set("sha", fmt.Sprintf("%016x%016x%08x", rpl.next(), rpl.next(), uint32(rpl.next()))).
			set("tag", m == nil && rpl.chance(0.05)).
			set("created_at", created).set("project_id", p.id).set("user_id", user)
		p.nextPIID++
		if status != "created" && status != "pending" {
			r.set("started_at", created.Add(time.Minute))
			if status != "running" {
				d := int64(30 + rpl.intn(3600))
				r.set("duration", d).set("finished_at", created.Add(time.Minute+time.Duration(d)*time.Second))
			}
		}
		g.edge("IN_PROJECT", "Pipeline", pipeID, "Project", p.id, p.path)
		g.edge("TRIGGERED", "User", user, "Pipeline", pipeID, p.path)
		if m != nil {
			r.set("merge_request_id", m.id)
			g.edge("TRIGGERED", "MergeRequest", m.id, "Pipeline", pipeID, p.path)
		}
		// Jobs: 1-4 per pipeline on the tenant's runners or the instance runners.
		pool := append(append([]int64(nil), instance...), runnersOf[p.tenant]...)
		for k := range rj.between(1, 4) {
			jobID++
			jstatus := status
			if status == "failed" && k > 0 && rj.chance(0.5) {
				jstatus = "success"
			}
			jr := g.node("Job", jobID, p.path).
				set("name", fmt.Sprintf("%s:%d", stages[k%len(stages)], k+1)).set("stage", stages[k%len(stages)]).
				set("status", jstatus).set("ref", ref).set("allow_failure", rj.chance(0.1)).set("retried", rj.chance(0.05)).
				set("created_at", created).set("pipeline_id", pipeID).set("project_id", p.id).set("user_id", user)
			if jstatus == "failed" {
				jr.set("failure_reason", []string{"script_failure", "api_failure", "stuck_or_timeout_failure", "runner_system_failure", "missing_dependency_failure", "job_execution_timeout", "unknown_failure"}[rj.weighted([]float64{70, 5, 5, 5, 5, 5, 5})])
			}
			if jstatus != "created" && jstatus != "pending" && jstatus != "skipped" && jstatus != "manual" {
				runner := pool[rj.intn(len(pool))]
				jr.set("runner_id", runner).set("started_at", created.Add(2*time.Minute))
				g.edge("RUNS_ON", "Job", jobID, "Runner", runner, p.path)
				if jstatus != "running" {
					d := float64(5+rj.intn(1800)) + float64(rj.intn(1000))/1000
					jr.set("duration", d).set("finished_at", created.Add(2*time.Minute+time.Duration(d*float64(time.Second))))
				}
			}
			g.edge("HAS_JOB", "Pipeline", pipeID, "Job", jobID, p.path)
			g.edge("IN_PROJECT", "Job", jobID, "Project", p.id, p.path)
		}
		return pipeID
	}
	mrPipelines := 0
	for _, m := range mrs {
		n := 1 + rpl.geometric(0.55, 9)
		var last int64
		for range n {
			last = addPipeline(m.proj, m, m.author)
			mrPipelines++
		}
		m.row.set("head_pipeline_id", last)
		g.edge("HAS_HEAD_PIPELINE", "MergeRequest", m.id, "Pipeline", last, m.proj.path)
	}
	for range mrPipelines / 5 {
		p := projects[zp.sample(rpl)]
		addPipeline(p, nil, pickMember(rpl, nil, p.tenant))
	}

	// Work items: 10 % group-level epics; children, relations, assignees, labels, milestones.
	rw := stream(seed, "WorkItem")
	nWI := scaled(1000)
	items := make([]*workItem, 0, nWI)
	epicsOf := make([][]*workItem, nTenants)
	for i := range nWI {
		id := int64(i + 1)
		var w *workItem
		typ := "issue"
		if rw.chance(0.1) {
			gr := groupsByTenant[rw.intn(nTenants)%nTenants]
			grp := gr[rw.intn(len(gr))]
			w = &workItem{id: id, group: grp, path: grp.path, tenant: grp.tenant}
			typ = "epic"
		} else {
			p := projects[zp.sample(rw)]
			w = &workItem{id: id, proj: p, group: p.group, path: p.path, tenant: p.tenant}
			typ = []string{"issue", "incident", "task", "objective", "key_result"}[rw.weighted([]float64{70, 5, 20, 3, 2})]
		}
		author := pickMember(rw, memberZipf[w.tenant], w.tenant)
		created := g.ts(rw)
		state := []string{"opened", "closed"}[rw.weighted([]float64{45, 55})]
		title := fmt.Sprintf("%s: %s %s", strings.ToUpper(typ[:1])+typ[1:], words[rw.intn(len(words))], words[rw.intn(len(words))])
		if i < len(hostile) {
			title = hostile[len(hostile)-1-i]
		}
		var weight, due any
		if rw.chance(0.4) {
			weight = int64(rw.between(1, 8))
		}
		if rw.chance(0.3) {
			due = created.AddDate(0, 0, rw.between(7, 90))
		}
		r := g.node("WorkItem", id, w.path).
			set("title", title).set("description", "Details of "+title).set("state", state).
			set("work_item_type", typ).set("confidential", i == 0 || rw.chance(0.1)).set("weight", weight).set("due_date", due).
			set("created_at", created).set("updated_at", created.Add(time.Duration(rw.intn(500))*time.Hour)).
			set("author_id", author)
		if state == "closed" {
			r.set("closed_at", created.Add(time.Duration(1+rw.intn(2000))*time.Hour))
		}
		if w.proj != nil {
			r.set("iid", w.proj.nextWIID).set("project_id", w.proj.id).set("namespace_id", w.proj.nsID)
			w.proj.nextWIID++
			g.edge("IN_PROJECT", "WorkItem", id, "Project", w.proj.id, w.path)
			if rw.chance(0.3) && len(w.proj.miles) > 0 {
				ms := w.proj.miles[rw.intn(len(w.proj.miles))]
				r.set("milestone_id", ms)
				g.edge("IN_MILESTONE", "WorkItem", id, "Milestone", ms, w.path)
			}
			if rw.chance(0.5) {
				g.edge("HAS_LABEL", "WorkItem", id, "Label", w.proj.labels[rw.intn(len(w.proj.labels))], w.path)
			}
			if eps := epicsOf[w.tenant]; len(eps) > 0 && rw.chance(0.2) {
				parent := eps[rw.intn(len(eps))]
				g.edge("CONTAINS", "WorkItem", parent.id, "WorkItem", id, parent.path)
			}
			if len(w.proj.items) > 0 && rw.chance(0.1) {
				other := w.proj.items[rw.intn(len(w.proj.items))]
				g.edge("RELATED_TO", "WorkItem", id, "WorkItem", other, w.path)
			}
			w.proj.items = append(w.proj.items, id)
		} else {
			r.set("iid", int64(i+1)).set("namespace_id", w.group.id)
			g.edge("IN_GROUP", "WorkItem", id, "Group", w.group.id, w.path)
			epicsOf[w.tenant] = append(epicsOf[w.tenant], w)
		}
		g.edge("AUTHORED", "User", author, "WorkItem", id, w.path)
		if rw.chance(0.5) {
			g.edge("ASSIGNED", "User", pickMember(rw, nil, w.tenant), "WorkItem", id, w.path)
		}
		items = append(items, w)
	}
	// CLOSES: about 20 % of merged merge requests close an item of their project.
	for _, m := range mrs {
		if m.state == "merged" && len(m.proj.items) > 0 && rw.chance(0.2) {
			g.edge("CLOSES", "MergeRequest", m.id, "WorkItem", m.proj.items[rw.intn(len(m.proj.items))], m.proj.path)
		}
	}

	// Vulnerabilities: severity mix; about 30 % fixed by a merge request of the project.
	rv := stream(seed, "Vulnerability")
	nV := scaled(300)
	type vuln struct {
		id   int64
		proj *project
	}
	vulns := make([]vuln, nV)
	for i := range vulns {
		p := projects[zp.sample(rv)]
		id := int64(i + 1)
		vulns[i] = vuln{id, p}
		created := g.ts(rv)
		state := []string{"detected", "confirmed", "dismissed", "resolved"}[rv.weighted([]float64{40, 25, 10, 25})]
		var author any
		r := g.node("Vulnerability", id, p.path).
			set("title", fmt.Sprintf("%s in %s", []string{"SQL injection", "XSS", "Path traversal", "Weak hash", "Leaked token", "Outdated dependency"}[rv.intn(6)], words[rv.intn(len(words))])).
			set("description", "Found by a scanner.").set("state", state).
			set("severity", []string{"critical", "high", "medium", "low", "info", "unknown"}[rv.weighted([]float64{5, 20, 40, 25, 7, 3})]).
			set("report_type", []string{"sast", "dependency_scanning", "container_scanning", "dast", "secret_detection"}[rv.intn(5)]).
			set("detected_at", created).set("created_at", created).set("project_id", p.id)
		if state == "resolved" {
			r.set("resolved_at", created.Add(time.Duration(1+rv.intn(1000))*time.Hour))
		}
		if rv.chance(0.5) {
			a := pickMember(rv, nil, p.tenant)
			author = a
			r.set("author_id", author)
			g.edge("AUTHORED", "User", a, "Vulnerability", id, p.path)
		}
		g.edge("IN_PROJECT", "Vulnerability", id, "Project", p.id, p.path)
		if len(p.mrs) > 0 && rv.chance(0.3) {
			g.edge("FIXES", "MergeRequest", p.mrs[rv.intn(len(p.mrs))], "Vulnerability", id, p.path)
		}
	}

	// Notes: Geometric counts with means 1.0 per merge request, 0.5 per work item and 0.1 per
	// vulnerability. resolved is true/false on merge request discussions and NULL elsewhere.
	rn := stream(seed, "Note")
	noteID := int64(0)
	addNote := func(kind string, target int64, proj *project, path string, tenant int, text string, resolvable bool) {
		noteID++
		author := pickMember(rn, nil, tenant)
		system := rn.chance(0.15)
		if noteID <= 3 {
			system = false
		}
		var resolved any
		if resolvable && !system {
			resolved = rn.chance(0.5)
		}
		switch noteID { // fixed booleans for end-to-end tests: internal true/false, resolved NULL/true/false
		case 1:
			resolved = nil
		case 2:
			resolved = true
		case 3:
			resolved = false
		}
		r := g.node("Note", noteID, path).
			set("note", text).set("noteable_type", kind).set("noteable_id", target).
			set("internal", noteID == 1 || noteID > 3 && rn.chance(0.1)).set("is_system", system).set("resolved", resolved).
			set("created_at", g.ts(rn)).set("author_id", author)
		if proj != nil {
			r.set("project_id", proj.id)
			g.edge("IN_PROJECT", "Note", noteID, "Project", proj.id, path)
		}
		g.edge("HAS_NOTE", kind, target, "Note", noteID, path)
		g.edge("AUTHORED", "User", author, "Note", noteID, path)
	}
	noteText := func(n int64) string {
		switch {
		case n == 1:
			return strings.Repeat("A long note. ", 100_000/13) + strings.Repeat("x", 100_000%13)
		case n-2 < int64(len(hostile)) && n >= 2:
			return hostile[n-2]
		}
		return fmt.Sprintf("%s looks good, but check the %s.", verbs[rn.intn(len(verbs))], words[rn.intn(len(words))])
	}
	for i, m := range mrs {
		n := rn.geometric(0.5, 20)
		if i == 0 {
			n = max(n, 3)
		}
		for range n {
			addNote("MergeRequest", m.id, m.proj, m.proj.path, m.proj.tenant, noteText(noteID+1), true)
		}
	}
	for _, w := range items {
		for range rn.geometric(2.0/3, 20) {
			addNote("WorkItem", w.id, w.proj, w.path, w.tenant, noteText(noteID+1), false)
		}
	}
	for _, v := range vulns {
		for range rn.geometric(1/1.1, 20) {
			addNote("Vulnerability", v.id, v.proj, v.proj.path, v.proj.tenant, noteText(noteID+1), false)
		}
	}
}

func (g *gen) fullPath(gr *group) string { return g.fullPaths[gr.id] }
