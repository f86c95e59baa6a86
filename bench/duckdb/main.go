// Command duckdb-bench runs graphwire's compiled queries on the embedded engine (chDB) and
// hand-written DuckDB SQL for the same questions on the same graph, side by side. It is its own
// module so that graphwire's users never link DuckDB. See docs/duckdb.md.
//
// The graph is seed.Generate at seed 42 plus the churn of tests/sqlbench (new versions, node
// and edge tombstones, edges written again), loaded into chDB; every table is then exported raw
// (all versions and tombstones) to Parquet and loaded into a DuckDB file, whose SQL applies the
// same rules as the compiler: the latest version of each sorting key, tombstones dropped, the
// caller's traversal-path prefixes at each entity's access floor. A second DuckDB layout holds
// the live rows only (no versions, no tombstones), for the figure issue 27 first quoted.
//
//	go run . -scales 10,100 -rounds 7 -out ../../docs/duckdb-table.md
//	go run . -scales 10 -rounds 5 -colds 0 -bench=false -stages   # where graphwire's time goes
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb-bench:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		step, rest := args[0], args[1:]
		fs := flag.NewFlagSet(step, flag.ContinueOnError)
		dir := fs.String("dir", "", "work directory of one scale")
		scale := fs.Float64("scale", 10, "seed scale")
		engine := fs.String("engine", "", "cold: chdb or duckdb")
		rounds := fs.Int("rounds", 7, "bench: interleaved rounds")
		cacheMB := fs.Int("graph-cache-mb", 128, "bench, reads, stages: MiB of graphwire's edge cache (path_finding, walks, neighbors), as serve's graph-cache-mb (0: off)")
		name := fs.String("case", "", "explain: question/caller, e.g. neighbors/admin")
		variant := fs.String("sql", "", "explain: a file of DuckDB SQL to run instead of the case's")
		in := fs.String("in", "", "stages-md: a stages step's JSON answer; variants: a file of \"-- variant NAME\" blocks of chDB SQL")
		split := fs.Int("split-kinds", 4, "bench: a lookup or hydration of at least this many kinds runs as two statements at once on a second idle connection (executor.RespondOptions.SplitKinds, as serve sets it; 0: one statement); with it the engine has serve's 4 connections, else 1")
		only := fs.String("only", "", "reads: only the cases whose name contains this")
		extra := fs.String("settings", "", "reads: settings added to every statement, k=v;k=v, timed against none; variants: added to every variant")
		showSQL := fs.Bool("show-sql", false, "reads: print each statement's SQL")
		merged := fs.Bool("merged", false, "prepare: after the churn and graphwire's merges, merge every table's parts (OPTIMIZE TABLE, no FINAL), before the export")
		parts := fs.String("parts", "served", "prepare: what merges the churn's parts: served (graphwire's merge after a write, then serve's idle merge), written (the first alone, as graphwire load leaves it) or unmerged")
		if err := fs.Parse(rest); err != nil {
			return err
		}
		var v any
		var err error
		switch step {
		case "prepare":
			v, err = prepare(*dir, *scale, *merged, *parts)
		case "cold":
			v, err = cold(*dir, *engine)
		case "bench":
			v, err = bench(*dir, *rounds, *cacheMB, *split)
		case "explain":
			v, err = explain(*dir, *name, *variant, *rounds)
		case "stages":
			v, err = stages(*dir, *rounds, *cacheMB)
		case "reads":
			return reads(os.Stdout, *dir, *only, *extra, *rounds, *showSQL, *cacheMB)
		case "variants":
			return variants(os.Stdout, *dir, *in, *extra, *rounds)
		case "stages-md":
			return printStages(*in, *scale, *rounds)
		default:
			return fmt.Errorf("unknown step %q", step)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", step, err)
		}
		return json.NewEncoder(os.Stdout).Encode(v)
	}
	fs := flag.NewFlagSet("duckdb-bench", flag.ContinueOnError)
	scales := fs.String("scales", "10", "comma-separated seed scales")
	rounds := fs.Int("rounds", 7, "interleaved rounds per scale")
	colds := fs.Int("colds", 3, "cold starts per engine and scale")
	work := fs.String("work", "", "work directory (default: a temporary one, removed at the end)")
	out := fs.String("out", "", "also write the markdown report to this file")
	merged := fs.Bool("merged", false, "merge every table's parts after the churn, before the export: both engines get the merged rows (docs/duckdb.md, \"Parts\")")
	parts := fs.String("parts", "served", "what merges the churn's parts before the export: served (graphwire's merge after a write, then serve's idle merge), written (the first alone) or unmerged (docs/duckdb.md)")
	withStages := fs.Bool("stages", false, "also time the EXPLAIN stages of every statement (docs/duckdb.md)")
	compare := fs.Bool("bench", true, "run the side-by-side rounds (-bench=false -stages: the stages only)")
	cacheMB := fs.Int("graph-cache-mb", 128, "MiB of graphwire's edge cache (path_finding, walks, neighbors) in the rounds and the stages, as serve's graph-cache-mb (0: off, the plan in steps)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *work == "" {
		d, err := os.MkdirTemp("", "graphwire-duckdb-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		*work = d
	}
	var reps []scaleReport
	for _, s := range strings.Split(*scales, ",") {
		scale, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || scale <= 0 {
			return fmt.Errorf("-scales: %q is not a positive number", s)
		}
		dir := filepath.Join(*work, "scale-"+s)
		rep := scaleReport{Scale: scale}
		if err := step(&rep.Prepared, "prepare", "-dir", dir, "-scale", s, "-merged="+strconv.FormatBool(*merged), "-parts", *parts); err != nil {
			return err
		}
		for i := 0; i < *colds; i++ {
			for _, e := range []string{"chdb", "duckdb"} {
				var c coldResult
				if err := step(&c, "cold", "-dir", dir, "-engine", e); err != nil {
					return err
				}
				rep.Cold = append(rep.Cold, c)
			}
		}
		if *compare {
			if err := step(&rep.Bench, "bench", "-dir", dir, "-rounds", strconv.Itoa(*rounds), "-graph-cache-mb", strconv.Itoa(*cacheMB)); err != nil {
				return err
			}
		}
		if *withStages {
			rep.Stages = &stagesResult{}
			if err := step(rep.Stages, "stages", "-dir", dir, "-rounds", strconv.Itoa(*rounds), "-graph-cache-mb", strconv.Itoa(*cacheMB)); err != nil {
				return err
			}
		}
		reps = append(reps, rep)
		// Free the disk of a scale before the next one.
		os.RemoveAll(dir)
	}
	md := markdown(reps, *rounds)
	fmt.Print(md)
	if *out != "" {
		return os.WriteFile(*out, []byte(md), 0o644)
	}
	return nil
}

// step runs one step in a child process (chDB allows one data path per process, and each cold
// start must be a fresh process) and decodes its JSON answer into v.
func step(v any, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("step %s: %w", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("step %s: decode its answer: %w", strings.Join(args, " "), err)
	}
	return nil
}
