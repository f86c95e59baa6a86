package load_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/load"
)

// TestInvalidUTF8 proves a text value that is not valid UTF-8 is refused at the door in every
// input format, naming file, row, line and column, and that --skip-invalid skips only its row.
func TestInvalidUTF8(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	before := graphDump(t, e)
	dir := t.TempDir()
	parquet := filepath.Join(dir, "Milestone.parquet")
	// The engine writes the Parquet file: a valid row, then one whose title holds byte 0xff.
	if err := e.Exec(t.Context(), "INSERT INTO FUNCTION file('"+parquet+"', 'Parquet', 'id Int64, traversal_path String, title String')"+
		" VALUES (9, '1/10/', 'fine'), (10, '1/10/', unhex('41ff42'))"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		want    []load.Issue // File is filled in
		wantErr error        // ErrUTF8 when nil
	}{
		{
			name: "jsonl raw byte",
			path: write(t, dir, "Milestone.jsonl", `{"id": 9, "traversal_path": "1/10/", "title": "fine"}`+"\n"+
				`{"id": 10, "traversal_path": "1/10/", "title": "A`+"\xff"+`B", "description": "ok"}`+"\n"),
			want: []load.Issue{{Row: 1, Line: 2, Column: "title", Value: "A\xffB", Err: load.ErrUTF8}},
		},
		{
			// JSON's lone surrogate escape has no UTF-8 form: the engine's reader refuses the
			// file, naming the row.
			name: "jsonl lone surrogate escape", wantErr: load.ErrRead,
			path: write(t, dir, "Milestone2.jsonl", `{"id": 9, "traversal_path": "1/10/", "description": "x\ud800y"}`+"\n"),
		},
		{
			name: "csv",
			path: write(t, dir, "Milestone.csv", "id,traversal_path,title,description\n9,1/10/,fine,ok\n10,1/10/,ok,\"two\nlines \xc3\"\n"),
			want: []load.Issue{{Row: 1, Line: 3, Column: "description", Value: "two\nlines \xc3", Err: load.ErrUTF8}},
		},
		{
			name: "parquet",
			path: parquet,
			want: []load.Issue{{Row: 1, Column: "title", Value: "A\xffB", Err: load.ErrUTF8}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load.Load(t.Context(), e, o, []load.Source{{Path: tt.path, Type: "Milestone"}}, load.Options{})
			var ve *load.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *ValidationError", err)
			}
			want := tt.wantErr
			if want == nil {
				want = load.ErrUTF8
			}
			if !errors.Is(err, want) {
				t.Errorf("err = %v, want %v", err, want)
			}
			if tt.want != nil {
				for i := range tt.want {
					tt.want[i].File = tt.path
				}
				if diff := cmp.Diff(tt.want, ve.Issues, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })); diff != "" {
					t.Errorf("issues (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(before, graphDump(t, e)); diff != "" {
				t.Errorf("a refused load changed the graph:\n%s", diff)
			}
		})
	}
	// With SkipInvalid the valid row loads and the invalid one is reported as skipped.
	rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: tests[0].path}}, load.Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.RowsIn != 2 || rep.Invalid != 1 || len(rep.Skipped) != 1 || rep.Skipped[0].Row != 1 || !errors.Is(rep.Skipped[0], load.ErrUTF8) {
		t.Errorf("report = %+v, want 2 rows in, row 1 skipped as not UTF-8", rep)
	}
	if got := query(t, e, "SELECT count() FROM gl_milestone FINAL WHERE NOT isValidUTF8(title) OR NOT isValidUTF8(ifNull(description, ''))"); fmt.Sprint(got) != "[[0]]" {
		t.Errorf("invalid UTF-8 stored: %v", got)
	}
}
