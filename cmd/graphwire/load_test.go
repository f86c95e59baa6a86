package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/load"
)

// TestIndexWithoutImports indexes a module whose files import nothing: its
// ImportedSymbol.jsonl is empty, which the engine's schema inference refused (error 636), so
// the index failed.
func TestIndexWithoutImports(t *testing.T) {
	requireCHDB(t)
	src := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/noimports\n\ngo 1.22\n",
		"a.go":   "package noimports\n\n// A is one.\nfunc A() int { return 1 }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI("index", "--embedded", t.TempDir(), "--namespace", "1/7/", "--project", "7", "--branch", "main", src)
	if r.code != exitOK {
		t.Fatalf("index: exit %d\n%s", r.code, r.stderr)
	}
	if got := written(t, r.stderr); got[0] == "0" {
		t.Errorf("index wrote nothing:\n%s", r.stderr)
	}
}

// TestUntilInterrupted: a call that does not return after the context ends is abandoned
// after the grace period with an error that exits 130; one that returns in time is waited
// for, and its error exits 130 too.
func TestUntilInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	stuck := make(chan struct{})
	defer close(stuck)
	err := untilInterrupted(ctx, time.Millisecond, func() error { <-stuck; return nil })
	if !errors.Is(err, context.Canceled) || exitCode(err) != exitInterrupted {
		t.Errorf("stuck call: err = %v, exit %d; want exit %d", err, exitCode(err), exitInterrupted)
	}
	errStop := errors.New("stopped")
	err = untilInterrupted(ctx, time.Hour, func() error { return errStop })
	if !errors.Is(err, errStop) || exitCode(err) != exitInterrupted {
		t.Errorf("call that returns: err = %v, exit %d; want its error, exit %d", err, exitCode(err), exitInterrupted)
	}
	if err := untilInterrupted(t.Context(), time.Hour, func() error { return errStop }); err != errStop {
		t.Errorf("without an interruption: err = %v, want %v", err, errStop)
	}
}

// TestIndexNamespaceNoTokenNames: --namespace must be a path a token's scope can name.
func TestIndexNamespaceNoTokenNames(t *testing.T) {
	for _, ns := range []string{"0/", "01/22/", "99999999999999999999/", "1"} {
		r := runCLI("index", "--embedded", t.TempDir(), "--namespace", ns, t.TempDir())
		if r.code != exitUsage {
			t.Errorf("--namespace %s: exit %d, want %d\n%s", ns, r.code, exitUsage, r.stderr)
		}
	}
}

// TestLoadFileError: a file the engine cannot read is a file error naming the file, with the
// engine's whole message; it was reported as "1 invalid rows", the reason cut off.
func TestLoadFileError(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "Milestone.parquet")
	if err := os.WriteFile(bad, []byte("PAR1 not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI("load", "--embedded", filepath.Join(dir, "data"), bad)
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	wantFirst := "graphwire load: load: " + bad + ": engine could not read the file: "
	wantLast := "graphwire load: refused: 1 file-level problems, nothing written (--skip-invalid skips invalid rows, not these)"
	if r.code != exitInvalid || len(lines) != 2 || !strings.HasPrefix(lines[0], wantFirst) || lines[1] != wantLast ||
		!strings.Contains(lines[0], "Not a Parquet file") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit %d, a line starting %q with the engine's reason (Not a Parquet file), then %q",
			r.code, r.stderr, exitInvalid, wantFirst, wantLast)
	}
}

// TestLoadReportNamesRecovery: the note a load ends with names an interrupted earlier load it
// completed first, with its rows, before its own counts.
func TestLoadReportNamesRecovery(t *testing.T) {
	var b strings.Builder
	printLoadReport(&b, "embedded /data", load.Report{
		Version: 3, RowsIn: 1, Valid: 1, Written: 1, Live: 1, Queryable: 1,
		Recovered: []load.Recovered{{Staging: "gw_stage_0123456789ab_", Version: 2, Nodes: 3, Edges: 1}},
	}, time.Second)
	lines := strings.Split(b.String(), "\n")
	want := []string{
		"completed first: an earlier load interrupted after its manifest (staging gw_stage_0123456789ab_, version 2): 3 node rows and 1 edge rows attached, not counted below",
		"loaded embedded /data: 1 rows in from 0 files, 1 valid, 0 invalid (skipped); 1 written, 0 unchanged, 0 tombstoned; version 3",
	}
	if len(lines) < 2 || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("report:\n%s\nwant it to start:\n%s", b.String(), strings.Join(want, "\n"))
	}
}

// TestLoadUnknownTypeHint: a file whose name is no type (edges.csv), or an unknown --type, is
// refused with a line saying how to name the type: --type and the valid forms.
func TestLoadUnknownTypeHint(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	edges := filepath.Join(dir, "edges.csv")
	if err := os.WriteFile(edges, []byte("source_id,target_id\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const hint = "graphwire load: hint: name the type with --type T, or name the file after it: an entity (Definition, its table gl_definition or definition) or a relationship (CALLS), e.g. --type CALLS or CALLS.csv (docs/loading.md)\n"
	tests := []struct {
		name  string
		flags []string
		value string
	}{
		{"from the file name", nil, "edges"},
		{"from --type", []string{"--type", "Edges"}, "Edges"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(append(append([]string{"load", "--embedded", filepath.Join(dir, "data")}, tt.flags...), edges)...)
			want := "graphwire load: load: " + edges + ": unknown entity or relationship type (\"" + tt.value + "\")\n" + hint +
				"graphwire load: refused: 1 file-level problems, nothing written (--skip-invalid skips invalid rows, not these)\n"
			if r.code != exitInvalid || r.stderr != want {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, exitInvalid, want)
			}
		})
	}
}

// TestLoadReportNamesDeletions: a load of tombstones says how many of its written rows delete,
// where "tombstoned" (the rows a replace removed) alone read as if nothing had been deleted.
func TestLoadReportNamesDeletions(t *testing.T) {
	var b strings.Builder
	printLoadReport(&b, "embedded /data", load.Report{Version: 4, RowsIn: 2, Valid: 2, Written: 2, Deleted: 2}, time.Second)
	lines := strings.Split(b.String(), "\n")
	want := "deleted: 2 of the written rows are tombstones from the files"
	if len(lines) < 2 || lines[1] != want {
		t.Errorf("report:\n%s\nwant its second line %q", b.String(), want)
	}
}

// TestLoadMerges: two loads into an embedded data directory each attach a part to
// gl_milestone. graphwire load merges it back into one part and says so; with --no-merge the
// two parts stay and nothing is said.
func TestLoadMerges(t *testing.T) {
	requireCHDB(t)
	tests := []struct {
		name      string
		flags     []string
		wantParts string
	}{
		{name: "default", wantParts: "1"},
		{name: "no-merge", flags: []string{"--no-merge"}, wantParts: "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, src := t.TempDir(), t.TempDir()
			for i, rows := range []string{
				`{"id": 1, "traversal_path": "1/10/", "iid": 1, "title": "v1", "state": "active"}`,
				`{"id": 2, "traversal_path": "1/10/", "iid": 2, "title": "v2", "state": "active"}`,
			} {
				file := filepath.Join(src, strconv.Itoa(i), "Milestone.jsonl")
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(rows+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				r := runCLI(append(append([]string{"load", "--embedded", data}, tt.flags...), file)...)
				if r.code != exitOK {
					t.Fatalf("load %d: exit %d\n%s", i, r.code, r.stderr)
				}
				if said := strings.Contains(r.stderr, "merged in "); said != (i == 1 && tt.wantParts == "1") {
					t.Errorf("load %d: says merged = %v:\n%s", i, said, r.stderr)
				}
			}
			r := runCLI("sql", "--embedded", data, "--format", "json",
				"SELECT count() AS parts FROM system.parts WHERE database = currentDatabase() AND active AND table = 'gl_milestone'")
			if want := `{"parts":` + tt.wantParts + `}`; r.code != exitOK || strings.TrimSpace(r.stdout) != want {
				t.Errorf("gl_milestone parts: %q (exit %d, %s), want %s", r.stdout, r.code, r.stderr, want)
			}
		})
	}
}
