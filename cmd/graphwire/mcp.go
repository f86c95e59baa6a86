package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
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
	// jwksFile or jwksURL verify an identity provider's --token instead of (or besides)
	// --jwt-secret-file; the claims are auth.Options' mapping.
	jwksFile, jwksURL                  string
	userClaim, scopesClaim, adminClaim string
	redact                             redactFlags
	tools                              string
	// indexRoots turn on the tool index_repository for directories under them.
	indexRoots []string
	// noMerge: writes leave their parts unmerged (serve's no-merge).
	noMerge bool
}

func newMCPCmd(s streams) *cobra.Command {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp (--admin | --scope PATH[:LEVEL] ... | --token JWT (--jwt-secret-file FILE | --jwks-file FILE | --jwks-url URL)) [flags]",
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
	fs.StringVar(&f.jwksFile, "jwks-file", "", "JWKS file of the identity provider that signed --token (RS*, PS*, ES*, EdDSA)")
	fs.StringVar(&f.jwksURL, "jwks-url", "", "JWKS URL of the identity provider that signed --token, read once at start")
	fs.StringVar(&f.userClaim, "jwt-user-claim", "sub", "claim of --token holding the user id")
	fs.StringVar(&f.scopesClaim, "jwt-scopes-claim", "scopes", "claim of --token holding the scopes")
	fs.StringVar(&f.adminClaim, "jwt-admin-claim", "admin", "claim of --token holding the admin flag")
	f.redact.register(fs)
	fs.StringVar(&f.tools, "tools", "", "tool surface (default $GRAPHWIRE_MCP_TOOLS, else graphwire): graphwire (query_graph, get_graph_schema, get_query_dsl, get_response_format) or orbit (GitLab Orbit's list_commands and invoke_command)")
	fs.BoolVar(&f.noMerge, "no-merge", false, "with the embedded engine: do not merge the graph tables a write (load, index) left in several parts")
	fs.StringArrayVar(&f.indexRoots, "index-root", nil, "let an admin caller index repositories under this directory with the tool index_repository; repeatable (default: the tool is off)")
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
	if f.token != "" && f.secretFile == "" && f.jwksFile == "" && f.jwksURL == "" {
		return errors.New("--token needs --jwt-secret-file, --jwks-file or --jwks-url to verify it")
	}
	if f.jwksFile != "" && f.jwksURL != "" {
		return errors.New("use --jwks-file or --jwks-url, not both")
	}
	if f.tools == "" {
		f.tools = os.Getenv("GRAPHWIRE_MCP_TOOLS")
	}
	switch f.tools {
	case "":
		f.tools = mcpsvc.ToolsGraphwire
	case mcpsvc.ToolsGraphwire, mcpsvc.ToolsOrbit:
	default:
		return fmt.Errorf("--tools %q: want %s or %s", f.tools, mcpsvc.ToolsGraphwire, mcpsvc.ToolsOrbit)
	}
	return f.engine.check()
}

// claims is the caller the flags describe.
func (f mcpFlags) claims(logger *slog.Logger) (*auth.Claims, error) {
	if f.token == "" {
		c := &auth.Claims{Admin: f.admin}
		for _, s := range f.scopes {
			c.Scopes = append(c.Scopes, auth.Scope{Path: s.Path, Level: s.Level})
		}
		return c, nil
	}
	opts := auth.Options{Issuer: f.issuer, Audience: f.audience, UserClaim: f.userClaim, ScopesClaim: f.scopesClaim, AdminClaim: f.adminClaim}
	if f.secretFile != "" {
		secret, err := readSecret(f.secretFile)
		if err != nil {
			return nil, err
		}
		opts.Keys = [][]byte{secret}
	}
	switch {
	case f.jwksFile != "":
		keys := &auth.StaticKeys{}
		if err := loadJWKSFile(f.jwksFile, keys, logger); err != nil {
			return nil, err
		}
		opts.JWKS = keys
	case f.jwksURL != "":
		fetcher, err := auth.NewFetcher(auth.FetchOptions{URL: f.jwksURL, Logger: logger})
		if err != nil {
			return nil, err
		}
		if err := fetcher.Refresh(context.Background()); err != nil {
			return nil, err
		}
		opts.JWKS = fetcher
	}
	v, err := auth.NewVerifier(opts)
	if err != nil {
		return nil, err
	}
	c, err := v.Verify(f.token)
	if err != nil {
		return nil, fmt.Errorf("verify --token: %w", err)
	}
	return c, nil
}

// mcpMergeIdle is how long no query must have run before graphwire mcp merges what the merges
// after writes left (serve's merge-idle default).
const mcpMergeIdle = 10 * time.Second

// mcpGraphCacheBytes bounds the edge cache of graphwire mcp on the embedded engine (serve's
// graph-cache-mb default).
const mcpGraphCacheBytes = 128 << 20

// runMCP is the running half of graphwire mcp.
func runMCP(ctx context.Context, f mcpFlags, stdin io.Reader, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	claims, err := f.claims(logger)
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
	ro, err := f.redact.options()
	if err != nil {
		return err
	}
	// This process owns the engine: writes (index, load, the index tool) go through it, and
	// each query sees the graph before a write or after it.
	wo := ingest.Options{Logger: logger}
	if f.engine.clickhouse == "" && !f.noMerge {
		wo.Merge = &load.MergeOptions{}
	}
	wr := ingest.NewWriter(eng, ont, wo)
	if wo.Merge != nil {
		defer mergeWhenIdle(ctx, wr, mcpMergeIdle)() // stops before the engine closes
	}
	var edges *executor.EdgeCache
	if f.engine.clickhouse == "" {
		// As serve's graph-cache-mb default: this process is the embedded engine's one writer.
		if edges, err = newEdgeCache(wr, mcpGraphCacheBytes); err != nil {
			return err
		}
	}
	pipe, err := newPipeline(gatedEngine{eng, wr.Reader(eng)}, ont, nil, nil, 0, 0, 0, nil, ro, logger, edges)
	if err != nil {
		return err
	}
	var indexer mcpsvc.Indexer
	if len(f.indexRoots) > 0 {
		if indexer, err = newTreeIndexer(f.indexRoots, wr, logger); err != nil {
			return err
		}
	}
	srv, err := mcpsvc.New(mcpsvc.Options{Pipeline: pipe, Logger: logger, Tools: f.tools, Indexer: indexer,
		ResponseSchema: config.QueryResponseSchema(), ResponseVersion: config.RawVersion()})
	if err != nil {
		return err
	}
	if f.engine.clickhouse == "" {
		// graphwire index and load find the data directory in use and write through this
		// socket (owner-only, peers checked), so an agent stays connected while its code is
		// re-indexed.
		if stop, err := serveLocal(eng, ont, wr, edges, f.engine.dataDir(), logger); err != nil {
			logger.Warn("local_write_socket_unavailable", "err", oneLine(err))
		} else {
			defer stop()
		}
	}
	logger.Info("mcp_stdio", "engine", f.engine.describe(), "admin", claims.Admin, "scopes", len(claims.Scopes))
	// A long-lived agent session: give back the start-up pages as serve does.
	pctx, stopPages := context.WithCancel(ctx)
	defer stopPages()
	go newPageReleaser(eng).run(pctx, logger)
	if err := srv.RunStdio(ctx, claims, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
