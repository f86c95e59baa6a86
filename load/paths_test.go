package load_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/load"
)

// TestPathsNoTokenNames: a traversal_path no token's scope can name (a leading zero, a
// segment past Int64, a zero id) is refused at its row and column; it was loaded, readable by
// nobody but admins.
func TestPathsNoTokenNames(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	p := write(t, t.TempDir(), "Milestone.jsonl",
		`{"id": 1, "traversal_path": "01/22/", "state": "active"}`+"\n"+
			`{"id": 2, "traversal_path": "99999999999999999999/", "state": "active"}`+"\n"+
			`{"id": 3, "traversal_path": "0/", "state": "active"}`+"\n"+
			`{"id": 4, "traversal_path": "1/22/", "state": "active"}`+"\n")
	_, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
	var ve *load.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	want := []load.Issue{
		{File: p, Row: 0, Line: 1, Column: "traversal_path", Value: "01/22/", Err: load.ErrPath},
		{File: p, Row: 1, Line: 2, Column: "traversal_path", Value: "99999999999999999999/", Err: load.ErrPath},
		{File: p, Row: 2, Line: 3, Column: "traversal_path", Value: "0/", Err: load.ErrPath},
	}
	if diff := cmp.Diff(want, ve.Issues, cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	// A replace scope follows the same rule.
	ok := write(t, t.TempDir(), "Milestone.jsonl", `{"id": 4, "traversal_path": "1/22/", "state": "active"}`+"\n")
	_, err = load.Load(t.Context(), e, o, []load.Source{{Path: ok}}, load.Options{Replace: &load.Scope{TraversalPath: "0/"}})
	if !errors.Is(err, load.ErrPath) {
		t.Errorf("replace scope 0/: err = %v, want ErrPath", err)
	}
}
