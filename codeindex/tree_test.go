package codeindex_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/codeindex"
)

// treeFacts renders what a graph says about definitions and the edges between code items:
// "KIND FQN" per definition, and "EDGE FROM -> TO" per CALLS, EXTENDS and resolved IMPORTS,
// each item by its fqn (an unresolved import as import:PATH:NAME, a file as file:PATH).
func treeFacts(g *codeindex.Graph) (defs, edges []string) {
	name := map[int64]string{}
	for _, d := range g.Definitions {
		name[d.ID] = d.FQN
		defs = append(defs, d.DefinitionType+" "+d.FQN)
	}
	for _, i := range g.Imports {
		name[i.ID] = "import:" + i.ImportPath + ":" + i.IdentifierName
	}
	for _, f := range g.Files {
		name[f.ID] = "file:" + f.Path
	}
	for _, e := range g.Edges {
		if e.Kind == "CALLS" || e.Kind == "EXTENDS" || (e.Kind == "IMPORTS" && e.FromKind == "ImportedSymbol") {
			edges = append(edges, e.Kind+" "+name[e.From]+" -> "+name[e.To])
		}
	}
	slices.Sort(defs)
	slices.Sort(edges)
	return defs, edges
}

// TestLanguages indexes one small hand-written project per language (testdata/langs) and
// checks every definition and every call, inheritance and import edge it yields. The
// expectations are what each language's own scope and import rules say; calls through a
// value of a type the indexer would have to infer (s.area() on a local s) are not resolved.
func TestLanguages(t *testing.T) {
	tests := []struct {
		dir         string
		defs, edges []string
	}{
		{"python", []string{
			"Class pkg.shapes.Shape",
			"Class pkg.shapes.Square",
			"Function main.run",
			"Function pkg.sub.mod.f",
			"Function pkg.util.double",
			"Function pkg.util.double.inner",
			"Method pkg.shapes.Shape.area",
			"Method pkg.shapes.Shape.describe",
			"Method pkg.shapes.Square.__init__",
			"Method pkg.shapes.Square.area",
		}, []string{
			"CALLS main.run -> pkg.shapes.Square",
			"CALLS main.run -> pkg.util.double",
			"CALLS pkg.shapes.Shape.describe -> pkg.shapes.Shape.area",
			"CALLS pkg.shapes.Square.area -> import:math:math",
			"CALLS pkg.shapes.Square.area -> pkg.util.double",
			"CALLS pkg.sub.mod.f -> pkg.util.double",
			"CALLS pkg.util.double -> pkg.util.double.inner",
			"EXTENDS pkg.shapes.Square -> pkg.shapes.Shape",
			"IMPORTS import:.util:double -> pkg.util.double",
			"IMPORTS import:pkg.shapes:Square -> pkg.shapes.Square",
		}},
		{"ts", []string{
			"Class shapes.Square",
			"Function main.App",
			"Function util.double",
			"Function util.triple",
			"Interface shapes.Shape",
			"Method shapes.Shape.area",
			"Method shapes.Square.area",
			"Method shapes.Square.constructor",
			"Method shapes.Square.describe",
		}, []string{
			"CALLS main.App -> shapes.Square",
			"CALLS main.App -> util.triple",
			"CALLS shapes.Square.area -> util.double",
			"CALLS shapes.Square.describe -> shapes.Square.area",
			"EXTENDS shapes.Square -> shapes.Shape",
			"IMPORTS import:./shapes:Square -> shapes.Square",
			"IMPORTS import:./util:double -> util.double",
		}},
		{"js", []string{
			"Class lib.Base",
			"Class lib.Child",
			"Function helper.name",
			"Function lib.make",
			"Method lib.Base.hello",
			"Method lib.Child.greet",
		}, []string{
			"CALLS lib.Child.greet -> helper.name",
			"CALLS lib.Child.greet -> lib.Base.hello",
			"CALLS lib.make -> lib.Child",
			"EXTENDS lib.Child -> lib.Base",
		}},
		{"java", []string{
			"Class com.acme.Square",
			"Class com.acme.Util",
			"Constructor com.acme.Square.Square",
			"Interface com.acme.Shape",
			"Method com.acme.Shape.area",
			"Method com.acme.Square.area",
			"Method com.acme.Square.describe",
			"Method com.acme.Util.twice",
			"Method com.acme.Util.unit",
		}, []string{
			"CALLS com.acme.Square.area -> com.acme.Util.twice",
			"CALLS com.acme.Square.describe -> com.acme.Square.area",
			"CALLS com.acme.Util.unit -> com.acme.Square",
			"EXTENDS com.acme.Square -> com.acme.Shape",
		}},
		{"rust", []string{
			"Function crate::helper",
			"Function crate::make",
			"Function crate::total",
			"Method crate::shapes::Shape::area",
			"Method crate::shapes::Square::area",
			"Method crate::shapes::Square::new",
			"Method crate::shapes::Square::twice",
			"Module crate::shapes",
			"Struct crate::shapes::Square",
			"Trait crate::shapes::Shape",
		}, []string{
			"CALLS crate::make -> crate::shapes::Square::new",
			"CALLS crate::shapes::Square::area -> crate::shapes::Square::twice",
			"CALLS crate::total -> crate::helper",
			"EXTENDS crate::shapes::Square -> crate::shapes::Shape",
			"IMPORTS import:crate::shapes::Shape:Shape -> crate::shapes::Shape",
			"IMPORTS import:crate::shapes::Square:Square -> crate::shapes::Square",
		}},
		{"c", []string{
			"Function helper",
			"Function helper",
			"Function main",
			"Function twice",
			"Macro MAX",
			"Macro UTIL_H",
			"Struct point",
		}, []string{
			"CALLS main -> helper",
			"CALLS main -> twice",
			"CALLS twice -> helper",
		}},
		{"cpp", []string{
			"Class geo::Shape",
			"Class geo::Square",
			"Function geo::total",
			"Method geo::Square::Square",
			"Method geo::Square::area",
			"Method geo::Square::twice",
			"Namespace geo",
			"Namespace geo",
		}, []string{
			"CALLS geo::Square::twice -> geo::Square::area",
			"EXTENDS geo::Square -> geo::Shape",
		}},
		{"ruby", []string{
			"Class Geo::Shape",
			"Class Geo::Square",
			"Method Geo::Shape::area",
			"Method Geo::Square::area",
			"Method Geo::Square::describe",
			"Method Geo::Square::initialize",
			"Method Util::twice",
			"Module Geo",
			"Module Util",
		}, []string{
			"CALLS Geo::Square::area -> Util::twice",
			"EXTENDS Geo::Square -> Geo::Shape",
		}},
		{"csharp", []string{
			"Class Acme.Geo.Square",
			"Class Acme.Util.Helpers",
			"Constructor Acme.Geo.Square.Square",
			"Interface Acme.Geo.IShape",
			"Method Acme.Geo.IShape.Area",
			"Method Acme.Geo.Square.Area",
			"Method Acme.Geo.Square.Describe",
			"Method Acme.Util.Helpers.Twice",
			"Namespace Acme.Geo",
			"Namespace Acme.Util",
		}, []string{
			"CALLS Acme.Geo.Square.Area -> Acme.Util.Helpers.Twice",
			"CALLS Acme.Geo.Square.Describe -> Acme.Geo.Square.Area",
			"EXTENDS Acme.Geo.Square -> Acme.Geo.IShape",
		}},
		{"kotlin", []string{
			"Class acme.geo.Square",
			"Function acme.geo.make",
			"Function acme.util.twice",
			"Interface acme.geo.Shape",
			"Method acme.geo.Shape.area",
			"Method acme.geo.Square.area",
			"Method acme.geo.Square.describe",
		}, []string{
			"CALLS acme.geo.Square.area -> acme.util.twice",
			"CALLS acme.geo.Square.describe -> acme.geo.Square.area",
			"CALLS acme.geo.make -> acme.geo.Square",
			"EXTENDS acme.geo.Square -> acme.geo.Shape",
			"IMPORTS import:acme.util.twice:twice -> acme.util.twice",
		}},
		{"php", []string{
			"Class Acme\\Geo\\Square",
			"Class Acme\\Util\\Helpers",
			"Interface Acme\\Geo\\Shape",
			"Method Acme\\Geo\\Shape\\area",
			"Method Acme\\Geo\\Square\\__construct",
			"Method Acme\\Geo\\Square\\area",
			"Method Acme\\Geo\\Square\\describe",
			"Method Acme\\Util\\Helpers\\twice",
		}, []string{
			"CALLS Acme\\Geo\\Square\\area -> Acme\\Util\\Helpers\\twice",
			"CALLS Acme\\Geo\\Square\\describe -> Acme\\Geo\\Square\\area",
			"EXTENDS Acme\\Geo\\Square -> Acme\\Geo\\Shape",
			"IMPORTS import:Acme\\Util\\Helpers:Helpers -> Acme\\Util\\Helpers",
		}},
		{"bash", []string{
			"Function greet",
			"Function main",
			"Function shout",
			"Function twice",
		}, []string{
			"CALLS file:lib.sh -> main",
			"CALLS greet -> shout",
			"CALLS main -> greet",
			"CALLS main -> twice",
		}},
		{"lua", []string{
			"Function shapes.make",
			"Method shapes.Square.area",
			"Method shapes.Square.half",
			"Method shapes.Square.new",
			"Method util.M.twice",
		}, []string{
			"CALLS shapes.Square.area -> import:util:util",
			"CALLS shapes.Square.area -> shapes.Square.half",
			"CALLS shapes.make -> shapes.Square.new",
		}},
		{"scala", []string{
			"Class acme.geo.Square",
			"Method acme.geo.Shape.area",
			"Method acme.geo.Square.area",
			"Method acme.geo.Square.describe",
			"Method acme.geo.Square.unit",
			"Method acme.util.Helpers.twice",
			"Object acme.geo.Square",
			"Object acme.util.Helpers",
			"Trait acme.geo.Shape",
		}, []string{
			"CALLS acme.geo.Square.area -> acme.util.Helpers.twice",
			"CALLS acme.geo.Square.describe -> acme.geo.Square.area",
			"CALLS acme.geo.Square.unit -> acme.geo.Square",
			"EXTENDS acme.geo.Square -> acme.geo.Shape",
			"IMPORTS import:acme.util.Helpers:Helpers -> acme.util.Helpers",
		}},
		{"zig", []string{
			"Function main.main",
			"Function util.twice",
			"Method main.Square.area",
			"Method main.Square.half",
			"Struct main.Square",
		}, []string{
			"CALLS main.Square.area -> main.Square.half",
			"CALLS main.Square.area -> util.twice",
		}},
		{"hcl", []string{
			"Module network",
			"Output bucket",
			"Resource logs",
			"Variable region",
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			g, st, err := codeindex.IndexTree(t.Context(), filepath.Join("testdata", "langs", tt.dir), opts)
			if err != nil {
				t.Fatal(err)
			}
			defs, edges := treeFacts(g)
			if diff := cmp.Diff(tt.defs, defs); diff != "" {
				t.Errorf("definitions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.edges, edges); diff != "" {
				t.Errorf("edges (-want +got):\n%s", diff)
			}
			if st.ParseErrors != 0 || len(st.Problems) != 0 {
				t.Errorf("parse errors %d, problems %q", st.ParseErrors, st.Problems)
			}
			for _, f := range g.Files {
				if f.Language == "" || (f.Content == "" && f.Name != "__init__.py") {
					t.Errorf("file %s: language %q, %d bytes of content", f.Path, f.Language, len(f.Content))
				}
			}
		})
	}
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestIndexTreeNoSupportedFiles: a tree without one file of a supported language is
// ErrNoSupportedFiles, with the files it saw counted per extension.
func TestIndexTreeNoSupportedFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{"README.md": "# hi\n", "docs/a.txt": "x\n", "docs/b.txt": "y\n", "LICENSE": "MIT\n",
		"node_modules/dep/index.js": "function f() {}\n"})
	_, st, err := codeindex.IndexTree(t.Context(), dir, opts)
	if !errors.Is(err, codeindex.ErrNoSupportedFiles) {
		t.Fatalf("err = %v, want ErrNoSupportedFiles", err)
	}
	if diff := cmp.Diff(map[string]int{"md": 1, "txt": 2, "(none)": 1}, st.Unsupported); diff != "" {
		t.Errorf("unsupported (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{codeindex.SkipDependency: 1}, st.Skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
}

// TestIndexTreeSkipsBadInput: binary, huge, minified and generated files are skipped with
// their reason; symlink loops, broken links and links to directories are counted and never
// stop the run; a file that does not parse is indexed as far as it parses and reported
// with its position.
func TestIndexTreeSkipsBadInput(t *testing.T) {
	long := "var a=1;"
	for len(long) < 5000 {
		long += "var a=1;"
	}
	huge := "x = 1\n"
	for len(huge) < 7000 {
		huge += "x = 1\n"
	}
	dir := writeTree(t, map[string]string{
		"ok.py":          "def good():\n    return 1\n",
		"bad.py":         "def fine():\n    return 1\n\ndef broken(:\n    pass\n\ndef after():\n    return fine()\n",
		"bin.py":         "def f():\x00\x01\x02 pass\n",
		"huge.py":        huge,
		"app.min.js":     "function f(){}\n",
		"bundle.js":      long,
		"msg_pb2.py":     "class M: pass\n",
		"gen.ts":         "// @generated by a tool\nexport function g() {}\n",
		"notes.md":       "# notes\n",
		"sub/keep.rb":    "def k; end\n",
		"orphan/main.go": "package main\n",
	})
	for _, l := range []struct{ from, to string }{
		{"loop1.py", "loop2.py"}, {"loop2.py", "loop1.py"}, {"dangling.py", "nowhere.py"}, {"linkdir.py", "sub"},
	} {
		if err := os.Symlink(l.to, filepath.Join(dir, l.from)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.py"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := opts
	o.MaxFileSize = 6000
	g, st, err := codeindex.IndexTree(t.Context(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{codeindex.SkipBinary: 1, codeindex.SkipHuge: 1, codeindex.SkipMinified: 1, codeindex.SkipGenerated: 3,
		codeindex.SkipSymlinkLoop: 2, codeindex.SkipBroken: 1, codeindex.SkipSymlinkDir: 1, codeindex.SkipNoGoModule: 1,
		codeindex.SkipUnreadable: 1}
	if diff := cmp.Diff(want, st.Skips); diff != "" {
		t.Errorf("skips (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"md": 1}, st.Unsupported); diff != "" {
		t.Errorf("unsupported (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]int{"python": 2, "ruby": 1}, st.Languages); diff != "" {
		t.Errorf("languages (-want +got):\n%s", diff)
	}
	if !slices.Contains(st.Problems, "pipe.py: not a regular file") {
		t.Errorf("problems %q: the named pipe is not named", st.Problems)
	}
	if st.ParseErrors != 1 || !slices.Contains(st.Problems, "bad.py:4:12: missing )") {
		t.Errorf("parse errors %d, problems %q; want 1 and bad.py's position", st.ParseErrors, st.Problems)
	}
	defs, edges := treeFacts(g)
	for _, d := range []string{"Function bad.fine", "Function bad.after", "Function ok.good", "Method k"} {
		if !slices.Contains(defs, d) {
			t.Errorf("definition %q missing from %q", d, defs)
		}
	}
	if !slices.Contains(edges, "CALLS bad.after -> bad.fine") {
		t.Errorf("the call after the syntax error is missing: %q", edges)
	}
}

// TestIndexTreeSymlinkToPipe: a symlink to a named pipe (or another file that is not
// regular) is skipped like the pipe itself; it once passed the walk, and the reader blocked
// in open(2) for ever, past the context's deadline.
func TestIndexTreeSymlinkToPipe(t *testing.T) {
	dir := writeTree(t, map[string]string{"ok.py": "def good():\n    return 1\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pipe", filepath.Join(dir, "link.py")); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		st  codeindex.Stats
		err error
	}
	got := make(chan answer, 1)
	go func() {
		_, st, err := codeindex.IndexTree(t.Context(), dir, opts)
		got <- answer{st, err}
	}()
	var a answer
	select {
	case a = <-got:
	case <-time.After(2 * time.Minute):
		// Unblock the reader, so the test ends.
		if f, err := os.OpenFile(filepath.Join(dir, "pipe"), os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		a = <-got
		t.Fatal("IndexTree blocked on a symlink to a named pipe")
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.st.Skips[codeindex.SkipUnreadable] != 1 || !slices.Contains(a.st.Problems, "link.py: not a regular file") {
		t.Errorf("skips %v, problems %q: want link.py skipped as not a regular file", a.st.Skips, a.st.Problems)
	}
}

// TestIndexTreeDeepNesting: definitions nested thousands deep, or under a name of hundreds
// of kilobytes, once gave each definition a fully qualified name as long as its chain of
// owners: quadratic memory (a 300 KB JavaScript file took more than 4 GB). Past a depth or a
// name length the definitions are left out and reported; the file's shallow ones remain.
func TestIndexTreeDeepNesting(t *testing.T) {
	var deep, wide strings.Builder
	deep.WriteString("function top() {}\n")
	for range 3000 {
		deep.WriteString("function a() {\n")
	}
	for range 3000 {
		deep.WriteString("}\n")
	}
	wide.WriteString("class " + strings.Repeat("N", 200_000) + ":\n")
	for range 3000 {
		wide.WriteString("    def m(self): pass\n")
	}
	wide.WriteString("def ok(): pass\n")
	dir := writeTree(t, map[string]string{"deep.js": deep.String(), "wide.py": wide.String()})
	o := opts
	o.MaxFileSize = 1 << 20
	g, st, err := codeindex.IndexTree(t.Context(), dir, o)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, d := range g.Definitions {
		total += len(d.FQN)
	}
	if total > 1<<20 {
		t.Errorf("the definitions' names take %d bytes: quadratic in the depth", total)
	}
	defs, _ := treeFacts(g)
	for _, d := range []string{"Function deep.top", "Function deep.a", "Function wide.ok"} {
		if !slices.Contains(defs, d) {
			t.Errorf("definition %q missing", d)
		}
	}
	for _, f := range []string{"deep.js", "wide.py"} {
		if !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.HasPrefix(p, f+": ") && strings.Contains(p, "left out") }) {
			t.Errorf("problems %q: %s's left-out definitions not reported", st.Problems, f)
		}
	}
}

// TestIndexTreeDeepRustUse: a Rust use tree nested thousands deep (use a::{a::{…}}) once
// built the path of every level, each as long as the levels above it: memory quadratic in
// the depth (600 MB for this 100 KB file). A use tree whose path passes 1 KiB is left out;
// its shallow siblings remain.
func TestIndexTreeDeepRustUse(t *testing.T) {
	var src strings.Builder
	src.WriteString("use std::{fmt, ")
	for range 20000 {
		src.WriteString("a::{\n")
	}
	src.WriteString("b")
	for range 20000 {
		src.WriteString("}\n")
	}
	src.WriteString("};\nfn main() {}\n")
	dir := writeTree(t, map[string]string{"src/main.rs": src.String()})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g, _, err := codeindex.IndexTree(t.Context(), dir, opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<20 {
		t.Errorf("indexing a %d-byte file allocated %d MB", src.Len(), n>>20)
	}
	var paths []string
	for _, im := range g.Imports {
		if len(im.ImportPath) > 1024 {
			t.Errorf("an import path of %d bytes", len(im.ImportPath))
		}
		paths = append(paths, im.ImportPath)
	}
	if !slices.Contains(paths, "std::fmt") {
		t.Errorf("imports %q: std::fmt missing", paths)
	}
}

// TestIndexTreeSymlinkOutOfTree: a symlink whose target lies outside the tree is skipped; it
// was read, and the file's whole text stored as File.content, so a repository holding
// key.py -> ~/.ssh/id_rsa published the key to every caller of its namespace. Links inside
// the tree are still followed.
func TestIndexTreeSymlinkOutOfTree(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.py": "def secret():\n    return 'hunter2'\n"})
	dir := writeTree(t, map[string]string{"ok.py": "def good():\n    return 1\n", "sub/real.py": "def real():\n    return 2\n"})
	for _, l := range []struct{ from, to string }{
		{"leak.py", filepath.Join(outside, "secret.py")},
		{"up.py", "../" + filepath.Base(outside) + "/secret.py"},
		{"inner.py", "sub/real.py"},
	} {
		if err := os.Symlink(l.to, filepath.Join(dir, l.from)); err != nil {
			t.Fatal(err)
		}
	}
	g, st, err := codeindex.IndexTree(t.Context(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range g.Files {
		if strings.Contains(f.Content, "hunter2") {
			t.Errorf("file %s holds the text of a file outside the tree", f.Path)
		}
	}
	if st.Skips[codeindex.SkipSymlinkOut] != 2 || !slices.Contains(st.Problems, "leak.py: symlink to a file outside the tree") {
		t.Errorf("skips %v, problems %q: want leak.py and up.py skipped as links out of the tree", st.Skips, st.Problems)
	}
	defs, _ := treeFacts(g)
	if !slices.Contains(defs, "Function inner.real") {
		t.Errorf("definitions %q: the link inside the tree was not followed", defs)
	}
}

// TestIndexTreeProblemsControlCharacters: a file's name is printed in the problems, one per
// line on the terminal; a name holding a newline or an escape sequence once went out raw, so
// a repository could forge lines of graphwire's report or drive the terminal. Past the first
// few, problems are counted in MoreProblems.
func TestIndexTreeProblemsControlCharacters(t *testing.T) {
	files := map[string]string{"ok.py": "def good():\n    return 1\n", "a\nindexed fine\x1b[2J.py": "def broken(:\n"}
	for i := range 12 {
		files[fmt.Sprintf("bad%02d.py", i)] = "def broken(:\n"
	}
	dir := writeTree(t, files)
	_, st, err := codeindex.IndexTree(t.Context(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.Problems, `a\nindexed fine\x1b[2J.py:1:12: missing )`) && !slices.ContainsFunc(st.Problems, func(p string) bool { return strings.HasPrefix(p, `a\nindexed fine\x1b[2J.py:`) }) {
		t.Errorf("problems %q: the file named with control characters is not named escaped", st.Problems)
	}
	for _, p := range st.Problems {
		if strings.ContainsFunc(p, unicode.IsControl) {
			t.Errorf("problem %q holds a control character", p)
		}
	}
	if got := len(st.Problems) + st.MoreProblems; got != st.ParseErrors || got != 13 {
		t.Errorf("%d problems named and %d more, %d parse errors; want 13 in all", len(st.Problems), st.MoreProblems, st.ParseErrors)
	}
}

// TestIndexTreeSelfReferentialBase: a class whose base is reached through itself (class
// A(A.B), C#'s class Edge : Edge.Func) once resolved without end and overflowed the stack.
func TestIndexTreeSelfReferentialBase(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.py": "class A(A.B):\n    pass\n\n\ndef f():\n    return A.x()\n",
		"e.cs": "namespace N { class Edge : Edge.Func { void M() { Edge.Run(); } } }\n",
	})
	g, _, err := codeindex.IndexTree(t.Context(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defs, edges := treeFacts(g)
	if want := []string{"Class N.Edge", "Class a.A", "Function a.f", "Method N.Edge.M", "Namespace N"}; !slices.Equal(defs, want) {
		t.Errorf("definitions %q, want %q", defs, want)
	}
	if len(edges) != 0 {
		t.Errorf("edges %q, want none: nothing resolves", edges)
	}
}

// TestIndexTreePythonRootPackage: indexing a package directory itself (PATH is
// dist-packages/oauthlib), its absolute imports name its modules with its own name first.
func TestIndexTreePythonRootPackage(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"mylib/__init__.py": "",
		"mylib/a.py":        "def g():\n    return 1\n",
		"mylib/b.py":        "from mylib.a import g\nfrom mylib import a\n\n\ndef h():\n    return g() + a.g()\n",
	})
	g, _, err := codeindex.IndexTree(t.Context(), filepath.Join(dir, "mylib"), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, edges := treeFacts(g)
	want := []string{"CALLS b.h -> a.g", "IMPORTS import:mylib.a:g -> a.g"}
	if !slices.Equal(edges, want) {
		t.Errorf("edges %q, want %q", edges, want)
	}
}
