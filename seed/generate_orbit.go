package seed

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file and the generate_{review,ci,code,security,packages}.go files add what Orbit
// parity brought to the ontology (docs/orbit-parity.md): the properties the first twelve
// entities gained, and the twenty newer entities with their relationships. They run after
// [gen.run] and read the rows it wrote, so the original graph keeps its values and ids; each
// part draws from its own random streams, so the parts do not disturb one another.
//
// Counts are kept modest (about 2 500 extra nodes and 9 500 extra edges at scale 1) and grow
// linearly with the scale. Where an fk names a column, the column and the edge agree both
// ways (docs/loading.md, "Paths and foreign keys").

// world indexes the rows [gen.run] produced, for the generators of the newer entities.
type world struct {
	projects []*wproject // in id order
	byID     map[int64]*wproject
	members  map[int64][]int64 // top-level group id → user ids, in membership order
	users    int64             // highest user id
}

type wproject struct {
	id, top    int64
	path, name string
	language   string
	branch     int64   // id of the default Branch, set by review
	pipelines  [][]any // Pipeline rows of the project, in id order
	mrs        [][]any // MergeRequest rows of the project, in id order
	vulns      [][]any // Vulnerability rows of the project, in id order
	jobs       map[int64][][]any
}

// orbit runs the Orbit-parity generators. It is the only hook into [gen.run].
func (g *gen) orbit() {
	w := g.world()
	g.enrichCore(w)
	g.enrichMergeRequests(w)
	g.enrichCI(w)
	g.review(w)
	g.stages(w)
	g.deployments(w)
	g.code(w)
	g.security(w)
	g.packages(w)
}

// tb returns the table of entity; an unknown entity is a generator bug.
func (g *gen) tb(entity string) *table {
	t, ok := g.tables[entity]
	if !ok {
		panic("seed: unknown entity " + entity)
	}
	return t
}

// col returns the index of column name in t; an unknown column is a generator bug.
func (t *table) col(name string) int {
	i, ok := t.idx[name]
	if !ok {
		panic(fmt.Sprintf("seed: %s has no column %s", t.ent.Name, name))
	}
	return i
}

func (t *table) i64(r []any, name string) int64 {
	v, _ := r[t.col(name)].(int64)
	return v
}

func (t *table) str(r []any, name string) string {
	v, _ := r[t.col(name)].(string)
	return v
}

func (t *table) put(r []any, name string, v any) { r[t.col(name)] = v }

// pathOf returns the traversal_path of a row of a namespaced entity.
func pathOf(r []any) string { return r[1].(string) }

// topOf returns the top-level group id of a traversal path "1/4/45/".
func topOf(path string) int64 {
	seg, _, _ := strings.Cut(path, "/")
	id, _ := strconv.ParseInt(seg, 10, 64)
	return id
}

func (g *gen) world() *world {
	w := &world{byID: map[int64]*wproject{}, members: map[int64][]int64{}}
	pt := g.tb("Project")
	langs := []string{"go", "ruby", "python", "typescript", "java"}
	for _, r := range pt.t.Rows {
		p := &wproject{id: r[0].(int64), path: pathOf(r), name: pt.str(r, "name"), jobs: map[int64][][]any{}}
		p.top = topOf(p.path)
		p.language = langs[int(p.id)%len(langs)]
		w.projects = append(w.projects, p)
		w.byID[p.id] = p
	}
	seen := map[[2]int64]bool{}
	for _, e := range g.edges.Rows {
		if e[1] != "MEMBER_OF" {
			continue
		}
		top, user := topOf(e[0].(string)), e[3].(int64)
		if !seen[[2]int64{top, user}] {
			seen[[2]int64{top, user}] = true
			w.members[top] = append(w.members[top], user)
		}
	}
	w.users = int64(len(g.tb("User").t.Rows))
	mt := g.tb("MergeRequest")
	for _, r := range mt.t.Rows {
		p := w.byID[mt.i64(r, "project_id")]
		p.mrs = append(p.mrs, r)
	}
	plt := g.tb("Pipeline")
	for _, r := range plt.t.Rows {
		p := w.byID[plt.i64(r, "project_id")]
		p.pipelines = append(p.pipelines, r)
	}
	jt := g.tb("Job")
	for _, r := range jt.t.Rows {
		p := w.byID[jt.i64(r, "project_id")]
		pl := jt.i64(r, "pipeline_id")
		p.jobs[pl] = append(p.jobs[pl], r)
	}
	vt := g.tb("Vulnerability")
	for _, r := range vt.t.Rows {
		p := w.byID[vt.i64(r, "project_id")]
		p.vulns = append(p.vulns, r)
	}
	return w
}

// member picks a member of the tenant that owns path; user 1 when the tenant has none.
func (w *world) member(r *rng, path string) int64 {
	m := w.members[topOf(path)]
	if len(m) == 0 {
		return 1
	}
	return m[r.intn(len(m))]
}

// sha returns a 40-digit hexadecimal commit SHA.
func sha(r *rng) string {
	return fmt.Sprintf("%016x%016x%08x", r.next(), r.next(), uint32(r.next()))
}

// later returns t plus a random delay of up to hours, or nil when t is unset.
func later(r *rng, t any, hours int) any {
	ts, ok := t.(time.Time)
	if !ok {
		return nil
	}
	return ts.Add(time.Duration(1+r.intn(hours*60)) * time.Minute)
}

// enrichCore fills the properties users, groups, projects, labels, milestones, runners, notes,
// work items and vulnerabilities gained, and their new relationships (OWNER, CREATOR, CLOSED,
// CONFIRMED_BY, DISMISSED_BY, RESOLVED_BY, RUNS_FOR_GROUP, RUNS_FOR_PROJECT).
func (g *gen) enrichCore(w *world) {
	r := stream(g.opts.Seed, "Orbit/core")

	ut := g.tb("User")
	langs := []string{"en", "de", "fr", "ja", "pt_BR", "es"}
	for _, u := range ut.t.Rows {
		id := u[0].(int64)
		switch ut.str(u, "user_type") {
		case "bot": // run() predates Orbit's labels; spread its bots over Orbit's bot kinds
			ut.put(u, "user_type", []string{"project_bot", "automation_bot", "security_bot", "support_bot"}[id%4])
		}
		username := strings.ToLower(ut.str(u, "username"))
		email := username + "@example.com"
		first, last, _ := strings.Cut(ut.str(u, "name"), " ")
		ut.put(u, "email", email)
		ut.put(u, "first_name", first)
		ut.put(u, "last_name", last)
		if r.chance(0.3) {
			ut.put(u, "public_email", email)
		}
		if r.chance(0.7) {
			ut.put(u, "avatar_url", "https://avatars.example.com/"+strconv.FormatInt(id, 10)+".png")
		}
		ut.put(u, "preferred_language", langs[r.weighted([]float64{70, 8, 6, 6, 5, 5})])
		ut.put(u, "private_profile", r.chance(0.05))
		ut.put(u, "is_admin", id == 1 || r.chance(0.005))
		ut.put(u, "is_auditor", r.chance(0.01))
		ut.put(u, "is_external", r.chance(0.03))
		ut.put(u, "updated_at", later(r, u[ut.col("created_at")], 24*300))
	}

	gt := g.tb("Group")
	for _, gr := range gt.t.Rows {
		gt.put(gr, "updated_at", later(r, gr[gt.col("created_at")], 24*200))
		if gr[gt.col("parent_id")] != nil {
			continue
		}
		owner := w.member(r, pathOf(gr))
		gt.put(gr, "owner_id", owner)
		g.edge("OWNER", "User", owner, "Group", gr[0].(int64), pathOf(gr))
	}

	pt := g.tb("Project")
	for _, p := range pt.t.Rows {
		creator := w.member(r, pathOf(p))
		pt.put(p, "creator_id", creator)
		pt.put(p, "updated_at", later(r, p[pt.col("created_at")], 24*300))
		g.edge("CREATOR", "User", creator, "Project", p[0].(int64), pathOf(p))
	}
	for _, name := range []string{"Label", "Milestone"} {
		t := g.tb(name)
		for _, row := range t.t.Rows {
			t.put(row, "updated_at", later(r, row[t.col("created_at")], 24*60))
		}
	}

	// Runners: group and project runners are registered where their jobs ran.
	rt := g.tb("Runner")
	ranIn := map[int64]string{}
	for _, e := range g.edges.Rows {
		if e[1] == "RUNS_ON" {
			if _, ok := ranIn[e[5].(int64)]; !ok {
				ranIn[e[5].(int64)] = e[0].(string)
			}
		}
	}
	for _, run := range rt.t.Rows {
		id := run[0].(int64)
		rt.put(run, "run_untagged", r.chance(0.7))
		rt.put(run, "access_level", []string{"not_protected", "ref_protected"}[r.weighted([]float64{85, 15})])
		rt.put(run, "maximum_timeout", []any{nil, int64(3600), int64(10800)}[r.intn(3)])
		rt.put(run, "organization_id", int64(1))
		path, ok := ranIn[id]
		if !ok {
			continue
		}
		switch rt.str(run, "runner_type") {
		case "group_type":
			top := topOf(path)
			g.edge("RUNS_FOR_GROUP", "Runner", id, "Group", top, strconv.FormatInt(top, 10)+"/")
		case "project_type":
			// The project of the first job that ran on it.
			for _, p := range w.projects {
				if p.path == path {
					g.edge("RUNS_FOR_PROJECT", "Runner", id, "Project", p.id, p.path)
					break
				}
			}
		}
	}

	nt := g.tb("Note")
	for _, n := range nt.t.Rows {
		if nt.str(n, "noteable_type") == "WorkItem" {
			nt.put(n, "noteable_type", "Issue") // Rails stores work items under their base class
		}
		if r.chance(0.6) {
			nt.put(n, "discussion_id", fmt.Sprintf("%016x%016x%08x", r.next(), r.next(), uint32(r.next())))
		}
		if n[nt.col("resolved")] == true {
			nt.put(n, "resolved_at", later(r, n[nt.col("created_at")], 72))
		}
		if nt.str(n, "noteable_type") == "MergeRequest" && r.chance(0.1) {
			nt.put(n, "line_code", fmt.Sprintf("%08x_%d_%d", uint32(r.next()), r.intn(400), r.intn(400)))
			nt.put(n, "st_diff", "@@ -1,3 +1,4 @@\n context\n+added line\n")
		}
		nt.put(n, "confidential", []any{nil, false}[r.intn(2)])
		nt.put(n, "updated_at", later(r, n[nt.col("created_at")], 48))
	}

	wt := g.tb("WorkItem")
	for _, it := range wt.t.Rows {
		if r.chance(0.2) {
			wt.put(it, "start_date", later(r, it[wt.col("created_at")], 24*10))
		}
		if wt.str(it, "state") == "closed" && r.chance(0.5) {
			closer := w.member(r, pathOf(it))
			wt.put(it, "closed_by_id", closer)
			g.edge("CLOSED", "User", closer, "WorkItem", it[0].(int64), pathOf(it))
		}
	}

	vt := g.tb("Vulnerability")
	for _, v := range vt.t.Rows {
		id, path := v[0].(int64), pathOf(v)
		state := vt.str(v, "state")
		vt.put(v, "present_on_default_branch", state != "resolved")
		vt.put(v, "resolved_on_default_branch", state == "resolved")
		created := v[vt.col("created_at")]
		vt.put(v, "updated_at", later(r, created, 24*90))
		switch state {
		case "confirmed":
			u := w.member(r, path)
			vt.put(v, "confirmed_by_id", u)
			vt.put(v, "confirmed_at", later(r, created, 24*30))
			g.edge("CONFIRMED_BY", "User", u, "Vulnerability", id, path)
		case "dismissed":
			u := w.member(r, path)
			vt.put(v, "dismissed_by_id", u)
			vt.put(v, "dismissed_at", later(r, created, 24*30))
			g.edge("DISMISSED_BY", "User", u, "Vulnerability", id, path)
		case "resolved":
			u := w.member(r, path)
			vt.put(v, "resolved_by_id", u)
			g.edge("RESOLVED_BY", "User", u, "Vulnerability", id, path)
		}
	}
}
