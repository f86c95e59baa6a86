//go:build unix

package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/graphwire/graphwire/ingest"
)

// TestRootsCheckTree: links that stay under the roots and links to nothing pass; a link out
// of the roots, a FIFO and a link to a device are refused with their causes.
func TestRootsCheckTree(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	r, err := ingest.NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(repo, "a.go"), filepath.Join(root, "shared.go"), filepath.Join(outside, "x.go")} {
		if err := os.WriteFile(f, []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(repo, name)); err != nil {
			t.Fatal(err)
		}
	}
	link("a.go", "b.go")                                   // inside the tree
	link(filepath.Join(root, "shared.go"), "shared.go")    // inside the roots
	link("sub", "subdir")                                  // a directory inside
	link(filepath.Join(outside, "gone.go"), "dangling.go") // leads nowhere
	if err := r.CheckTree(repo); err != nil {
		t.Fatalf("CheckTree = %v, want nil", err)
	}
	link(filepath.Join(outside, "x.go"), "x.go")
	if err := r.CheckTree(repo); !errors.Is(err, ingest.ErrOutsideRoots) {
		t.Errorf("a link out of the roots: %v, want ErrOutsideRoots", err)
	}
	os.Remove(filepath.Join(repo, "x.go"))
	link(outside, "outdir")
	if err := r.CheckTree(repo); !errors.Is(err, ingest.ErrOutsideRoots) {
		t.Errorf("a directory link out of the roots: %v, want ErrOutsideRoots", err)
	}
	os.Remove(filepath.Join(repo, "outdir"))
	if _, err := os.Stat("/dev/null"); err == nil {
		// A link to a device outside the roots is refused for either reason.
		link("/dev/null", "null.go")
		if err := r.CheckTree(repo); err == nil {
			t.Errorf("a link to /dev/null: nil, want an error")
		}
		os.Remove(filepath.Join(repo, "null.go"))
	}
	if err := syscall.Mkfifo(filepath.Join(repo, "sub", "f.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.CheckTree(repo); !errors.Is(err, ingest.ErrNotRegular) {
		t.Errorf("a FIFO: %v, want ErrNotRegular", err)
	}
}
