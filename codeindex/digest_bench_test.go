package codeindex_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/executor/chdb"
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

// BenchmarkIndexTree indexes zod's TypeScript sources (installed by .ci/run) with one
// worker, so files/s is per core: parsing, queries and resolution, without the load.
func BenchmarkIndexTree(b *testing.B) {
	dir := filepath.Join(chdb.DefaultCacheDir(), "codegraph", "zod-3.25.76", "package", "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("zod is not installed at %s (scripts/install-test-tools.sh)", dir)
	}
	o := codeindex.Options{TraversalPath: "1/", ProjectID: 1, Workers: 1}
	files := 0
	for b.Loop() {
		_, st, err := codeindex.IndexTree(b.Context(), dir, o)
		if err != nil {
			b.Fatal(err)
		}
		files = st.Files
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
