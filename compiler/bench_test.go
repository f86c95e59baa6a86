package compiler_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
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
		caller := specCaller
		if callerJSON != nil {
			caller = parseCaller(&testing.T{}, callerJSON)
		}
		b.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(b *testing.B) {
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				if _, err := c.Compile(query, caller); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}
