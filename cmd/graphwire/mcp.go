package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/auth"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/mcpsvc"
	"github.com/graphwire/graphwire/ontology"
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

func newMCPCmd(s streams) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp (--admin | --scope PATH[:LEVEL] ... | --token JWT --jwt-secret-file FILE) [flags]",
		Short: "serve MCP over stdin/stdout for a local agent",
		Long:  "Serve the Model Context Protocol over stdin/stdout for a local agent (docs/mcp.md); logs go to stderr.",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := f.finish(); err != nil {
				return &usageError{err}
			}
			return runMCP(cmd.Context(), f, s.stdin, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.BoolVar(&f.admin, "admin", false, "answer as an admin caller (sees everything)")
	fs.Var(&f.scopes, "scope", "grant a traversal-path prefix, PATH[:LEVEL] (level default 50); repeatable")
	fs.StringVar(&f.token, "token", "", "a bearer JWT whose claims decide the caller (default $GRAPHWIRE_TOKEN); needs --jwt-secret-file")
	fs.StringVar(&f.secretFile, "jwt-secret-file", "", "file holding the HS256 secret that signed --token")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "required JWT iss claim (empty accepts any)")
	fs.StringVar(&f.audience, "jwt-audience", "graphwire", "required JWT aud claim")
	return cmd
}

// finish checks the flags together.
func (f *mcpFlags) finish() error {
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
		return errors.New("choose the caller with exactly one of --admin, --scope or --token")
	}
	if f.token != "" && f.secretFile == "" {
		return errors.New("--token needs --jwt-secret-file to verify it")
	}
	return f.engine.check()
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

// runMCP is the running half of graphwire mcp.
func runMCP(ctx context.Context, f mcpFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	claims, err := f.claims()
	if err != nil {
		return err
	}
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	eng, err := f.engine.openGraph(ctx, ont, stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	pipe, err := newPipeline(eng, ont, nil, nil, 0, 0, 0, nil, logger)
	if err != nil {
		return err
	}
	srv, err := mcpsvc.New(mcpsvc.Options{Pipeline: pipe, Logger: logger})
	if err != nil {
		return err
	}
	logger.Info("mcp_stdio", "engine", f.engine.describe(), "admin", claims.Admin, "scopes", len(claims.Scopes))
	if err := srv.RunStdio(ctx, claims, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
