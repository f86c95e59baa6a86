package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestLoadThroughServeReports: a load of tombstones into a data directory a running serve
// holds goes through serve's socket, and its note has the same "deleted:" line and merge note
// as the same load on a copy of the directory, loaded in process. rekey and sql, which
// cannot go through serve, say what works for them on the held directory.
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

	// Commands that cannot go through serve say what works for them on the held directory.
	for _, c := range []struct {
		args []string
		hint string
	}{
		{[]string{"rekey", "--check"}, "stop it first: rekey rebuilds the edge tables and needs the data directory to itself"},
		{[]string{"sql", "SELECT 1"}, "stop it first (a server answers the query language, `graphwire query --server ADDR`, not SQL)"},
	} {
		var stderr bytes.Buffer
		cmd := child(t, "run", append(c.args, "--embedded", held)...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		want := "graphwire " + c.args[0] + ": the data directory " + held + " is in use by another process (a running `graphwire serve`?): " + c.hint + "\n"
		if !errors.As(err, &exit) || exit.ExitCode() != exitUnavailable || stderr.String() != want {
			t.Errorf("%v on the held directory: %v, stderr:\n%s\nwant exit %d and:\n%s", c.args, err, stderr.String(), exitUnavailable, want)
		}
	}
}

// TestLoadThroughServeCompletesInterrupted: a load killed after its manifest is completed by
// the next write, and a write through a running serve says so as a load in process does
// ("completed first: …", with the earlier load's version and rows), apart from its own counts.
func TestLoadThroughServeCompletesInterrupted(t *testing.T) {
	requireCHDB(t)
	tmp := t.TempDir()
	held := filepath.Join(tmp, "held")
	fixture, err := filepath.Glob(filepath.Join("..", "..", "load", "testdata", "graph", "*"))
	if err != nil || len(fixture) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	if r := runCLI(append([]string{"load", "--embedded", held}, fixture...)...); r.code != exitOK {
		t.Fatalf("load the fixture: exit %d\n%s", r.code, r.stderr)
	}
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	interrupted := write("Milestone.jsonl", `{"id": 80, "traversal_path": "1/80/", "title": "interrupted", "state": "active"}`+"\n"+
		`{"id": 81, "traversal_path": "1/80/", "title": "interrupted too", "state": "active"}`+"\n")
	later := filepath.Join(tmp, "later")
	if err := os.Mkdir(later, 0o755); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(later, "Milestone.jsonl")
	if err := os.WriteFile(next, []byte(`{"id": 82, "traversal_path": "1/80/", "title": "through serve", "state": "active"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	killWhenSaid(t, child(t, "manifest", held, interrupted), "stopped", "the load to interrupt")

	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	startServer(t, "--embedded", held, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret)
	var stderr bytes.Buffer
	w := child(t, "run", "load", "--embedded", held, next)
	w.Stderr = &stderr
	if err := w.Run(); err != nil {
		t.Fatalf("load through serve: %v\n%s", err, stderr.String())
	}
	out := stderr.String()
	if !strings.Contains(out, "writing through it") {
		t.Fatalf("the load did not go through serve:\n%s", out)
	}
	re := regexp.MustCompile(`(?m)^completed first: an earlier load interrupted after its manifest \(staging gw_stage_[0-9a-f]+_, version 2\): 2 node rows and 0 edge rows attached, not counted below$`)
	if !re.MatchString(out) {
		t.Errorf("the load through serve does not say it completed the interrupted one:\n%s", out)
	}
	if !strings.Contains(out, ": 1 rows in from 1 files, 1 valid, 0 invalid (skipped); 1 written, 0 unchanged, 0 tombstoned; version 3\n") {
		t.Errorf("the load's own counts are not its alone:\n%s", out)
	}
}
