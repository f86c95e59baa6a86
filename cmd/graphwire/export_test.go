package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/gcb1"
)

// TestExportQueryCLI exports the answer of a scoped query: the files hold the answer's nodes
// and edges and nothing else; --query without a caller is a usage error.
func TestExportQueryCLI(t *testing.T) {
	r := runCLI("export", "--query", "{}", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "--admin or --scope") {
		t.Errorf("--query without a caller: exit %d, want %d and a message naming --admin or --scope\n%s", r.code, exitUsage, r.stderr)
	}
	r = runCLI("export", "--scope", "1/10/", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "go with --query") {
		t.Errorf("--scope without --query: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	r = runCLI("export", "--format", "gcb1", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "add --query") {
		t.Errorf("--format gcb1 without --query: exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
	}
	requireCHDB(t)
	data := graphFlags(t, t.TempDir())
	fixture, err := filepath.Glob(filepath.Join("..", "..", "load", "testdata", "graph", "*"))
	if err != nil || len(fixture) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	if r := runCLI(on(data, "load", fixture...)...); r.code != exitOK {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	q := filepath.Join(t.TempDir(), "q.json")
	if err := os.WriteFile(q, []byte(`{"query_type":"traversal","nodes":[{"id":"d","entity":"Directory","node_ids":[101]},`+
		`{"id":"f","entity":"File","columns":["path"]}],"relationships":[{"type":"CONTAINS","from":"d","to":"f"}],"limit":10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	r = runCLI(on(data, "export", "--query", q, "--scope", "1/10/", out)...)
	if r.code != exitOK {
		t.Fatalf("export --query: exit %d\n%s", r.code, r.stderr)
	}
	want := map[string][]string{
		"Directory.jsonl": {`"id":101,`},
		"File.jsonl":      {`"id":200,`, `"id":201,`},
		"CONTAINS.jsonl":  {`"source_id":101,"target_kind":"File","target_id":200`, `"source_id":101,"target_kind":"File","target_id":201`},
	}
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(names) != len(want) {
		t.Errorf("files %v, want %d", names, len(want))
	}
	for name, lines := range want {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Error(err)
			continue
		}
		got := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(got) != len(lines) {
			t.Errorf("%s: %d rows, want %d:\n%s", name, len(got), len(lines), b)
			continue
		}
		for i, l := range lines {
			if !strings.Contains(got[i], l) {
				t.Errorf("%s row %d = %s, want it to contain %s", name, i, got[i], l)
			}
		}
	}
	// --format gcb1 writes the answer as one payload that decodes to it.
	bin := t.TempDir()
	r = runCLI(on(data, "export", "--query", q, "--scope", "1/10/", "--format", "gcb1", bin)...)
	if r.code != exitOK || strings.TrimSpace(r.stdout) != filepath.Join(bin, "answer.gcb1") {
		t.Fatalf("export --format gcb1: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	b, err := os.ReadFile(filepath.Join(bin, "answer.gcb1"))
	if err != nil {
		t.Fatal(err)
	}
	ans, err := gcb1.Unmarshal(b, gcb1.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range ans.Nodes {
		got = append(got, fmt.Sprintf("%s:%d", n.Type, n.ID))
	}
	for _, e := range ans.Edges {
		got = append(got, fmt.Sprintf("%s:%d-%s->%s:%d", e.From, e.FromID, e.Type, e.To, e.ToID))
	}
	slices.Sort(got)
	if want := []string{"Directory:101", "Directory:101-CONTAINS->File:200", "Directory:101-CONTAINS->File:201", "File:200", "File:201"}; !slices.Equal(got, want) {
		t.Errorf("gcb1 answer %v, want %v", got, want)
	}
	// Another namespace sees nothing: no files.
	other := t.TempDir()
	r = runCLI(on(data, "export", "--query", "@"+q, "--scope", "1/99/", other)...)
	if names, _ := filepath.Glob(filepath.Join(other, "*")); r.code != exitOK || len(names) != 0 {
		t.Errorf("export for 1/99/: exit %d, files %v, want none\n%s", r.code, names, r.stderr)
	}
}
