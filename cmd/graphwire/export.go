package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// exportFlags are the parsed flags of graphwire export.
type exportFlags struct {
	engine engineFlags
	format string
	types  string
	path   string
	dir    string
}

func parseExportFlags(args []string, stderr io.Writer) (exportFlags, error) {
	var f exportFlags
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire export [--embedded DIR | --clickhouse DSN] [--format jsonl|csv|parquet] [--types T,T] [--path PREFIX] DIR")
		fs.PrintDefaults()
	}
	f.engine.register(fs)
	fs.StringVar(&f.format, "format", "jsonl", "file format: jsonl, csv or parquet")
	fs.StringVar(&f.types, "types", "", "comma-separated entity and relationship types (default: every type with rows)")
	fs.StringVar(&f.path, "path", "", "only rows whose traversal_path starts with PREFIX, e.g. 1/22/")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return f, errors.New("exactly one output DIR is required")
	}
	f.dir = fs.Arg(0)
	if _, err := load.ParseFormat(f.format); err != nil {
		return f, err
	}
	return f, f.engine.check()
}

func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	f, err := parseExportFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "graphwire export: %s\n", oneLine(err))
		return exitUsage
	}
	if err := exportGraph(ctx, f, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "graphwire export: %s\n", oneLine(err))
		return exitFailure
	}
	return exitOK
}

func exportGraph(ctx context.Context, f exportFlags, stdout, stderr io.Writer) error {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	format, _ := load.ParseFormat(f.format)
	var types []string
	if f.types != "" {
		types = strings.Split(f.types, ",")
	}
	eng, err := f.engine.openGraph(ctx, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	start := time.Now()
	files, err := load.Export(ctx, eng, ont, f.dir, load.ExportOptions{Format: format, Types: types, TraversalPath: f.path})
	if err != nil {
		return err
	}
	var rows int64
	for _, fr := range files {
		fmt.Fprintln(stdout, fr.Path)
		rows += fr.Rows
	}
	el := time.Since(start)
	fmt.Fprintf(stderr, "exported %d rows to %d files in %s; %.0f rows/s\n", rows, len(files), el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	return nil
}
