package load_test

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/load"
)

// TestVersionLimits: an explicit _version above load.MaxVersion is refused with its file, row
// and column; one at the ceiling loads, and every later load still updates and deletes (the
// issue's 2^64-1 row made every later load run at version 0, so renames and tombstones were
// reported written but lost).
func TestVersionLimits(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, v := range []string{"18446744073709551615", strconv.FormatUint(load.MaxVersion+1, 10)} {
		p := write(t, dir, "Milestone.jsonl", `{"id": 1, "traversal_path": "1/10/", "title": "ok", "state": "active"}`+"\n"+
			`{"id": 900, "traversal_path": "1/10/", "title": "huge", "state": "active", "_version": `+v+`}`+"\n")
		_, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
		var ve *load.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("_version %s: err = %v, want a *ValidationError", v, err)
		}
		want := []load.Issue{{File: p, Row: 1, Line: 2, Column: "_version", Value: v, Err: load.ErrVersion}}
		if diff := cmp.Diff(want, ve.Issues, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })); diff != "" {
			t.Errorf("_version %s: issues (-want +got):\n%s", v, diff)
		}
	}
	ceiling := strconv.FormatUint(load.MaxVersion, 10)
	p := write(t, dir, "Milestone.jsonl", `{"id": 900, "traversal_path": "1/10/", "title": "top", "state": "active", "_version": `+ceiling+`}`+"\n")
	if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	// A rename and a tombstone of other rows after it.
	p = write(t, dir, "Milestone.jsonl", `{"id": 1, "traversal_path": "1/10/", "iid": 1, "title": "renamed", "state": "closed"}`+"\n"+
		`{"id": 2, "traversal_path": "1/10/", "_deleted": true}`+"\n")
	rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Version != load.MaxVersion+1 || rep.Written != 2 || rep.Shadowed != 0 {
		t.Errorf("report = %+v, want version %d, 2 written, none shadowed", rep, load.MaxVersion+1)
	}
	got := query(t, e, "SELECT id, title FROM gl_milestone FINAL WHERE _deleted = false AND traversal_path = '1/10/' ORDER BY id")
	if diff := cmp.Diff([][]any{{int64(1), "renamed"}, {int64(900), "top"}}, got); diff != "" {
		t.Errorf("milestones under 1/10/ (-want +got):\n%s", diff)
	}
}

// TestVersionSpace: a graph that already holds a _version no load can exceed (written by an
// older loader or by hand) refuses the next load, naming the table, instead of loading at a
// wrapped version whose rows would all lose.
func TestVersionSpace(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(t.Context(), "INSERT INTO gl_definition (id, traversal_path, name, _version) VALUES (900200, '1/10/', 'X', 18446744073709551615)"); err != nil {
		t.Fatal(err)
	}
	p := write(t, t.TempDir(), "Milestone.jsonl", `{"id": 1, "traversal_path": "1/10/", "title": "renamed", "state": "closed"}`+"\n")
	_, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
	if !errors.Is(err, load.ErrVersionSpace) {
		t.Fatalf("err = %v, want ErrVersionSpace", err)
	}
	if got := query(t, e, "SELECT title FROM gl_milestone FINAL WHERE id = 1"); !cmp.Equal(got, [][]any{{"v1"}}) {
		t.Errorf("milestone 1 = %v after a refused load, want v1", got)
	}
}

// TestShadowed: rows that would lose to a higher _version already in the graph refuse the
// load (nothing written); with SkipInvalid they are counted as shadowed, never as written.
func TestShadowed(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	high := write(t, dir, "Milestone.jsonl", `{"id": 1, "traversal_path": "1/10/", "title": "high", "state": "active", "_version": 1000}`+"\n")
	if _, err := load.Load(t.Context(), e, o, []load.Source{{Path: high}}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	stale := write(t, dir, "Milestone.jsonl",
		`{"id": 1, "traversal_path": "1/10/", "title": "stale", "state": "active", "_version": 999}`+"\n"+
			`{"id": 3, "traversal_path": "1/11/", "title": "new title", "state": "active"}`+"\n")
	edges := write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "_deleted": true, "_version": 0}`+"\n")
	srcs := []load.Source{{Path: stale}, {Path: edges}}
	_, err := load.Load(t.Context(), e, o, srcs, load.Options{})
	var se *load.ShadowError
	if !errors.As(err, &se) || !errors.Is(err, load.ErrShadowed) {
		t.Fatalf("err = %v, want a *ShadowError", err)
	}
	want := load.ShadowError{Count: 2, Table: "gl_milestone", Key: "('1/10/',1)", Version: 999, Stored: 1000}
	if diff := cmp.Diff(want, *se); diff != "" {
		t.Errorf("shadow error (-want +got):\n%s", diff)
	}
	titles := func() string {
		return fmt.Sprint(query(t, e, "SELECT id, title FROM gl_milestone FINAL WHERE _deleted = false ORDER BY id"),
			query(t, e, "SELECT count() FROM gl_edge FINAL WHERE _deleted = false AND relationship_kind = 'CALLS'"))
	}
	before := "[[1 high] [2 v2, comma] [3 ]] [[1]]"
	if got := titles(); got != before {
		t.Errorf("after the refused load: %s, want %s", got, before)
	}
	rep, err := load.Load(t.Context(), e, o, srcs, load.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Shadowed != 2 || rep.Written != 1 || rep.Unchanged != 0 {
		t.Errorf("report = %+v, want 2 shadowed, 1 written, 0 unchanged", rep)
	}
	if got, want := titles(), "[[1 high] [2 v2, comma] [3 new title]] [[1]]"; got != want {
		t.Errorf("after the load skipping shadowed rows: %s, want %s", got, want)
	}
}
