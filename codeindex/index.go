package codeindex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/types/typeutil"
)

// Options configures [Index].
type Options struct {
	// Patterns are the package patterns to index, relative to the directory. Default "./...".
	Patterns []string
	// TraversalPath is the namespace path every row gets, such as "1/22/". Required.
	TraversalPath string
	// ProjectID is the project the code belongs to. Required.
	ProjectID int64
	// Branch and Commit say what was indexed; Branch defaults to "main".
	Branch, Commit string
	// Env is the environment of the go command (nil: the process's own).
	Env []string
	// CacheDir, when set, keeps per package its types and rows between runs (see
	// [Stats.Cached]): a package whose files and imported declarations did not change is
	// neither type-checked nor extracted again. Entries are keyed by content; the directory
	// is pruned to a few thousand entries.
	CacheDir string
	// Progress, when set, is called after each package is type-checked, once type-checking is
	// done, after each file's calls and
	// embeddings are extracted, and once the graph is complete ([Progress.Done]), from the
	// goroutine that called [Index].
	Progress func(Progress)
	// MaxFileSize is the size in bytes past which [IndexTree] skips a file as huge; default
	// [DefaultMaxFileSize].
	MaxFileSize int64
	// Workers is how many files [IndexTree] parses at once; default GOMAXPROCS.
	Workers int
}

// Progress is how far [Index] has come, as [Options.Progress] receives it: packages
// type-checked, then files extracted.
type Progress struct {
	// Checked of TotalPackages packages are type-checked; reported after each while
	// type-checking, before any file is extracted (TotalFiles is 0 then).
	Checked, TotalPackages int
	Packages               int // packages type-checked
	Files, TotalFiles      int // files extracted, of all
	Elapsed                time.Duration
	Done                   bool // the graph is complete: the last call
}

// Stats counts what [Index] found.
type Stats struct {
	Packages, Files, Definitions, Imports, Edges int
	// Cached counts the packages whose types and rows came from [Options.CacheDir].
	Cached     int
	TypeErrors int // packages with type errors (indexed as far as they check)
	// ParseErrors counts the files with syntax errors: those indexed as far as they parse, and
	// those the parser could not read at all (skipped, also in Skipped).
	ParseErrors int
	// Skipped counts the files left out because the parser returned no syntax tree for them.
	Skipped int
	// InvalidUTF8 counts the files holding bytes that are not UTF-8; their content (and that of
	// their definitions) is stored with each such byte replaced by U+FFFD.
	InvalidUTF8 int
	// Problems names the first few files that did not parse or held invalid UTF-8, each with the
	// parser's first message ("a.go:5:11: expected ')'"), for the user to act on.
	Problems []string
	// MoreProblems counts the problems past the first few that Problems names.
	MoreProblems int
	// Languages counts the files indexed per language ([IndexTree] only).
	Languages map[string]int
	// Unsupported counts the files of no supported language per extension, "(none)" for
	// none ([IndexTree] only).
	Unsupported map[string]int
	// Skips counts the files of a supported language left out, per reason (SkipBinary, …)
	// ([IndexTree] only).
	Skips map[string]int
}

// maxProblems bounds [Stats.Problems]; the counts say how many there were in all.
const maxProblems = 10

func (st *Stats) problem(msg string) {
	if len(st.Problems) < maxProblems {
		st.Problems = append(st.Problems, escapeControl(msg))
	} else {
		st.MoreProblems++
	}
}

// escapeControl writes the control characters of s (a file may be named "a\n\x1b[2J.py") as
// Go escapes, so that a problem printed to a terminal is one line and moves no cursor.
func escapeControl(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Index type-checks the Go packages under dir with the go command and go/types, and returns
// their code graph. Only files under dir are indexed (not generated cgo files or dependencies).
func Index(ctx context.Context, dir string, opts Options) (*Graph, Stats, error) {
	start := time.Now()
	var st Stats
	if opts.TraversalPath == "" || opts.ProjectID == 0 {
		return nil, st, errors.New("codeindex: a traversal path and a project id are required")
	}
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if len(opts.Patterns) == 0 {
		opts.Patterns = []string{"./..."}
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, st, fmt.Errorf("codeindex: %w", err)
	}
	cfg := &packages.Config{
		Context: ctx,
		Dir:     root,
		Env:     opts.Env,
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
	}
	var checked Progress
	var cache *pkgCache
	if opts.CacheDir != "" {
		cache = &pkgCache{dir: opts.CacheDir}
	}
	pkgs, ck, err := loadPackages(ctx, cfg, opts.Patterns, func(done, total int) {
		if opts.Progress != nil {
			checked.Checked, checked.TotalPackages, checked.Elapsed = done, total, time.Since(start)
			opts.Progress(checked)
		}
	}, cache, opts, root)
	if err != nil {
		return nil, st, fmt.Errorf("codeindex: load packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, st, fmt.Errorf("codeindex: no Go packages in %s", dir)
	}
	slices.SortFunc(pkgs, func(a, b *packages.Package) int { return cmp.Compare(a.ID, b.ID) })
	x := &indexer{opts: opts, root: root, g: &Graph{TraversalPath: opts.TraversalPath},
		dirs: map[string]int64{}, defs: map[string]int64{}, edges: map[Edge]bool{}}
	x.g.Branch = Branch{ID: id("branch", strconv.FormatInt(opts.ProjectID, 10), opts.Branch), TraversalPath: opts.TraversalPath,
		Name: opts.Branch, IsDefault: true, ProjectID: opts.ProjectID}
	if opts.Commit != "" {
		x.g.Commit = &Commit{ID: id("commit", strconv.FormatInt(opts.ProjectID, 10), opts.Commit), TraversalPath: opts.TraversalPath,
			SHA: opts.Commit, ProjectID: opts.ProjectID}
	}
	x.dir(".")
	var units []unit
	clean := map[string]bool{} // packages without errors, whose rows may be cached
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			st.TypeErrors++
		}
		if e := ck.hits[p.ID]; e != nil {
			st.Packages++
			st.Cached++
			x.restore(p, e)
			continue
		}
		clean[p.ID] = len(p.Errors) == 0
		bad := parseErrors(p, root)
		for _, name := range slices.Sorted(maps.Keys(bad)) {
			st.ParseErrors++
			st.problem(bad[name])
		}
		if p.Types == nil || p.TypesInfo == nil {
			continue
		}
		st.Packages++
		for _, f := range p.Syntax {
			// FileStart, not Pos: a file the parser gave up on early (bytes that are not
			// UTF-8, no package clause) has an empty tree whose Pos is unset.
			tf := p.Fset.File(f.FileStart)
			if tf == nil {
				st.Skipped++ // no position at all: nothing to index
				continue
			}
			name := tf.Name()
			rel, err := filepath.Rel(root, name)
			if err != nil || strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
				continue // generated elsewhere (cgo) or outside the tree
			}
			src, err := os.ReadFile(name)
			if err != nil {
				return nil, st, fmt.Errorf("codeindex: %w", err)
			}
			if !utf8.Valid(src) {
				clean[p.ID] = false
				st.InvalidUTF8++
				st.problem(fmt.Sprintf("%s: holds bytes that are not UTF-8 (stored as U+FFFD)", filepath.ToSlash(rel)))
			}
			u := unit{pkg: p, file: f, rel: filepath.ToSlash(rel), src: string(src)}
			u.fileID = x.file(u)
			units = append(units, u)
		}
	}
	prog := Progress{Packages: st.Packages, TotalFiles: len(units)}
	report := func() {
		if opts.Progress != nil {
			prog.Elapsed = time.Since(start)
			opts.Progress(prog)
		}
	}
	report()
	// Declarations first, so that calls and embeddings can refer to any of them.
	for i := range units {
		x.imports(&units[i])
		x.declare(&units[i])
	}
	for i := range units {
		x.calls(&units[i])
		x.embeds(&units[i])
		x.resolveImports(&units[i])
		prog.Files++
		report()
	}
	if cache != nil {
		x.store(cache, pkgs, units, ck.keys, clean)
	}
	x.satisfies()
	for e := range x.edges {
		x.g.Edges = append(x.g.Edges, e)
	}
	slices.SortFunc(x.g.Edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.FromKind, b.FromKind), cmp.Compare(a.From, b.From),
			cmp.Compare(a.ToKind, b.ToKind), cmp.Compare(a.To, b.To))
	})
	slices.SortFunc(x.g.Directories, func(a, b Directory) int { return cmp.Compare(a.Path, b.Path) })
	st.Files, st.Definitions, st.Imports, st.Edges = len(x.g.Files), len(x.g.Definitions), len(x.g.Imports), len(x.g.Edges)
	prog.Done = true
	report()
	return x.g, st, nil
}

type unit struct {
	pkg     *packages.Package
	file    *ast.File
	rel     string
	src     string
	fileID  int64
	imports map[string]int64 // import path → ImportedSymbol id
}

type indexer struct {
	opts  Options
	root  string
	g     *Graph
	dirs  map[string]int64
	defs  map[string]int64 // object key → Definition id
	edges map[Edge]bool
	// for interface satisfaction
	named  []methodSet // named non-interface types, with their pointers' method sets
	ifaces []methodSet // interfaces, with their methods
}

func (x *indexer) common(kind, key string) Common {
	p := strconv.FormatInt(x.opts.ProjectID, 10)
	return Common{ID: id(kind, p, x.opts.Branch, key), TraversalPath: x.opts.TraversalPath, CommitSHA: x.opts.Commit,
		Branch: x.opts.Branch, ProjectID: x.opts.ProjectID}
}

func (x *indexer) edge(kind, fromKind string, from int64, toKind string, to int64) {
	x.edges[Edge{kind, fromKind, from, toKind, to}] = true
}

func (x *indexer) onBranch(kind string, from int64) {
	x.edge("ON_BRANCH", kind, from, "Branch", x.g.Branch.ID)
}

// dir adds directory p ("." for the root) and its ancestors, and returns its id.
func (x *indexer) dir(p string) int64 {
	if d, ok := x.dirs[p]; ok {
		return d
	}
	c := x.common("Directory", p)
	name := path.Base(p)
	if p == "." {
		name = filepath.Base(x.root)
	}
	x.dirs[p] = c.ID
	x.g.Directories = append(x.g.Directories, Directory{Common: c, Path: p, Name: name})
	x.onBranch("Directory", c.ID)
	if p == "." {
		x.edge("CONTAINS", "Branch", x.g.Branch.ID, "Directory", c.ID)
	} else {
		x.edge("CONTAINS", "Directory", x.dir(path.Dir(p)), "Directory", c.ID)
	}
	return c.ID
}

func (x *indexer) file(u unit) int64 {
	c := x.common("File", u.rel)
	x.g.Files = append(x.g.Files, File{Common: c, Path: u.rel, Name: path.Base(u.rel), Extension: "go", Language: "go", Content: strings.ToValidUTF8(u.src, "\uFFFD")})
	x.edge("CONTAINS", "Directory", x.dir(path.Dir(u.rel)), "File", c.ID)
	x.onBranch("File", c.ID)
	return c.ID
}

func (x *indexer) imports(u *unit) {
	u.imports = map[string]int64{}
	for _, spec := range u.file.Imports {
		ip, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		typ, name := "module", path.Base(ip)
		var alias *string
		if pn := u.pkg.TypesInfo.PkgNameOf(spec); pn != nil {
			name = pn.Imported().Name()
		}
		if spec.Name != nil {
			a := spec.Name.Name
			alias = &a
			switch a {
			case "_":
				typ = "blank"
			case ".":
				typ = "dot"
			}
		}
		c := x.common("ImportedSymbol", u.rel+"\x00"+ip+"\x00"+ptr(alias))
		s, e := x.span(u, spec.Pos(), spec.End())
		x.g.Imports = append(x.g.Imports, ImportedSymbol{Common: c, IdentifierName: name, IdentifierAlias: alias, ImportPath: ip,
			ImportType: typ, FilePath: u.rel, StartLine: s.line, EndLine: e.line, StartByte: s.off, EndByte: e.off})
		x.edge("IMPORTS", "File", u.fileID, "ImportedSymbol", c.ID)
		x.onBranch("ImportedSymbol", c.ID)
		if _, ok := u.imports[ip]; !ok {
			u.imports[ip] = c.ID
		}
	}
}

func ptr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

type pos struct{ line, off int64 }

// span returns the positions of from and to in u. A syntax tree recovered from a file that does
// not parse can hold nodes without an end, or ends before their start: the span is then clamped
// to the file and never runs backwards, so it always slices u.src.
func (x *indexer) span(u *unit, from, to token.Pos) (pos, pos) {
	a, b := u.pkg.Fset.Position(from), u.pkg.Fset.Position(to)
	s, e := pos{int64(a.Line), int64(a.Offset)}, pos{int64(b.Line), int64(b.Offset)}
	n := int64(len(u.src))
	if !a.IsValid() || s.off < 0 || s.off > n {
		s = pos{max(int64(a.Line), 1), min(max(s.off, 0), n)}
	}
	if !b.IsValid() || e.off < s.off || e.off > n {
		e = s
	}
	return s, e
}

// text is the source between two positions of span, as stored: valid UTF-8.
func (u *unit) text(s, e pos) string {
	return strings.ToValidUTF8(u.src[s.off:e.off], "\uFFFD")
}

// parseErrors maps each file of p with a syntax error to the first such error, as the user
// reads it: "sub/a.go:5:11: expected ')'", the path relative to root when it is under it.
func parseErrors(p *packages.Package, root string) map[string]string {
	out := map[string]string{}
	for _, e := range p.Errors {
		if e.Kind != packages.ParseError {
			continue
		}
		file, at, _ := strings.Cut(e.Pos, ":")
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
		if _, ok := out[file]; ok {
			continue
		}
		if at == "" {
			out[file] = file + ": " + e.Msg
		} else {
			out[file] = file + ":" + at + ": " + e.Msg
		}
	}
	return out
}

// key names an object across packages: the fully qualified name of a function or method
// (generic ones by their declaration), package path and name otherwise.
func key(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin().FullName()
	case nil:
		return ""
	}
	if obj.Pkg() == nil {
		return obj.Name()
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// define adds a definition for obj declared by node, and returns its id.
func (x *indexer) define(u *unit, obj types.Object, kind string, node ast.Node, parentKind string, parent int64) int64 {
	k := key(obj)
	fqn := k
	unique := k
	if obj.Name() == "init" || obj.Name() == "_" {
		unique = fmt.Sprintf("%s@%s:%d", k, u.rel, u.pkg.Fset.Position(node.Pos()).Offset)
	}
	c := x.common("Definition", unique)
	s, e := x.span(u, node.Pos(), node.End())
	x.g.Definitions = append(x.g.Definitions, Definition{Common: c, Name: obj.Name(), FQN: fqn, DefinitionType: kind, FilePath: u.rel,
		StartLine: s.line, EndLine: e.line, StartByte: s.off, EndByte: e.off, Content: u.text(s, e)})
	if unique == k {
		x.defs[k] = c.ID
	}
	x.edge("DEFINES", parentKind, parent, "Definition", c.ID)
	x.onBranch("Definition", c.ID)
	return c.ID
}

func (x *indexer) declare(u *unit) {
	info := u.pkg.TypesInfo
	for _, d := range u.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			obj := info.Defs[d.Name]
			if obj == nil {
				continue
			}
			kind := "Function"
			if d.Recv != nil {
				kind = "Method"
			}
			x.define(u, obj, kind, d, "File", u.fileID)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					tn, ok := info.Defs[s.Name].(*types.TypeName)
					if !ok {
						continue
					}
					kind := "Type"
					var node ast.Node = s
					if len(d.Specs) == 1 {
						node = d // include the keyword and doc-free declaration
					}
					switch t := s.Type.(type) {
					case *ast.StructType:
						kind = "Struct"
					case *ast.InterfaceType:
						kind = "Interface"
						tid := x.define(u, tn, kind, node, "File", u.fileID)
						x.interfaceMethods(u, tn, t, tid)
						if ms, ok := interfaceMethods(tn); ok {
							x.ifaces = append(x.ifaces, ms)
						}
						continue
					}
					x.define(u, tn, kind, node, "File", u.fileID)
					if !s.Assign.IsValid() && s.TypeParams == nil {
						if ms, ok := typeMethods(tn); ok {
							x.named = append(x.named, ms)
						}
					}
				case *ast.ValueSpec:
					kind := "Variable"
					if d.Tok == token.CONST {
						kind = "Constant"
					}
					for _, n := range s.Names {
						if obj := info.Defs[n]; obj != nil && n.Name != "_" {
							x.define(u, obj, kind, s, "File", u.fileID)
						}
					}
				}
			}
		}
	}
}

func (x *indexer) interfaceMethods(u *unit, tn *types.TypeName, it *ast.InterfaceType, parent int64) {
	for _, f := range it.Methods.List {
		for _, n := range f.Names {
			if obj := u.pkg.TypesInfo.Defs[n]; obj != nil {
				x.define(u, obj, "InterfaceMethod", f, "Definition", parent)
			}
		}
	}
}

// methodsOf links methods to the type that declares them (DEFINES Definition → Definition),
// once every type is known.
func (x *indexer) methodsOf(u *unit, d *ast.FuncDecl, obj *types.Func, mid int64) {
	sig, ok := obj.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if tid, ok := x.defs[key(n.Origin().Obj())]; ok {
			x.edge("DEFINES", "Definition", tid, "Definition", mid)
		}
	}
}

// calls adds CALLS edges: from each function or method to what its body calls (function
// literals count as their enclosing declaration), and from the file to what package-level
// initializers call. A call through an interface goes to the interface method; a call into
// a package that is not indexed goes to the file's import of that package.
func (x *indexer) calls(u *unit) {
	info := u.pkg.TypesInfo
	walk := func(root ast.Node, fromKind string, from int64) {
		ast.Inspect(root, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn, ok := typeutil.Callee(info, call).(*types.Func)
			if !ok {
				return true
			}
			if to, ok := x.defs[key(fn)]; ok {
				x.edge("CALLS", fromKind, from, "Definition", to)
			} else if fn.Pkg() != nil {
				if imp, ok := u.imports[fn.Pkg().Path()]; ok {
					x.edge("CALLS", fromKind, from, "ImportedSymbol", imp)
				}
			}
			return true
		})
	}
	for _, d := range u.file.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			obj, _ := info.Defs[d.Name].(*types.Func)
			if obj == nil {
				continue
			}
			from, ok := x.defs[key(obj)]
			if !ok { // init
				continue
			}
			x.methodsOf(u, d, obj, from)
			if d.Body != nil {
				walk(d.Body, "Definition", from)
			}
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				walk(d, "File", u.fileID)
			}
		}
	}
}

// resolveImports adds IMPORTS edges from a file's import to each indexed package-level
// definition of the imported package that the file uses through it (sub.Twice, or Twice
// after a dot import), resolved through types.
func (x *indexer) resolveImports(u *unit) {
	ast.Inspect(u.file, func(n ast.Node) bool {
		ident, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		obj := u.pkg.TypesInfo.Uses[ident]
		if obj == nil || obj.Pkg() == nil || obj.Pkg() == u.pkg.Types || obj.Pkg().Scope().Lookup(obj.Name()) != obj {
			return true // local, universe, or a field or method reached through a value
		}
		if imp, ok := u.imports[obj.Pkg().Path()]; ok {
			if to, ok := x.defs[key(obj)]; ok {
				x.edge("IMPORTS", "ImportedSymbol", imp, "Definition", to)
			}
		}
		return true
	})
}

// embeds adds EXTENDS edges for struct and interface embedding.
func (x *indexer) embeds(u *unit) {
	info := u.pkg.TypesInfo
	for _, d := range u.file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			s := spec.(*ast.TypeSpec)
			tn, _ := info.Defs[s.Name].(*types.TypeName)
			from, ok := x.defs[key(tn)]
			if tn == nil || !ok {
				continue
			}
			var fields []*ast.Field
			switch t := s.Type.(type) {
			case *ast.StructType:
				fields = t.Fields.List
			case *ast.InterfaceType:
				fields = t.Methods.List
			}
			for _, f := range fields {
				if len(f.Names) > 0 {
					continue
				}
				t := info.TypeOf(f.Type)
				if p, ok := t.(*types.Pointer); ok {
					t = p.Elem()
				}
				if n, ok := types.Unalias(t).(*types.Named); ok {
					if to, ok := x.defs[key(n.Origin().Obj())]; ok && to != from {
						x.edge("EXTENDS", "Definition", from, "Definition", to)
					}
				}
			}
		}
	}
}

// satisfies adds EXTENDS edges from each indexed named type to each indexed interface with at
// least one method that it (or its pointer) implements. It compares method sets as
// [methodKey] strings, which the cache keeps for the packages it does not check again.
func (x *indexer) satisfies() {
	byMethod := map[string][]int{} // an interface's first method → the interfaces
	for i, it := range x.ifaces {
		byMethod[it.Methods[0]] = append(byMethod[it.Methods[0]], i) // any one narrows the candidates
	}
	for _, t := range x.named {
		has := make(map[string]bool, len(t.Methods))
		for _, m := range t.Methods {
			has[m] = true
		}
		from := x.defs[t.Key]
		for _, m := range t.Methods {
			for _, i := range byMethod[m] {
				it := x.ifaces[i]
				if !allIn(it.Methods, has) {
					continue
				}
				x.edges[Edge{"EXTENDS", "Definition", from, "Definition", x.defs[it.Key]}] = true // after store: never cached
			}
		}
	}
}

func allIn(ms []string, has map[string]bool) bool {
	for _, m := range ms {
		if !has[m] {
			return false
		}
	}
	return true
}

// methodSet is a named type or an interface as interface satisfaction sees it: the key of its
// definition and its methods' [methodKey]s, sorted.
type methodSet struct {
	Key     string
	Methods []string
}

// interfaceMethods is the method set of the interface tn, when it is one that a type can
// implement: not generic, with at least one method, a method set rather than a constraint.
func interfaceMethods(tn *types.TypeName) (methodSet, bool) {
	n, ok := types.Unalias(tn.Type()).(*types.Named)
	if !ok || n.TypeParams() != nil {
		return methodSet{}, false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
		return methodSet{}, false
	}
	ms := methodSet{Key: key(tn)}
	for i := range it.NumMethods() {
		ms.Methods = append(ms.Methods, methodKey(it.Method(i)))
	}
	slices.Sort(ms.Methods)
	return ms, true
}

// typeMethods is the method set of a pointer to the named type tn, when tn is not an
// interface.
func typeMethods(tn *types.TypeName) (methodSet, bool) {
	t := tn.Type()
	if _, ok := t.Underlying().(*types.Interface); ok {
		return methodSet{}, false
	}
	ms := methodSet{Key: key(tn)}
	set := types.NewMethodSet(types.NewPointer(t))
	for i := range set.Len() {
		if f, ok := set.At(i).Obj().(*types.Func); ok {
			ms.Methods = append(ms.Methods, methodKey(f))
		}
	}
	slices.Sort(ms.Methods)
	return ms, true
}

// methodKey names a method as interface satisfaction matches it: its name (with its package
// when unexported, as Go tells such names apart) and the types of its parameters and results,
// which, qualified by package path, are identical exactly when their strings are (but for
// parameter names inside function-typed parameters, which the type string keeps).
func methodKey(f *types.Func) string {
	var b strings.Builder
	if !f.Exported() && f.Pkg() != nil {
		b.WriteString(f.Pkg().Path())
		b.WriteByte('.')
	}
	b.WriteString(f.Name())
	sig := f.Signature()
	qual := func(p *types.Package) string { return p.Path() }
	tuple := func(t *types.Tuple, variadic bool) {
		b.WriteByte('(')
		for i := range t.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			typ := t.At(i).Type()
			if variadic && i == t.Len()-1 {
				b.WriteString("...")
				if s, ok := typ.(*types.Slice); ok {
					typ = s.Elem()
				}
			}
			b.WriteString(types.TypeString(typ, qual))
		}
		b.WriteByte(')')
	}
	tuple(sig.Params(), sig.Variadic())
	tuple(sig.Results(), false)
	return b.String()
}
