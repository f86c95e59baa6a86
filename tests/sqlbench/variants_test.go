package sqlbench_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// BenchmarkSQLVariants compares candidate statements for one case with its compiled statement
// and its reference, interleaved in one process on the same graph, before a SQL shape change is
// written into the compiler:
//
//	SQLBENCH_CASE=neighbors/admin SQLBENCH_VARIANTS=/tmp/a.sql,/tmp/b.sql \
//	GRAPHWIRE_SEED_SCALE=10 go test -run '^$' -bench BenchmarkSQLVariants -benchtime 21x ./tests/sqlbench
//
// A variant binds its {name:Type} placeholders from the question's values, the caller's scope
// values (as the reference files do) and the compiled statement's own parameters (p0, p1, …),
// so the output of `graphwire query --explain` (without its SETTINGS line and parameter
// comments) runs as it is and can be edited from there. Every variant must return the
// compiled statement's rows (checked in the untimed warm-up round). Each reports its median
// process CPU time and wall time and their ratios to the compiled statement's (v<i>-cpu-ratio,
// v<i>-wall-ratio, in the order given; "reference" is the case's testdata file).
//
// With SQLBENCH_PARTS set, a variant may return other rows: it then times a part of a statement
// (one scan, one array), not a replacement, and is logged with its row count.
//
// With SQLBENCH_PROFILE=N it then runs each statement N more times and logs the engine's own
// account of one run (the growth of every counter of system.events, divided by N) for the
// counters where the statements differ by more than a tenth: analysis and planning time,
// rows and marks selected, bytes read, hash-table and join work.
func BenchmarkSQLVariants(b *testing.B) {
	name := os.Getenv("SQLBENCH_CASE")
	if name == "" {
		b.Skip("set SQLBENCH_CASE (question/caller) and SQLBENCH_VARIANTS (comma-separated SQL files)")
	}
	e := engine(b)
	var c *benchCase
	for _, x := range cases() {
		if x.name == name {
			c = &x
		}
	}
	if c == nil {
		b.Fatalf("SQLBENCH_CASE=%s: no such case", name)
	}
	p, err := prepare(*c)
	if err != nil {
		b.Fatal(err)
	}
	values := c.values()
	for _, q := range p.compiled.Params {
		values[q.Name] = q.Value
	}
	names := []string{"compiled", "reference"}
	stmts := []*compiler.Query{p.compiled, p.reference}
	for _, f := range strings.Split(os.Getenv("SQLBENCH_VARIANTS"), ",") {
		if f == "" {
			continue
		}
		text, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		params, err := bindAll(string(text), values)
		if err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		names = append(names, filepath.Base(f))
		stmts = append(stmts, &compiler.Query{SQL: string(text), Params: params, Settings: p.compiled.Settings})
	}
	ctx := context.Background()
	parts := os.Getenv("SQLBENCH_PARTS") != ""
	want, err := execute(ctx, e, p.compiled)
	if err != nil {
		b.Fatalf("compiled statement: %v", err)
	}
	for i, q := range stmts[1:] {
		got, err := execute(ctx, e, q)
		if err != nil {
			b.Fatalf("%s: %v", names[i+1], err)
		}
		if parts {
			b.Logf("%s: %d rows, first %.120s", names[i+1], len(got.rows), strings.Join(got.rows[:min(1, len(got.rows))], ""))
		}
		if got.digest != want.digest && !parts {
			b.Fatalf("%s differs from the compiled statement: %s", names[i+1], difference(want, got))
		}
	}
	cpu := make([][]time.Duration, len(stmts))
	wall := make([][]time.Duration, len(stmts))
	for b.Loop() {
		for i, q := range stmts {
			o, err := execute(ctx, e, q)
			if err != nil {
				b.Fatalf("%s: %v", names[i], err)
			}
			cpu[i] = append(cpu[i], o.cpu)
			wall[i] = append(wall[i], o.wall)
		}
	}
	base, baseWall := median(cpu[0]), median(wall[0])
	for i := range stmts {
		m, w := median(cpu[i]), median(wall[i])
		b.Logf("%-24s CPU %7.2f ms  %.3f× compiled   wall %7.2f ms  %.3f× compiled", names[i],
			float64(m.Microseconds())/1000, float64(m)/float64(base), float64(w.Microseconds())/1000, float64(w)/float64(baseWall))
		if i >= 2 {
			b.ReportMetric(float64(m)/float64(base), fmt.Sprintf("v%d-cpu-ratio", i-1))
			b.ReportMetric(float64(w)/float64(baseWall), fmt.Sprintf("v%d-wall-ratio", i-1))
		}
	}
	b.ReportMetric(float64(median(cpu[1]))/float64(base), "reference-cpu-ratio")
	b.ReportMetric(float64(median(wall[1]))/float64(baseWall), "reference-wall-ratio")
	if n, _ := strconv.Atoi(os.Getenv("SQLBENCH_PROFILE")); n > 0 {
		if err := logProfiles(ctx, b, e, names, stmts, n); err != nil {
			b.Fatal(err)
		}
	}
}

// logProfiles logs, per statement, the growth of system.events over n runs divided by n, for
// the counters on which the statements differ by more than a tenth of the largest.
func logProfiles(ctx context.Context, b *testing.B, e executor.Executor, names []string, stmts []*compiler.Query, n int) error {
	profiles := make([]map[string]float64, len(stmts))
	for i, q := range stmts {
		before, err := systemEvents(ctx, e)
		if err != nil {
			return err
		}
		for range n {
			if _, err := execute(ctx, e, q); err != nil {
				return fmt.Errorf("%s: %w", names[i], err)
			}
		}
		after, err := systemEvents(ctx, e)
		if err != nil {
			return err
		}
		profiles[i] = map[string]float64{}
		for k, v := range after {
			if d := v - before[k]; d != 0 {
				profiles[i][k] = d / float64(n)
			}
		}
	}
	keys := map[string]bool{}
	for _, p := range profiles {
		for k := range p {
			keys[k] = true
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "system.events per run (%d runs each):\n%-44s", n, "event")
	for _, name := range names {
		fmt.Fprintf(&sb, " %16.16s", name)
	}
	sb.WriteByte('\n')
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		lo, hi := profiles[0][k], profiles[0][k]
		for _, p := range profiles {
			lo, hi = min(lo, p[k]), max(hi, p[k])
		}
		if hi-lo <= 0.1*max(hi, -lo) {
			continue
		}
		fmt.Fprintf(&sb, "%-44s", k)
		for _, p := range profiles {
			fmt.Fprintf(&sb, " %16.1f", p[k])
		}
		sb.WriteByte('\n')
	}
	b.Log(sb.String())
	return nil
}

// systemEvents reads the engine's cumulative counters (system.events).
func systemEvents(ctx context.Context, e executor.Executor) (map[string]float64, error) {
	res, err := collect(ctx, e, &compiler.Query{SQL: "SELECT event, toFloat64(value) FROM system.events"})
	if err != nil {
		return nil, fmt.Errorf("read system.events: %w", err)
	}
	m := make(map[string]float64, len(res.Rows))
	for _, r := range res.Rows {
		name, _ := r[0].(string)
		x, _ := r[1].(float64)
		m[name] = x
	}
	return m, nil
}
