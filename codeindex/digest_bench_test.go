package codeindex_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/graphwire/graphwire/codeindex"
)

// BenchmarkDigests digests the graph of net/http from the installed Go root.
func BenchmarkDigests(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src", "net", "http")
	if _, err := os.Stat(filepath.Join(root, "server.go")); err != nil {
		b.Fatalf("no net/http source in GOROOT: %v", err)
	}
	g, _, err := codeindex.Index(b.Context(), root, codeindex.Options{Patterns: []string{"."}, TraversalPath: "1/", ProjectID: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		g.Digests()
	}
}
