package codeindex_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/codeindex"
)

// copyTree copies the fixture module to a directory of the test's own, where it may be edited.
func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return to
}

// TestCache: with a cache, an index reuses the packages whose files and imported
// declarations did not change, and its graph has exactly the rows of an index without one
// (the same digests per file): after no edit, after an edit of a function body (only its
// package is checked again), after an edit of a package's declarations (its importers are
// checked again too), and with another commit.
func TestCache(t *testing.T) {
	root := copyTree(t, "testdata/fixmod")
	cached := opts
	cached.CacheDir = t.TempDir()
	check := func(name string, wantCached int) {
		t.Helper()
		want, _, err := codeindex.Index(t.Context(), root, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := codeindex.Index(t.Context(), root, cached)
		if err != nil {
			t.Fatal(err)
		}
		if st.Cached != wantCached {
			t.Errorf("%s: %d packages from the cache, want %d", name, st.Cached, wantCached)
		}
		if diff := cmp.Diff(want.Digests(), got.Digests()); diff != "" {
			t.Errorf("%s: digests with the cache differ from those without (-without +with):\n%s", name, diff)
		}
		if len(want.Edges) != len(got.Edges) || len(want.Definitions) != len(got.Definitions) || len(want.Files) != len(got.Files) {
			t.Errorf("%s: %d edges, %d definitions, %d files with the cache; %d, %d, %d without", name,
				len(got.Edges), len(got.Definitions), len(got.Files), len(want.Edges), len(want.Definitions), len(want.Files))
		}
	}
	check("first index", 0)
	check("no edit", 2)
	edit := func(rel, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("sub/sub.go", "// Package sub is a second package of the fixture.\npackage sub\n\n// Twice doubles.\nfunc Twice(n int) int {\n\treturn n + n\n}\n")
	check("body edit in sub", 1) // fix imports sub, whose declarations did not change
	edit("sub/sub.go", "// Package sub is a second package of the fixture.\npackage sub\n\n// Twice doubles.\nfunc Twice(n int) int { return n * 2 }\n\n// Thrice triples.\nfunc Thrice(n int) int { return 3 * n }\n")
	check("declaration added to sub", 0) // fix is checked again against the new declarations
	check("no edit after that", 2)
	other := cached
	other.Commit = "0123456789abcdef"
	got, st, err := codeindex.Index(t.Context(), root, other)
	if err != nil || st.Cached != 2 {
		t.Fatalf("another commit: %d cached, %v; want 2 cached", st.Cached, err)
	}
	plain := opts
	plain.Commit = other.Commit
	want, _, err := codeindex.Index(t.Context(), root, plain)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(want.Digests(), got.Digests()) {
		t.Error("another commit: the cached rows keep the commit of the run that stored them")
	}
}
