package seed

import (
	"fmt"
	"time"
)

// enrichMergeRequests fills the merge request properties Orbit has beyond run()'s, with the
// relationships they imply: SOURCE_PROJECT, UPDATED_BY, LAST_EDITED_BY, CLOSED and APPROVED.
func (g *gen) enrichMergeRequests(w *world) {
	r := stream(g.opts.Seed, "Orbit/MergeRequest")
	mt := g.tb("MergeRequest")
	for _, p := range w.projects {
		for _, m := range p.mrs {
			id, path := m[0].(int64), p.path
			state := mt.str(m, "state")
			created := m[mt.col("created_at")]
			status := "can_be_merged"
			switch {
			case state == "opened" && r.chance(0.15):
				status = "cannot_be_merged"
			case state == "opened" && r.chance(0.1):
				status = "unchecked"
			case state == "locked":
				status = "checking"
			}
			mt.put(m, "merge_status", status)
			mt.put(m, "squash", r.chance(0.3))
			mt.put(m, "discussion_locked", []any{nil, false, false, true}[r.weighted([]float64{50, 45, 0, 5})])
			mt.put(m, "first_contribution", r.chance(0.04))
			added, _ := m[mt.col("added_lines")].(int64)
			removed, _ := m[mt.col("removed_lines")].(int64)
			mt.put(m, "diff_size", (added+removed)*int64(30+r.intn(50)))
			mt.put(m, "modified_paths_size", int64(1+r.geometric(0.3, 60)))
			commits := int64(1 + r.geometric(0.4, 40))
			mt.put(m, "commits_count", commits)
			mt.put(m, "prepared_at", later(r, created, 1))
			mt.put(m, "first_commit_at", created)
			mt.put(m, "last_commit_at", later(r, created, 48))
			if r.chance(0.7) {
				mt.put(m, "first_comment_at", later(r, created, 24))
			}
			if r.chance(0.6) {
				mt.put(m, "reviewer_first_assigned_at", later(r, created, 12))
			}
			if r.chance(0.1) {
				mt.put(m, "first_reassigned_at", later(r, created, 72))
			}
			if hp, ok := m[mt.col("head_pipeline_id")].(int64); ok && hp > 0 {
				mt.put(m, "latest_build_started_at", later(r, created, 2))
				mt.put(m, "latest_build_finished_at", later(r, created, 6))
			}
			// Source project: the target itself, or another project of the tenant for a fork.
			source := p.id
			if r.chance(0.04) {
				for _, q := range w.projects {
					if q.top == p.top && q.id != p.id {
						source = q.id
						break
					}
				}
			}
			mt.put(m, "source_project_id", source)
			g.edge("SOURCE_PROJECT", "MergeRequest", id, "Project", source, path)
			if r.chance(0.3) {
				u := w.member(r, path)
				mt.put(m, "updated_by_id", u)
				g.edge("UPDATED_BY", "User", u, "MergeRequest", id, path)
			}
			if r.chance(0.2) {
				u := w.member(r, path)
				mt.put(m, "last_edited_by_id", u)
				g.edge("LAST_EDITED_BY", "User", u, "MergeRequest", id, path)
			}
			switch state {
			case "merged":
				s := sha(r)
				mt.put(m, "merge_commit_sha", s)
				mt.put(m, "merged_commit_sha", s)
				if mt.put(m, "squash_commit_sha", ""); m[mt.col("squash")] == true {
					mt.put(m, "squash_commit_sha", sha(r))
				}
				if r.chance(0.3) {
					mt.put(m, "first_deployed_to_production_at", later(r, m[mt.col("merged_at")], 48))
				}
				approvers := r.between(1, 2)
				for k := range approvers {
					u := w.member(r, path)
					if k == 0 {
						mt.put(m, "first_approved_at", later(r, created, 24))
					}
					g.edge("APPROVED", "User", u, "MergeRequest", id, path)
				}
			case "closed":
				u := w.member(r, path)
				mt.put(m, "closed_by_id", u)
				mt.put(m, "latest_closed_at", m[mt.col("closed_at")])
				g.edge("CLOSED", "User", u, "MergeRequest", id, path)
			}
		}
	}
}

// review adds merge request diffs and their files (HAS_DIFF, HAS_LATEST_DIFF, HAS_FILE), the
// commits merged requests landed as (MERGED_AT_COMMIT) and the branches of each project.
func (g *gen) review(w *world) {
	r := stream(g.opts.Seed, "Orbit/MergeRequestDiff")
	mt := g.tb("MergeRequest")
	diffID, fileID, commitID, branchID := int64(0), int64(0), int64(0), int64(0)
	exts := map[string]string{"go": "go", "ruby": "rb", "python": "py", "typescript": "ts", "java": "java"}
	for _, p := range w.projects {
		for _, m := range p.mrs {
			id := m[0].(int64)
			created, _ := m[mt.col("created_at")].(time.Time)
			if id == 1 || r.chance(0.15) {
				versions := 1 + r.geometric(0.7, 3)
				for v := range versions {
					diffID++
					files := 1 + r.geometric(0.5, 4)
					g.node("MergeRequestDiff", diffID, p.path).
						set("merge_request_id", id).set("project_id", p.id).
						set("state", []string{"collected", "collected", "overflow", "without_files"}[r.weighted([]float64{90, 0, 5, 5})]).
						set("diff_type", []string{"regular", "merge_head"}[r.weighted([]float64{95, 5})]).
						set("base_commit_sha", sha(r)).set("head_commit_sha", sha(r)).set("start_commit_sha", sha(r)).
						set("commits_count", int64(1+v+r.intn(3))).set("files_count", int64(files)).
						set("real_size", fmt.Sprint(files*(10+r.intn(200)))).set("stored_externally", r.chance(0.2)).
						set("created_at", created.Add(time.Duration(v*6+1)*time.Hour)).
						set("updated_at", created.Add(time.Duration(v*6+2)*time.Hour))
					g.edge("HAS_DIFF", "MergeRequest", id, "MergeRequestDiff", diffID, p.path)
					g.edge("IN_PROJECT", "MergeRequestDiff", diffID, "Project", p.id, p.path)
					for k := range files {
						fileID++
						path := fmt.Sprintf("%s/%s_%d.%s", words[r.intn(len(words))], words[r.intn(len(words))], k, exts[p.language])
						newFile, deleted := r.chance(0.15), false
						if !newFile {
							deleted = r.chance(0.05)
						}
						renamed := !newFile && !deleted && r.chance(0.05)
						oldPath := path
						if renamed {
							oldPath = "old/" + path
						}
						tooLarge := r.chance(0.02)
						var diff any
						if !tooLarge {
							diff = fmt.Sprintf("@@ -%d,3 +%d,4 @@\n func %s() {\n+\t// %s\n }\n", k+1, k+1, words[r.intn(len(words))], verbs[r.intn(len(verbs))])
						}
						g.node("MergeRequestDiffFile", fileID, p.path).
							set("new_path", path).set("old_path", oldPath).set("new_file", newFile).set("deleted_file", deleted).
							set("renamed_file", renamed).set("too_large", tooLarge).set("binary", []any{nil, false, true}[r.weighted([]float64{20, 78, 2})]).
							set("generated", []any{nil, false, true}[r.weighted([]float64{20, 75, 5})]).
							set("a_mode", "100644").set("b_mode", []string{"100644", "100755"}[r.weighted([]float64{95, 5})]).
							set("merge_request_diff_id", diffID).set("merge_request_id", id).set("project_id", p.id).set("diff", diff)
						g.edge("HAS_FILE", "MergeRequestDiff", diffID, "MergeRequestDiffFile", fileID, p.path)
					}
				}
				mt.put(m, "latest_merge_request_diff_id", diffID)
				g.edge("HAS_LATEST_DIFF", "MergeRequest", id, "MergeRequestDiff", diffID, p.path)
			}
			if s := mt.str(m, "merged_commit_sha"); s != "" && (id == 1 || r.chance(0.2)) {
				commitID++
				g.node("Commit", commitID, p.path).set("sha", s).set("project_id", p.id)
				g.edge("MERGED_AT_COMMIT", "MergeRequest", id, "Commit", commitID, p.path)
			}
		}
		// Branches: main, plus the source branches of up to two open merge requests.
		names := []string{"main"}
		for _, m := range p.mrs {
			if len(names) == 3 {
				break
			}
			if mt.str(m, "state") == "opened" {
				names = append(names, mt.str(m, "source_branch"))
			}
		}
		for i, name := range names {
			branchID++
			g.node("Branch", branchID, p.path).set("name", name).set("is_default", i == 0).set("project_id", p.id)
			if i == 0 {
				p.branch = branchID
			}
			g.edge("IN_PROJECT", "Branch", branchID, "Project", p.id, p.path)
		}
	}
}
