package load_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/load"
)

// activeParts returns the number of active parts of each table of the current database that
// has any.
func activeParts(t testing.TB, e executor.Runner) map[string]int64 {
	t.Helper()
	rows, err := e.Run(t.Context(), &compiler.Query{SQL: "SELECT table, count() FROM system.parts WHERE database = currentDatabase() AND active GROUP BY table"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range res.Rows {
		out[r[0].(string)] = r[1].(int64)
	}
	return out
}

// liveRows reads every live milestone and CALLS edge with FINAL, in key order.
func liveRows(t testing.TB, e executor.Runner) [][]any {
	t.Helper()
	rows, err := e.Run(t.Context(), &compiler.Query{SQL: "SELECT * FROM (SELECT 'm' AS k, toString(id) AS a, title AS b FROM gl_milestone FINAL WHERE NOT _deleted" +
		" UNION ALL SELECT 'e', toString(source_id), toString(target_id) FROM gl_edge FINAL WHERE NOT _deleted AND relationship_kind = 'CALLS') ORDER BY k, a, b"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		t.Fatal(err)
	}
	return res.Rows
}

// TestMerge loads the fixture, then a second load that adds and changes milestones and adds
// a CALLS edge, which leaves gl_milestone and both edge tables in two parts each. Merge then
// merges exactly the tables in more than one part into one, unless they are over WholeBytes
// with fewer than MaxParts extra parts holding less than Share of the rows: those stay as
// they are. The live rows read with FINAL are the same before and after.
func TestMerge(t *testing.T) {
	tests := []struct {
		name      string
		opts      load.MergeOptions
		wantMerge bool
	}{
		{name: "defaults", opts: load.MergeOptions{}, wantMerge: true},
		{name: "large table, small write", opts: load.MergeOptions{WholeBytes: 1, Share: 1, MaxParts: 100}, wantMerge: false},
		{name: "large table, large share written", opts: load.MergeOptions{WholeBytes: 1, Share: 0.01, MaxParts: 100}, wantMerge: true},
		{name: "large table, parts piled up", opts: load.MergeOptions{WholeBytes: 1, Share: 1, MaxParts: 1}, wantMerge: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := openAt(t, t.TempDir(), "")
			o := ont(t)
			if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			second := []load.Source{
				{Path: write(t, dir, "Milestone.jsonl", `{"id": 3, "traversal_path": "1/11/", "iid": 1, "title": "renamed", "state": "active"}`+"\n"+
					`{"id": 9, "traversal_path": "1/11/", "iid": 2, "title": "new", "state": "active"}`+"\n")},
				{Path: write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 300}`+"\n")},
			}
			if _, err := load.Load(t.Context(), e, o, second, load.Options{}); err != nil {
				t.Fatal(err)
			}
			before := activeParts(t, e)
			several := map[string]bool{}
			for _, tb := range []string{"gl_milestone", o.EdgeTable, o.EdgeTableByTarget} {
				if before[tb] < 2 {
					t.Fatalf("%s has %d parts after two loads, want at least 2 (parts: %v)", tb, before[tb], before)
				}
				several[tb] = true
			}
			want := liveRows(t, e)
			done, err := load.Merge(t.Context(), e, o, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			merged := map[string]bool{}
			for _, m := range done {
				merged[m.Table] = true
				if int64(m.Parts) != before[m.Table] || m.Rows <= 0 || m.Bytes <= 0 {
					t.Errorf("%s: reported %d parts, %d rows, %d bytes; system.parts had %d parts", m.Table, m.Parts, m.Rows, m.Bytes, before[m.Table])
				}
				if m.PartsAfter != 1 {
					t.Errorf("%s: %d parts after the merge, want 1", m.Table, m.PartsAfter)
				}
			}
			wantMerged := map[string]bool{}
			if tt.wantMerge {
				wantMerged = several
			}
			if diff := cmp.Diff(wantMerged, merged); diff != "" {
				t.Errorf("tables merged (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, liveRows(t, e)); diff != "" {
				t.Errorf("live rows changed by the merge (-before +after):\n%s", diff)
			}
			after := activeParts(t, e)
			for tb := range several {
				if want := map[bool]int64{true: 1, false: before[tb]}[tt.wantMerge]; after[tb] != want {
					t.Errorf("%s: %d active parts after the merge, want %d", tb, after[tb], want)
				}
			}
			if tt.wantMerge {
				again, err := load.Merge(t.Context(), e, o, tt.opts)
				if err != nil || len(again) != 0 {
					t.Errorf("merge of a merged graph: %+v, %v; want nothing to do", again, err)
				}
			}
		})
	}
}
