package codeindex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/codeindex"
)

var opts = codeindex.Options{TraversalPath: "1/7/", ProjectID: 7, Branch: "main", Commit: "abc"}

// countDecls counts the declarations of a file independently of the indexer: functions,
// methods, type specs, named constants and variables, and methods written in interfaces.
func countDecls(t *testing.T, path string) int {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			n++
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					n++
					if it, ok := s.Type.(*ast.InterfaceType); ok {
						for _, m := range it.Methods.List {
							n += len(m.Names)
						}
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.Name != "_" {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// facts indexes g by fqn and by id.
type facts struct {
	g     *codeindex.Graph
	byFQN map[string]int64
	name  map[int64]string
}

func newFacts(g *codeindex.Graph) facts {
	f := facts{g: g, byFQN: map[string]int64{}, name: map[int64]string{}}
	for _, d := range g.Definitions {
		f.byFQN[d.FQN] = d.ID
		f.name[d.ID] = d.FQN
	}
	for _, i := range g.Imports {
		f.name[i.ID] = "import " + i.ImportPath
	}
	for _, fl := range g.Files {
		f.name[fl.ID] = "file " + fl.Path
	}
	return f
}

// edges lists the edges of a kind by endpoint names, sorted.
func (f facts) edges(kind string) []string {
	var out []string
	for _, e := range f.g.Edges {
		if e.Kind == kind {
			out = append(out, f.name[e.From]+" -> "+f.name[e.To])
		}
	}
	slices.Sort(out)
	return out
}

func (f facts) has(t *testing.T, kind, from, to string) {
	t.Helper()
	if !slices.Contains(f.edges(kind), from+" -> "+to) {
		t.Errorf("no %s edge %s -> %s", kind, from, to)
	}
}

func checkDefinitionCounts(t *testing.T, root string, g *codeindex.Graph) {
	t.Helper()
	got := map[string]int{}
	for _, d := range g.Definitions {
		got[d.FilePath]++
	}
	want := map[string]int{}
	for _, f := range g.Files {
		if n := countDecls(t, filepath.Join(root, f.Path)); n > 0 {
			want[f.Path] = n
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("definitions per file (-go/parser +index):\n%s", diff)
	}
}

func TestFixture(t *testing.T) {
	root := "testdata/fixmod"
	g, st, err := codeindex.Index(t.Context(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st.Packages != 2 || st.Files != 3 || st.TypeErrors != 0 {
		t.Errorf("stats = %+v, want 2 packages, 3 files, no type errors", st)
	}
	checkDefinitionCounts(t, root, g)
	f := newFacts(g)
	wantCalls := []string{
		"example.com/fix.Run -> example.com/fix.Use",
		"example.com/fix.Run -> example.com/fix.helper",
		"example.com/fix.Run -> example.com/fix/sub.Twice",
		"example.com/fix.Use -> (example.com/fix.Greeter).Hello",
		"example.com/fix.helper -> import strings",
		"file a.go -> example.com/fix/sub.Twice",
	}
	if diff := cmp.Diff(wantCalls, f.edges("CALLS")); diff != "" {
		t.Errorf("CALLS (-want +got):\n%s", diff)
	}
	wantExtends := []string{
		"example.com/fix.Base -> example.com/fix.Greeter",  // *Base implements Greeter
		"example.com/fix.Child -> example.com/fix.Base",    // embedding
		"example.com/fix.Child -> example.com/fix.Greeter", // promoted Hello
	}
	if diff := cmp.Diff(wantExtends, f.edges("EXTENDS")); diff != "" {
		t.Errorf("EXTENDS (-want +got):\n%s", diff)
	}
	f.has(t, "DEFINES", "example.com/fix.Greeter", "(example.com/fix.Greeter).Hello")
	f.has(t, "DEFINES", "example.com/fix.Base", "(*example.com/fix.Base).Hello")
	f.has(t, "DEFINES", "file a.go", "(*example.com/fix.Base).Hello")
	// A file imports each package; an import resolves to the indexed definitions the file
	// uses through it (strings is not indexed).
	wantImports := []string{
		"file a.go -> import example.com/fix/sub",
		"file b.go -> import strings",
		"import example.com/fix/sub -> example.com/fix/sub.Twice",
	}
	if diff := cmp.Diff(wantImports, f.edges("IMPORTS")); diff != "" {
		t.Errorf("IMPORTS (-want +got):\n%s", diff)
	}
	// Every directory, file, definition and import is on the branch; the tree hangs from it.
	if n, want := len(f.edges("ON_BRANCH")), len(g.Directories)+len(g.Files)+len(g.Definitions)+len(g.Imports); n != want {
		t.Errorf("%d ON_BRANCH edges, want %d", n, want)
	}
	var paths []string
	for _, d := range g.Directories {
		paths = append(paths, d.Path)
	}
	if diff := cmp.Diff([]string{".", "sub"}, paths); diff != "" {
		t.Errorf("directories (-want +got):\n%s", diff)
	}
	for _, fl := range g.Files {
		src, err := os.ReadFile(filepath.Join(root, fl.Path))
		if err != nil || string(src) != fl.Content {
			t.Errorf("%s: content differs from the file (%v)", fl.Path, err)
		}
	}
	// Ids are stable: a second index gives the same graph. It reports its progress: after
	// each package is type-checked, once all are, after each file, and when done.
	var calls []codeindex.Progress
	withProgress := opts
	withProgress.Progress = func(p codeindex.Progress) { calls = append(calls, p) }
	again, _, err := codeindex.Index(t.Context(), root, withProgress)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != st.Packages+st.Files+2 {
		t.Fatalf("%d progress calls, want %d: %+v", len(calls), st.Packages+st.Files+2, calls)
	}
	for i, p := range calls[:st.Packages] {
		if p.Checked != i+1 || p.TotalPackages != st.Packages || p.TotalFiles != 0 {
			t.Errorf("type-check progress call %d = %+v, want %d of %d packages", i, p, i+1, st.Packages)
		}
	}
	calls = calls[st.Packages:]
	for i, p := range calls {
		files := min(i, st.Files)
		if p.Packages != st.Packages || p.Files != files || p.TotalFiles != st.Files || p.Done != (i == len(calls)-1) ||
			i > 0 && p.Elapsed < calls[i-1].Elapsed {
			t.Errorf("progress call %d = %+v, want %d packages, %d of %d files, done %v", i, p, st.Packages, files, st.Files, i == len(calls)-1)
		}
	}
	if diff := cmp.Diff(g, again, cmp.AllowUnexported(codeindex.Graph{})); diff != "" {
		t.Errorf("second index differs:\n%s", diff)
	}
}

// TestNetHTTP indexes net/http from the installed Go root, code nobody here wrote, and checks
// it against go/parser and known facts of its source.
func TestNetHTTP(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	if _, err := os.Stat(filepath.Join(root, "server.go")); err != nil {
		t.Fatalf("no net/http source in GOROOT: %v", err)
	}
	g, st, err := codeindex.Index(t.Context(), root, codeindex.Options{Patterns: []string{"."}, TraversalPath: "1/", ProjectID: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st.Packages != 1 || st.TypeErrors != 0 || st.Files < 20 {
		t.Errorf("stats = %+v, want one package of 20+ files without type errors", st)
	}
	checkDefinitionCounts(t, root, g)
	f := newFacts(g)
	f.has(t, "CALLS", "(*net/http.Server).Serve", "(*net/http.conn).serve")
	f.has(t, "CALLS", "net/http.ListenAndServe", "(*net/http.Server).ListenAndServe")
	f.has(t, "EXTENDS", "net/http.http2DataFrame", "net/http.http2FrameHeader")
	f.has(t, "EXTENDS", "net/http.response", "net/http.ResponseWriter")
	f.has(t, "CALLS", "(*net/http.Server).Serve", "import net")
	// Every struct embedding of a net/http type that go/ast shows is an EXTENDS edge.
	for _, fl := range g.Files {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, fl.Path), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fd := range st.Fields.List {
					typ := fd.Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if id, ok := typ.(*ast.Ident); ok && len(fd.Names) == 0 && f.byFQN["net/http."+id.Name] != 0 {
						f.has(t, "EXTENDS", "net/http."+ts.Name.Name, "net/http."+id.Name)
					}
				}
			}
			return false
		})
	}
}

// TestDigests splits the fixture's graph by file: every row belongs to exactly one owner,
// the subsets of all owners together are the graph, and a subset of one file holds that
// file's rows and the edges leaving them.
func TestDigests(t *testing.T) {
	g, _, err := codeindex.Index(t.Context(), "testdata/fixmod", opts)
	if err != nil {
		t.Fatal(err)
	}
	ds := g.Digests()
	owners := map[string]bool{}
	for o := range ds {
		owners[o] = true
	}
	if want := map[string]bool{codeindex.Global: true, "a.go": true, "b.go": true, "sub/sub.go": true}; !cmp.Equal(owners, want) {
		t.Fatalf("owners = %v, want %v", owners, want)
	}
	var edges, defs int
	for o := range owners {
		s := g.Subset(map[string]bool{o: true})
		edges += len(s.Edges)
		defs += len(s.Definitions)
		for _, d := range s.Definitions {
			if d.FilePath != o {
				t.Errorf("subset %q holds definition %s of %s", o, d.FQN, d.FilePath)
			}
		}
		if o == codeindex.Global && (len(s.Directories) != len(g.Directories) || len(s.Files) != 0) {
			t.Errorf("global subset: %d directories, %d files; want all directories and no file", len(s.Directories), len(s.Files))
		}
	}
	if edges != len(g.Edges) || defs != len(g.Definitions) {
		t.Errorf("subsets hold %d edges and %d definitions, the graph %d and %d", edges, defs, len(g.Edges), len(g.Definitions))
	}
	all := g.Subset(owners)
	if !slices.Equal(all.Types(), g.Types()) || len(all.Edges) != len(g.Edges) {
		t.Errorf("subset of every owner: types %v, %d edges; want %v, %d", all.Types(), len(all.Edges), g.Types(), len(g.Edges))
	}
	again, _, err := codeindex.Index(t.Context(), "testdata/fixmod", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(ds, again.Digests()) {
		t.Error("digests of the same code differ between two indexes")
	}
}

// writeModule writes a module of the given files (name → content) into a temporary directory.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/broken\n\ngo 1.22\n"
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestFilesThatDoNotParse: a syntax error, bytes that are not UTF-8 and a file that is not Go
// at all are reported and counted; the rest of the package is indexed, and every stored
// content is valid UTF-8 within its file.
func TestFilesThatDoNotParse(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"good.go":   "package broken\n\nfunc Good() int { return 1 }\n",
		"syntax.go": "package broken\n\nfunc Before() {}\n\nfunc Bad( {\n\treturn\n}\n",
		"latin1.go": "package broken\n\n// caf\xe9\nfunc Latin() {}\n",
		"binary.go": "\xff\xfe\x00garbage, not Go\x00\x01",
	})
	g, st, err := codeindex.Index(t.Context(), dir, opts)
	if err != nil {
		t.Fatalf("Index: %v", err)
	}
	if st.ParseErrors != 3 || st.InvalidUTF8 != 2 {
		t.Errorf("ParseErrors = %d, InvalidUTF8 = %d; want 3 and 2 (stats %+v)", st.ParseErrors, st.InvalidUTF8, st)
	}
	for _, want := range []string{"syntax.go:5:11: ", "latin1.go:3:", "binary.go:1:1:"} {
		if !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("Problems %q: none starts with %q", st.Problems, want)
		}
	}
	fqns := map[string]bool{}
	for _, d := range g.Definitions {
		fqns[d.FQN] = true
		if !utf8.ValidString(d.Content) || d.StartByte > d.EndByte {
			t.Errorf("definition %s: content %q, bytes %d–%d", d.FQN, d.Content, d.StartByte, d.EndByte)
		}
	}
	for _, want := range []string{"example.com/broken.Good", "example.com/broken.Before"} {
		if !fqns[want] {
			t.Errorf("definition %s missing; have %v", want, fqns)
		}
	}
	files := map[string]bool{}
	for _, f := range g.Files {
		files[f.Path] = true
		if !utf8.ValidString(f.Content) {
			t.Errorf("file %s: content is not valid UTF-8", f.Path)
		}
	}
	for _, want := range []string{"good.go", "syntax.go", "latin1.go", "binary.go"} {
		if !files[want] {
			t.Errorf("file %s not indexed; have %v", want, files)
		}
	}
}
