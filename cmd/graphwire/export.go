package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

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

func newExportCmd(s streams) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export [flags] DIR",
		Short: "write the graph to JSON Lines, CSV or Parquet files that load reads back",
		Long: "Write the graph to one file per entity and relationship type in DIR, as JSON Lines, CSV or\n" +
			"Parquet, which graphwire load reads back. The paths written go to stdout.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dir = args[0]
			if _, err := load.ParseFormat(f.format); err != nil {
				return &usageError{err}
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			return exportGraph(cmd.Context(), f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.StringVar(&f.format, "format", "jsonl", "file format: jsonl, csv or parquet")
	fs.StringVar(&f.types, "types", "", "comma-separated entity and relationship types (default: every type with rows)")
	fs.StringVar(&f.path, "path", "", "only rows whose traversal_path starts with PREFIX, e.g. 1/22/")
	completeWords(cmd, "format", "jsonl", "csv", "parquet")
	return cmd
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
