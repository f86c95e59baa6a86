package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/graphresponse"
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
	query  []byte // --query: export this query's answer instead of whole types
	admin  bool
	scopes scopeList
}

// readQueryArg reads a query given as "-" (stdin), "@FILE", inline JSON or a file name.
func readQueryArg(arg string, stdin io.Reader) ([]byte, error) {
	var b []byte
	var err error
	switch {
	case arg == "-":
		b, err = io.ReadAll(stdin)
	case strings.HasPrefix(arg, "@"):
		b, err = os.ReadFile(arg[1:])
	case strings.HasPrefix(strings.TrimSpace(arg), "{"):
		b = []byte(arg)
	default:
		b, err = os.ReadFile(arg)
	}
	if err != nil {
		return nil, fmt.Errorf("read query: %w", err)
	}
	return b, nil
}

func newExportCmd(s streams) *cobra.Command {
	var f exportFlags
	var query string
	cmd := &cobra.Command{
		Use:   "export [flags] DIR",
		Short: "write the graph, or a query's answer, to JSON Lines, CSV or Parquet files that load reads back",
		Long: "Write the graph to one file per entity and relationship type in DIR, as JSON Lines, CSV or\n" +
			"Parquet, which graphwire load reads back. With --query, write the nodes and edges of that\n" +
			"query's answer, for the caller --admin or --scope describes. The paths written go to stdout.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dir = args[0]
			if f.format == formatter.GCB1 {
				if query == "" {
					return &usageError{errors.New("--format gcb1 writes a query's answer (one payload): add --query")}
				}
			} else if _, err := load.ParseFormat(f.format); err != nil {
				return &usageError{err}
			}
			if query != "" {
				if f.types != "" || f.path != "" {
					return &usageError{errors.New("--query exports the answer's nodes and edges: drop --types and --path")}
				}
				if f.admin == (len(f.scopes) > 0) {
					return &usageError{errors.New("--query needs --admin or --scope (one of them)")}
				}
				b, err := readQueryArg(query, s.stdin)
				if err != nil {
					return argError(err)
				}
				f.query = b
			} else if f.admin || len(f.scopes) > 0 {
				return &usageError{errors.New("--admin and --scope go with --query")}
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			return exportGraph(cmd.Context(), f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.StringVar(&f.format, "format", "jsonl", "file format: jsonl, csv or parquet; with --query also gcb1 (knowing's binary payload, one file answer.gcb1, which load does not read)")
	fs.StringVar(&f.types, "types", "", "comma-separated entity and relationship types (default: every type with rows)")
	fs.StringVar(&f.path, "path", "", "only rows whose traversal_path starts with PREFIX, e.g. 1/22/")
	fs.StringVar(&query, "query", "", "export the nodes and edges of this query's answer: a file of DSL JSON, @FILE, the JSON itself, or - for stdin")
	fs.BoolVar(&f.admin, "admin", false, "with --query: run it as an admin caller")
	fs.Var(&f.scopes, "scope", "with --query: grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	completeWords(cmd, "format", "jsonl", "csv", "parquet", formatter.GCB1)
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
	eng, err := f.engine.openGraph(ctx, ont, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	start := time.Now()
	var files []load.FileReport
	if f.query != nil {
		files, err = exportAnswer(ctx, eng, ont, f, format, stderr)
	} else {
		files, err = load.Export(ctx, eng, ont, f.dir, load.ExportOptions{Format: format, Types: types, TraversalPath: f.path})
	}
	if err != nil {
		return err
	}
	var rows int64
	for _, fr := range files {
		fmt.Fprintln(stdout, fr.Path)
		rows += fr.Rows
		if fr.Unreachable > 0 {
			fmt.Fprintf(stderr, "left out: %d %s edges whose end is not a live node (no query shows them; a load would refuse them)\n", fr.Unreachable, fr.Type)
		}
	}
	el := time.Since(start)
	fmt.Fprintf(stderr, "exported %d rows to %d files in %s; %.0f rows/s\n", rows, len(files), el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	return nil
}

// exportAnswer compiles the query for the caller of the flags (so its scopes choose the
// nodes, as for graphwire query), runs it, and exports the answer's nodes and edges.
func exportAnswer(ctx context.Context, eng load.Engine, ont *ontology.Ontology, f exportFlags, format load.Format, stderr io.Writer) ([]load.FileReport, error) {
	sizes, _ := readSizes(ctx, eng, stderr)
	comp, err := compiler.New(ont, compiler.Options{Sizes: sizes})
	if err != nil {
		return nil, err
	}
	caller := &compiler.Caller{Subject: "cli", Admin: f.admin, Scopes: f.scopes}
	q, err := comp.Compile(f.query, caller)
	if err != nil {
		return nil, err
	}
	resp, _, err := executor.Respond(ctx, eng, comp, q)
	if err != nil {
		return nil, err
	}
	if f.format == formatter.GCB1 {
		return exportGCB1(resp, f.dir)
	}
	return load.ExportAnswer(ctx, eng, ont, resp, caller, f.dir, load.ExportOptions{Format: format})
}

// exportGCB1 writes the answer as one GCB1 payload, DIR/answer.gcb1; rows are its nodes and
// edges.
func exportGCB1(resp *graphresponse.Response, dir string) ([]load.FileReport, error) {
	b, err := gcb1.Marshal(resp, gcb1.Options{})
	if err != nil {
		return nil, fmt.Errorf("write gcb1: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "answer.gcb1")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, err
	}
	return []load.FileReport{{Path: path, Type: "answer", Rows: int64(len(resp.Nodes) + len(resp.Edges))}}, nil
}
