package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/diagram"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/redact"
)

// scopeList collects repeated --scope PATH[:LEVEL] flags.
type scopeList []compiler.Scope

func (s *scopeList) String() string {
	if len(*s) == 0 {
		return ""
	}
	return fmt.Sprint(*s)
}
func (s *scopeList) Type() string { return "PATH[:LEVEL]" }
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
	stats     bool
	timeout   time.Duration
	query     []byte
	server    string    // client mode: the address of a graphwire server
	socket    string    // set by runQuery: the local socket of the graphwire that owns the data directory
	token     string    // client mode: the bearer JWT
	tls       clientTLS // client mode: TLS to the server
	redact    redactFlags
}

// drawFormats are the --format values that draw the raw response as a graph instead of
// naming a formatter.
var drawFormats = []string{"dot", "mermaid"}

// queryFormatNames are the values of query --format: every registered format, auto (the
// pipeline picks the fewest tokens), and the drawings.
func queryFormatNames() []string {
	return append(append(formatter.Default().Names(), pipeline.Auto), drawFormats...)
}

func newQueryCmd(s streams) *cobra.Command {
	var f queryFlags
	cmd := &cobra.Command{
		Use:   "query [flags] [QUERY_JSON | @FILE | -]",
		Short: "compile and run a graph query, locally or on a server (--server)",
		Long: "Compile and run a graph query (docs/dsl.md) on the embedded engine, a ClickHouse server, or a\n" +
			"graphwire server (--server). The query is the argument, @FILE, or standard input when the\n" +
			"argument is - or missing. The answer goes to stdout; --stats adds a line of figures on stderr.\n" +
			"When a running graphwire serve or mcp holds the embedded data directory, the query goes to it\n" +
			"over the directory's local socket and is answered as here, as the caller --admin/--scope give.",
		Example: "  graphwire query --scope 1/:30 --format goon @q.json\n" +
			"  graphwire query --admin --format dot < q.json | dot -Tsvg > graph.svg\n" +
			"  graphwire query --server 127.0.0.1:7447 --token \"$TOKEN\" --stats @q.json",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.resolveFormat(cmd.Flags().Changed("format"), s.stderr); err != nil {
				return argError(err)
			}
			if err := f.finish(args, s.stdin); err != nil {
				return argError(err)
			}
			return runQuery(cmd.Context(), f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	f.engine.inUse = "stop it, or send the query to that server with `graphwire query --server ADDR`"
	f.redact.register(fs)
	fs.BoolVar(&f.admin, "admin", false, "run as an admin caller (sees everything)")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.StringVar(&f.format, "format", formatter.JSON, "answer format: json (GraphResponse), goon, gcf, gcf-graph, gcx or toon (text for language models),\n"+
		"markdown or xml (for people and XML tools), auto (the fewest tokens of goon, gcf, gcx, toon and json),\n"+
		"dot (Graphviz) or mermaid (flowchart); the old raw and llm still work, deprecated")
	fs.StringVar(&f.llmFormat, "llm-format", "", "deprecated: use --format NAME")
	fs.Lookup("llm-format").Hidden = true
	fs.BoolVar(&f.explain, "explain", false, "print the compiled SQL and parameters instead of running it")
	fs.BoolVar(&f.stats, "stats", false, "print the format, rows, tokens (o200k_base), bytes and time on stderr")
	fs.DurationVar(&f.timeout, "timeout", 0, "give up after this long, e.g. 30s (0: no limit beyond the engine's own)")
	fs.StringVar(&f.server, "server", "", "send the query to a graphwire server at ADDR instead of running it locally")
	fs.StringVar(&f.token, "token", "", "bearer JWT for --server (default $GRAPHWIRE_TOKEN)")
	f.tls.register(fs)
	completeWords(cmd, "format", queryFormatNames()...)
	return cmd
}

// resolveFormat turns --format and the deprecated spellings into one format name: raw is
// json, llm is --llm-format (default goon), and --llm-format alone is its value. A deprecated
// spelling prints one line on stderr saying what to write instead. The result is a
// registered format, auto, dot or mermaid.
func (f *queryFlags) resolveFormat(formatSet bool, stderr io.Writer) error {
	format, llm := strings.ToLower(f.format), strings.ToLower(f.llmFormat)
	deprecated := func(old, name string) {
		fmt.Fprintf(stderr, "graphwire query: %s is deprecated and will be removed; use --format %s\n", old, name)
	}
	switch {
	case format == "llm":
		name := llm
		if name == "" {
			name = formatter.DefaultLLM
		}
		old := "--format llm"
		if llm != "" {
			old += " --llm-format " + llm
		}
		deprecated(old, name)
		format = name
	case llm != "" && formatSet:
		return fmt.Errorf("--llm-format goes with --format llm (deprecated); use --format %s alone", llm)
	case llm != "":
		deprecated("--llm-format "+llm, llm)
		format = llm
	case format == "raw":
		deprecated("--format raw", formatter.JSON)
		format = formatter.JSON
	}
	if !slices.Contains(queryFormatNames(), format) {
		return fmt.Errorf("unknown --format %q (want %s)", format, strings.Join(queryFormatNames(), ", "))
	}
	f.format, f.llmFormat = format, ""
	return nil
}

// finish checks the flags together and reads the query.
func (f *queryFlags) finish(args []string, stdin io.Reader) error {
	if f.admin && len(f.scopes) > 0 {
		return errors.New("use --admin or --scope, not both")
	}
	if f.timeout < 0 {
		return errors.New("--timeout must not be negative")
	}
	if f.server != "" {
		if f.admin || len(f.scopes) > 0 || f.explain {
			return errors.New("with --server the token decides the caller: drop --admin, --scope and --explain")
		}
		if f.redact.url != "" {
			return errors.New("with --server the server redacts (its --redact-url): drop --redact-url")
		}
		if f.token == "" {
			f.token = os.Getenv("GRAPHWIRE_TOKEN")
		}
		if f.token == "" {
			return errors.New("--server needs --token or GRAPHWIRE_TOKEN")
		}
	}
	arg := "-"
	if len(args) == 1 {
		arg = args[0]
	}
	q, err := readQuery(arg, stdin)
	if err != nil {
		return err
	}
	f.query = q
	return f.engine.check()
}

// readQuery reads a query given as "-" (standard input), "@FILE" or the JSON text itself.
// Standard input that is a terminal is refused rather than waited on.
func readQuery(arg string, stdin io.Reader) ([]byte, error) {
	switch {
	case arg == "-":
		if isTerminal(stdin) {
			return nil, errors.New("no query given: pass QUERY_JSON or @FILE, or pipe the query in")
		}
		b, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read query: %w", err)
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return nil, errors.New("no query given: standard input is empty")
		}
		return b, nil
	case strings.HasPrefix(arg, "@"):
		b, err := os.ReadFile(arg[1:])
		if err != nil {
			return nil, fmt.Errorf("read query: %w", err)
		}
		return b, nil
	}
	return []byte(arg), nil
}

// runQuery is the running half of graphwire query.
func runQuery(ctx context.Context, f queryFlags, stdout, stderr io.Writer) error {
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	start := time.Now()
	out := &endWriter{w: stdout, binary: binaryFormat(f.format)}
	var st queryStats
	var err error
	if f.server == "" && f.engine.clickhouse == "" && !f.explain && f.redact.url == "" {
		// A graphwire serve or mcp that owns the data directory answers for it, as this run
		// would, with the caller of the flags (its engine is already warm).
		if sock := localSocket(f.engine.dataDir()); sock != "" && socketAnswers(sock) {
			f.socket = sock
			if f.stats {
				fmt.Fprintf(stderr, "graphwire query: the data directory %s is served by a running graphwire; asked it (%s)\n", f.engine.dataDir(), sock)
			}
		}
	}
	if f.server != "" || f.socket != "" {
		st, err = queryRemote(ctx, f, out)
	} else {
		st, err = queryLocal(ctx, f, out, stderr)
	}
	if err != nil {
		return err
	}
	if err := out.finish(); err != nil {
		return err
	}
	if f.stats && !f.explain {
		st.bytes, st.elapsed = out.n, time.Since(start)
		fmt.Fprintf(stderr, "graphwire query: %s\n", st)
	}
	return nil
}

// queryStats are the figures query --stats prints, the same in local and server mode.
type queryStats struct {
	format, version string
	rows            int64
	tokens          int
	bytes           int64
	elapsed         time.Duration
	altered         int64 // altered_values: text-safety markers and repaired text that was not UTF-8
}

func (s queryStats) String() string {
	name := s.format
	if s.version != "" {
		name += " " + s.version
	}
	altered := ""
	if s.altered > 0 {
		altered = fmt.Sprintf("%d altered values, ", s.altered)
	}
	return fmt.Sprintf("%s, %d rows, %d tokens (o200k_base), %d bytes, %s%s", name, s.rows, s.tokens, s.bytes, altered, s.elapsed.Round(time.Millisecond))
}

// formatName is the formatter (or auto) that --format chooses; dot and mermaid draw the
// json response.
func (f *queryFlags) formatName() string {
	if slices.Contains(drawFormats, f.format) {
		return formatter.JSON
	}
	return f.format
}

// localCursorKeys are the cursor keys of a local query: one fixed key, so that a cursor
// printed by one run continues in the next. A local run reads the graph with whatever
// authorization its flags give (graphwire sql reads it whole), so its cursors guard against
// mistakes, not against its user; a server signs with keys derived from its JWT keys.
func localCursorKeys() *compiler.CursorKeys {
	k, _ := compiler.NewCursorKeys(compiler.DeriveCursorKey([]byte("graphwire local query cursors v1"))) // 32 bytes: cannot fail
	return k
}

func queryLocal(ctx context.Context, f queryFlags, stdout, stderr io.Writer) (queryStats, error) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return queryStats{}, err
	}
	caller := &compiler.Caller{Subject: "cli", Admin: f.admin, Scopes: f.scopes}
	ro, err := f.redact.options()
	if err != nil {
		return queryStats{}, err
	}
	redacted := ro.URL != ""
	// Compile once without the graph, so that a bad query is reported whether or not there
	// is one.
	plain, err := compiler.New(ont, compiler.Options{CursorKeys: localCursorKeys(), Redacted: redacted})
	if err != nil {
		return queryStats{}, err
	}
	q, err := plain.Compile(f.query, caller)
	if err != nil {
		return queryStats{}, err
	}
	name := f.formatName()
	// The SQL's shape depends on the sizes of the graph's tables (compiler.Options.Sizes), so
	// the query is compiled again with them, --explain included, which then prints what a run
	// would execute; without a graph --explain says the sizes are unknown.
	eng, err := f.engine.openGraph(ctx, ont, stderr)
	if err != nil {
		if f.explain {
			return queryStats{}, explain(stdout, q, "no readable graph")
		}
		return queryStats{}, err
	}
	defer eng.Close()
	sizes, unknown := readSizes(ctx, eng, stderr)
	comp, err := compiler.New(ont, compiler.Options{Sizes: sizes, CursorKeys: localCursorKeys(), Redacted: redacted})
	if err != nil {
		return queryStats{}, err
	}
	if q, err = comp.Compile(f.query, caller); err != nil {
		return queryStats{}, err
	}
	if f.explain {
		return queryStats{}, explain(stdout, q, unknown)
	}
	// The same pipeline as the gRPC and MCP faces, with the caller of the flags.
	var red *redact.Authority
	if redacted {
		if red, err = redact.New(ro); err != nil {
			return queryStats{}, err
		}
	}
	pipe, err := pipeline.New(eng, pipeline.Options{Compiler: comp, Ontology: ont, Redactor: red})
	if err != nil {
		return queryStats{}, err
	}
	claims := &auth.Claims{Admin: f.admin}
	for _, s := range f.scopes {
		claims.Scopes = append(claims.Scopes, auth.Scope{Path: s.Path, Level: s.Level})
	}
	req := pipeline.Request{Query: f.query, Claims: claims, Format: name}
	if f.format == "dot" || f.format == "mermaid" || f.stats {
		// The whole text first: a drawing is made from the response, and --stats counts tokens.
		a, err := pipe.Run(ctx, req)
		if err != nil {
			return queryStats{}, err
		}
		st := queryStats{format: a.Format, version: a.Version, rows: a.Rows, tokens: a.Tokens, altered: int64(a.Altered)}
		return st, writeAnswer(stdout, f.format, []byte(a.Text))
	}
	w := bufio.NewWriter(stdout)
	a, err := pipe.Stream(ctx, req, w)
	if err != nil {
		return queryStats{}, err
	}
	return queryStats{format: a.Format, version: a.Version, rows: a.Rows, altered: int64(a.Altered)}, w.Flush()
}

// writeAnswer writes a formatted answer; for dot and mermaid, text is the raw JSON response,
// drawn as a graph.
func writeAnswer(w io.Writer, format string, text []byte) error {
	switch format {
	case "dot", "mermaid":
		resp, err := graphresponse.Unmarshal(text)
		if err != nil {
			return fmt.Errorf("read the response: %w", err)
		}
		if format == "dot" {
			_, err = w.Write(diagram.AppendDOT(nil, resp))
		} else {
			_, err = w.Write(diagram.AppendMermaid(nil, resp))
		}
		return err
	}
	_, err := w.Write(text)
	return err
}

// endWriter counts what passes through it and remembers the last byte, so that every answer
// can end with exactly one newline whatever its format writes.
type endWriter struct {
	w      io.Writer
	n      int64
	last   byte
	binary bool // bytes (gcb1): no final newline, which would be a trailing byte
}

func (e *endWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	e.n += int64(n)
	if n > 0 {
		e.last = p[n-1]
	}
	return n, err
}

// finish writes a final newline unless the output is empty or already ends with one.
func (e *endWriter) finish() error {
	if e.n == 0 || e.last == '\n' || e.binary {
		return nil
	}
	_, err := e.Write([]byte{'\n'})
	return err
}

// explain prints the SQL and its parameters (canonical text, as the executors bind them).
// readSizes reads the graph's table sizes for the compiler. When they cannot be read it says
// so on stderr and returns sizes that know no table (every scan narrowed, correct at any
// size), with the reason for --explain's note.
func readSizes(ctx context.Context, eng executor.Runner, stderr io.Writer) (sizes *executor.TableSizes, unknown string) {
	sizes = executor.NewTableSizes(eng, 0)
	sizes.Cluster = clusterOf(eng)
	if err := sizes.Refresh(ctx); err != nil {
		fmt.Fprintf(stderr, "graphwire: %s; compiling as for large tables\n", oneLine(err))
		return sizes, "they could not be read"
	}
	return sizes, ""
}

// explain prints the statement and its parameters; unknown, when set, says why the graph's
// table sizes were not known, in a last comment line (a run on a graph may read small tables
// whole where this statement narrows them).
func explain(stdout io.Writer, q *compiler.Query, unknown string) error {
	var b strings.Builder
	stmts := []*compiler.Query{q}
	if first := q.Plan.Edges(); first != nil {
		if q.Plan.Build.QueryType == "path_finding" {
			b.WriteString("-- path_finding runs in steps (docs/compiler.md, \"Path finding in steps\"): the second statement below first, then a check of the candidate nodes its rows reach and the edges between them (and of the anchors, when both name their ids); the first runs only when the steps reach their row limit\n")
		} else {
			b.WriteString("-- neighbors run in two steps (docs/compiler.md, \"Two-step neighbors\"): the second statement below first, then a lookup of the nodes its rows reach; the first runs only when those edges do not settle the page\n")
		}
		stmts = append(stmts, first)
	}
	for _, st := range stmts {
		b.WriteString(st.SQL)
		b.WriteString("\n")
		for _, p := range st.Params {
			text, err := executor.ParamText(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "-- %s %s %s\n", p.Name, p.Type, text)
		}
	}
	if unknown != "" {
		fmt.Fprintf(&b, "-- table sizes unknown (%s): compiled as for large tables\n", unknown)
	}
	_, err := io.WriteString(stdout, b.String())
	return err
}

// binaryFormat reports whether the format named name writes bytes (gcb1).
func binaryFormat(name string) bool {
	f, err := formatter.Default().Lookup(name)
	return err == nil && formatter.IsBinary(f)
}
