package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int
	summary string
}

func commands() map[string]command {
	return map[string]command{
		"format":  {runFormat, "re-encode a GraphResponse: graphwire format [--from F] --to F [FILE]"},
		"bench":   {runBench, "measure every output format over the fixed corpus; write docs/scorecard.md and docs/scorecard.png"},
		"convert": {runConvert, "convert any JSON document to and from the text formats"},
		"query":   {runQuery, "compile and run a graph query, locally or on a server (--server)"},
		"serve":   {runServe, "run the gRPC query service (and MCP over HTTP with --mcp-listen)"},
		"mcp":     {runMCP, "serve MCP over stdin/stdout for a local agent"},
		"token":   {runToken, "mint a development JWT"},
		"demo":    {runDemo, "print sample responses in every format with byte and token counts"},
		"seed":    {runSeed, "create the schema and load a synthetic SDLC graph"},
		"sql":     {runSQL, "run read-only SQL against the graph, for debugging"},
		"load":    {runLoad, "bulk-load nodes and edges from JSON Lines, CSV or Parquet files"},
		"export":  {runExport, "write the graph to JSON Lines, CSV or Parquet files that load reads back"},
		"index":   {runIndex, "index a Go module or workspace into the code graph"},
	}
}

// run is the whole program: it returns the exit code instead of exiting so
// tests can call it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "graphwire: unknown command %q\n", args[0])
		usage(stderr)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cmd.run(ctx, args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: graphwire <command> [flags]")
	fmt.Fprintln(w, "commands:")
	for _, name := range []string{"query", "serve", "mcp", "token", "format", "convert", "bench", "demo", "seed", "sql", "load", "export", "index"} {
		fmt.Fprintf(w, "  %-8s %s\n", name, commands()[name].summary)
	}
}
