package seed

import (
	"fmt"
	"strings"
)

// packages adds registry packages to about two projects in five, with their files
// (HAS_PACKAGE_FILE), the dependencies they declare (DECLARES_DEPENDENCY) and the pipelines
// that built them (BUILT_BY), and container repositories to about half the projects.
func (g *gen) packages(w *world) {
	r := stream(g.opts.Seed, "Orbit/Package")
	types := map[string]string{"go": "golang", "ruby": "rubygems", "python": "pypi", "typescript": "npm", "java": "maven"}
	fileExt := map[string]string{"golang": ".zip", "rubygems": ".gem", "pypi": ".whl", "npm": ".tgz", "maven": ".jar"}
	pkgID, fileID, depID, repoID := int64(0), int64(0), int64(0), int64(0)
	for i, p := range w.projects {
		if i == 0 || r.chance(0.4) {
			typ := types[p.language]
			var deps []int64
			for range r.between(2, 4) {
				depID++
				g.node("Dependency", depID, p.path).set("name", words[r.intn(len(words))]+"-"+words[r.intn(len(words))]).
					set("version_pattern", fmt.Sprintf("^%d.%d.0", r.intn(4), r.intn(20))).set("project_id", p.id)
				g.edge("IN_PROJECT", "Dependency", depID, "Project", p.id, p.path)
				deps = append(deps, depID)
			}
			for range r.between(1, 3) {
				pkgID++
				created := g.ts(r)
				name := strings.ToLower(p.name)
				version := fmt.Sprintf("%d.%d.%d", r.intn(3), r.intn(12), r.intn(20))
				g.node("Package", pkgID, p.path).set("name", name).set("version", version).set("package_type", typ).
					set("status", []string{"default", "hidden", "processing", "error", "pending_destruction", "deprecated"}[r.weighted([]float64{88, 3, 2, 2, 3, 2})]).
					set("created_at", created).set("updated_at", later(r, created, 24)).set("project_id", p.id)
				g.edge("IN_PROJECT", "Package", pkgID, "Project", p.id, p.path)
				var built int64
				if len(p.pipelines) > 0 && (pkgID == 1 || r.chance(0.6)) {
					built = p.pipelines[r.intn(len(p.pipelines))][0].(int64)
					g.edge("BUILT_BY", "Package", pkgID, "Pipeline", built, p.path)
				}
				for k := range r.between(1, 3) {
					fileID++
					file := fmt.Sprintf("%s-%s-%d%s", name, version, k, fileExt[typ])
					g.node("PackageFile", fileID, p.path).set("file_name", file).set("size", int64(1000+r.geometric(0.0005, 5_000_000))).
						set("file_sha256", sha(r)+sha(r)[:24]).
						set("status", []string{"default", "pending_destruction", "processing", "error"}[r.weighted([]float64{92, 4, 2, 2})]).
						set("created_at", created).set("updated_at", created).set("package_id", pkgID).set("project_id", p.id)
					g.edge("HAS_PACKAGE_FILE", "Package", pkgID, "PackageFile", fileID, p.path)
					g.edge("IN_PROJECT", "PackageFile", fileID, "Project", p.id, p.path)
					if built != 0 && r.chance(0.5) {
						g.edge("BUILT_BY", "PackageFile", fileID, "Pipeline", built, p.path)
					}
				}
				for range r.between(1, 3) {
					g.edge("DECLARES_DEPENDENCY", "Package", pkgID, "Dependency", deps[r.intn(len(deps))], p.path)
				}
			}
		}
		if i == 0 || r.chance(0.5) {
			for k := range r.between(1, 2) {
				repoID++
				created := g.ts(r)
				name := strings.ToLower(p.name)
				if k > 0 {
					name += "/" + words[r.intn(len(words))]
				}
				g.node("ContainerRepository", repoID, p.path).set("name", name).
					set("status", []any{nil, "delete_scheduled", "delete_failed", "delete_ongoing"}[r.weighted([]float64{94, 3, 2, 1})]).
					set("created_at", created).set("updated_at", later(r, created, 24*30)).set("project_id", p.id)
				g.edge("IN_PROJECT", "ContainerRepository", repoID, "Project", p.id, p.path)
			}
		}
	}
}
