package ingest_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/ingest"
)

func TestRootsResolve(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "repo", "sub"), outside, filepath.Join(base, "rootx")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "repo"), filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ingest.NewRoots([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	real := func(p string) string {
		t.Helper()
		s, err := filepath.EvalSymlinks(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr error
	}{
		{"the root", root, real(root), nil},
		{"a repository under it", filepath.Join(root, "repo"), real(filepath.Join(root, "repo")), nil},
		{"relative to the root", "repo/sub", real(filepath.Join(root, "repo", "sub")), nil},
		{"a link that stays inside", filepath.Join(root, "inside"), real(filepath.Join(root, "repo")), nil},
		{"outside", outside, "", ingest.ErrOutsideRoots},
		{"dot-dot out of the root", filepath.Join(root, "..", "outside"), "", ingest.ErrOutsideRoots},
		{"relative dot-dot", "../outside", "", ingest.ErrOutsideRoots},
		{"a sibling sharing the prefix", filepath.Join(base, "rootx"), "", ingest.ErrOutsideRoots},
		{"a link that escapes", filepath.Join(root, "escape"), "", ingest.ErrOutsideRoots},
		{"the system", "/etc", "", ingest.ErrOutsideRoots},
		{"missing", filepath.Join(root, "nope"), "", os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Resolve(tt.path)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Resolve(%q) = %q, %v; want %v", tt.path, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.path, got, err, tt.want)
			}
		})
	}
	if _, err := r.Resolve(filepath.Join(root, "file")); err == nil {
		t.Error("a file resolved as a directory to index")
	}
	if _, err := (ingest.Roots{}).Resolve(root); !errors.Is(err, ingest.ErrNoRoots) {
		t.Errorf("no roots: %v, want ErrNoRoots", err)
	}
}
