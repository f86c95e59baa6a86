package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIndexWithoutImports indexes a module whose files import nothing: its
// ImportedSymbol.jsonl is empty, which the engine's schema inference refused (error 636), so
// the index failed.
func TestIndexWithoutImports(t *testing.T) {
	requireCHDB(t)
	src := t.TempDir()
	for name, content := range map[string]string{
		"go.mod": "module example.com/noimports\n\ngo 1.22\n",
		"a.go":   "package noimports\n\n// A is one.\nfunc A() int { return 1 }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := runCLI("index", "--embedded", t.TempDir(), "--namespace", "1/7/", "--project", "7", "--branch", "main", src)
	if r.code != exitOK {
		t.Fatalf("index: exit %d\n%s", r.code, r.stderr)
	}
	if got := written(t, r.stderr); got[0] == "0" {
		t.Errorf("index wrote nothing:\n%s", r.stderr)
	}
}
