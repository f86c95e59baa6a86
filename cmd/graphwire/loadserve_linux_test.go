package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLoadThroughServeReports: a load of tombstones into a data directory a running serve
// holds goes through serve's socket, and its note has the same "deleted:" line and merge note
// as the same load on a copy of the directory, loaded in process.
func TestLoadThroughServeReports(t *testing.T) {
	requireCHDB(t)
	tmp := t.TempDir()
	held, copied := filepath.Join(tmp, "held"), filepath.Join(tmp, "copy")
	fixture, err := filepath.Glob(filepath.Join("..", "..", "load", "testdata", "graph", "*"))
	if err != nil || len(fixture) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	if r := runCLI(append([]string{"load", "--embedded", held}, fixture...)...); r.code != exitOK {
		t.Fatalf("load the fixture: exit %d\n%s", r.code, r.stderr)
	}
	if out, err := exec.Command("cp", "-a", held, copied).CombinedOutput(); err != nil {
		t.Fatalf("copy the data directory: %v\n%s", err, out)
	}
	gone := filepath.Join(tmp, "Definition.jsonl")
	if err := os.WriteFile(gone, []byte(`{"id": 301, "traversal_path": "1/10/", "_deleted": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := filepath.Join(tmp, "CALLS.jsonl")
	if err := os.WriteFile(calls, []byte(`{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "_deleted": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	startServer(t, "--embedded", held, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret)

	local := runCLI("load", "--embedded", copied, gone, calls)
	var stderr bytes.Buffer
	c := child(t, "run", "load", "--embedded", held, gone, calls)
	c.Stderr = &stderr
	if err := c.Run(); err != nil || local.code != exitOK {
		t.Fatalf("through serve: %v\n%s\nlocal: exit %d\n%s", err, stderr.String(), local.code, local.stderr)
	}
	if !strings.Contains(stderr.String(), "writing through it") {
		t.Fatalf("the load did not go through serve:\n%s", stderr.String())
	}
	// The lines that say what the load did, times and paths left out.
	note := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "deleted:") || strings.HasPrefix(l, "merged in") {
				keep = append(keep, regexp.MustCompile(`^merged in [^:]+:`).ReplaceAllString(l, "merged in T:"))
			}
		}
		return strings.Join(keep, "\n")
	}
	want := "deleted: 2 of the written rows are tombstones from the files\nmerged in T: gl_definition 2 → 1 parts, gl_edge 2 → 1 parts, gl_edge_by_target 2 → 1 parts"
	if got := note(local.stderr); got != want {
		t.Errorf("local note:\n%s\nwant:\n%s\n(whole: %s)", got, want, local.stderr)
	}
	if got := note(stderr.String()); got != want {
		t.Errorf("note through serve:\n%s\nwant:\n%s\n(whole: %s)", got, want, stderr.String())
	}
}
