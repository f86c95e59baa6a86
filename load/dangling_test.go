package load_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/load"
)

// calls is a CALLS edge from Definition 300 to id in the fixture's path; extra is added to
// the object (a _version, a _deleted).
func calls(to int, extra string) string {
	return fmt.Sprintf(`{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": %d%s}`+"\n", to, extra)
}

// TestDanglingOnlyWinner: only the row that wins an edge's key in the load is checked for
// live ends. A load that deletes a node and carries a live edge to it, outdated later in the
// same load by the edge's own tombstone, deletes both; a live edge that wins its key is
// still refused, naming each of its live rows.
func TestDanglingOnlyWinner(t *testing.T) {
	o := ont(t)
	const dead = `, "_deleted": true`
	gone := `{"id": 301, "traversal_path": "1/10/", "_deleted": true}` + "\n"
	for _, c := range []struct {
		name  string
		files []string // CALLS files, in load order
		skip  bool
	}{
		{"one file", []string{calls(301, "") + calls(301, dead)}, false},
		{"two files", []string{calls(301, ""), calls(301, dead)}, false},
		{"one file, skip invalid", []string{calls(301, "") + calls(301, dead)}, true},
		{"higher version tombstone first", []string{calls(301, `, "_version": 2000000001`+dead) + calls(301, `, "_version": 2000000000`)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openAt(t, t.TempDir(), "")
			if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			srcs := []load.Source{{Path: write(t, dir, "Definition.jsonl", gone)}}
			for i, f := range c.files {
				srcs = append(srcs, load.Source{Path: write(t, dir, fmt.Sprintf("c%d.jsonl", i), f), Type: "CALLS"})
			}
			rep, err := load.Load(t.Context(), e, o, srcs, load.Options{SkipInvalid: c.skip})
			if err != nil {
				t.Fatalf("deleting Definition 301 and its edge, live first: %v", err)
			}
			if rep.Invalid != 0 {
				t.Errorf("invalid = %d, want 0", rep.Invalid)
			}
			if got := query(t, e, "SELECT count() FROM gl_definition FINAL WHERE _deleted = false AND id = 301"); got[0][0] != int64(0) {
				t.Errorf("Definition 301 still live")
			}
			for _, table := range []string{"gl_edge", "gl_edge_by_target"} {
				if got := query(t, e, "SELECT count() FROM "+table+" FINAL WHERE _deleted = false AND target_id = 301 AND relationship_kind = 'CALLS'"); got[0][0] != int64(0) {
					t.Errorf("%s: the CALLS edge to Definition 301 is still live", table)
				}
			}
		})
	}
	t.Run("live edge wins", func(t *testing.T) {
		e := openAt(t, t.TempDir(), "")
		if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		srcs := []load.Source{
			{Path: write(t, dir, "Definition.jsonl", gone)},
			{Path: write(t, dir, "c0.jsonl", calls(301, "")+calls(301, dead)), Type: "CALLS"},
			{Path: write(t, dir, "c1.jsonl", calls(301, "")), Type: "CALLS"},
		}
		_, err := load.Load(t.Context(), e, o, srcs, load.Options{})
		var ve *load.ValidationError
		if !errors.As(err, &ve) || !errors.Is(err, load.ErrDangling) {
			t.Fatalf("a live edge winning its key, to a node the load deletes: %v, want ErrDangling", err)
		}
		var where []string
		for _, is := range ve.Issues {
			where = append(where, fmt.Sprintf("%s:%d:%s", is.File[strings.LastIndexByte(is.File, '/')+1:], is.Row, is.Column))
		}
		if got, want := strings.Join(where, " "), "c0.jsonl:0:target_id c1.jsonl:0:target_id"; got != want || ve.Count != 2 {
			t.Errorf("issues %q (count %d), want %q (count 2)", got, ve.Count, want)
		}
		rep, err := load.Load(t.Context(), e, o, srcs, load.Options{SkipInvalid: true})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Invalid != 2 || len(rep.Skipped) != 2 || rep.Files[1].Invalid != 1 || rep.Files[2].Invalid != 1 {
			t.Errorf("invalid %d, skipped %v, per file %d %d; want 2, 2, 1 1", rep.Invalid, rep.Skipped, rep.Files[1].Invalid, rep.Files[2].Invalid)
		}
		if got := query(t, e, "SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND target_id = 301 AND relationship_kind = 'CALLS'"); got[0][0] != int64(0) {
			t.Errorf("a dangling CALLS edge to Definition 301 is live")
		}
	})
}

// TestDeletedCountsWinningTombstones: Report.Deleted counts the keys the files' tombstones
// delete, once each: live in the graph before the load, won in the load by a tombstone that
// no higher _version in the graph outdates. A tombstone outdated by a later or higher-version
// live row of the load, a repeated tombstone and a tombstone of a key that is not live do not
// count.
func TestDeletedCountsWinningTombstones(t *testing.T) {
	o := ont(t)
	const dead = `, "_deleted": true`
	def := func(id int, extra string) string {
		return fmt.Sprintf(`{"id": %d, "traversal_path": "1/10/", "name": "B", "fqn": "pkg.B", "definition_type": "Function", "file_path": "pkg/b.go", "start_line": 3, "end_line": 3, "commit_sha": "abc", "branch": "main", "project_id": 10%s}`+"\n", id, extra)
	}
	changed := func(id int, extra string) string {
		return strings.Replace(def(id, extra), `"name": "B"`, `"name": "C"`, 1)
	}
	for _, c := range []struct {
		name        string
		before      string   // Definition rows loaded first
		defs, calls []string // files, in load order
		skip        bool
		deleted     int64
	}{
		{"tombstone then the same live row", "", []string{def(301, dead) + def(301, "")}, nil, false, 0},
		{"tombstone then a changed live row", "", []string{def(301, dead) + changed(301, "")}, nil, false, 0},
		{"tombstone, then a live row in another file", "", []string{def(301, dead), def(301, "")}, nil, false, 0},
		{"tombstone outdated by a higher version", "", []string{def(301, `, "_version": 2000000001`) + def(301, `, "_version": 2000000000`+dead)}, nil, false, 0},
		{"tombstone twice", "", []string{def(301, dead) + def(301, dead)}, nil, false, 1},
		{"tombstone in two files", "", []string{def(301, dead), def(301, dead)}, []string{calls(301, dead)}, false, 2},
		{"changed then tombstone", "", []string{changed(301, "") + def(301, dead)}, []string{calls(301, dead)}, false, 2},
		{"tombstone of a key not live", "", []string{def(999, dead)}, nil, false, 0},
		{"edge tombstone then the same live edge", "", nil, []string{calls(301, dead) + calls(301, "")}, false, 0},
		{"edge live then tombstone", "", nil, []string{calls(301, "") + calls(301, dead)}, false, 1},
		{"tombstone below the graph's version, skipped", changed(301, `, "_version": 1000`), []string{def(301, `, "_version": 999`+dead) + def(300, dead)}, nil, true, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openAt(t, t.TempDir(), "")
			if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if c.before != "" {
				if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: write(t, dir, "before.jsonl", c.before), Type: "Definition"}}, load.Options{}); err != nil {
					t.Fatal(err)
				}
			}
			var srcs []load.Source
			for i, f := range c.defs {
				srcs = append(srcs, load.Source{Path: write(t, dir, fmt.Sprintf("d%d.jsonl", i), f), Type: "Definition"})
			}
			for i, f := range c.calls {
				srcs = append(srcs, load.Source{Path: write(t, dir, fmt.Sprintf("c%d.jsonl", i), f), Type: "CALLS"})
			}
			rep, err := load.Load(t.Context(), e, o, srcs, load.Options{SkipInvalid: c.skip})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Deleted != c.deleted {
				t.Errorf("deleted = %d, want %d (written %d, shadowed %d)", rep.Deleted, c.deleted, rep.Written, rep.Shadowed)
			}
			if rep.Deleted > rep.Written {
				t.Errorf("deleted %d > written %d", rep.Deleted, rep.Written)
			}
		})
	}
}

// TestDanglingSaysWhy: a dangling end's issue says why the end is no live node: deleted by
// this load (with the file and row of the tombstone), deleted in the graph, or unknown.
func TestDanglingSaysWhy(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gone := write(t, dir, "Definition.jsonl", `{"id": 300, "traversal_path": "1/10/"}`+"\n"+`{"id": 301, "traversal_path": "1/10/", "_deleted": true}`+"\n")
	detail := func(srcs []load.Source) string {
		t.Helper()
		_, err := load.Load(t.Context(), e, o, srcs, load.Options{})
		var ve *load.ValidationError
		if !errors.As(err, &ve) || len(ve.Issues) != 1 || !errors.Is(ve.Issues[0].Err, load.ErrDangling) {
			t.Fatalf("err = %v, want one dangling end", err)
		}
		if !strings.Contains(err.Error(), ve.Issues[0].Detail) {
			t.Errorf("message %q does not say %q", err, ve.Issues[0].Detail)
		}
		return ve.Issues[0].Detail
	}
	edge := load.Source{Path: write(t, dir, "CALLS.jsonl", calls(301, "")), Type: "CALLS"}
	if got, want := detail([]load.Source{{Path: gone}, edge}), "Definition 301 is deleted by this load at "+gone+":2 (row 1)"; got != want {
		t.Errorf("deleted by the load: %q, want %q", got, want)
	}
	tomb := load.Source{Path: write(t, dir, "CALLS-gone.jsonl", calls(301, `, "_deleted": true`)), Type: "CALLS"}
	if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: gone}, tomb}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	if got, want := detail([]load.Source{edge}), "Definition 301 is deleted in the graph"; got != want {
		t.Errorf("deleted in the graph: %q, want %q", got, want)
	}
	other := load.Source{Path: write(t, dir, "CALLS-999.jsonl", calls(999, "")), Type: "CALLS"}
	if got, want := detail([]load.Source{other}), "Definition 999 is neither in the load nor in the graph under 1/10/"; got != want {
		t.Errorf("unknown: %q, want %q", got, want)
	}
}

// TestEndsUnderTheEdgesPath: ids are unique per kind only within a path (an id may be live
// under two paths). An edge of a same_namespace type (CALLS, DEFINES, IMPORTS, EXTENDS) is
// followed only to ends live under its own traversal_path, so the load checks its ends by
// (path, id) and export leaves it out when an end is live only under another path. Other
// types join their ends on id alone: an end live under any path will do.
func TestEndsUnderTheEdgesPath(t *testing.T) {
	o := ont(t)
	path := t.TempDir()
	e := openAt(t, path, "first")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// Definition 500 and File 600 are live under 1/20/ only.
	elsewhere := []load.Source{
		{Path: write(t, dir, "Definition.jsonl", `{"id": 500, "traversal_path": "1/20/", "name": "X", "fqn": "pkg.X", "definition_type": "Function", "file_path": "pkg/x.go"}`+"\n")},
		{Path: write(t, dir, "File.jsonl", `{"id": 600, "traversal_path": "1/20/", "path": "pkg/x.go", "name": "x.go"}`+"\n")},
	}
	if _, err := load.Load(t.Context(), e, o, elsewhere, load.Options{}); err != nil {
		t.Fatal(err)
	}
	bound := load.Source{Path: write(t, dir, "CALLS.jsonl", calls(500, "")), Type: "CALLS"}
	_, err := load.Load(t.Context(), e, o, []load.Source{bound}, load.Options{})
	var ve *load.ValidationError
	if !errors.As(err, &ve) || !errors.Is(err, load.ErrDangling) {
		t.Fatalf("a CALLS edge under 1/10/ to a Definition live only under 1/20/: %v, want ErrDangling", err)
	}
	if got, want := ve.Issues[0].Detail, "Definition 500 is neither in the load nor in the graph under 1/10/"; got != want {
		t.Errorf("detail %q, want %q", got, want)
	}
	// CONTAINS joins its ends on id alone: File 600 under 1/20/ is an end for an edge under 1/10/.
	free := load.Source{Path: write(t, dir, "CONTAINS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Directory", "source_id": 101, "target_kind": "File", "target_id": 600}`+"\n")}
	if _, err := load.Load(t.Context(), e, o, []load.Source{free}, load.Options{}); err != nil {
		t.Fatalf("a CONTAINS edge to a File live under another path: %v", err)
	}
	// Definition 301 moves: live under 1/20/, deleted under 1/10/, where CALLS 300 -> 301 stays.
	move := []load.Source{
		{Path: write(t, dir, "move.jsonl", `{"id": 301, "traversal_path": "1/20/", "name": "B", "fqn": "pkg.B", "definition_type": "Function", "file_path": "pkg/b.go"}`+"\n"+
			`{"id": 301, "traversal_path": "1/10/", "_deleted": true}`+"\n"), Type: "Definition"},
		{Path: write(t, dir, "DEFINES.jsonl", `{"traversal_path": "1/10/", "source_kind": "File", "source_id": 201, "target_kind": "Definition", "target_id": 301, "_deleted": true}`+"\n")},
	}
	if _, err := load.Load(t.Context(), e, o, move, load.Options{}); err != nil {
		t.Fatal(err)
	}
	files, err := load.Export(t.Context(), e, o, t.TempDir(), load.ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gone := map[string]int64{}
	var srcs []load.Source
	for _, fr := range files {
		gone[fr.Type] = fr.Unreachable
		srcs = append(srcs, load.Source{Path: fr.Path})
	}
	if gone["CALLS"] != 1 || gone["CONTAINS"] != 0 {
		t.Errorf("edges left out per type = %v, want CALLS 1 (its end lives under another path), CONTAINS 0", gone)
	}
	second := openAt(t, path, "second")
	if _, err := load.Load(t.Context(), second, o, srcs, load.Options{}); err != nil {
		t.Fatalf("loading the export into an empty graph: %v", err)
	}
	if got := query(t, second, "SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'CONTAINS' AND target_id = 600"); got[0][0] != int64(1) {
		t.Errorf("the CONTAINS edge to File 600 did not make the round trip")
	}
}
