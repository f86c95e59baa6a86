package load_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/ontology"
)

// library returns the path of libchdb.so; without it the test skips locally and fails under
// CI=true.
func library(t testing.TB) string {
	t.Helper()
	lib := os.Getenv("GRAPHWIRE_CHDB_LIB")
	if lib == "" {
		cache := os.Getenv("GRAPHWIRE_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "graphwire")
		}
		lib = chdb.CachedLibrary(cache)
	}
	if _, err := os.Stat(lib); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and libchdb.so is missing at %s: %v", lib, err)
		}
		t.Skipf("libchdb.so not found at %s (run bash scripts/install-chdb.sh): %v", lib, err)
	}
	return lib
}

// openAt opens the embedded engine on dir, database db.
func openAt(t testing.TB, dir, db string) *chdb.Executor {
	t.Helper()
	e, err := chdb.Open(chdb.Options{Library: library(t), Path: dir, Database: db})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func ont(t testing.TB) *ontology.Ontology {
	t.Helper()
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func fixture(t testing.TB) []load.Source {
	t.Helper()
	names, err := filepath.Glob("testdata/graph/*")
	if err != nil || len(names) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	var srcs []load.Source
	for _, n := range names {
		srcs = append(srcs, load.Source{Path: n})
	}
	return srcs
}

func query(t testing.TB, e executor.Runner, sql string) [][]any {
	t.Helper()
	rows, err := e.Run(t.Context(), &compiler.Query{SQL: sql})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

// graphDump reads every live row of the tables the fixture fills, in key order.
func graphDump(t testing.TB, e executor.Runner) [][]any {
	t.Helper()
	var out [][]any
	for _, q := range []string{
		"SELECT * EXCEPT (_version, _deleted) FROM gl_milestone FINAL WHERE _deleted = false ORDER BY traversal_path, id",
		"SELECT * EXCEPT (_version, _deleted) FROM gl_directory FINAL WHERE _deleted = false ORDER BY traversal_path, id",
		"SELECT * EXCEPT (_version, _deleted) FROM gl_file FINAL WHERE _deleted = false ORDER BY traversal_path, id",
		"SELECT * EXCEPT (_version, _deleted) FROM gl_definition FINAL WHERE _deleted = false ORDER BY traversal_path, id",
		"SELECT * EXCEPT (_version, _deleted) FROM gl_edge FINAL WHERE _deleted = false ORDER BY ALL",
		"SELECT * EXCEPT (_version, _deleted) FROM gl_edge_by_target FINAL WHERE _deleted = false ORDER BY ALL",
	} {
		out = append(out, []any{q})
		out = append(out, query(t, e, q)...)
	}
	return out
}

func TestLoadFixture(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	rep, err := load.Load(t.Context(), e, o, fixture(t), load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsIn != 15 || rep.Valid != 15 || rep.Written != 15 || rep.Live != 15 || rep.Queryable != 15 {
		t.Errorf("report = %+v, want 15 rows in, valid, written, live and queryable", rep)
	}
	got := query(t, e, "SELECT title, description, state, toString(start_date), toString(due_date), toString(created_at) FROM gl_milestone FINAL ORDER BY id")
	want := [][]any{
		{"v1", "first \"one\"\nwith a newline", "active", "2024-01-02", nil, "2024-01-02 03:04:05"},
		{"v2, comma", "", "closed", nil, nil, "2024-02-03 04:05:06"},
		{"", "", "active", nil, nil, nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("milestones (-want +got):\n%s", diff)
	}
	got = query(t, e, "SELECT id, content FROM gl_file FINAL ORDER BY id")
	want = [][]any{{int64(200), "package pkg\n\nfunc A() { B() }\n"}, {int64(201), nil}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	// Edges land in both edge tables.
	for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
		got := query(t, e, "SELECT relationship_kind, count() FROM "+table+" FINAL WHERE _deleted = false GROUP BY ALL ORDER BY ALL")
		want := [][]any{{"CALLS", int64(1)}, {"CONTAINS", int64(3)}, {"DEFINES", int64(2)}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", table, diff)
		}
	}
	st, err := loadstate.Check(t.Context(), e, o)
	if err != nil || st.Source != "load" || st.Nodes != 9 || st.Edges != 6 {
		t.Errorf("load record = %+v, %v; want complete load of 9 nodes and 6 edges", st, err)
	}
	// Loading the same files again changes nothing and writes no row.
	before := graphDump(t, e)
	var calls []load.Progress
	rep, err = load.Load(t.Context(), e, o, fixture(t), load.Options{Progress: func(p load.Progress) { calls = append(calls, p) }})
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, calls, fixture(t), rep.RowsIn)
	if rep.Written != 0 || rep.Unchanged != 15 || rep.Queryable != 15 {
		t.Errorf("reload report = %+v, want 0 written, 15 unchanged and queryable", rep)
	}
	if diff := cmp.Diff(before, graphDump(t, e)); diff != "" {
		t.Errorf("reload changed the graph (-before +after):\n%s", diff)
	}
	if n := query(t, e, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND startsWith(name, 'gw_stage_')"); n[0][0] != int64(0) {
		t.Errorf("%v staging tables left", n[0][0])
	}
}

func TestUpsertAndDelete(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, dir, "Milestone.jsonl",
		`{"id": 1, "traversal_path": "1/10/", "iid": 1, "title": "renamed", "state": "closed"}`+"\n"+
			`{"id": 2, "traversal_path": "1/10/", "_deleted": true}`+"\n"+
			`{"id": 3, "traversal_path": "1/11/", "title": "stale", "state": "active", "_version": 1}`+"\n")
	write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "_deleted": true}`+"\n")
	rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: filepath.Join(dir, "Milestone.jsonl")}, {Path: filepath.Join(dir, "CALLS.jsonl")}}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := query(t, e, "SELECT id, title, state FROM gl_milestone FINAL WHERE _deleted = false ORDER BY id")
	// Row 3 carries _version 1, the version it already has: equal versions keep the row
	// written last, so its title changes too.
	want := [][]any{{int64(1), "renamed", "closed"}, {int64(3), "stale", "active"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("milestones (-want +got):\n%s", diff)
	}
	for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
		if n := query(t, e, "SELECT count() FROM "+table+" FINAL WHERE _deleted = false AND relationship_kind = 'CALLS'"); n[0][0] != int64(0) {
			t.Errorf("%s: %v CALLS edges after the delete, want 0", table, n[0][0])
		}
	}
	if rep.Written != 4 || rep.Live != 2 || rep.Queryable != 2 {
		t.Errorf("report = %+v, want 4 written, 2 live and queryable", rep)
	}
}

// TestNewKeys loads rows whose keys the graph does not hold into tables that hold other rows:
// they need no comparing with the graph, every live row is written, and a tombstone of a
// key the graph never held writes nothing.
func TestNewKeys(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srcs := []load.Source{
		{Path: write(t, dir, "Milestone.jsonl",
			`{"id": 50, "traversal_path": "1/20/", "title": "new", "state": "active"}`+"\n"+
				`{"id": 51, "traversal_path": "1/20/", "_deleted": true}`+"\n")},
		// CONTAINS joins its ends on id alone, so the fixture's directories under 1/10/ are
		// ends of an edge under 1/20/ (a CALLS edge would need its ends under 1/20/).
		{Path: write(t, dir, "CONTAINS.jsonl",
			`{"traversal_path": "1/20/", "source_kind": "Directory", "source_id": 100, "target_kind": "Directory", "target_id": 100}`+"\n"+
				`{"traversal_path": "1/20/", "source_kind": "Directory", "source_id": 101, "target_kind": "Directory", "target_id": 100, "_deleted": true}`+"\n")},
	}
	rep, err := load.Load(t.Context(), e, o, srcs, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Written != 2 || rep.Unchanged != 2 || rep.Live != 2 || rep.Queryable != 2 {
		t.Errorf("report = %+v, want 2 written, 2 unchanged, 2 live and queryable", rep)
	}
	got := query(t, e, "SELECT id, title, _deleted FROM gl_milestone WHERE traversal_path = '1/20/' ORDER BY id")
	if diff := cmp.Diff([][]any{{int64(50), "new", false}}, got); diff != "" {
		t.Errorf("milestones under 1/20/ (-want +got):\n%s", diff)
	}
	for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
		got := query(t, e, "SELECT source_id, target_id, _deleted FROM "+table+" WHERE traversal_path = '1/20/' ORDER BY ALL")
		if diff := cmp.Diff([][]any{{int64(100), int64(100), false}}, got); diff != "" {
			t.Errorf("%s under 1/20/ (-want +got):\n%s", table, diff)
		}
	}
}

func write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRoundTrip loads the fixture, exports it in each format, loads the export into an empty
// database and exports again: the graphs are equal and the second export is byte for byte the
// first.
func TestRoundTrip(t *testing.T) {
	o := ont(t)
	path := t.TempDir()
	first := openAt(t, path, "first")
	if _, err := load.Load(t.Context(), first, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	want := graphDump(t, first)
	for _, f := range load.Formats {
		t.Run(string(f), func(t *testing.T) {
			a, b := t.TempDir(), t.TempDir()
			files, err := load.Export(t.Context(), first, o, a, load.ExportOptions{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			if len(files) != 7 {
				t.Fatalf("exported %d files, want 7: %+v", len(files), files)
			}
			second := openAt(t, path, "second_"+string(f))
			var srcs []load.Source
			for _, fr := range files {
				srcs = append(srcs, load.Source{Path: fr.Path})
			}
			if _, err := load.Load(t.Context(), second, o, srcs, load.Options{}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, graphDump(t, second)); diff != "" {
				t.Errorf("graph after load → export → load (-want +got):\n%s", diff)
			}
			again, err := load.Export(t.Context(), second, o, b, load.ExportOptions{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			if len(again) != len(files) {
				t.Fatalf("second export wrote %d files, first %d", len(again), len(files))
			}
			for i := range files {
				x, err1 := os.ReadFile(files[i].Path)
				y, err2 := os.ReadFile(again[i].Path)
				if err := errors.Join(err1, err2); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(x, y) {
					t.Errorf("%s: second export differs from the first", filepath.Base(files[i].Path))
				}
			}
		})
	}
}

func TestValidation(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	before := graphDump(t, e)
	dir := t.TempDir()
	tests := []struct {
		name, file, content string
		want                []load.Issue // File is filled in
	}{
		{
			name: "unknown property", file: "Milestone.jsonl",
			content: `{"id": 9, "traversal_path": "1/10/", "colour": "red"}` + "\n",
			want:    []load.Issue{{Row: -1, Column: "colour", Err: load.ErrUnknownProperty}},
		},
		{
			name: "missing id column", file: "Milestone.csv",
			content: "traversal_path,title\n1/10/,x\n",
			want:    []load.Issue{{Row: -1, Column: "id", Err: load.ErrMissing}},
		},
		{
			name: "bad values", file: "Milestone.jsonl",
			content: `{"id": 9, "traversal_path": "1/10/", "state": "open"}` + "\n" +
				`{"id": "x", "traversal_path": "1/10/", "iid": 1.5}` + "\n" +
				`{"id": 10, "traversal_path": "acme/", "start_date": "yesterday"}` + "\n" +
				`{"id": null, "traversal_path": "1/10/"}` + "\n",
			want: []load.Issue{
				{Row: 0, Line: 1, Column: "state", Value: "open", Err: load.ErrEnum},
				{Row: 1, Line: 2, Column: "id", Value: "x", Err: load.ErrType},
				{Row: 1, Line: 2, Column: "iid", Value: "1.5", Err: load.ErrType},
				{Row: 2, Line: 3, Column: "start_date", Value: "yesterday", Err: load.ErrType},
				{Row: 2, Line: 3, Column: "traversal_path", Value: "acme/", Err: load.ErrPath},
				{Row: 3, Line: 4, Column: "id", Err: load.ErrMissing},
			},
		},
		{
			name: "bad edges", file: "CALLS.csv",
			content: "traversal_path,source_kind,source_id,target_kind,target_id\n" +
				"1/10/,Definition,300,Definition,301\n" +
				"1/10/,Definition,300,Definition,999\n" +
				"1/10/,File,200,Milestone,1\n",
			want: []load.Issue{
				{Row: 1, Line: 3, Column: "target_id", Value: "999", Err: load.ErrDangling, Detail: "Definition 999 is neither in the load nor in the graph under 1/10/"},
				{Row: 2, Line: 4, Column: "source_kind", Value: "File", Err: load.ErrPair},
			},
		},
		{
			// Ids are checked per kind: 100 is a Directory and 200 a File, not the other way round.
			name: "endpoints of several kinds", file: "CONTAINS.jsonl",
			content: `{"traversal_path": "1/10/", "source_kind": "Directory", "source_id": 100, "target_kind": "File", "target_id": 200}` + "\n" +
				`{"traversal_path": "1/10/", "source_kind": "Directory", "source_id": 200, "target_kind": "File", "target_id": 100}` + "\n" +
				`{"traversal_path": "1/10/", "source_kind": "Directory", "source_id": 101, "target_kind": "Directory", "target_id": 100}` + "\n",
			want: []load.Issue{
				{Row: 1, Line: 2, Column: "source_id", Value: "200", Err: load.ErrDangling, Detail: "Directory 200 is neither in the load nor in the graph"},
				{Row: 1, Line: 2, Column: "target_id", Value: "100", Err: load.ErrDangling, Detail: "File 100 is neither in the load nor in the graph"},
			},
		},
		{
			// A row may fail several checks of one column; they come in a fixed order.
			name: "no source kind", file: "CALLS.jsonl",
			content: `{"traversal_path": "1/10/", "source_kind": null, "source_id": 300, "target_kind": "Definition", "target_id": 301}` + "\n",
			want: []load.Issue{
				{Row: 0, Line: 1, Column: "source_kind", Err: load.ErrMissing},
				{Row: 0, Line: 1, Column: "source_kind", Err: load.ErrPair},
			},
		},
		{
			name: "unknown type", file: "Widget.jsonl", content: "{}\n",
			want: []load.Issue{{Row: -1, Column: "-", Value: "Widget", Err: load.ErrUnknownType}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, dir, tt.file, tt.content)
			_, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
			var ve *load.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			for i := range tt.want {
				tt.want[i].File = p
			}
			if diff := cmp.Diff(tt.want, ve.Issues, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })); diff != "" {
				t.Errorf("issues (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, graphDump(t, e)); diff != "" {
				t.Errorf("a refused load changed the graph:\n%s", diff)
			}
		})
	}
	// With SkipInvalid the valid rows load and each skipped row is reported.
	p := write(t, dir, "CALLS.csv", tests[3].content) // bad edges
	rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsIn != 3 || rep.Invalid != 2 || len(rep.Skipped) != 2 || rep.Unchanged != 1 {
		t.Errorf("report = %+v, want 3 rows in, 2 invalid and skipped, 1 unchanged", rep)
	}
	if !slices.EqualFunc(rep.Skipped, []load.Issue{{Row: 1}, {Row: 2}}, func(a, b load.Issue) bool { return a.Row == b.Row }) {
		t.Errorf("skipped = %+v", rep.Skipped)
	}
}

// TestTrace: with a logger that takes debug records, every engine statement of a load is
// logged with its time, the schema, the staging and the attach alike.
func TestTrace(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{Logger: log}); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for line := range strings.Lines(buf.String()) {
		var rec struct {
			Msg        string
			SQL        string
			Seconds    *float64
			CPUSeconds *float64 `json:"cpu_seconds"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Msg != "load_statement" {
			continue
		}
		if rec.Seconds == nil || *rec.Seconds < 0 || (runtime.GOOS == "linux" && rec.CPUSeconds == nil) {
			t.Errorf("statement record without its times: %s", line)
		}
		for _, prefix := range []string{"CREATE TABLE IF NOT EXISTS gl_edge", "DESCRIBE file(", "INSERT INTO gw_load_state", "ALTER TABLE gl_edge ATTACH PARTITION"} {
			if strings.HasPrefix(rec.SQL, prefix) {
				seen[prefix] = true
			}
		}
	}
	if len(seen) != 4 {
		t.Errorf("traced statements starting with %v, want the schema, the file reads, the load record and the attach", slices.Sorted(maps.Keys(seen)))
	}
}

// TestSchemaOnce: a load creates the schema when a table of it is missing and runs no CREATE
// statement when every table exists; its version is one above the highest in the graph,
// whichever table holds it.
func TestSchemaOnce(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	run := func(srcs []load.Source) (rep load.Report, creates int) {
		t.Helper()
		var buf bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
		rep, err := load.Load(t.Context(), e, o, srcs, load.Options{Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(buf.String()) {
			var rec struct{ Msg, SQL string }
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			if rec.Msg == "load_statement" && strings.HasPrefix(rec.SQL, "CREATE") && strings.Contains(rec.SQL, " IF NOT EXISTS ") {
				creates++
			}
		}
		return rep, creates
	}
	first, n := run(fixture(t))
	if want := len(o.DDLStatements()); n != want {
		t.Errorf("first load: %d CREATE … IF NOT EXISTS statements, want %d", n, want)
	}
	dir := t.TempDir()
	// The highest version of the graph is now in the edge table only.
	edge := write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 300, "_version": 100}`+"\n")
	if _, n := run([]load.Source{{Path: edge}}); n != 0 {
		t.Errorf("load into a database with every table: %d CREATE statements, want none", n)
	}
	milestone := write(t, dir, "Milestone.jsonl", `{"id": 7, "traversal_path": "1/10/", "title": "next", "state": "active"}`+"\n")
	if rep, _ := run([]load.Source{{Path: milestone}}); rep.Version != 101 {
		t.Errorf("version after an edge of version 100 = %d (first load %d), want 101", rep.Version, first.Version)
	}
	if err := e.Exec(t.Context(), "DROP TABLE gl_label SYNC"); err != nil {
		t.Fatal(err)
	}
	if _, n := run([]load.Source{{Path: milestone}}); n != len(o.DDLStatements()) {
		t.Errorf("load into a database without gl_label: %d CREATE statements, want %d", n, len(o.DDLStatements()))
	}
	if got := query(t, e, "SELECT count() FROM system.tables WHERE database = currentDatabase() AND name = 'gl_label'"); got[0][0] != int64(1) {
		t.Errorf("gl_label after the load: %v tables, want 1", got[0][0])
	}
}

// TestStagingPerFile: once a file is staged, its raw rows are no longer held; a load keeps
// one file's raw rows at a time.
func TestStagingPerFile(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	var staged int
	opts := load.Options{Checkpoint: func(step string) {
		if !strings.HasPrefix(step, "staged ") {
			return
		}
		staged++
		got := query(t, e, "SELECT name FROM system.tables WHERE database = currentDatabase() AND match(name, '^gw_stage_[0-9a-f]+_(raw|bad)[0-9]+$')")
		if len(got) != 0 {
			t.Errorf("at %q: raw staging tables %v, want none", step, got)
		}
	}}
	if _, err := load.Load(t.Context(), e, o, fixture(t), opts); err != nil {
		t.Fatal(err)
	}
	if staged != len(fixture(t)) {
		t.Errorf("%d files staged, want %d", staged, len(fixture(t)))
	}
}

// checkProgress checks the calls of Options.Progress of a load of srcs that read rows rows:
// one before the first file, one after each file, one when done.
func checkProgress(t *testing.T, calls []load.Progress, srcs []load.Source, rows int64) {
	t.Helper()
	var size int64
	for _, s := range srcs {
		fi, err := os.Stat(s.Path)
		if err != nil {
			t.Fatal(err)
		}
		size += fi.Size()
	}
	if len(calls) != len(srcs)+2 {
		t.Fatalf("%d progress calls, want %d: %+v", len(calls), len(srcs)+2, calls)
	}
	for i, p := range calls {
		files := min(i, len(srcs))
		if p.Files != files || p.TotalFiles != len(srcs) || p.TotalBytes != size || p.Done != (i == len(calls)-1) {
			t.Errorf("call %d = %+v, want %d of %d files, %d bytes in all, done %v", i, p, files, len(srcs), size, i == len(calls)-1)
		}
		if i > 0 && (p.Rows < calls[i-1].Rows || p.Bytes < calls[i-1].Bytes || p.Elapsed < calls[i-1].Elapsed) {
			t.Errorf("call %d = %+v goes back from %+v", i, p, calls[i-1])
		}
	}
	if last := calls[len(calls)-1]; last.Rows != rows || last.Bytes != size || last.ETA() != 0 {
		t.Errorf("last call = %+v, want %d rows and every byte, no ETA", last, rows)
	}
}

func ontLoad() (*ontology.Ontology, error) { return ontology.Load(ontologyfiles.Files()) }

// TestExportUnknownType: a type the ontology does not have is refused before any file is
// written, so a typo in a list of types does not leave a partial export behind.
func TestExportUnknownType(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "graph")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := load.Export(t.Context(), e, o, dir, load.ExportOptions{Types: []string{"File", "Nope"}})
	if !errors.Is(err, load.ErrUnknownType) || !strings.Contains(err.Error(), `"Nope"`) {
		t.Fatalf("Export(File, Nope) = %v, want %v naming Nope", err, load.ErrUnknownType)
	}
	written, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 0 || len(written) != 0 {
		t.Errorf("Export wrote %v (reported %+v), want nothing", written, files)
	}
}

// TestDeleteNodeWithItsEdges deletes a node and tombstones the edges that end at it in one
// load. A tombstone hides a row; it needs no live end, so the endpoint check must not refuse
// it because the same load deletes that end (it did: "edge endpoint exists neither in the
// load nor in the graph").
func TestDeleteNodeWithItsEdges(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	srcs := []load.Source{
		{Path: write(t, dir, "Definition.jsonl", `{"id": 301, "traversal_path": "1/10/", "_deleted": true}`+"\n")},
		{Path: write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "_deleted": true}`+"\n")},
		{Path: write(t, dir, "DEFINES.csv", "traversal_path,source_kind,source_id,target_kind,target_id,_deleted\n1/10/,File,201,Definition,301,true\n")},
	}
	rep, err := load.Load(t.Context(), e, o, srcs, load.Options{})
	if err != nil {
		t.Fatalf("deleting Definition 301 with its edges: %v", err)
	}
	if rep.Deleted != 3 || rep.Written != 3 {
		t.Errorf("deleted, written = %d, %d; want the 3 tombstones counted in both", rep.Deleted, rep.Written)
	}
	if got := query(t, e, "SELECT count() FROM gl_definition FINAL WHERE _deleted = false AND id = 301"); got[0][0] != int64(0) {
		t.Errorf("Definition 301 still live")
	}
	for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
		got := query(t, e, "SELECT count() FROM "+table+" FINAL WHERE _deleted = false AND (source_id = 301 OR target_id = 301) AND target_kind = 'Definition'")
		if got[0][0] != int64(0) {
			t.Errorf("%s: %v live edges still end at Definition 301", table, got[0][0])
		}
	}
	// A live edge to the deleted node is still refused.
	live := []load.Source{{Path: write(t, t.TempDir(), "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301}`+"\n")}}
	if _, err := load.Load(t.Context(), e, o, live, load.Options{}); !errors.Is(err, load.ErrDangling) {
		t.Errorf("a live edge to the deleted node: %v, want ErrDangling", err)
	}
}

// TestLoadWinnerDecides: when one load holds a live row and a tombstone for the same key, the
// row that wins the key (the highest _version, then the last row) decides both what the graph
// holds afterwards and whether an edge may end at the node.
func TestLoadWinnerDecides(t *testing.T) {
	o := ont(t)
	const b = `"traversal_path": "1/10/", "name": "B", "fqn": "pkg.B", "definition_type": "Function", "file_path": "pkg/b.go", "start_line": 3, "end_line": 3, "commit_sha": "abc", "branch": "main", "project_id": 10`
	def := func(id int, extra string) string {
		if id == 301 {
			return `{"id": 301, ` + b + extra + "}\n"
		}
		return fmt.Sprintf(`{"id": %d, "traversal_path": "1/10/", "name": "N%d", "fqn": "pkg.N%d", "definition_type": "Function", "file_path": "pkg/n.go"%s}`+"\n", id, id, id, extra)
	}
	const dead = `, "_deleted": true`
	call := func(to int, extra string) string {
		return fmt.Sprintf(`{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": %d%s}`+"\n", to, extra)
	}
	for _, c := range []struct {
		name  string
		files [][2]string // name, content
		id    int         // the node whose state is checked
		live  bool        // whether it is live afterwards
		edge  bool        // whether the load carries a live CALLS 300 -> id (refused when the node ends deleted)
	}{
		{"graph node, live then tombstone", [][2]string{{"Definition.jsonl", def(301, "") + def(301, dead)}}, 301, false, true},
		{"graph node, changed then tombstone", [][2]string{{"Definition.jsonl", strings.Replace(def(301, ""), `"end_line": 3`, `"end_line": 9`, 1) + def(301, dead)}}, 301, false, true},
		{"graph node, tombstone then unchanged", [][2]string{{"Definition.jsonl", def(301, dead) + def(301, "")}}, 301, true, true},
		{"graph node, higher version tombstone first", [][2]string{{"Definition.jsonl", def(301, `, "_version": 1000000002`+dead) + def(301, `, "_version": 1000000001`)}}, 301, false, true},
		{"new node, live then tombstone", [][2]string{{"Definition.jsonl", def(900, "") + def(900, dead)}}, 900, false, false},
		{"new node, live then tombstone, with an edge", [][2]string{{"Definition.jsonl", def(900, "") + def(900, dead)}}, 900, false, true},
		{"new node, tombstone then live, with an edge", [][2]string{{"Definition.jsonl", def(901, dead) + def(901, "")}}, 901, true, true},
		{"new node, live and tombstone in two files", [][2]string{{"Definition.jsonl", def(902, "")}, {"gl_definition.jsonl", def(902, dead)}}, 902, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openAt(t, t.TempDir(), "")
			if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			var srcs []load.Source
			for _, f := range c.files {
				srcs = append(srcs, load.Source{Path: write(t, dir, f[0], f[1])})
			}
			if c.edge {
				srcs = append(srcs, load.Source{Path: write(t, dir, "CALLS.jsonl", call(c.id, ""))})
			}
			_, err := load.Load(t.Context(), e, o, srcs, load.Options{})
			if c.edge && !c.live {
				if !errors.Is(err, load.ErrDangling) {
					t.Fatalf("a live edge to a node the load deletes: %v, want ErrDangling", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := query(t, e, fmt.Sprintf("SELECT count() FROM gl_definition FINAL WHERE _deleted = false AND id = %d", c.id))
			if live := got[0][0] == int64(1); live != c.live {
				t.Errorf("Definition %d live = %v, want %v", c.id, live, c.live)
			}
			if c.edge {
				got := query(t, e, fmt.Sprintf("SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'CALLS' AND target_id = %d", c.id))
				if got[0][0] != int64(1) {
					t.Errorf("the edge to Definition %d: %v live rows, want 1", c.id, got[0][0])
				}
			}
		})
	}
	t.Run("edge, live then tombstone", func(t *testing.T) {
		e := openAt(t, t.TempDir(), "")
		if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
			t.Fatal(err)
		}
		back := `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 300, "_version": 1000000001`
		src := load.Source{Path: write(t, t.TempDir(), "CALLS.jsonl", back+"}\n"+back+dead+"}\n")}
		if _, err := load.Load(t.Context(), e, o, []load.Source{src}, load.Options{}); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
			if got := query(t, e, "SELECT count() FROM "+table+" FINAL WHERE _deleted = false AND relationship_kind = 'CALLS' AND source_id = 301 AND target_id = 300"); got[0][0] != int64(0) {
				t.Errorf("%s: the edge the load deletes last is live", table)
			}
		}
	})
}

// TestExportLeavesOutUnreachableEdges: a load may delete a node and leave its edges live (no
// query shows them). Export leaves those edges out and counts them, so that what it writes
// loads into an empty graph, which would refuse them as dangling.
func TestExportLeavesOutUnreachableEdges(t *testing.T) {
	o := ont(t)
	path := t.TempDir()
	e := openAt(t, path, "first")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	del := load.Source{Path: write(t, t.TempDir(), "Definition.jsonl", `{"id": 301, "traversal_path": "1/10/", "_deleted": true}`+"\n")}
	if _, err := load.Load(t.Context(), e, o, []load.Source{del}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range load.Formats {
		t.Run(string(f), func(t *testing.T) {
			files, err := load.Export(t.Context(), e, o, t.TempDir(), load.ExportOptions{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			gone := map[string]int64{}
			var srcs []load.Source
			for _, fr := range files {
				gone[fr.Type] = fr.Unreachable
				srcs = append(srcs, load.Source{Path: fr.Path})
			}
			// The fixture's CALLS 300 -> 301 and DEFINES 201 -> 301 end at the deleted node.
			if want := map[string]int64{"CALLS": 1, "DEFINES": 1}; gone["CALLS"] != want["CALLS"] || gone["DEFINES"] != want["DEFINES"] || gone["CONTAINS"] != 0 {
				t.Errorf("edges left out per type = %v, want %v", gone, want)
			}
			second := openAt(t, path, "second_"+string(f))
			if _, err := load.Load(t.Context(), second, o, srcs, load.Options{}); err != nil {
				t.Fatalf("loading the export into an empty graph: %v", err)
			}
			// The first graph's rows but the two edges to Definition 301.
			want := slices.DeleteFunc(graphDump(t, e), func(r []any) bool {
				return len(r) > 5 && r[4] == "Definition" && r[5] == int64(301)
			})
			if diff := cmp.Diff(want, graphDump(t, second)); diff != "" {
				t.Errorf("the graph after export → load (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRekeyOldEdgeTables: a graph whose edge tables were created in the earlier sorting key
// (traversal_path first) is rebuilt in the current one with every row, versions and
// tombstones too; it answers the same, the view still fills the by-target table, and a
// second run finds nothing to do.
func TestRekeyOldEdgeTables(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	for _, stmt := range o.DDLStatements() {
		for _, table := range []string{o.EdgeTable, o.EdgeTableByTarget} {
			if strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS "+table+"\n") {
				// The key order before this change: traversal_path first.
				ends := strings.TrimSuffix(strings.TrimPrefix(o.EdgeSortingKey(table), "relationship_kind, "), ", traversal_path")
				stmt = strings.Replace(stmt, "ORDER BY (relationship_kind, "+ends+", traversal_path)\nPRIMARY KEY (relationship_kind, "+ends+")",
					"ORDER BY (traversal_path, relationship_kind, "+ends+")\nPRIMARY KEY (traversal_path, relationship_kind, "+ends+")", 1)
			}
		}
		if err := e.Exec(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	del := load.Source{Path: write(t, t.TempDir(), "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "_deleted": true}`+"\n")}
	if _, err := load.Load(t.Context(), e, o, []load.Source{del}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	old, err := loadstate.OldEdgeKeys(t.Context(), e, o)
	if err != nil || len(old) != 2 {
		t.Fatalf("old edge keys before: %v, %v; want both tables", old, err)
	}
	raw := func() [][]any {
		var out [][]any
		for _, table := range []string{o.EdgeTable, o.EdgeTableByTarget} {
			out = append(out, query(t, e, "SELECT * FROM "+table+" FINAL ORDER BY ALL")...)
		}
		return out
	}
	wantRaw, wantLive := raw(), graphDump(t, e)
	var all [][]any
	for _, table := range []string{o.EdgeTable, o.EdgeTableByTarget} {
		all = append(all, query(t, e, "SELECT * FROM "+table)...)
	}
	done, err := loadstate.RekeyEdges(t.Context(), e, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done[0].Rows+done[1].Rows != int64(len(all)) {
		t.Errorf("rekeyed %+v, want both tables with %d rows in all", done, len(all))
	}
	for _, table := range []string{o.EdgeTable, o.EdgeTableByTarget} {
		if got := query(t, e, "SELECT count() FROM system.parts WHERE database = currentDatabase() AND active AND table = '"+table+"'"); got[0][0] != uint64(1) && got[0][0] != int64(1) {
			t.Errorf("%s: %v active parts after the rebuild, want 1 (merged)", table, got[0][0])
		}
	}
	if old, err := loadstate.OldEdgeKeys(t.Context(), e, o); err != nil || len(old) != 0 {
		t.Errorf("old edge keys after: %v, %v; want none", old, err)
	}
	if diff := cmp.Diff(wantRaw, raw()); diff != "" {
		t.Errorf("edge rows a FINAL read returns (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantLive, graphDump(t, e)); diff != "" {
		t.Errorf("live graph (-before +after):\n%s", diff)
	}
	back := load.Source{Path: write(t, t.TempDir(), "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 300}`+"\n")}
	if _, err := load.Load(t.Context(), e, o, []load.Source{back}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := query(t, e, "SELECT count() FROM "+o.EdgeTableByTarget+" FINAL WHERE _deleted = false AND source_id = 301 AND target_id = 300"); got[0][0] != uint64(1) && got[0][0] != int64(1) {
		t.Errorf("an edge loaded after the rebuild is not in %s: %v", o.EdgeTableByTarget, got)
	}
	if again, err := loadstate.RekeyEdges(t.Context(), e, o); err != nil || len(again) != 0 {
		t.Errorf("second run: %+v, %v; want nothing to do", again, err)
	}
}

// TestShadowedRowIsNoEndpoint: with SkipInvalid a row that loses to a higher _version in the
// graph is written but changes nothing, so a node the graph holds deleted at a higher
// _version stays deleted, and an edge to it is dangling. The endpoint check read the graph's
// versions with FINAL, which hides tombstones: it took the losing live row for the node and
// let the load write a live edge to a deleted node.
func TestShadowedRowIsNoEndpoint(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The node and the fixture's edge to it deleted, at a high _version.
	gone := `{"id": 301, "traversal_path": "1/10/", "_deleted": true, "_version": 2000000000}` + "\n"
	call := `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301}` + "\n"
	goneCall := strings.Replace(call, "}", `, "_deleted": true}`, 1)
	if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: write(t, dir, "Definition.jsonl", gone)}, {Path: write(t, dir, "CALLS.jsonl", goneCall)}}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	back := `{"id": 301, "traversal_path": "1/10/", "name": "B", "fqn": "pkg.B", "definition_type": "Function", "file_path": "pkg/b.go", "_version": 1500000000}` + "\n"
	srcs := []load.Source{{Path: write(t, dir, "Definition.jsonl", back)}, {Path: write(t, dir, "CALLS.jsonl", call)}}
	if _, err := load.Load(t.Context(), e, o, srcs, load.Options{}); !errors.Is(err, load.ErrShadowed) && !errors.Is(err, load.ErrDangling) {
		t.Fatalf("without SkipInvalid: %v, want the load refused", err)
	}
	rep, err := load.Load(t.Context(), e, o, srcs, load.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shadowed != 1 || rep.Invalid != 1 {
		t.Errorf("shadowed %d, invalid %d; want 1 and 1 (the node's row loses, its edge is dangling)", rep.Shadowed, rep.Invalid)
	}
	if got := query(t, e, "SELECT count() FROM gl_definition FINAL WHERE _deleted = false AND id = 301"); got[0][0] != int64(0) {
		t.Errorf("Definition 301 is live after a row that lost to its tombstone")
	}
	if got := query(t, e, "SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'CALLS' AND target_id = 301"); got[0][0] != int64(0) {
		t.Errorf("a live CALLS edge ends at the deleted Definition 301")
	}
}

// TestLoadLastRowDecidesData: of two live rows of one key in a load, the later decides the
// node's data even when it equals the graph's row and so changes nothing by itself: the
// earlier, changed row was written and won at the load's _version.
func TestLoadLastRowDecidesData(t *testing.T) {
	o := ont(t)
	def := func(id int, name string) string {
		return fmt.Sprintf(`{"id": %d, "traversal_path": "1/10/", "name": %q, "fqn": "pkg.N", "definition_type": "Function", "file_path": "pkg/n.go"}`+"\n", id, name)
	}
	call := func(project int) string {
		return fmt.Sprintf(`{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 900, "target_kind": "Definition", "target_id": 901, "project_id": %d}`+"\n", project)
	}
	e := openAt(t, t.TempDir(), "")
	dir := t.TempDir()
	if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: write(t, dir, "Definition.jsonl", def(900, "A")+def(901, "A"))}, {Path: write(t, dir, "CALLS.jsonl", call(1))}}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, nodes, edges, want string }{
		{"changed then unchanged", def(900, "B") + def(900, "A"), call(2) + call(1), "A 1"},
		{"unchanged then changed", def(900, "A") + def(900, "C"), call(1) + call(3), "C 3"},
		{"two files", def(900, "D") + def(900, "E"), call(4) + call(5), "E 5"},
		{"changed then unchanged again", def(900, "F") + def(900, "E"), call(6) + call(5), "E 5"},
	} {
		dir := t.TempDir()
		srcs := []load.Source{{Path: write(t, dir, "Definition.jsonl", c.nodes)}, {Path: write(t, dir, "CALLS.jsonl", c.edges)}}
		if c.name == "two files" {
			lines := strings.SplitAfter(c.nodes, "\n")
			srcs = []load.Source{{Path: write(t, dir, "Definition.jsonl", lines[0])}, {Path: write(t, dir, "gl_definition.jsonl", lines[1])}, {Path: write(t, dir, "CALLS.jsonl", c.edges)}}
		}
		if _, err := load.Load(t.Context(), e, o, srcs, load.Options{}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		name := query(t, e, "SELECT name FROM gl_definition FINAL WHERE _deleted = false AND id = 900")
		project := query(t, e, "SELECT project_id FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'CALLS' AND source_id = 900")
		if len(name) != 1 || len(project) != 1 {
			t.Fatalf("%s: rows %v, %v", c.name, name, project)
		}
		if got := fmt.Sprint(name[0][0], " ", project[0][0]); got != c.want {
			t.Errorf("%s: name and edge project %q, want %q (the last row)", c.name, got, c.want)
		}
	}
}
