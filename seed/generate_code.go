package seed

import (
	"fmt"
	"strings"
)

// code indexes the default branch of a few projects: a directory tree under the branch
// (CONTAINS), files in it, definitions declared by files and by enclosing definitions
// (DEFINES), imported symbols (IMPORTS), calls (CALLS), inheritance (EXTENDS), and ON_BRANCH
// from every code item to the branch. File.content and Definition.content, virtual in Orbit,
// are filled here because the seed holds the code it invents.
func (g *gen) code(w *world) {
	r := stream(g.opts.Seed, "Orbit/Code")
	n := max(1, min(len(w.projects), int(6*g.opts.Scale+0.5)))
	ext := map[string]string{"go": "go", "ruby": "rb", "python": "py", "typescript": "ts", "java": "java"}
	kinds := map[string][2]string{ // (type-like, function-like) definition kinds per language
		"go": {"Struct", "Function"}, "ruby": {"Class", "Method"}, "python": {"Class", "Function"},
		"typescript": {"Class", "Method"}, "java": {"Class", "Method"},
	}
	dirID, fileID, defID, impID := int64(0), int64(0), int64(0), int64(0)
	// Spread the indexed projects over the id range: every len/n-th project.
	for k := range n {
		p := w.projects[k*len(w.projects)/n]
		if p.branch == 0 {
			continue
		}
		commit := sha(r)
		lang := p.language
		kind := kinds[lang]
		onBranch := func(entity string, id int64) {
			g.codeEdge(p.id, "main", "ON_BRANCH", entity, id, "Branch", p.branch, p.path)
		}
		type def struct {
			id       int64
			typeLike bool
		}
		var defs []def
		var files []int64
		var imports []int64
		var dirs []struct {
			id   int64
			path string
		}
		for d := range r.between(2, 3) {
			top := words[(int(p.id)+d)%len(words)]
			paths := []string{top, top + "/internal"}
			if r.chance(0.5) {
				paths = paths[:1]
			}
			parent := int64(0)
			for _, path := range paths {
				dirID++
				name := path[strings.LastIndexByte(path, '/')+1:]
				g.node("Directory", dirID, p.path).set("path", path).set("name", name).set("commit_sha", commit).
					set("branch", "main").set("project_id", p.id)
				if parent == 0 {
					g.edge("CONTAINS", "Branch", p.branch, "Directory", dirID, p.path)
				} else {
					g.edge("CONTAINS", "Directory", parent, "Directory", dirID, p.path)
				}
				onBranch("Directory", dirID)
				dirs = append(dirs, struct {
					id   int64
					path string
				}{dirID, path})
				parent = dirID
			}
		}
		for _, d := range dirs {
			for f := range r.between(1, 4) {
				fileID++
				name := fmt.Sprintf("%s_%d.%s", words[r.intn(len(words))], f, ext[lang])
				path := d.path + "/" + name
				var body strings.Builder
				fdefs := r.between(1, 3)
				offset := int64(0)
				line := int64(1)
				var typeDef int64
				for i := range fdefs {
					defID++
					typeLike := i == 0 && r.chance(0.6)
					dk := kind[1]
					if typeLike {
						dk = kind[0]
					}
					name := strings.ToUpper(words[r.intn(len(words))][:1]) + words[r.intn(len(words))][1:] + fmt.Sprint(defID)
					if !typeLike {
						name = strings.ToLower(name[:1]) + name[1:]
					}
					text := fmt.Sprintf("%s %s {\n  // %s\n}\n", strings.ToLower(dk), name, verbs[r.intn(len(verbs))])
					body.WriteString(text)
					fqn := p.name + "::" + name
					if typeDef != 0 && !typeLike {
						fqn = p.name + "::Type" + fmt.Sprint(typeDef) + "#" + name
					}
					g.node("Definition", defID, p.path).set("name", name).set("fqn", fqn).set("definition_type", dk).
						set("file_path", path).set("start_line", line).set("end_line", line+2).
						set("start_byte", offset).set("end_byte", offset+int64(len(text))).
						set("commit_sha", commit).set("branch", "main").set("project_id", p.id).set("content", text)
					offset += int64(len(text))
					line += 3
					if typeDef != 0 && !typeLike {
						g.codeEdge(p.id, "main", "DEFINES", "Definition", typeDef, "Definition", defID, p.path)
					} else {
						g.codeEdge(p.id, "main", "DEFINES", "File", fileID, "Definition", defID, p.path)
					}
					if typeLike {
						typeDef = defID
					}
					onBranch("Definition", defID)
					defs = append(defs, def{defID, typeLike})
				}
				for range r.geometric(0.5, 2) {
					impID++
					target := words[r.intn(len(words))]
					imp := g.node("ImportedSymbol", impID, p.path).
						set("identifier_name", target).set("import_path", "lib/"+target).
						set("import_type", []string{"symbol", "module", "wildcard"}[r.weighted([]float64{70, 25, 5})]).
						set("file_path", path).set("start_line", int64(1)).set("end_line", int64(1)).
						set("start_byte", int64(0)).set("end_byte", int64(10+len(target))).
						set("commit_sha", commit).set("branch", "main").set("project_id", p.id)
					if r.chance(0.2) {
						imp.set("identifier_alias", target[:1])
					}
					g.codeEdge(p.id, "main", "IMPORTS", "File", fileID, "ImportedSymbol", impID, p.path)
					onBranch("ImportedSymbol", impID)
					imports = append(imports, impID)
				}
				g.node("File", fileID, p.path).set("path", path).set("name", name).set("extension", ext[lang]).
					set("language", lang).set("commit_sha", commit).set("branch", "main").set("project_id", p.id).
					set("content", body.String())
				g.edge("CONTAINS", "Directory", d.id, "File", fileID, p.path)
				onBranch("File", fileID)
				files = append(files, fileID)
			}
		}
		// Calls, resolved imports and inheritance inside the project. The first two type-like
		// definitions are always related, so every indexed project has some inheritance.
		var types []int64
		for _, d := range defs {
			if d.typeLike {
				types = append(types, d.id)
			}
		}
		if len(types) >= 2 {
			g.codeEdge(p.id, "main", "EXTENDS", "Definition", types[1], "Definition", types[0], p.path)
		}
		for _, d := range defs {
			for range r.geometric(0.55, 3) {
				callee := defs[r.intn(len(defs))]
				if callee.id != d.id {
					g.codeEdge(p.id, "main", "CALLS", "Definition", d.id, "Definition", callee.id, p.path)
				}
			}
			if len(imports) > 0 && r.chance(0.15) {
				g.codeEdge(p.id, "main", "CALLS", "Definition", d.id, "ImportedSymbol", imports[r.intn(len(imports))], p.path)
			}
			if d.typeLike && r.chance(0.3) {
				base := defs[r.intn(len(defs))]
				if base.typeLike && base.id != d.id {
					g.codeEdge(p.id, "main", "EXTENDS", "Definition", d.id, "Definition", base.id, p.path)
				}
			}
		}
		for _, f := range files {
			if r.chance(0.15) {
				g.codeEdge(p.id, "main", "CALLS", "File", f, "Definition", defs[r.intn(len(defs))].id, p.path)
			}
			if len(imports) > 0 && r.chance(0.1) {
				g.codeEdge(p.id, "main", "CALLS", "File", f, "ImportedSymbol", imports[r.intn(len(imports))], p.path)
			}
		}
		for _, imp := range imports {
			if r.chance(0.4) {
				g.codeEdge(p.id, "main", "IMPORTS", "ImportedSymbol", imp, "Definition", defs[r.intn(len(defs))].id, p.path)
			}
		}
	}
}
