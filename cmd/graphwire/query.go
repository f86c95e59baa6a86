package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
)

// scopeList collects repeated --scope PATH[:LEVEL] flags.
type scopeList []compiler.Scope

func (s *scopeList) String() string { return fmt.Sprint(*s) }
func (s *scopeList) Set(v string) error {
	sc, err := compiler.ParseScope(v)
	if err != nil {
		return err
	}
	*s = append(*s, sc)
	return nil
}

// queryFlags are the parsed flags of graphwire query.
type queryFlags struct {
	engine    engineFlags
	admin     bool
	scopes    scopeList
	format    string
	llmFormat string
	explain   bool
	query     []byte
	server    string // client mode: the address of a graphwire server
	token     string // client mode: the bearer JWT
}

func parseQueryFlags(args []string, stdin io.Reader, stderr io.Writer) (queryFlags, error) {
	var f queryFlags
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire query [--embedded DIR | --clickhouse DSN] [--admin | --scope PATH[:LEVEL] ...]\n"+
			"                       [--format raw|llm] [--llm-format goon|gcf|gcf-graph|gcx|toon] [--explain] QUERY_JSON|@FILE|-")
		fs.PrintDefaults()
	}
	f.engine.register(fs)
	fs.BoolVar(&f.admin, "admin", false, "run as an admin caller (sees everything)")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.StringVar(&f.format, "format", "raw", "raw (GraphResponse JSON) or llm (text for language models)")
	fs.StringVar(&f.llmFormat, "llm-format", "", "LLM format with --format llm (default goon)")
	fs.BoolVar(&f.explain, "explain", false, "print the compiled SQL and parameters instead of running it")
	fs.StringVar(&f.server, "server", "", "send the query to a graphwire server at ADDR instead of running it locally")
	fs.StringVar(&f.token, "token", "", "bearer JWT for --server (or GRAPHWIRE_TOKEN)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.format != "raw" && f.format != "llm" {
		fs.Usage()
		return f, fmt.Errorf("unknown --format %q (want raw or llm)", f.format)
	}
	if f.admin && len(f.scopes) > 0 {
		return f, errors.New("use --admin or --scope, not both")
	}
	if f.server != "" {
		if f.admin || len(f.scopes) > 0 || f.explain {
			return f, errors.New("with --server the token decides the caller: drop --admin, --scope and --explain")
		}
		if f.token == "" {
			f.token = os.Getenv("GRAPHWIRE_TOKEN")
		}
		if f.token == "" {
			return f, errors.New("--server needs --token or GRAPHWIRE_TOKEN")
		}
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return f, errors.New("exactly one QUERY_JSON argument is required")
	}
	arg := fs.Arg(0)
	switch {
	case arg == "-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return f, fmt.Errorf("read query: %w", err)
		}
		f.query = b
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return f, fmt.Errorf("read query: %w", err)
		}
		f.query = b
	default:
		f.query = []byte(arg)
	}
	return f, f.engine.check()
}

func runQuery(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseQueryFlags(args, stdin, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitUsage
	}
	if f.server != "" {
		return queryRemote(ctx, f, stdout, stderr)
	}
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	comp, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	caller := &compiler.Caller{Subject: "cli", Admin: f.admin, Scopes: f.scopes}
	q, err := comp.Compile(f.query, caller)
	if err != nil {
		reportQueryError(stderr, err)
		return exitFailure
	}
	if f.explain {
		return explain(stdout, stderr, q)
	}
	name := formatter.JSON
	if f.format == "llm" {
		name = f.llmFormat
		if name == "" {
			name = formatter.DefaultLLM
		}
		if _, err := formatter.Default().Select(formatter.LLM, name); err != nil {
			fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
			return exitUsage
		}
	}
	eng, err := f.engine.openGraph(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	defer eng.Close()
	// The same pipeline as the gRPC and MCP faces, with the caller of the
	// flags.
	pipe, err := pipeline.New(eng, pipeline.Options{Compiler: comp, Ontology: ont})
	if err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	claims := &auth.Claims{Admin: f.admin}
	for _, s := range f.scopes {
		claims.Scopes = append(claims.Scopes, auth.Scope{Path: s.Path, Level: s.Level})
	}
	w := bufio.NewWriter(stdout)
	if _, err := pipe.Stream(ctx, pipeline.Request{Query: f.query, Claims: claims, Format: name}, w); err != nil {
		reportQueryError(stderr, err)
		return exitFailure
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
		return exitFailure
	}
	if name == formatter.JSON {
		fmt.Fprintln(stdout)
	}
	return exitOK
}

// execute runs a compiled query: the base statement, the hydration statement when the query
// type has one, and the response builder.
func reportQueryError(stderr io.Writer, err error) {
	var ce *compiler.Error
	if errors.As(err, &ce) {
		p := ce.Path
		if p == "" {
			p = "/"
		}
		fmt.Fprintf(stderr, "graphwire query: %s %s %s: %s\n", ce.Kind(), ce.Reason(), p, oneLine(errors.New(ce.Message)))
		return
	}
	fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
}

// explain prints the SQL and its parameters (canonical text, as the executors bind them).
func explain(stdout, stderr io.Writer, q *compiler.Query) int {
	var b strings.Builder
	b.WriteString(q.SQL)
	b.WriteString("\n")
	for _, p := range q.Params {
		text, err := executor.ParamText(p)
		if err != nil {
			fmt.Fprintf(stderr, "graphwire query: %s\n", oneLine(err))
			return exitFailure
		}
		fmt.Fprintf(&b, "-- %s %s %s\n", p.Name, p.Type, text)
	}
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return exitFailure
	}
	return exitOK
}
