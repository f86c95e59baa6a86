package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/mcpsvc"
)

// mcpFlags are the flags of "graphwire mcp".
type mcpFlags struct {
	engine     engineFlags
	admin      bool
	scopes     scopeList
	token      string
	secretFile string
	issuer     string
	audience   string
}

func parseMCPFlags(args []string, stderr io.Writer) (mcpFlags, error) {
	var f mcpFlags
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: graphwire mcp [--embedded DIR | --clickhouse DSN] (--admin | --scope PATH[:LEVEL] ... | --token JWT --jwt-secret-file FILE)\n"+
			"serves MCP over stdin/stdout for a local agent; logs go to stderr")
		fs.PrintDefaults()
	}
	f.engine.register(fs)
	fs.BoolVar(&f.admin, "admin", false, "answer as an admin caller (sees everything)")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.StringVar(&f.token, "token", "", "a bearer JWT whose claims decide the caller (or GRAPHWIRE_TOKEN); needs --jwt-secret-file")
	fs.StringVar(&f.secretFile, "jwt-secret-file", "", "file holding the HS256 secret that signed --token")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "required JWT iss claim (empty accepts any)")
	fs.StringVar(&f.audience, "jwt-audience", "graphwire", "required JWT aud claim")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() != 0 {
		return f, errors.New("mcp takes no arguments")
	}
	if f.token == "" && !f.admin && len(f.scopes) == 0 {
		f.token = os.Getenv("GRAPHWIRE_TOKEN")
	}
	n := 0
	for _, set := range []bool{f.admin, len(f.scopes) > 0, f.token != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return f, errors.New("choose the caller with exactly one of --admin, --scope or --token")
	}
	if f.token != "" && f.secretFile == "" {
		return f, errors.New("--token needs --jwt-secret-file to verify it")
	}
	return f, f.engine.check()
}

// claims is the caller the flags describe.
func (f mcpFlags) claims() (*auth.Claims, error) {
	if f.token == "" {
		c := &auth.Claims{Admin: f.admin}
		for _, s := range f.scopes {
			c.Scopes = append(c.Scopes, auth.Scope{Path: s.Path, Level: s.Level})
		}
		return c, nil
	}
	secret, err := readSecret(f.secretFile)
	if err != nil {
		return nil, err
	}
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{secret}, Issuer: f.issuer, Audience: f.audience})
	if err != nil {
		return nil, err
	}
	c, err := v.Verify(f.token)
	if err != nil {
		return nil, fmt.Errorf("verify --token: %w", err)
	}
	return c, nil
}

func runMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseMCPFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "graphwire mcp: %s\n", oneLine(err))
		return exitUsage
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	claims, err := f.claims()
	if err != nil {
		fmt.Fprintf(stderr, "graphwire mcp: %s\n", oneLine(err))
		return exitFailure
	}
	eng, err := f.engine.openGraph(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire mcp: %s\n", oneLine(err))
		return exitFailure
	}
	defer eng.Close()
	pipe, err := newPipeline(eng, admission.Options{}, logger)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire mcp: %s\n", oneLine(err))
		return exitFailure
	}
	srv, err := mcpsvc.New(mcpsvc.Options{Pipeline: pipe, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "graphwire mcp: %s\n", oneLine(err))
		return exitFailure
	}
	logger.Info("mcp_stdio", "engine", f.engine.describe(), "admin", claims.Admin, "scopes", len(claims.Scopes))
	if err := srv.RunStdio(ctx, claims, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil && !errors.Is(err, io.EOF) {
		logger.Error("mcp_failed", "err", err)
		return exitFailure
	}
	return exitOK
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
