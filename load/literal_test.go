package load_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/load"
)

// TestLiteralPaths: a file name holding glob characters names that one file, and a symlink
// loop beside it is never followed. The engine's file() expanded such a name: a file named
// *.jsonl loaded every .jsonl file of its directory, and a loop failed the load with "Too many
// levels of symbolic links".
func TestLiteralPaths(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, name string }{
		{"d", "*.jsonl"}, {"d", "?ilestone.jsonl"}, {"d", "{a,b}.jsonl"}, {"d", "[m]ilestone.jsonl"}, {"d", "x{1..3}.jsonl"},
		{"d*{x}", "plain.jsonl"}, {"**", "*"},
	} {
		name := tt.name
		t.Run(tt.dir+"/"+name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), tt.dir)
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("..", filepath.Join(dir, "sub", "loop")); err != nil {
				t.Fatal(err)
			}
			write(t, dir, "a.jsonl", `{"id": 70, "traversal_path": "1/70/", "title": "a", "state": "active"}`+"\n")
			write(t, dir, "b.jsonl", `{"id": 71, "traversal_path": "1/70/", "title": "b", "state": "active"}`+"\n")
			write(t, dir, "x1.jsonl", `{"id": 72, "traversal_path": "1/70/", "title": "c", "state": "active"}`+"\n")
			write(t, dir, "milestone.jsonl", `{"id": 73, "traversal_path": "1/70/", "title": "m", "state": "active"}`+"\n")
			p := write(t, dir, name, `{"id": 74, "traversal_path": "1/71/", "title": "literal", "state": "active"}`+"\n")
			rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: p, Type: "Milestone", Format: load.JSONL}}, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.RowsIn != 1 || len(rep.Files) != 1 || rep.Files[0].Path != p {
				t.Errorf("report = %+v, want 1 row from %s", rep, p)
			}
			if n := query(t, e, "SELECT count() FROM gl_milestone WHERE traversal_path = '1/70/'"); n[0][0] != int64(0) {
				t.Errorf("%v rows of the other files loaded", n[0][0])
			}
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 6 {
				t.Errorf("the load left files beside the input: %v %v", entries, err)
			}
		})
	}
}
