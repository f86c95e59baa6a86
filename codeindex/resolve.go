package codeindex

import (
	"cmp"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The facts the tree-sitter indexer extracts from one file, before resolution.
type (
	span struct {
		start, end         uint32
		startLine, endLine int
	}
	defFact struct {
		span
		kind, name string
		scope      bool   // an enclosing scope, not a definition (a Rust impl block)
		parent     int    // index of the enclosing definition or scope, -1 at top level
		owner, fqn string // fully qualified names of what holds it, and of itself
		id         int64
	}
	importFact struct {
		span
		path, name, alias string
		wildcard          bool
		id                int64
	}
	callFact struct {
		at         uint32
		name, recv string
		encl       int
	}
	baseFact struct {
		at   uint32
		name string
		encl int
	}
	fileFacts struct {
		rel, lang, pkg, parseErr string
		src                      []byte
		defs                     []defFact
		imports                  []importFact
		calls                    []callFact
		bases                    []baseFact
		spec                     *language
		module                   string
		fileID                   int64
		bind                     map[string]binding // local name → what an import binds it to
		usings                   []string           // namespaces or packages imported whole
		leftOut                  int                // definitions nested too deep or named too long (nest)
	}
)

// binding is what an imported name stands for: definitions, a module (by its fully
// qualified name), or neither (outside the tree) — then calls through it go to the import.
type binding struct {
	defs   []ref
	module string
	imp    int64
}

// ref names a definition: its file and index.
type ref struct {
	f *fileFacts
	d int
}

func (r ref) def() *defFact { return &r.f.defs[r.d] }

// lastSegment is the last part of a qualified name, whatever the separator.
func lastSegment(s string) string {
	i := strings.LastIndexAny(s, ".:\\/")
	return s[i+1:]
}

// baseName is the name of a supertype as written, without type arguments.
func baseName(s string) string {
	if i := strings.IndexAny(s, "<[("); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func unquote(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return strings.Trim(s, "\"'<>`")
}

// splitQualified splits a qualified name into its parts, by the language's separator and
// also by the others that appear in names (A::B in Ruby, A.B in C#).
func splitQualified(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '.' || r == ':' || r == '\\' })
}

// Bounds of [nest] on the definitions of one file.
const (
	maxNesting = 100  // definitions enclosing one
	maxFQN     = 2048 // bytes of a fully qualified name
)

// nest orders the definitions of a file, links each to the one enclosing it, names them
// fully, and finds the definition enclosing each call and base.
func nest(ff *fileFacts, l *language) {
	ff.spec = l
	ff.module = l.module(ff.rel, ff.pkg)
	// By position, outer first; of two patterns naming one node (Kotlin's class_declaration
	// is also an interface or an enum), the specific kind first, which CompactFunc keeps.
	slices.SortStableFunc(ff.defs, func(a, b defFact) int {
		if a.start != b.start {
			return int(a.start) - int(b.start)
		}
		if a.end != b.end {
			return int(b.end) - int(a.end)
		}
		return cmp.Compare(boolInt(a.kind == "Class"), boolInt(b.kind == "Class"))
	})
	ff.defs = slices.CompactFunc(ff.defs, func(a, b defFact) bool { return a.span == b.span && a.name == b.name })
	// A definition nested deeper than maxNesting, or whose full name is longer than maxFQN, is
	// left out with everything inside it: each name repeats its owners', so an unbounded chain
	// costs memory quadratic in its length.
	kept := ff.defs[:0]
	var stack []int  // indices in kept of the definitions enclosing the current one
	var cut []uint32 // ends of the left-out definitions enclosing it
	for i := range ff.defs {
		d := ff.defs[i]
		for len(stack) > 0 && kept[stack[len(stack)-1]].end <= d.start {
			stack = stack[:len(stack)-1]
		}
		for len(cut) > 0 && cut[len(cut)-1] <= d.start {
			cut = cut[:len(cut)-1]
		}
		if len(cut) > 0 {
			ff.leftOut++
			continue
		}
		d.parent = -1
		owner := ff.module
		if len(stack) > 0 {
			d.parent = stack[len(stack)-1]
			p := &kept[d.parent]
			owner = p.fqn
			if d.kind == "Function" && (isClass(p.kind) || p.scope) {
				d.kind = "Method"
			}
		}
		parts := splitQualified(d.name)
		if len(parts) == 0 {
			parts = []string{d.name}
		}
		if d.kind != "Namespace" && !d.scope {
			// A namespace or impl is named by all of its parts, anything else by its last.
			d.name = parts[len(parts)-1]
			if d.kind == "Function" && len(parts) > 1 {
				d.kind = "Method" // C++'s A::f, defined outside its class
			}
		}
		if len(stack) >= maxNesting || len(owner)+len(d.name)+len(parts) > maxFQN {
			ff.leftOut++
			cut = append(cut, d.end)
			continue
		}
		for _, q := range parts[:len(parts)-1] {
			owner = joinName(owner, q, l.sep)
		}
		if d.kind == "Namespace" || d.scope {
			d.owner = owner
			d.fqn = joinName(owner, parts[len(parts)-1], l.sep)
		} else {
			d.owner, d.fqn = owner, joinName(owner, d.name, l.sep)
		}
		kept = append(kept, d)
		stack = append(stack, len(kept)-1)
	}
	ff.defs = kept
	innermost := func(at uint32) int {
		i, _ := slices.BinarySearchFunc(ff.defs, at, func(d defFact, at uint32) int {
			if d.start <= at {
				return -1
			}
			return 1
		})
		i--
		for i >= 0 && ff.defs[i].end <= at {
			i = ff.defs[i].parent
		}
		return i
	}
	slices.SortFunc(ff.calls, func(a, b callFact) int {
		if a.at != b.at {
			return int(a.at) - int(b.at)
		}
		return strings.Compare(a.name+"\x00"+a.recv, b.name+"\x00"+b.recv)
	})
	ff.calls = slices.Compact(ff.calls)
	for i := range ff.calls {
		ff.calls[i].encl = innermost(ff.calls[i].at)
	}
	for i := range ff.bases {
		ff.bases[i].encl = innermost(ff.bases[i].at)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func joinName(owner, name, sep string) string {
	if owner == "" {
		return name
	}
	if name == "" {
		return owner // from .. import x: the package itself
	}
	return owner + sep + name
}

// resolver links the facts of every file into a graph.
type resolver struct {
	x       *indexer
	files   []*fileFacts
	byPath  map[string]*fileFacts
	members map[string][]ref  // group \x00 owner fqn \x00 name → definitions
	byFQN   map[string][]ref  // group \x00 fqn → definitions and scopes
	byName  map[string][]ref  // group \x00 name → top-level and class-like definitions
	modules map[string]string // group \x00 module → file (Python, JavaScript)
	suffix  map[string]string // group \x00 tail of a Python module → its file, "" if several
	mods    map[string]bool   // group \x00 module of every file
	depth   int               // of typeRefs calls in progress: names can refer to themselves
}

// group is the namespace a file's names live in: JavaScript and TypeScript share one, C
// and C++ one, each Rust crate its own.
func group(ff *fileFacts) string {
	switch ff.lang {
	case "javascript", "typescript", "tsx":
		return "js"
	case "c", "cpp":
		return "c"
	case "rust":
		return "rust:" + rustCrate(ff.rel)
	}
	return ff.lang
}

func resolve(files []*fileFacts, specs []*language, opts Options, root string) *Graph {
	x := &indexer{opts: opts, root: root, g: &Graph{TraversalPath: opts.TraversalPath},
		dirs: map[string]int64{}, defs: map[string]int64{}, edges: map[Edge]bool{}}
	x.g.Branch = Branch{ID: id("branch", strconv.FormatInt(opts.ProjectID, 10), opts.Branch), TraversalPath: opts.TraversalPath,
		Name: opts.Branch, IsDefault: true, ProjectID: opts.ProjectID}
	if opts.Commit != "" {
		x.g.Commit = &Commit{ID: id("commit", strconv.FormatInt(opts.ProjectID, 10), opts.Commit), TraversalPath: opts.TraversalPath,
			SHA: opts.Commit, ProjectID: opts.ProjectID}
	}
	x.dir(".")
	r := &resolver{x: x, files: files, byPath: map[string]*fileFacts{}, members: map[string][]ref{},
		byFQN: map[string][]ref{}, byName: map[string][]ref{}, modules: map[string]string{},
		suffix: map[string]string{}, mods: map[string]bool{}}
	// Rows of files and definitions, and the tables names are looked up in.
	for _, ff := range files {
		r.byPath[ff.rel] = ff
		c := x.common("File", ff.rel)
		ff.fileID = c.ID
		x.g.Files = append(x.g.Files, File{Common: c, Path: ff.rel, Name: path.Base(ff.rel), Extension: strings.TrimPrefix(path.Ext(ff.rel), "."),
			Language: ff.lang, Content: strings.ToValidUTF8(string(ff.src), "\uFFFD")})
		x.edge("CONTAINS", "Directory", x.dir(path.Dir(ff.rel)), "File", c.ID)
		x.onBranch("File", c.ID)
		gr := group(ff)
		seen := map[string]int{}
		for i := range ff.defs {
			d := &ff.defs[i]
			rf := ref{ff, i}
			r.byFQN[gr+"\x00"+d.fqn] = append(r.byFQN[gr+"\x00"+d.fqn], rf)
			if d.scope {
				continue
			}
			key := ff.rel + "\x00" + d.fqn
			if n := seen[key]; n > 0 {
				key += "#" + strconv.Itoa(n)
			}
			seen[ff.rel+"\x00"+d.fqn]++
			dc := x.common("Definition", key)
			d.id = dc.ID
			x.g.Definitions = append(x.g.Definitions, Definition{Common: dc, Name: d.name, FQN: d.fqn, DefinitionType: d.kind,
				FilePath: ff.rel, StartLine: int64(d.startLine), EndLine: int64(d.endLine), StartByte: int64(d.start), EndByte: int64(d.end),
				Content: strings.ToValidUTF8(string(ff.src[d.start:d.end]), "\uFFFD")})
			x.onBranch("Definition", d.id)
			r.members[gr+"\x00"+d.owner+"\x00"+d.name] = append(r.members[gr+"\x00"+d.owner+"\x00"+d.name], rf)
			if d.parent < 0 || isClass(d.kind) || d.kind == "Module" {
				r.byName[gr+"\x00"+d.name] = append(r.byName[gr+"\x00"+d.name], rf)
			}
		}
		r.mods[gr+"\x00"+ff.module] = true
		if ff.lang == "python" || ff.lang == "lua" || gr == "js" {
			r.modules[gr+"\x00"+ff.module] = ff.rel
		}
		if ff.lang == "python" {
			for m := ff.module; strings.Contains(m, "."); {
				m = m[strings.Index(m, ".")+1:]
				k := gr + "\x00" + m
				if f, ok := r.suffix[k]; ok && f != ff.rel {
					r.suffix[k] = ""
				} else {
					r.suffix[k] = ff.rel
				}
			}
		}
	}
	for _, ff := range files {
		for i := range ff.defs {
			if d := &ff.defs[i]; !d.scope {
				r.defines(ff, d)
			}
		}
	}
	for _, ff := range files {
		r.imports(ff)
	}
	for _, ff := range files {
		for _, c := range ff.calls {
			r.call(ff, c)
		}
		for _, b := range ff.bases {
			r.base(ff, b)
		}
	}
	for e := range x.edges {
		x.g.Edges = append(x.g.Edges, e)
	}
	sortEdges(x.g.Edges)
	return x.g
}

// defines links a definition to what declares it: its enclosing definition, the type an impl
// block or an out-of-class definition (A::f) names, or else its file.
func (r *resolver) defines(ff *fileFacts, d *defFact) {
	if d.parent >= 0 && !ff.defs[d.parent].scope && ff.defs[d.parent].fqn == d.owner {
		r.x.edge("DEFINES", "Definition", ff.defs[d.parent].id, "Definition", d.id)
		return
	}
	if d.owner != ff.module {
		for _, o := range r.byFQN[group(ff)+"\x00"+d.owner] {
			if od := o.def(); !od.scope && od.id != 0 {
				r.x.edge("DEFINES", "Definition", od.id, "Definition", d.id)
				return
			}
		}
	}
	if d.parent >= 0 && !ff.defs[d.parent].scope {
		r.x.edge("DEFINES", "Definition", ff.defs[d.parent].id, "Definition", d.id)
		return
	}
	r.x.edge("DEFINES", "File", ff.fileID, "Definition", d.id)
}

// imports adds a file's imports and binds the local names they introduce.
func (r *resolver) imports(ff *fileFacts) {
	ff.bind = map[string]binding{}
	gr := group(ff)
	for i := range ff.imports {
		im := &ff.imports[i]
		typ := "module"
		switch {
		case im.wildcard:
			typ = "wildcard"
		case im.name != "":
			typ = "symbol"
		}
		var alias *string
		if im.alias != "" {
			a := im.alias
			alias = &a
		}
		c := r.x.common("ImportedSymbol", ff.rel+"\x00"+im.path+"\x00"+im.name+"\x00"+im.alias+"\x00"+strconv.Itoa(int(im.start)))
		im.id = c.ID
		name := im.name
		if name == "" {
			name = lastSegment(im.path)
		}
		r.x.g.Imports = append(r.x.g.Imports, ImportedSymbol{Common: c, IdentifierName: name, IdentifierAlias: alias, ImportPath: im.path,
			ImportType: typ, FilePath: ff.rel, StartLine: int64(im.startLine), EndLine: int64(im.endLine), StartByte: int64(im.start), EndByte: int64(im.end)})
		r.x.edge("IMPORTS", "File", ff.fileID, "ImportedSymbol", c.ID)
		r.x.onBranch("ImportedSymbol", c.ID)
		local, b := r.importTarget(ff, gr, im)
		b.imp = c.ID
		for _, t := range b.defs {
			r.x.edge("IMPORTS", "ImportedSymbol", c.ID, "Definition", t.def().id)
		}
		if local != "" {
			if _, dup := ff.bind[local]; !dup {
				ff.bind[local] = b
			}
		}
	}
}

// importTarget resolves one import by the rules of its language, and returns the local name
// it binds ("" for none) with what that name stands for.
func (r *resolver) importTarget(ff *fileFacts, gr string, im *importFact) (string, binding) {
	var b binding
	local := im.alias
	switch ff.lang {
	case "python":
		mod := im.path
		if strings.HasPrefix(mod, ".") {
			dots := len(mod) - len(strings.TrimLeft(mod, "."))
			pkg := ff.module
			if path.Base(stripExt(ff.rel)) != "__init__" {
				pkg = parentModule(pkg)
			}
			for range dots - 1 {
				pkg = parentModule(pkg)
			}
			mod = joinName(pkg, mod[dots:], ".")
		}
		modFile := r.pyModule(gr, mod)
		switch {
		case im.wildcard:
			if modFile != "" {
				ff.usings = append(ff.usings, r.byPath[modFile].module)
			}
			return "", b
		case im.name != "":
			if local == "" {
				local = im.name
			}
			if modFile != "" {
				b.defs = r.topLevel(gr, r.byPath[modFile].module, im.name)
			}
			if len(b.defs) == 0 {
				if sub := r.pyModule(gr, joinName(mod, im.name, ".")); sub != "" {
					b.module = r.byPath[sub].module
				}
			}
		default:
			if local == "" {
				local = im.path
			}
			if modFile != "" {
				b.module = r.byPath[modFile].module
			}
		}
	case "javascript", "typescript", "tsx":
		target := r.jsModule(ff, im.path)
		switch {
		case im.name == "default", im.name == "":
			if target != "" && im.name == "" {
				b.module = r.byPath[target].module
			}
		default:
			if local == "" {
				local = im.name
			}
			if target != "" {
				b.defs = r.topLevel(gr, r.byPath[target].module, im.name)
			}
		}
	case "lua", "zig":
		// require("a.b") names a module from the root; @import("x.zig") a path from the file.
		target := r.modules[gr+"\x00"+im.path]
		if ff.lang == "zig" {
			target = ""
			if f, ok := r.byPath[path.Join(path.Dir(ff.rel), im.path)]; ok {
				target = f.rel
			}
		}
		if target != "" {
			b.module = r.byPath[target].module
		}
	case "java", "kotlin", "csharp", "php", "scala":
		p := strings.TrimPrefix(im.path, "\\")
		if ff.lang == "php" {
			p = strings.ReplaceAll(p, "\\", ".")
		}
		full := strings.ReplaceAll(p, ".", ff.spec.sep)
		stmt := string(ff.src[im.start:min(im.end, uint32(len(ff.src)))])
		if ff.lang == "csharp" || strings.Contains(stmt, "*") {
			im.wildcard = true
			ff.usings = append(ff.usings, full)
			return "", b
		}
		if local == "" {
			local = lastSegment(p)
		}
		b.defs = r.real(r.byFQN[gr+"\x00"+full])
	case "rust":
		p := im.path
		switch {
		case strings.HasPrefix(p, "self::"):
			p = ff.module + p[4:]
		case p == "self":
			p = ff.module
		case strings.HasPrefix(p, "super::"):
			mod := ff.module
			for strings.HasPrefix(p, "super::") {
				mod, p = parentRust(mod), p[7:]
			}
			p = mod + "::" + p
		case !strings.HasPrefix(p, "crate::") && p != "crate":
			p = "crate::" + p
		}
		if im.wildcard {
			ff.usings = append(ff.usings, p)
			return "", b
		}
		if local == "" {
			local = im.name
		}
		b.defs = r.real(r.byFQN[gr+"\x00"+p])
		if len(b.defs) == 0 && r.isModule(gr, p) {
			b.module = p
		}
	}
	return local, b
}

func parentModule(m string) string {
	if i := strings.LastIndex(m, "."); i >= 0 {
		return m[:i]
	}
	return ""
}

func parentRust(m string) string {
	if i := strings.LastIndex(m, "::"); i >= 0 {
		return m[:i]
	}
	return m
}

func (r *resolver) isModule(gr, fqn string) bool {
	if r.mods[gr+"\x00"+fqn] {
		return true
	}
	for _, rf := range r.byFQN[gr+"\x00"+fqn] {
		if rf.def().kind == "Module" {
			return true
		}
	}
	return false
}

// real drops scopes from refs.
func (r *resolver) real(refs []ref) []ref {
	var out []ref
	for _, rf := range refs {
		if !rf.def().scope {
			out = append(out, rf)
		}
	}
	return out
}

func (r *resolver) topLevel(gr, module, name string) []ref {
	return r.members[gr+"\x00"+module+"\x00"+name]
}

// pyModule finds the file of a dotted Python module: by its path from the root, else as the
// one module whose name ends with it (a package below a src/ or lib/ directory).
func (r *resolver) pyModule(gr, mod string) string {
	if f, ok := r.modules[gr+"\x00"+mod]; ok {
		return f
	}
	if f := r.suffix[gr+"\x00"+mod]; f != "" {
		return f
	}
	// The root is itself a package: its absolute imports (oauthlib.common, indexing the
	// directory oauthlib) name its modules with the root's name first.
	if rest, ok := strings.CutPrefix(mod, path.Base(filepath.ToSlash(r.x.root))+"."); ok {
		if f, ok := r.modules[gr+"\x00"+rest]; ok {
			return f
		}
	}
	return "" // none, or several
}

// jsModule finds the file a relative JavaScript or TypeScript import names.
func (r *resolver) jsModule(ff *fileFacts, spec string) string {
	if !strings.HasPrefix(spec, ".") {
		return ""
	}
	p := path.Join(path.Dir(ff.rel), spec)
	cands := []string{p}
	trimmed := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(p, ".js"), ".mjs"), ".cjs")
	for _, base := range []string{trimmed, p + "/index"} {
		for _, e := range []string{".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts"} {
			cands = append(cands, base+e)
		}
	}
	for _, c := range cands {
		if _, ok := r.byPath[c]; ok {
			return c
		}
	}
	return ""
}

// enclosingClass is the innermost class-like definition or scope around definition i.
func enclosingClass(ff *fileFacts, i int) int {
	for ; i >= 0; i = ff.defs[i].parent {
		if d := &ff.defs[i]; d.scope || isClass(d.kind) {
			return i
		}
	}
	return -1
}

// lookup resolves a bare name at definition encl of ff by the language's scope rules:
// enclosing functions, the enclosing class (where members are in scope), the module or
// package, imports, then, for languages with one global namespace, the tree. It returns the
// candidates of the first rule that has any, and the import the name binds if none.
func (r *resolver) lookup(ff *fileFacts, encl int, name string) ([]ref, int64) {
	gr := group(ff)
	for i := encl; i >= 0; i = ff.defs[i].parent {
		d := &ff.defs[i]
		if (isClass(d.kind) || d.scope) && !ff.spec.implicitSelf {
			continue
		}
		if c := r.members[gr+"\x00"+d.fqn+"\x00"+name]; len(c) > 0 {
			return c, 0
		}
		if isClass(d.kind) || d.scope {
			if c := r.inherited(ff, i, name, 0); len(c) > 0 {
				return c, 0
			}
		}
	}
	if c := r.members[gr+"\x00"+ff.module+"\x00"+name]; len(c) > 0 {
		return c, 0
	}
	if b, ok := ff.bind[name]; ok {
		if len(b.defs) > 0 {
			return b.defs, 0
		}
		return nil, b.imp
	}
	for _, u := range ff.usings {
		if c := r.members[gr+"\x00"+u+"\x00"+name]; len(c) > 0 {
			return c, 0
		}
	}
	if ff.spec.globalFuncs || ff.spec.globalTypes {
		if c := r.byName[gr+"\x00"+name]; len(c) > 0 {
			return c, 0
		}
	}
	return nil, 0
}

// inherited finds member name in the supertypes of class ci of ff, to a bounded depth.
func (r *resolver) inherited(ff *fileFacts, ci int, name string, depth int) []ref {
	if depth > 4 {
		return nil
	}
	gr := group(ff)
	for _, b := range ff.bases {
		if b.encl != ci {
			continue
		}
		for _, t := range r.typeRefs(ff, ff.defs[ci].parent, b.name) {
			td := t.def()
			if c := r.members[gr+"\x00"+td.fqn+"\x00"+name]; len(c) > 0 {
				return c
			}
			if c := r.inherited(t.f, t.d, name, depth+1); len(c) > 0 {
				return c
			}
		}
	}
	return nil
}

// typeRefs resolves a type name as written (Foo, pkg.Foo, a::Foo) at definition encl.
func (r *resolver) typeRefs(ff *fileFacts, encl int, written string) []ref {
	if r.depth > 6 {
		return nil // class A : A.B, or a cycle of bases
	}
	r.depth++
	defer func() { r.depth-- }()
	parts := splitQualified(written)
	if len(parts) == 0 {
		return nil
	}
	var cands []ref
	if len(parts) == 1 {
		cands, _ = r.lookup(ff, encl, parts[0])
	} else {
		cands = r.qualified(ff, encl, strings.Join(parts[:len(parts)-1], "."), parts[len(parts)-1])
	}
	var out []ref
	for _, c := range cands {
		if d := c.def(); isClass(d.kind) || d.kind == "Type" || d.kind == "Module" || d.scope {
			out = append(out, c)
		}
	}
	return one(ff, out)
}

// qualified resolves name reached through recv (a module, an import, a type).
func (r *resolver) qualified(ff *fileFacts, encl int, recv, name string) []ref {
	gr := group(ff)
	if b, ok := ff.bind[recv]; ok && b.module != "" {
		return r.members[gr+"\x00"+b.module+"\x00"+name]
	}
	if ff.lang == "rust" {
		p := recv
		if !strings.HasPrefix(p, "crate") {
			p = ff.module + "::" + p
		}
		if c := r.members[gr+"\x00"+p+"\x00"+name]; len(c) > 0 {
			return c
		}
	}
	parts := splitQualified(recv)
	if len(parts) != 1 {
		return nil
	}
	// A table or namespace of the same module that holds definitions (Lua's local T = {}
	// with function T.f).
	if c := r.members[gr+"\x00"+joinName(ff.module, recv, ff.spec.sep)+"\x00"+name]; len(c) > 0 {
		return c
	}
	for _, t := range r.typeRefs(ff, encl, parts[0]) {
		td := t.def()
		if c := r.members[gr+"\x00"+td.fqn+"\x00"+name]; len(c) > 0 {
			return c
		}
		if c := r.inherited(t.f, t.d, name, 0); len(c) > 0 {
			return c
		}
	}
	return nil
}

// one narrows candidates to a single target: those of the file itself first; several left
// are one target only if they share a fully qualified name (overloads).
func one(ff *fileFacts, c []ref) []ref {
	if len(c) <= 1 {
		return c
	}
	var local []ref
	for _, x := range c {
		if x.f == ff {
			local = append(local, x)
		}
	}
	if len(local) > 0 {
		c = local
	}
	for _, x := range c[1:] {
		if x.def().fqn != c[0].def().fqn || x.f != c[0].f {
			return nil
		}
	}
	return c[:1]
}

// callable says whether a call can name a definition of kind k.
func callable(k string) bool {
	switch k {
	case "Interface", "Type", "Enum", "Namespace", "Module", "Trait", "Property", "Constant", "Variable":
		return false
	}
	return true
}

// call adds the CALLS edge of one call, if its callee resolves.
func (r *resolver) call(ff *fileFacts, c callFact) {
	fromKind, from := "File", ff.fileID
	for i := c.encl; i >= 0; i = ff.defs[i].parent {
		if d := &ff.defs[i]; !d.scope {
			fromKind, from = "Definition", d.id
			break
		}
	}
	var cands []ref
	var imp int64
	recv := strings.TrimSpace(c.recv)
	switch {
	case recv == "":
		cands, imp = r.lookup(ff, c.encl, c.name)
	case slices.Contains(ff.spec.selfNames, recv):
		ci := enclosingClass(ff, c.encl)
		if ci < 0 {
			// A method defined outside its class (Lua's function T:m, C++'s A::f): its
			// owner is the class.
			if c.encl >= 0 && ff.defs[c.encl].owner != ff.module {
				cands = r.members[group(ff)+"\x00"+ff.defs[c.encl].owner+"\x00"+c.name]
			}
			break
		}
		if recv != "parent" && recv != "base" {
			cands = r.members[group(ff)+"\x00"+ff.defs[ci].fqn+"\x00"+c.name]
		}
		if len(cands) == 0 {
			cands = r.inherited(ff, ci, c.name, 0)
		}
	default:
		cands = r.qualified(ff, c.encl, recv, c.name)
		if len(cands) == 0 {
			if b, ok := ff.bind[recv]; ok && len(b.defs) == 0 {
				imp = b.imp
			}
		}
	}
	// Only what can be called: a TypeScript interface shares its name with the value that
	// constructs it (export interface ZodRecord, export const ZodRecord = …).
	cands = slices.DeleteFunc(r.real(cands), func(c ref) bool { return !callable(c.def().kind) })
	if t := one(ff, cands); len(t) == 1 {
		if td := t[0].def(); td.id != from {
			r.x.edge("CALLS", fromKind, from, "Definition", td.id)
		}
		return
	}
	if imp != 0 && len(cands) == 0 {
		r.x.edge("CALLS", fromKind, from, "ImportedSymbol", imp)
	}
}

// base adds the EXTENDS edge of one supertype, if it resolves; a Rust impl's trait extends
// the type the impl is for.
func (r *resolver) base(ff *fileFacts, b baseFact) {
	if b.encl < 0 {
		return
	}
	from := []ref{{ff, b.encl}}
	if ff.defs[b.encl].scope {
		from = r.real(r.typeRefs(ff, ff.defs[b.encl].parent, ff.defs[b.encl].fqn[len(ff.defs[b.encl].owner):]))
		if len(from) == 0 {
			from = r.real(r.typeRefs(ff, ff.defs[b.encl].parent, lastSegment(ff.defs[b.encl].fqn)))
		}
	}
	to := r.real(r.typeRefs(ff, ff.defs[b.encl].parent, b.name))
	for _, f := range from {
		for _, t := range to {
			if f.def().id != t.def().id {
				r.x.edge("EXTENDS", "Definition", f.def().id, "Definition", t.def().id)
			}
		}
	}
}
