//go:build unix

package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/mcpsvc"
)

// captureTarget is an ingest.Target that keeps the bytes of every file a write names.
type captureTarget struct{ written []byte }

func (c *captureTarget) IndexState(context.Context, load.Scope) (map[string]string, error) {
	return nil, nil
}

func (c *captureTarget) Write(_ context.Context, b ingest.Batch) (load.Report, error) {
	for _, s := range b.Sources {
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return load.Report{}, err
		}
		c.written = append(c.written, data...)
	}
	return load.Report{}, nil
}

// TestTreeIndexerEscapes: index_repository under --index-root must not read, through an
// entry of the tree, a file outside the roots (a symbolic link to another directory's
// file would put its content into the graph as File.content) or a file that is not a
// regular one (a FIFO blocks the reader; /dev/zero never ends).
func TestTreeIndexerEscapes(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	const secret = "TOP_SECRET_OUTSIDE_THE_ROOT"
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package fix\n\n// "+secret+"\nfunc Secret() {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := func(t *testing.T, add func(repo string) error) (string, string) {
		root := t.TempDir()
		repo := filepath.Join(root, "repo")
		if err := os.MkdirAll(repo, 0o755); err != nil {
			t.Fatal(err)
		}
		files := map[string]string{"go.mod": "module example.com/fix\n\ngo 1.22\n", "a.go": "package fix\n\nfunc A() {}\n"}
		for n, s := range files {
			if err := os.WriteFile(filepath.Join(repo, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := add(repo); err != nil {
			t.Fatal(err)
		}
		return root, repo
	}
	cases := map[string]func(repo string) error{
		"symlink out of the roots": func(repo string) error {
			return os.Symlink(filepath.Join(outside, "secret.go"), filepath.Join(repo, "b.go"))
		},
		"symlink to a device": func(repo string) error { return os.Symlink("/dev/zero", filepath.Join(repo, "z.go")) },
		"fifo":                func(repo string) error { return syscall.Mkfifo(filepath.Join(repo, "f.go"), 0o644) },
	}
	for name, add := range cases {
		t.Run(name, func(t *testing.T) {
			root, repo := tree(t, add)
			ct := &captureTarget{}
			x, err := newTreeIndexer([]string{root}, ct, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			_, err = x.Index(ctx, mcpsvc.IndexRequest{Path: repo})
			var ie *mcpsvc.IndexError
			if !errors.As(err, &ie) || ie.Reason != "PATH_REFUSED" {
				t.Errorf("Index = %v, want PATH_REFUSED", err)
			}
			if strings.Contains(string(ct.written), secret) {
				t.Errorf("the file outside the roots reached the graph")
			}
		})
	}
}
