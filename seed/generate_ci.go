package seed

import (
	"fmt"
	"strings"
	"time"
)

// enrichCI fills the pipeline and job properties Orbit has beyond run()'s, and adds the
// pipeline-to-pipeline relationships: AUTO_CANCELED_BY (a newer pipeline of the same merge
// request superseded a canceled one), CHILD_OF, TRIGGERS_PIPELINE and TRIGGERED_BY_PIPELINE
// (parent_pipeline pipelines hang below the previous pipeline of their project), and
// TRIGGERED from users to the manual jobs they played.
func (g *gen) enrichCI(w *world) {
	r := stream(g.opts.Seed, "Orbit/Pipeline")
	rj := stream(g.opts.Seed, "Orbit/Job")
	pt, jt := g.tb("Pipeline"), g.tb("Job")
	pipelineFailures := []string{"config_error", "filtered_by_rules", "size_limit_exceeded", "external_validation_failure", "user_not_verified"}
	for _, p := range w.projects {
		for _, pl := range p.pipelines {
			created := pl[pt.col("created_at")]
			pt.put(pl, "before_sha", sha(r))
			if pt.str(pl, "ref") == "main" {
				pt.put(pl, "protected", true)
			} else {
				pt.put(pl, "protected", []any{false, nil}[r.weighted([]float64{90, 10})])
			}
			if pt.str(pl, "status") == "failed" && r.chance(0.15) {
				reason := pipelineFailures[r.weighted([]float64{60, 20, 10, 5, 5})]
				pt.put(pl, "failure_reason", reason)
				if reason == "config_error" {
					pt.put(pl, "yaml_errors", "jobs:"+stages[r.intn(len(stages))]+" config should implement a script: or a trigger: keyword")
				}
			}
			if ts, ok := created.(time.Time); ok {
				pt.put(pl, "committed_at", ts.Add(-time.Duration(1+r.intn(600))*time.Minute))
			}
			if f := pl[pt.col("finished_at")]; f != nil {
				pt.put(pl, "updated_at", f)
			} else {
				pt.put(pl, "updated_at", created)
			}
			for _, j := range p.jobs[pl[0].(int64)] {
				g.enrichJob(rj, jt, j, p)
			}
		}
	}

	// Auto-cancel: a canceled pipeline followed by a newer one of the same merge request.
	for _, p := range w.projects {
		byMR := map[int64][][]any{}
		var order []int64
		for _, pl := range p.pipelines {
			m, ok := pl[pt.col("merge_request_id")].(int64)
			if !ok {
				continue
			}
			if _, seen := byMR[m]; !seen {
				order = append(order, m)
			}
			byMR[m] = append(byMR[m], pl)
		}
		for _, m := range order {
			list := byMR[m]
			for i := 0; i+1 < len(list); i++ {
				if pt.str(list[i], "status") != "canceled" {
					continue
				}
				by := list[i+1][0].(int64)
				pt.put(list[i], "auto_canceled_by_id", by)
				g.edge("AUTO_CANCELED_BY", "Pipeline", list[i][0].(int64), "Pipeline", by, p.path)
				for _, j := range p.jobs[list[i][0].(int64)] {
					if jt.str(j, "status") == "canceled" {
						jt.put(j, "auto_canceled_by_id", by)
						g.edge("AUTO_CANCELED_BY", "Job", j[0].(int64), "Pipeline", by, p.path)
					}
				}
			}
		}
	}

	// Parent and child pipelines.
	for _, p := range w.projects {
		for i, pl := range p.pipelines {
			if i == 0 || pt.str(pl, "source") != "parent_pipeline" {
				continue
			}
			parent, child := p.pipelines[i-1][0].(int64), pl[0].(int64)
			g.edge("CHILD_OF", "Pipeline", child, "Pipeline", parent, p.path)
			if bridges := p.jobs[parent]; len(bridges) > 0 {
				b := bridges[len(bridges)-1]
				jt.put(b, "job_type", "Ci::Bridge")
				g.edge("TRIGGERS_PIPELINE", "Job", b[0].(int64), "Pipeline", child, p.path)
			}
			for _, j := range p.jobs[child] {
				jt.put(j, "upstream_pipeline_id", parent)
				g.edge("TRIGGERED_BY_PIPELINE", "Job", j[0].(int64), "Pipeline", parent, p.path)
			}
		}
	}
}

func (g *gen) enrichJob(r *rng, jt *table, j []any, p *wproject) {
	status := jt.str(j, "status")
	when := []string{"on_success", "always", "on_failure", "delayed"}[r.weighted([]float64{93, 3, 2, 2})]
	if status == "manual" || r.chance(0.01) {
		when = "manual"
	}
	jt.put(j, "when", when)
	if when == "manual" {
		if u, ok := j[jt.col("user_id")].(int64); ok {
			g.edge("TRIGGERED", "User", u, "Job", j[0].(int64), p.path)
		}
	}
	jt.put(j, "job_type", "Ci::Build")
	jt.put(j, "tag", []any{false, nil, true}[r.weighted([]float64{85, 10, 5})])
	stage := jt.str(j, "stage")
	if stage == "test" && r.chance(0.6) {
		jt.put(j, "coverage", fmt.Sprintf("%d.%02d", 40+r.intn(60), r.intn(100)))
	}
	if stage == "deploy" {
		jt.put(j, "environment", []string{"production", "staging"}[r.intn(2)])
	}
	jt.put(j, "timeout", []int64{3600, 1800, 7200}[r.weighted([]float64{80, 10, 10})])
	jt.put(j, "timeout_source", []string{"project_timeout_source", "runner_timeout_source", "job_timeout_source", "unknown_timeout_source"}[r.weighted([]float64{80, 10, 8, 2})])
	if r.chance(0.1) {
		jt.put(j, "scheduling_type", "dag")
	}
	switch status {
	case "success":
		jt.put(j, "exit_code", int64(0))
	case "failed":
		jt.put(j, "exit_code", []int64{1, 2, 137}[r.weighted([]float64{85, 10, 5})])
	}
	jt.put(j, "queued_at", later(r, j[jt.col("created_at")], 1))
}

// stages gives about one pipeline in twenty its stage records: HAS_STAGE from the pipeline,
// HAS_JOB from each stage to its jobs (Job.stage_id) and IN_PIPELINE from those jobs. The
// other pipelines keep only the stage name on their jobs, as run() wrote them.
func (g *gen) stages(w *world) {
	r := stream(g.opts.Seed, "Orbit/Stage")
	pt, jt := g.tb("Pipeline"), g.tb("Job")
	stageID := int64(0)
	for _, p := range w.projects {
		for _, pl := range p.pipelines {
			plID := pl[0].(int64)
			if plID != 1 && !r.chance(0.05) {
				continue
			}
			jobs := p.jobs[plID]
			var names []string
			ids := map[string]int64{}
			for _, j := range jobs {
				name := jt.str(j, "stage")
				if _, ok := ids[name]; !ok {
					stageID++
					ids[name] = stageID
					names = append(names, name)
					g.node("Stage", stageID, p.path).
						set("name", name).set("status", jt.str(j, "status")).set("position", int64(len(names)-1)).
						set("created_at", pl[pt.col("created_at")]).set("updated_at", later(r, pl[pt.col("created_at")], 2)).
						set("pipeline_id", plID).set("project_id", p.id)
					g.edge("HAS_STAGE", "Pipeline", plID, "Stage", stageID, p.path)
					g.edge("IN_PROJECT", "Stage", stageID, "Project", p.id, p.path)
				}
				jt.put(j, "stage_id", ids[name])
				g.edge("HAS_JOB", "Stage", ids[name], "Job", j[0].(int64), p.path)
				g.edge("IN_PIPELINE", "Job", j[0].(int64), "Pipeline", plID, p.path)
			}
		}
	}
}

// deployments adds environments (production always, staging and review apps sometimes) and
// deployments into them from the project's pipelines: IN_ENVIRONMENT, DEPLOYED_BY,
// DEPLOYED_TO (merged requests that shipped to production) and CREATED_FOR_MR.
func (g *gen) deployments(w *world) {
	r := stream(g.opts.Seed, "Orbit/Deployment")
	pt, mt := g.tb("Pipeline"), g.tb("MergeRequest")
	envID, depID := int64(0), int64(0)
	statuses := []string{"success", "failed", "canceled", "running", "created", "skipped", "blocked"}
	for _, p := range w.projects {
		type env struct {
			id   int64
			name string
		}
		envs := []env{}
		add := func(name, tier string, mr any) {
			envID++
			slug := strings.ReplaceAll(name, "/", "-")
			typ, _, found := strings.Cut(name, "/")
			if !found {
				typ = ""
			}
			state := []string{"available", "stopped", "stopping"}[r.weighted([]float64{85, 13, 2})]
			row := g.node("Environment", envID, p.path).
				set("name", name).set("slug", slug).set("external_url", "https://"+slug+"."+p.name+".example.com").
				set("environment_type", typ).set("state", state).set("tier", tier).
				set("auto_stop_setting", []string{"always", "with_action"}[r.weighted([]float64{80, 20})]).
				set("description", "The "+name+" environment.").set("created_at", g.ts(r)).set("project_id", p.id)
			row.set("updated_at", later(r, row.vals[row.tb.col("created_at")], 24*30))
			if typ == "review" {
				row.set("auto_stop_at", later(r, row.vals[row.tb.col("created_at")], 24*7)).set("kubernetes_namespace", "review-"+slug)
			}
			if m, ok := mr.(int64); ok {
				row.set("merge_request_id", m)
				g.edge("CREATED_FOR_MR", "Environment", envID, "MergeRequest", m, p.path)
			}
			g.edge("IN_PROJECT", "Environment", envID, "Project", p.id, p.path)
			envs = append(envs, env{envID, name})
		}
		add("production", "production", nil)
		if r.chance(0.6) {
			add("staging", "staging", nil)
		}
		if len(p.mrs) > 0 && r.chance(0.3) {
			m := p.mrs[r.intn(len(p.mrs))]
			add("review/"+mt.str(m, "source_branch"), "development", m[0].(int64))
		}
		if len(p.pipelines) == 0 {
			continue
		}
		var merged []int64
		for _, m := range p.mrs {
			if mt.str(m, "state") == "merged" {
				merged = append(merged, m[0].(int64))
			}
		}
		iid := int64(0)
		for _, e := range envs {
			for range 1 + r.geometric(0.5, 5) {
				pl := p.pipelines[r.intn(len(p.pipelines))]
				depID++
				iid++
				status := statuses[r.weighted([]float64{80, 10, 3, 2, 2, 1, 2})]
				created := later(r, pl[pt.col("created_at")], 2)
				row := g.node("Deployment", depID, p.path).
					set("iid", iid).set("status", status).set("ref", pt.str(pl, "ref")).set("sha", pt.str(pl, "sha")).
					set("tag", pl[pt.col("tag")]).set("archived", r.chance(0.1)).set("deployable_type", "CommitStatus").
					set("on_stop", "stop_"+strings.ReplaceAll(e.name, "/", "_")).set("created_at", created).
					set("updated_at", later(r, created, 1)).set("environment_id", e.id).set("project_id", p.id)
				if jobs := p.jobs[pl[0].(int64)]; len(jobs) > 0 {
					row.set("deployable_id", jobs[len(jobs)-1][0].(int64))
				}
				if status == "success" || status == "failed" || status == "canceled" {
					row.set("finished_at", later(r, created, 1))
				}
				if u, ok := pl[pt.col("user_id")].(int64); ok {
					row.set("user_id", u)
					g.edge("DEPLOYED_BY", "User", u, "Deployment", depID, p.path)
				}
				g.edge("IN_ENVIRONMENT", "Deployment", depID, "Environment", e.id, p.path)
				g.edge("IN_PROJECT", "Deployment", depID, "Project", p.id, p.path)
				if e.name == "production" && status == "success" && len(merged) > 0 {
					for range r.between(1, 2) {
						g.edge("DEPLOYED_TO", "MergeRequest", merged[r.intn(len(merged))], "Deployment", depID, p.path)
					}
				}
			}
		}
	}
}
