package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
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

func parseExportFlags(args []string, stdin io.Reader, stderr io.Writer) (exportFlags, error) {
	var f exportFlags
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire export [--embedded DIR | --clickhouse DSN] [--format jsonl|csv|parquet] [--types T,T] [--path PREFIX] DIR\n"+
			"       graphwire export [--embedded DIR | --clickhouse DSN] [--format jsonl|csv|parquet] --query FILE|@FILE|QUERY_JSON|- (--admin | --scope PATH[:LEVEL] ...) DIR")
		fs.PrintDefaults()
	}
	f.engine.register(fs)
	fs.StringVar(&f.format, "format", "jsonl", "file format: jsonl, csv or parquet")
	fs.StringVar(&f.types, "types", "", "comma-separated entity and relationship types (default: every type with rows)")
	fs.StringVar(&f.path, "path", "", "only rows whose traversal_path starts with PREFIX, e.g. 1/22/")
	query := fs.String("query", "", "export the nodes and edges of this query's answer: a file of DSL JSON, @FILE, the JSON itself, or - for stdin")
	fs.BoolVar(&f.admin, "admin", false, "with --query: run it as an admin caller")
	fs.Var(&f.scopes, "scope", "with --query: grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if *query != "" {
		if f.types != "" || f.path != "" {
			return f, errors.New("--query exports the answer's nodes and edges: drop --types and --path")
		}
		if f.admin == (len(f.scopes) > 0) {
			return f, errors.New("--query needs --admin or --scope (one of them)")
		}
		b, err := readQueryArg(*query, stdin)
		if err != nil {
			return f, err
		}
		f.query = b
	} else if f.admin || len(f.scopes) > 0 {
		return f, errors.New("--admin and --scope go with --query")
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

func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseExportFlags(args, stdin, stderr)
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
	var files []load.FileReport
	if f.query != nil {
		files, err = exportAnswer(ctx, eng, ont, f, format)
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
	}
	el := time.Since(start)
	fmt.Fprintf(stderr, "exported %d rows to %d files in %s; %.0f rows/s\n", rows, len(files), el.Round(time.Millisecond), float64(rows)/max(el.Seconds(), 1e-9))
	return nil
}

// exportAnswer compiles the query for the caller of the flags (so its scopes choose the
// nodes, as for graphwire query), runs it, and exports the answer's nodes and edges.
func exportAnswer(ctx context.Context, eng load.Engine, ont *ontology.Ontology, f exportFlags, format load.Format) ([]load.FileReport, error) {
	comp, err := compiler.New(ont, compiler.Options{})
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
	return load.ExportAnswer(ctx, eng, ont, resp, caller, f.dir, load.ExportOptions{Format: format})
}
