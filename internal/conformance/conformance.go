// Package conformance locates the shared conformance data that the codec
// test suites read in place.
//
// The data lives outside the repository, in ../shared/conformance beside the
// module root, and is never copied in. GRAPHWIRE_CONFORMANCE_DIR overrides the
// location. When the data is missing a test skips with a printed reason,
// except under CI=true, where missing data fails the run.
package conformance

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// EnvDir is the environment variable that overrides the conformance root.
const EnvDir = "GRAPHWIRE_CONFORMANCE_DIR"

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Root returns the conformance root: $GRAPHWIRE_CONFORMANCE_DIR, or
// ../shared/conformance beside the module root.
func Root() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(root), "shared", "conformance"), nil
}

// Dir returns the conformance folder of one format ("goon", "gcf", "gcx",
// "toon"). When it does not exist the test is skipped with the reason, or
// failed when CI=true.
func Dir(t testing.TB, format string) string {
	t.Helper()
	root, err := Root()
	if err != nil {
		missing(t, err.Error())
	}
	dir := filepath.Join(root, format)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		missing(t, fmt.Sprintf("conformance data for %s not found at %s (set %s)", format, dir, EnvDir))
	}
	return dir
}

func missing(t testing.TB, reason string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true requires the conformance data", reason)
	}
	t.Skip(reason)
}
