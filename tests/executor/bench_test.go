package executortest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

// benchQueries run on the seeded graph, through the executor and through `graphwire sql`.
var benchQueries = []struct{ name, sql string }{
	{"point", "SELECT id, username, name, state FROM gl_user FINAL WHERE _deleted = false AND id = 42"},
	{"hop1", `SELECT m.id, m.title, m.state
FROM (SELECT target_id FROM gl_edge FINAL
      WHERE _deleted = false AND relationship_kind = 'AUTHORED' AND source_kind = 'User' AND source_id = 1 AND target_kind = 'MergeRequest') AS e
INNER JOIN (SELECT id, title, state FROM gl_merge_request FINAL WHERE _deleted = false) AS m ON m.id = e.target_id
ORDER BY m.id`},
	{"groupby", "SELECT state, count() AS n FROM gl_merge_request FINAL WHERE _deleted = false GROUP BY state ORDER BY state"},
}

// BenchmarkSeededGraph seeds the embedded engine (scale 10, or GRAPHWIRE_BENCH_SCALE), then
// times each query through the chDB executor and through the graphwire sql command, which
// pays for a process start and an engine boot on every run.
func BenchmarkSeededGraph(b *testing.B) {
	lib := chdb.DefaultLibrary()
	if _, err := os.Stat(lib); err != nil {
		b.Skipf("libchdb.so not found at %s: %v", lib, err)
	}
	scale := 10.0
	if s := os.Getenv("GRAPHWIRE_BENCH_SCALE"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		scale = v
	}
	dir := b.TempDir()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		b.Fatal(err)
	}
	e, err := chdb.Open(chdb.Options{Library: lib, Path: dir})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	g, err := seed.Generate(ont, seed.Options{Scale: scale})
	if err != nil {
		b.Fatal(err)
	}
	st, err := seed.Load(b.Context(), e, ont, g, seed.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded scale %g: %d rows in %s (%.0f rows/s)", scale, st.Nodes+st.Edges, time.Since(start).Round(time.Millisecond),
		float64(st.Nodes+st.Edges)/time.Since(start).Seconds())

	for _, q := range benchQueries {
		b.Run("executor/"+q.name, func(b *testing.B) {
			query := &compiler.Query{SQL: q.sql}
			for b.Loop() {
				rows, err := e.Run(b.Context(), query)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := executor.Collect(rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The command opens the data directory itself, so the executor must let go of it first.
	e.Close()
	bin := filepath.Join(b.TempDir(), "graphwire")
	build := exec.Command("go", "build", "-o", bin, "github.com/graphwire/graphwire/cmd/graphwire")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build graphwire: %v\n%s", err, out)
	}
	for _, q := range benchQueries {
		b.Run("graphwire-sql/"+q.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, "sql", "--embedded", dir, q.sql)
				cmd.Env = append(os.Environ(), "GRAPHWIRE_CHDB_LIB="+lib)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("graphwire sql: %v\n%s", err, out)
				}
			}
		})
	}
}
