package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/graphwire/graphwire/internal/cputime"
)

// BenchmarkCompile measures Compile per query shape (the golden queries).
func BenchmarkCompile(b *testing.B) {
	c := newCompiler(b)
	files, _ := filepath.Glob("testdata/golden/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			b.Fatal(err)
		}
		var query, callerJSON []byte
		for _, f := range ar.Files {
			switch f.Name {
			case "query.json":
				query = f.Data
			case "caller.json":
				callerJSON = f.Data
			}
		}
		caller := parseCaller(b, callerJSON)
		b.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(b *testing.B) {
			b.ReportAllocs()
			// CPU time per op next to wall time, which a shared machine inflates.
			cpu, ok := cputime.Process()
			for b.Loop() {
				if _, err := c.Compile(query, caller); err != nil {
					b.Fatal(err)
				}
			}
			if end, _ := cputime.Process(); ok {
				b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
			}
		})
	}
}
