package main

import (
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// callersOfUse asks for the definitions that call example.com/fix.Use.
const callersOfUse = `{"query_type":"traversal","nodes":[` +
	`{"id":"f","entity":"Definition","filters":{"fqn":"example.com/fix.Use"}},` +
	`{"id":"c","entity":"Definition","columns":["fqn","file_path"]}],` +
	`"relationships":[{"type":"CALLS","from":"c","to":"f"}],"limit":10}`

// copyTree copies the fixture module into a directory the test may edit.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

var reportRE = regexp.MustCompile(`(\d+) written, (\d+) unchanged, (\d+) tombstoned`)

func written(t *testing.T, stderr string) []string {
	t.Helper()
	m := reportRE.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no load report in:\n%s", stderr)
	}
	return m[1:]
}

// TestIndexQueryReindex indexes the fixture module, asks for callers over the CLI and over
// gRPC, then edits one file and re-indexes: only what changed is written, and what was
// deleted is gone.
func TestIndexQueryReindex(t *testing.T) {
	requireCHDB(t)
	data := graphFlags(t, t.TempDir())
	src := copyTree(t, filepath.Join("..", "..", "codeindex", "testdata", "fixmod"))
	r := runCLI(on(data, "index", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if r.code != exitOK {
		t.Fatalf("index: exit %d\n%s", r.code, r.stderr)
	}
	if got := written(t, r.stderr); got[1] != "0" || got[2] != "0" {
		t.Errorf("first index: written, unchanged, tombstoned = %v, want nothing unchanged or tombstoned", got)
	}
	r = runCLI(on(data, "query", "--scope", "1/7/", "--format", "goon", callersOfUse)...)
	if r.code != exitOK || !strings.Contains(r.stdout, "fqn=example.com/fix.Run") {
		t.Fatalf("query: exit %d, want example.com/fix.Run among the callers\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(on(data, "query", "--scope", "1/8/", "--format", "goon", callersOfUse)...)
	if r.code != exitOK || strings.Contains(r.stdout, "example.com/fix") {
		t.Fatalf("query from another namespace: exit %d, want no code\n%s%s", r.code, r.stdout, r.stderr)
	}

	t.Run("grpc", func(t *testing.T) {
		var f engineFlags
		if data[0] == "--clickhouse" {
			f.clickhouse = data[1]
		} else {
			f.embedded = data[1]
		}
		ont, err := ontology.Load(ontologyfiles.Files())
		if err != nil {
			t.Fatal(err)
		}
		eng, err := f.openGraph(t.Context(), ont, os.Stderr)
		if err != nil {
			t.Fatal(err)
		}
		defer eng.Close()
		secret := []byte(strings.Repeat("k", 32))
		svc, err := newService(eng, ont, serviceOptions{Keys: [][]byte{secret}, Audience: "graphwire", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		g := svc.server.GRPCServer()
		go g.Serve(lis)
		defer g.Stop()
		tok, err := auth.Mint(secret, auth.Claims{UserID: 1, Scopes: []auth.Scope{{Path: "1/7/", Level: 30}}}, auth.MintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := runCLI("query", "--server", lis.Addr().String(), "--token", tok, "--format", "goon", callersOfUse)
		if r.code != exitOK || !strings.Contains(r.stdout, "fqn=example.com/fix.Run") {
			t.Fatalf("query over gRPC: exit %d, want example.com/fix.Run among the callers\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	// Re-indexing unchanged code writes nothing.
	r = runCLI(on(data, "index", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if got := written(t, r.stderr); r.code != exitOK || got[0] != "0" || got[2] != "0" {
		t.Fatalf("unchanged re-index: exit %d, written, unchanged, tombstoned = %v, want 0 written and tombstoned\n%s", r.code, got, r.stderr)
	}
	// Edit one file: helper and both init functions go, Other arrives.
	if err := os.WriteFile(filepath.Join(src, "b.go"), []byte("package fix\n\nfunc helper() string { return \"x\" }\n\nfunc Other() { Use(nil) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(on(data, "index", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if r.code != exitOK {
		t.Fatalf("re-index: exit %d\n%s", r.code, r.stderr)
	}
	// Written: File b.go, Definition helper (new span), Definition Other, DEFINES and
	// ON_BRANCH of Other, CALLS Other → Use. Tombstoned: two init definitions and the
	// strings import (3 nodes), the inits' DEFINES and ON_BRANCH, the import's ON_BRANCH and
	// IMPORTS, and CALLS helper → strings (7 edges).
	if got := written(t, r.stderr); got[0] != "6" || got[2] != "10" {
		t.Errorf("one-file re-index: written, unchanged, tombstoned = %v, want 6 written and 10 tombstoned\n%s", got, r.stderr)
	}
	r = runCLI(on(data, "query", "--scope", "1/7/", "--format", "goon", callersOfUse)...)
	if r.code != exitOK || !strings.Contains(r.stdout, "fqn=example.com/fix.Other") || !strings.Contains(r.stdout, "fqn=example.com/fix.Run") {
		t.Fatalf("query after re-index: exit %d, want Run and Other among the callers\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(on(data, "sql", "SELECT count() FROM gl_definition FINAL WHERE _deleted = false AND name = 'init'")...)
	if r.code != exitOK || strings.TrimSpace(r.stdout) == "" || !strings.Contains(r.stdout, "0") {
		t.Errorf("init definitions after re-index: %s%s", r.stdout, r.stderr)
	}

	// A change in one file that changes the rows of another: b.go declares a method on
	// Child (a.go) and an interface Child now satisfies. The DEFINES and EXTENDS edges
	// leave Child, a row of a.go, so a.go is loaded again too.
	b := "package fix\n\nfunc helper() string { return \"x\" }\n\nfunc Other() { Use(nil) }\n"
	if err := os.WriteFile(filepath.Join(src, "b.go"), []byte(b+"\ntype Namer interface{ Name() string }\n\nfunc (c Child) Name() string { return \"\" }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(on(data, "index", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if r.code != exitOK || !strings.Contains(r.stderr, "files whose rows changed since the last index: 2 of") {
		t.Fatalf("re-index with a method on Child: exit %d, want a.go and b.go loaded\n%s", r.code, r.stderr)
	}
	childEdges := "SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND source_id IN " +
		"(SELECT id FROM gl_definition FINAL WHERE _deleted = false AND fqn = 'example.com/fix.Child') AND target_id IN " +
		"(SELECT id FROM gl_definition FINAL WHERE _deleted = false AND name IN ('Namer', 'Name'))"
	count := func() string {
		t.Helper()
		r := runCLI(on(data, "sql", childEdges)...)
		if r.code != exitOK {
			t.Fatalf("sql: exit %d\n%s", r.code, r.stderr)
		}
		return strings.Fields(r.stdout)[2] // under the header and its rule
	}
	if got := count(); got != "2" {
		t.Errorf("edges Child → Namer (EXTENDS) and Child → Name (DEFINES) = %s, want 2", got)
	}
	// Taking them out again tombstones both edges, rows of a.go.
	if err := os.WriteFile(filepath.Join(src, "b.go"), []byte(b), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(on(data, "index", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if r.code != exitOK {
		t.Fatalf("re-index: exit %d\n%s", r.code, r.stderr)
	}
	if got := count(); got != "0" {
		t.Errorf("edges from Child to Namer and Name after removing them = %s, want 0", got)
	}
	// The graph the incremental re-indexes left is exactly the one a full index makes: a
	// full one writes and tombstones nothing.
	r = runCLI(on(data, "index", "--full", "--namespace", "1/7/", "--project", "7", "--branch", "main", src)...)
	if got := written(t, r.stderr); r.code != exitOK || got[0] != "0" || got[2] != "0" {
		t.Errorf("full re-index after incremental ones: exit %d, written, unchanged, tombstoned = %v, want nothing written or tombstoned\n%s", r.code, got, r.stderr)
	}
}

func TestLoadCLIRefuses(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "Milestone.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id": 1, "traversal_path": "1/", "state": "open"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI("load", "--embedded", filepath.Join(dir, "data"), bad)
	want := "graphwire load: load: " + bad + ":1 (row 0): column state: value is not a label of the property's enum (\"open\")\n" +
		"graphwire load: refused: 1 invalid rows, nothing written (--skip-invalid loads the valid ones)\n"
	if r.code != exitInvalid || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, want)
	}
}

// TestIndexMixedTree indexes a Go module holding a Python package: both languages land in one
// graph, each queryable, and an edit of one Python file reloads that file only.
func TestIndexMixedTree(t *testing.T) {
	requireCHDB(t)
	data := t.TempDir()
	src := copyTree(t, filepath.Join("..", "..", "codeindex", "testdata", "fixmod"))
	py := copyTree(t, filepath.Join("..", "..", "codeindex", "testdata", "langs", "python"))
	if err := os.Rename(py, filepath.Join(src, "py")); err != nil {
		t.Fatal(err)
	}
	r := runCLI("index", "--embedded", data, "--namespace", "1/7/", "--project", "7", "--branch", "main", src)
	if r.code != exitOK || !strings.Contains(r.stderr, "(go 3, python 6)") {
		t.Fatalf("index: exit %d, want go 3 and python 6 files\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "skipped:") {
		t.Errorf("index skipped something (go.mod is the Go indexer's, not an unsupported file):\n%s", r.stderr)
	}
	callersOfDouble := `{"query_type":"traversal","nodes":[` +
		`{"id":"f","entity":"Definition","filters":{"fqn":"py.pkg.util.double"}},` +
		`{"id":"c","entity":"Definition","columns":["fqn","file_path"]}],` +
		`"relationships":[{"type":"CALLS","from":"c","to":"f"}],"limit":10}`
	r = runCLI("query", "--embedded", data, "--scope", "1/7/", "--format", "goon", callersOfDouble)
	if r.code != exitOK || !strings.Contains(r.stdout, "fqn=py.main.run") || !strings.Contains(r.stdout, "fqn=py.pkg.shapes.Square.area") {
		t.Fatalf("query: exit %d, want py.main.run and py.pkg.shapes.Square.area among the callers\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI("query", "--embedded", data, "--scope", "1/7/", "--format", "goon", callersOfUse)
	if r.code != exitOK || !strings.Contains(r.stdout, "fqn=example.com/fix.Run") {
		t.Fatalf("query Go: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	f := filepath.Join(src, "py", "main.py")
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, append(b, "\n\ndef extra():\n    return run()\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI("index", "--embedded", data, "--namespace", "1/7/", "--project", "7", "--branch", "main", src)
	if r.code != exitOK || !strings.Contains(r.stderr, "files whose rows changed since the last index: 1 of 9") {
		t.Fatalf("re-index: exit %d, want one file changed\n%s", r.code, r.stderr)
	}
	callersOfRun := strings.ReplaceAll(callersOfDouble, "py.pkg.util.double", "py.main.run")
	r = runCLI("query", "--embedded", data, "--scope", "1/7/", "--format", "goon", callersOfRun)
	if r.code != exitOK || !strings.Contains(r.stdout, "fqn=py.main.extra") {
		t.Fatalf("query after the edit: exit %d, want py.main.extra\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestIndexRefusesWhatIsNotAModule: a missing PATH, a file and a directory without Go files
// each get their own message and exit code, before the go command runs and before any data
// directory is created.
func TestIndexRefusesWhatIsNotAModule(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	empty := filepath.Join(dir, "empty")
	for _, p := range []string{empty, filepath.Join(empty, "sub")} {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(file, []byte("not a module\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, "sub", "README.md"), []byte("# no Go here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		code int
		want string
	}{
		{filepath.Join(dir, "missing"), exitNotFound, "no such file or directory"},
		{file, exitUsage, file + " is not a directory"},
		{empty, exitNoSource, "no source file of a supported language under " + empty},
	} {
		data := filepath.Join(dir, "data")
		r := runCLI("index", "--embedded", data, c.path)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || strings.Contains(r.stderr, "fork/exec") {
			t.Errorf("index %s: exit %d, stderr:\n%s\nwant exit %d and %q", c.path, r.code, r.stderr, c.code, c.want)
		}
		if _, err := os.Stat(data); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("index %s: the data directory was created (stat: %v)", c.path, err)
		}
	}
}

// TestIndexReportSuggestsNoLoadFlag: index, refused invalid rows, does not suggest
// --skip-invalid, a flag only load takes; load still does.
func TestIndexReportSuggestsNoLoadFlag(t *testing.T) {
	ve := &load.ValidationError{Count: 1}
	var idx, ld strings.Builder
	report(&idx, "graphwire index", ve)
	report(&ld, "graphwire load", ve)
	if strings.Contains(idx.String(), "--skip-invalid") || idx.String() != "graphwire index: refused: 1 invalid rows, nothing written\n" {
		t.Errorf("index: %q", idx.String())
	}
	if !strings.Contains(ld.String(), "--skip-invalid loads the valid ones") {
		t.Errorf("load: %q", ld.String())
	}
}

// TestChangeSummary: files that changed are counted among the files indexed now, files of
// the last index that are gone apart from them (re-indexing another tree into the same
// project once printed "3 of 1").
func TestChangeSummary(t *testing.T) {
	digests := map[string]string{"a.go": "1"}
	got := changeSummary([]string{"a.go", "old/b.go", "old/c.go"}, digests, 1)
	want := "files whose rows changed since the last index: 1 of 1 (the rest neither loaded nor compared); 2 files of the last index are gone, their rows tombstoned"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := changeSummary([]string{"a.go"}, digests, 3); got != "files whose rows changed since the last index: 1 of 3 (the rest neither loaded nor compared)" {
		t.Errorf("no file gone: %q", got)
	}
}
