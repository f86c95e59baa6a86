package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// loadFlags are the parsed flags of graphwire load.
type loadFlags struct {
	engine      engineFlags
	write       writeFlags
	typ         string
	format      string
	skipInvalid bool
	trace       bool
	files       []string
}

func newLoadCmd(s streams) *cobra.Command {
	var f loadFlags
	cmd := &cobra.Command{
		Use:   "load [flags] FILE...",
		Short: "bulk-load nodes and edges from JSON Lines, CSV or Parquet files",
		Long: "Bulk-load nodes and edges from JSON Lines, CSV or Parquet files (docs/loading.md). Each file\n" +
			"holds one entity or relationship type, named by --type or the file name: Definition.jsonl,\n" +
			"CALLS.parquet.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.files = args
			if f.format != "" {
				if _, err := load.ParseFormat(f.format); err != nil {
					return &usageError{err}
				}
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			if err := f.write.check(&f.engine); err != nil {
				return &usageError{err}
			}
			// A load blocked where cancelling does not reach still ends on SIGINT or SIGTERM.
			return untilInterrupted(cmd.Context(), interruptGrace, func() error { return loadFiles(cmd.Context(), f, s.stderr) })
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	f.write.register(fs)
	fs.StringVar(&f.typ, "type", "", "entity or relationship type of every FILE (default: from each file name)")
	fs.StringVar(&f.format, "format", "", "format of every FILE: jsonl, csv or parquet (default: from each extension)")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "load the valid rows and report each invalid one, instead of refusing the load")
	fs.BoolVar(&f.trace, "trace", false, "print each engine statement of the load with its wall and CPU seconds")
	completeWords(cmd, "format", "jsonl", "csv", "parquet")
	return cmd
}

func loadFiles(ctx context.Context, f loadFlags, stderr io.Writer) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	var format load.Format
	if f.format != "" {
		format, _ = load.ParseFormat(f.format)
	}
	var srcs []load.Source
	for _, p := range f.files {
		// A file that cannot be read fails the load before the engine opens, so a mistyped
		// path never creates an empty data directory.
		if _, err := os.Stat(p); err != nil {
			return err
		}
		srcs = append(srcs, load.Source{Path: p, Type: f.typ, Format: format})
	}
	t, err := openTarget(f.write, &f.engine, ont, stderr)
	if err != nil {
		return err
	}
	defer t.close()
	bar, err := newProgress(stderr, os.Getenv(progressEnv), unitBytes)
	if err != nil {
		return &usageError{err}
	}
	defer bar.finish()
	start := time.Now()
	b := ingest.Batch{Sources: srcs, SkipInvalid: f.skipInvalid, Progress: bar.loadReport}
	if f.trace {
		b.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	rep, err := t.Write(ctx, b)
	if err != nil {
		bar.finish()
		printRecovered(stderr, rep)
		return err
	}
	bar.finish()
	for _, is := range t.skipped(rep) {
		fmt.Fprintf(stderr, "skipped: %s\n", is)
	}
	printLoadReport(stderr, t.where, rep, time.Since(start))
	return nil
}

// printLoadReport prints the note every load ends with: rows in against rows queryable.
func printLoadReport(w io.Writer, where string, rep load.Report, elapsed time.Duration) {
	printRecovered(w, rep)
	fmt.Fprintf(w, "loaded %s: %d rows in from %d files, %d valid, %d invalid (skipped); %d written, %d unchanged, %d tombstoned; version %d\n",
		where, rep.RowsIn, len(rep.Files), rep.Valid, rep.Invalid, rep.Written, rep.Unchanged, rep.Tombstoned, rep.Version)
	if rep.Deleted > 0 {
		fmt.Fprintf(w, "deleted: %d of the written rows are tombstones from the files\n", rep.Deleted)
	}
	if rep.Shadowed > 0 {
		fmt.Fprintf(w, "shadowed: %d rows not applied, a higher _version of their key is already in the graph (skipped)\n", rep.Shadowed)
	}
	fmt.Fprintf(w, "rows queryable: %d of %d live keys loaded", rep.Queryable, rep.Live)
	if rep.Queryable != rep.Live {
		fmt.Fprintf(w, " (%d lost to a higher _version already in the graph)", rep.Live-rep.Queryable)
	}
	printMerged(w, rep)
	fmt.Fprintf(w, "\ntime %s (stage and validate %s, commit %s, verify %s); %.0f rows/s; peak RSS %s\n",
		elapsed.Round(time.Millisecond), rep.Staged.Round(time.Millisecond), rep.Committed.Round(time.Millisecond),
		rep.Verified.Round(time.Millisecond), float64(rep.RowsIn)/max(elapsed.Seconds(), 1e-9), peakRSS())
}

// printMerged says which tables the writer merged after the load, on a line of its own
// (the caller ends the line).
func printMerged(w io.Writer, rep load.Report) {
	if len(rep.Merged) == 0 {
		return
	}
	fmt.Fprintf(w, "\nmerged in %s:", rep.Merging.Round(time.Millisecond))
	for i, m := range rep.Merged {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %d → %d parts", sep, m.Table, m.Parts, m.PartsAfter)
	}
}

// printRecovered names each earlier, interrupted load that this one completed first.
func printRecovered(w io.Writer, rep load.Report) {
	for _, r := range rep.Recovered {
		fmt.Fprintf(w, "completed first: an earlier load interrupted after its manifest (staging %s, version %d): %d node rows and %d edge rows attached, not counted below\n",
			r.Staging, r.Version, r.Nodes, r.Edges)
	}
}

// isTerminal reports whether stream (a reader or a writer) is an *os.File open on a terminal
// (not /dev/null, a pipe or a file).
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && isTerminalFile(f)
}

// peakRSS reads the process's peak resident set (VmHWM) on Linux, "unknown" elsewhere.
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "unknown"
}
