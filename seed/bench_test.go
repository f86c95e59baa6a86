package seed_test

import (
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/seed"
)

// BenchmarkSeed measures seed throughput (generate + load into the embedded engine) in rows/s.
// The scale defaults to 10; GRAPHWIRE_BENCH_SCALE overrides it. Run it with -benchtime=1x: one
// iteration loads the whole graph.
func BenchmarkSeed(b *testing.B) {
	scale := 10.0
	if s := os.Getenv("GRAPHWIRE_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("GRAPHWIRE_BENCH_SCALE: %v", err)
		}
		scale = v
	}
	e := openChDB(b)
	o := loadOntology(b)
	var rows int
	var elapsed time.Duration
	for b.Loop() {
		start := time.Now()
		g, err := seed.Generate(o, seed.Options{Scale: scale})
		if err != nil {
			b.Fatal(err)
		}
		st, err := seed.Load(b.Context(), e, o, g, seed.Options{})
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		rows += st.Nodes + st.Edges
	}
	b.ReportMetric(float64(rows)/elapsed.Seconds(), "rows/s")
}
