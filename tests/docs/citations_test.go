package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoCitationsOutsideTheModule: Go comments cite the module's own docs/, not the workspace's
// engine spec, which a reader of the module (pkg.go.dev, a clone) does not have.
func TestNoCitationsOutsideTheModule(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "query-engine.md") || strings.Contains(line, "shared/specs/") {
				found = append(found, p+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// This file names the two strings it looks for.
	var rest []string
	for _, f := range found {
		if !strings.Contains(f, "citations_test.go") {
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		t.Errorf("comments cite documents outside the module; cite docs/ instead:\n%s", strings.Join(rest, "\n"))
	}
}
