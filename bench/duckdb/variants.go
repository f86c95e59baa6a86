package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// The variants step (docs/duckdb.md, "Forms of one statement"): hand-written forms of one
// chDB statement, run interleaved on the prepared graph at serve's max_threads, each with the
// wall and CPU medians and a SHA-256 of its rows (sorted), to try a form before the compiler
// writes it. The file holds blocks, each headed by a line "-- variant NAME", after comment
// lines ("--") saying what it is; values are written into the SQL text, which is fine for a
// bench tool reading its own file.

type variant struct {
	name, sql string
}

// parseVariants splits a variants file into its blocks.
func parseVariants(text string) ([]variant, error) {
	var out []variant
	for i, line := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(line, "-- variant "); ok {
			out = append(out, variant{name: strings.TrimSpace(name)})
			continue
		}
		if len(out) == 0 {
			// Before the first block: blank lines and "--" comments (what the file holds).
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "--") {
				return nil, fmt.Errorf("line %d: SQL before the first \"-- variant NAME\" line", i+1)
			}
			continue
		}
		out[len(out)-1].sql += line + "\n"
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no \"-- variant NAME\" line")
	}
	return out, nil
}

// variants writes the variants step's table to w.
func variants(w io.Writer, dir, file, extra string, rounds int) error {
	ctx := context.Background()
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	vs, err := parseVariants(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	add, err := parseSettings(extra)
	if err != nil {
		return err
	}
	e, err := openChDBThreads(dir, serveMaxThreads())
	if err != nil {
		return err
	}
	defer e.Close()
	run := func(v variant) (string, int, error) {
		rows, err := e.Run(ctx, &compiler.Query{SQL: v.sql, Settings: add})
		if err != nil {
			return "", 0, fmt.Errorf("variant %s: %w", v.name, err)
		}
		res, err := executor.Collect(rows)
		if err != nil {
			return "", 0, fmt.Errorf("variant %s: %w", v.name, err)
		}
		lines := make([]string, len(res.Rows))
		for i, r := range res.Rows {
			var sb strings.Builder
			for j, x := range r {
				if j > 0 {
					sb.WriteByte('\t')
				}
				canonical(&sb, x)
			}
			lines[i] = sb.String()
		}
		sort.Strings(lines)
		h := sha256.Sum256([]byte(strings.Join(lines, "\n")))
		return hex.EncodeToString(h[:])[:16], len(lines), nil
	}
	times := make([]timing, len(vs))
	digests := make([]string, len(vs))
	counts := make([]int, len(vs))
	load := loadavg()
	for round := 0; round <= rounds; round++ {
		for k := range vs {
			i := (k + round) % len(vs) // rotate which variant goes first
			start, cpu0 := time.Now(), cpuNow()
			d, n, err := run(vs[i])
			if err != nil {
				return err
			}
			wall, cpu := time.Since(start), cpuNow()-cpu0
			if round == 0 {
				digests[i], counts[i] = d, n
				continue
			}
			if d != digests[i] {
				return fmt.Errorf("variant %s answered %s, then %s", vs[i].name, digests[i], d)
			}
			times[i].add(wall, cpu)
		}
	}
	fmt.Fprintf(w, "load %s → %s; max_threads %d; medians of %d interleaved rounds, ms\n\n", load, loadavg(), serveMaxThreads(), rounds)
	fmt.Fprintln(w, "| variant | rows | wall | CPU | answer |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for i, v := range vs {
		same := ""
		if i > 0 && digests[i] == digests[0] {
			same = " (= first)"
		}
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %s%s |\n", v.name, counts[i], median(times[i].Wall), median(times[i].CPU), digests[i], same)
	}
	return nil
}
