package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/internal/conformance"
)

// moduleRoot is the repository's root, where the scripts and deploy/ are.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// tool finds an external tool: the pinned one scripts/install-test-tools.sh puts under
// graphwire's cache (tools/bin), else one on PATH. Missing, it fails the test under CI=true
// and skips it otherwise.
func tool(t *testing.T, name, install string) string {
	t.Helper()
	p := filepath.Join(chdb.DefaultCacheDir(), "tools", "bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s is missing (%s)", name, install)
	}
	t.Skipf("%s is not installed (%s)", name, install)
	return ""
}
