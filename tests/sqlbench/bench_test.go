package sqlbench_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/executor"
)

// measured is what BenchmarkReferenceSQL found for one case.
type measured struct {
	name                string
	rounds              int
	rows                int
	match               string        // "yes", or why not
	compiled, reference time.Duration // median wall time
	compCPU, refCPU     time.Duration // median process CPU time
	compStats, refStats executor.Stats
}

// BenchmarkReferenceSQL runs each case's compiled and reference statements in interleaved
// rounds (compiled, reference, compiled, reference, …; one round per b.Loop iteration, after
// one untimed warm-up round that also checks the results agree) and reports the median wall
// time of each, their ratio, and the rows and bytes the engine read for each. A scoped case
// whose answer is empty or the admin's fails (checkScoped): its ratio would measure nothing.
//
// With GRAPHWIRE_SQLBENCH_DOC set to a markdown file, it rewrites the part of that file between
// the sqlbench:begin and sqlbench:end markers with the table (make bench-sql does this for
// docs/sql-bench.md).
func BenchmarkReferenceSQL(b *testing.B) {
	e := engine(b)
	ctx := context.Background()
	load0 := loadAverage()
	var results []measured
	for _, c := range cases() {
		b.Run(c.name, func(b *testing.B) {
			p, err := prepare(c)
			if err != nil {
				b.Fatal(err)
			}
			want, err := p.runCompiled(ctx, e)
			if err != nil {
				b.Fatalf("compiled statement: %v", err)
			}
			got, err := p.runReference(ctx, e)
			if err != nil {
				b.Fatalf("reference statement %s: %v", c.file, err)
			}
			if !c.caller.caller.Admin {
				admin, err := adminAnswer(ctx, e, c)
				if err != nil {
					b.Fatal(err)
				}
				if err := checkScoped(want, admin); err != nil {
					b.Fatalf("%s: %v", c.name, err)
				}
			}
			m := measured{name: c.name, rows: len(want.rows), match: "yes"}
			if want.digest != got.digest {
				reason, known := knownMismatch[c.name]
				if !known {
					b.Fatalf("reference %s differs from the compiled statement: %s", c.file, difference(want, got))
				}
				m.match = "no: " + reason
			}
			var compT, refT, compC, refC []time.Duration
			for b.Loop() {
				co, err := p.runCompiled(ctx, e)
				if err != nil {
					b.Fatal(err)
				}
				ro, err := p.runReference(ctx, e)
				if err != nil {
					b.Fatal(err)
				}
				compT, refT = append(compT, co.wall), append(refT, ro.wall)
				compC, refC = append(compC, co.cpu), append(refC, ro.cpu)
				m.compStats, m.refStats = co.stats, ro.stats
			}
			m.rounds = len(compT)
			m.compiled, m.reference = median(compT), median(refT)
			m.compCPU, m.refCPU = median(compC), median(refC)
			b.ReportMetric(float64(m.compiled.Microseconds())/1000, "compiled-ms")
			b.ReportMetric(float64(m.reference.Microseconds())/1000, "reference-ms")
			b.ReportMetric(ratio(m), "ratio")
			b.ReportMetric(cpuRatio(m), "cpu-ratio")
			b.ReportMetric(float64(m.compStats.RowsRead), "compiled-rows-read")
			b.ReportMetric(float64(m.refStats.RowsRead), "reference-rows-read")
			results = append(results, m)
		})
	}
	path := os.Getenv("GRAPHWIRE_SQLBENCH_DOC")
	if path == "" || len(results) == 0 {
		return
	}
	for _, m := range results {
		if m.rounds < minDocRounds {
			b.Fatalf("%s ran %d rounds; the table of %s needs at least %d (-benchtime %dx)", m.name, m.rounds, path, minDocRounds, minDocRounds)
		}
	}
	version, err := e.Version(ctx)
	if err != nil {
		b.Fatal(err)
	}
	note := machineNote{
		date:    time.Now().UTC().Format("2006-01-02"),
		scale:   env.scale,
		engine:  "chDB " + version,
		cpu:     cpuModel(),
		cores:   runtime.NumCPU(),
		load:    load0 + " before, " + loadAverage() + " after",
		goarch:  runtime.GOOS + "/" + runtime.GOARCH + ", " + runtime.Version(),
		command: benchCommand(),
		rounds:  results[0].rounds,
		scoped:  describeScopes(env.callers),
	}
	if err := writeDoc(path, note, results); err != nil {
		b.Fatal(err)
	}
}

// benchCommand is the command the table's note names: make bench-sql, with the thread count
// when SQLBENCH_MAX_THREADS set one.
func benchCommand() string {
	if v := os.Getenv("SQLBENCH_MAX_THREADS"); v != "" {
		return "SQLBENCH_MAX_THREADS=" + v + " make bench-sql"
	}
	return "make bench-sql"
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func ratio(m measured) float64 {
	if m.reference <= 0 {
		return 0
	}
	return float64(m.compiled) / float64(m.reference)
}

func cpuRatio(m measured) float64 {
	if m.refCPU <= 0 {
		return 0
	}
	return float64(m.compCPU) / float64(m.refCPU)
}

// minDocRounds is the fewest interleaved rounds per case a table in the docs may rest on.
const minDocRounds = 7

// machineNote is printed above the table.
type machineNote struct {
	date, engine, cpu, load, goarch, command string
	scoped                                   string // the scoped caller's prefixes per floor
	scale                                    float64
	cores, rounds                            int
}

// loadAverage is the 1, 5 and 15 minute load average of /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

const (
	beginMarker = "<!-- sqlbench:begin -->"
	endMarker   = "<!-- sqlbench:end -->"
)

// writeDoc replaces the text between the markers of the markdown file at path with the note
// and the table; the rest of the file is left as it is.
func writeDoc(path string, note machineNote, results []measured) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	i := bytes.Index(old, []byte(beginMarker))
	j := bytes.Index(old, []byte(endMarker))
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s … %s section", path, beginMarker, endMarker)
	}
	var sb strings.Builder
	sb.WriteString(beginMarker + "\n")
	fmt.Fprintf(&sb, "Measured %s with `%s`: %d interleaved rounds per case after a warm-up round, medians of the wall time "+
		"(Run to the last row decoded) and of the process CPU time over the same span; seeded graph at scale %g (seed 42, then the churn of `tests/sqlbench`); %s; %s "+
		"(%d logical CPUs); %s; load average %s. The scoped caller fitted to this graph admits %s.\n\n",
		note.date, note.command, note.rounds, note.scale, note.engine, note.cpu, note.cores, note.goarch, note.load, note.scoped)
	sb.WriteString("| case | rows | rounds | compiled ms | reference ms | ratio | compiled CPU ms | reference CPU ms | CPU ratio | compiled rows read | reference rows read | compiled MiB read | reference MiB read | same result |\n")
	sb.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, m := range results {
		fmt.Fprintf(&sb, "| %s | %d | %d | %.1f | %.1f | %.2f× | %.1f | %.1f | %.2f× | %d | %d | %.1f | %.1f | %s |\n",
			m.name, m.rows, m.rounds,
			float64(m.compiled.Microseconds())/1000, float64(m.reference.Microseconds())/1000, ratio(m),
			float64(m.compCPU.Microseconds())/1000, float64(m.refCPU.Microseconds())/1000, cpuRatio(m),
			m.compStats.RowsRead, m.refStats.RowsRead,
			float64(m.compStats.BytesRead)/(1<<20), float64(m.refStats.BytesRead)/(1<<20), m.match)
	}
	doc := string(old[:i]) + sb.String() + string(old[j:])
	return os.WriteFile(path, []byte(doc), 0o644)
}
