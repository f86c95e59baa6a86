package load_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/load"
)

// writeCallGraph writes Definition.jsonl with defs definitions and CALLS.jsonl with calls
// distinct edges between them, and returns the sources.
func writeCallGraph(tb testing.TB, dir string, defs, calls int) []load.Source {
	tb.Helper()
	create := func(name string, rows int, line func(w *bufio.Writer, i int)) load.Source {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := range rows {
			line(w, i)
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
		return load.Source{Path: p}
	}
	return []load.Source{
		create("Definition.jsonl", defs, func(w *bufio.Writer, i int) {
			fmt.Fprintf(w, `{"id":%d,"traversal_path":"1/10/","name":"f%d","fqn":"pkg.f%d","definition_type":"Function","file_path":"pkg/f%d.go","start_line":%d,"end_line":%d,"project_id":1,"branch":"main"}`+"\n",
				i+1, i, i, i%1000, i%500, i%500+10)
		}),
		create("CALLS.jsonl", calls, func(w *bufio.Writer, j int) {
			// (j, j/defs) is distinct for every j, so every edge is distinct.
			fmt.Fprintf(w, `{"traversal_path":"1/10/","source_kind":"Definition","source_id":%d,"target_kind":"Definition","target_id":%d}`+"\n",
				j%defs+1, (j*7919+j/defs+13)%defs+1)
		}),
	}
}

// BenchmarkLoad loads 20 k definitions and 100 k calls into an empty graph and reports rows/s.
// graphwire load --trace on larger files shows where the time goes, statement by statement.
func BenchmarkLoad(b *testing.B) {
	o := ont(b)
	srcs := writeCallGraph(b, b.TempDir(), 20_000, 100_000)
	e := openAt(b, b.TempDir(), "")
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		// An empty graph for every round (the tables exist after the first).
		tables := []string{o.EdgeTable, o.EdgeTableByTarget}
		for _, ent := range o.Entities {
			tables = append(tables, ent.Table)
		}
		for _, table := range tables {
			if err := e.Exec(b.Context(), "TRUNCATE TABLE IF EXISTS "+table); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		rep, err := load.Load(b.Context(), e, o, srcs, load.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Queryable != 120_000 {
			b.Fatalf("queryable = %d, want 120000", rep.Queryable)
		}
	}
	b.ReportMetric(float64(120_000*b.N)/b.Elapsed().Seconds(), "rows/s")
}
