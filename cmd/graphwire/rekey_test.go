package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRekeyCurrentGraph: on a graph created in the current key order rekey --check says so
// (exit 0) and rekey does nothing; without a graph both say there is none (exit 6). The
// rebuild itself is load's TestRekeyOldEdgeTables, on tables created in the earlier order.
func TestRekeyCurrentGraph(t *testing.T) {
	requireCHDB(t)
	if r := runCLI("rekey", "--embedded", filepath.Join(t.TempDir(), "none")); r.code != exitNotFound {
		t.Errorf("no graph: exit %d, stderr %q; want %d", r.code, r.stderr, exitNotFound)
	}
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if r := runCLI("rekey", "--check", "--embedded", dir); r.code != exitOK || !strings.Contains(r.stdout, "current key order") {
		t.Errorf("rekey --check: exit %d, stdout %q, stderr %q; want exit 0 saying the order is current", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("rekey", "--embedded", dir); r.code != exitOK || !strings.Contains(r.stdout, "nothing to do") {
		t.Errorf("rekey: exit %d, stdout %q, stderr %q; want exit 0 with nothing to do", r.code, r.stdout, r.stderr)
	}
}
