package main

import (
	"path/filepath"
	"strings"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/ontology"
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

// TestRekeyCheckNeeded: on a graph whose edge tables use the earlier key order (traversal_path
// first) rekey --check names them and exits 10, which no failure uses; after rekey it exits 0.
func TestRekeyCheckNeeded(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	e, err := chdb.Open(chdb.Options{Library: chdb.DefaultLibrary(), Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range ont.DDLStatements() {
		for _, table := range []string{ont.EdgeTable, ont.EdgeTableByTarget} {
			if strings.HasPrefix(stmt, "CREATE TABLE IF NOT EXISTS "+table+"\n") {
				ends := strings.TrimSuffix(strings.TrimPrefix(ont.EdgeSortingKey(table), "relationship_kind, "), ", traversal_path")
				stmt = strings.Replace(stmt, "ORDER BY (relationship_kind, "+ends+", traversal_path)\nPRIMARY KEY (relationship_kind, "+ends+")",
					"ORDER BY (traversal_path, relationship_kind, "+ends+")\nPRIMARY KEY (traversal_path, relationship_kind, "+ends+")", 1)
			}
		}
		if err := e.Exec(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	e.Close()
	fixture, err := filepath.Glob(filepath.Join("..", "..", "load", "testdata", "graph", "*"))
	if err != nil || len(fixture) == 0 {
		t.Fatalf("fixture: %v", err)
	}
	if r := runCLI(append([]string{"load", "--embedded", dir}, fixture...)...); r.code != exitOK {
		t.Fatalf("load: exit %d\n%s", r.code, r.stderr)
	}
	r := runCLI("rekey", "--check", "--embedded", dir)
	if r.code != 10 || // README.md, "Exit codes"
		!strings.Contains(r.stdout, ont.EdgeTable+": sorted by (traversal_path") || !strings.Contains(r.stderr, "run graphwire rekey") {
		t.Errorf("rekey --check: exit %d, stdout %q, stderr %q; want exit 10 naming the tables", r.code, r.stdout, r.stderr)
	}
	if r := runCLI("rekey", "--embedded", dir); r.code != exitOK {
		t.Fatalf("rekey: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI("rekey", "--check", "--embedded", dir); r.code != exitOK {
		t.Errorf("rekey --check after rekey: exit %d, stderr %q; want 0", r.code, r.stderr)
	}
}
