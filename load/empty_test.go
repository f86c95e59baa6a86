package load_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/load"
)

// TestEmptyFiles: a file without rows (empty, only blank lines, a CSV header alone) loads 0
// rows; the engine's schema inference refused such a file (error 636), so graphwire index
// failed on a module whose files import nothing.
func TestEmptyFiles(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	before := graphDump(t, e)
	tests := []struct{ name, file, content string }{
		{name: "empty jsonl", file: "Milestone.jsonl"},
		{name: "blank lines", file: "Milestone.jsonl", content: "\n\n  \r\n\t\n"},
		{name: "empty csv", file: "Milestone.csv"},
		{name: "csv header only", file: "Milestone.csv", content: "id,traversal_path,title\n"},
		{name: "csv header without newline", file: "Milestone.csv", content: "id,traversal_path,title"},
		{name: "empty edges", file: "CALLS.jsonl"},
		{name: "empty ImportedSymbol", file: "ImportedSymbol.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, t.TempDir(), tt.file, tt.content)
			rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Files) != 1 || rep.Files[0].Rows != 0 || rep.RowsIn != 0 || rep.Written != 0 || rep.Live != 0 {
				t.Errorf("report = %+v, want one file of 0 rows, nothing written", rep)
			}
			if diff := cmp.Diff(before, graphDump(t, e)); diff != "" {
				t.Errorf("an empty file changed the graph:\n%s", diff)
			}
		})
	}
	// A CSV header is checked even without rows.
	p := write(t, t.TempDir(), "Milestone.csv", "id,traversal_path,colour\n")
	_, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
	if !errors.Is(err, load.ErrUnknownProperty) {
		t.Errorf("header-only CSV with an unknown column: err = %v, want ErrUnknownProperty", err)
	}
}
