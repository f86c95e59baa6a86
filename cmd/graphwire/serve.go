package main

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/mcpsvc"
	"github.com/graphwire/graphwire/netlimit"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/redact"
	"github.com/graphwire/graphwire/serveconfig"
	"github.com/graphwire/graphwire/telemetry"
)

// newServeCmd is graphwire serve. Its flags come from serveconfig's table, so every one is
// also a GRAPHWIRE_* variable and a key of the --config file (flag > env > file > default).
func newServeCmd(s streams) *cobra.Command {
	explicit := map[string]string{}
	var file string
	cmd := &cobra.Command{
		Use:   "serve (--jwt-secret-file FILE | --jwks-url URL | --jwks-file FILE) [flags]",
		Short: "run the gRPC query service (and MCP over HTTP with --mcp-listen)",
		Long: "Run the gRPC query service (docs/service.md), and MCP over streamable HTTP with --mcp-listen.\n" +
			"Every flag may also be set by the variable GRAPHWIRE_<FLAG> (upper case, - as _) or by a key\n" +
			"of the YAML file --config; a flag wins over a variable, a variable over the file.\n" +
			"Logs are JSON lines on stderr (--log-format text for text).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := serveconfig.Resolve(explicit, os.Getenv, file)
			if err != nil {
				return &usageError{err}
			}
			if bad, ok := mcpsvc.CheckOrigins(splitOrigins(c.MCPAllowedOrigins)); !ok {
				return &usageError{fmt.Errorf("--mcp-allowed-origins: %q is not an origin (scheme://host[:port], http or https) or *", bad)}
			}
			ef, err := serveEngine(c)
			if err != nil {
				return &usageError{err}
			}
			if code := runServe(cmd.Context(), c, ef, s.stderr); code != exitOK {
				return reportedError(code)
			}
			return nil
		},
	}
	fs := cmd.Flags()
	for _, o := range serveconfig.Options() {
		f := fs.VarPF(serveconfig.NewFlagValue(o, explicit), o.Name, "", o.Usage)
		if o.Kind == serveconfig.Bool {
			f.NoOptDefVal = "true"
		}
	}
	fs.StringVar(&file, "config", "", "YAML file of serve's options, keyed by flag name (default $"+serveconfig.ConfigEnv+"); flags, then GRAPHWIRE_* variables, win over it")
	return cmd
}

// serveEngine returns the engine flags the configuration selects.
func serveEngine(c serveconfig.Config) (engineFlags, error) {
	f := engineFlags{embedded: c.Embedded, clickhouse: c.ClickHouse, cluster: c.Cluster, engineLog: c.EngineLog}
	if c.MemoryBudget != "" {
		if err := f.memoryBudget.Set(c.MemoryBudget); err != nil {
			return f, fmt.Errorf("--memory-budget: %w", err)
		}
	}
	return f, f.check()
}

// readSecret reads an HMAC key file for minting: its last key (the newest
// of a rotation, see serveconfig.ReadKeys), which for a file of one secret
// is that secret without surrounding whitespace.
func readSecret(path string) ([]byte, error) {
	keys, err := serveconfig.ReadKeys(path)
	if err != nil {
		return nil, err
	}
	return keys[len(keys)-1].Secret, nil
}

// newLogger returns serve's logger on w, at the configured level and
// format, adding the request id to every line logged for a request.
func newLogger(c serveconfig.Config, w io.Writer) *slog.Logger {
	var level slog.Level
	level.UnmarshalText([]byte(c.LogLevel)) // checked by serveconfig
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if c.LogFormat == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(telemetry.NewLogHandler(h))
}

// service holds what serve and demo wire together: the faces over one
// pipeline.
type service struct {
	server *grpcsvc.Server
	mcp    *mcpsvc.Server
	// metrics is nil unless serviceOptions.Metrics was set.
	metrics *telemetry.Metrics
	// grpcOpts are extra options of the gRPC server.
	grpcOpts []grpc.ServerOption
	// verifier checks every face's bearer tokens; SIGHUP replaces its keys.
	verifier *auth.Verifier
	// cursors sign and verify pagination cursors; SIGHUP replaces them with the JWT keys.
	cursors *compiler.CursorKeys
}

// newPipeline builds the request pipeline over ctl (nil: a controller with
// admission's defaults), recording into m when it is set.
func newPipeline(eng engine, ont *ontology.Ontology, ctl *admission.Controller, m *telemetry.Metrics, maxQuery int, maxWalkCost float64, maxValueBytes int, cursors *compiler.CursorKeys, ro redact.Options, logger *slog.Logger, edges *executor.EdgeCache) (*pipeline.Pipeline, error) {
	// Redaction (docs/redaction.md): an authority URL turns it on.
	var red *redact.Authority
	if ro.URL != "" {
		ro.Metrics, ro.Logger = m, logger
		var err error
		if red, err = redact.New(ro); err != nil {
			return nil, err
		}
	}
	// The compiler reads the graph's table sizes from the engine, refreshed in the background
	// at most once a minute; until the first read succeeds every scan is narrowed.
	sizes := executor.NewTableSizes(eng, time.Minute)
	sizes.Cluster = clusterOf(eng)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := sizes.Refresh(ctx)
	cancel()
	if logger != nil {
		// Logged when the state changes, not once a minute while it lasts.
		var failing atomic.Bool
		note := func(err error) {
			switch {
			case err != nil && !failing.Swap(true):
				logger.Warn("table sizes unavailable; scans of unknown size are narrowed", "error", oneLine(err))
			case err == nil && failing.Swap(false):
				logger.Info("table sizes read again")
			}
		}
		note(err)
		sizes.OnRefresh = note
	}
	comp, err := compiler.New(ont, compiler.Options{Sizes: sizes, MaxQueryBytes: maxQuery, MaxWalkCost: maxWalkCost, CursorKeys: cursors, Redacted: red != nil})
	if err != nil {
		return nil, err
	}
	return pipeline.New(eng, pipeline.Options{Compiler: comp, Ontology: ont, Registry: formatter.Default(), Admission: ctl,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion(), Metrics: m, Logger: logger,
		MaxValueBytes: maxValueBytes, Redactor: red, EdgeCache: edges,
		SplitKinds: lookupSplitKinds})
}

// newEdgeCache is the edge cache of path_finding (docs/compiler.md, "Path finding on cached
// edges") for an engine that w alone writes, of at most bytes (0: none, nil).
func newEdgeCache(w *ingest.Writer, bytes int64) (*executor.EdgeCache, error) {
	if bytes <= 0 {
		return nil, nil
	}
	return executor.NewEdgeCache(executor.EdgeCacheOptions{MaxBytes: bytes, Generation: w.Generation})
}

// serviceOptions are what serve sets of the service beyond the engine.
type serviceOptions struct {
	Keys             [][]byte // HMAC keys; tokens signed with any verify
	KeyIDs           []string // the keys' kid names (auth.Options.KeyIDs)
	Issuer, Audience string
	// JWKS verifies an identity provider's asymmetric tokens (auth.Options.JWKS); nil for none.
	JWKS auth.KeySource
	// ClockSkew is auth.Options.Leeway (0: its default); the claims are auth.Options' mapping.
	ClockSkew                          time.Duration
	UserClaim, ScopesClaim, AdminClaim string
	MaxQueryBytes                      int     // grpcsvc.Options.MaxQueryBytes
	MaxWalkCost                        float64 // compiler.Options.MaxWalkCost
	MaxValueBytes                      int     // pipeline.Options.MaxValueBytes
	// Redact configures redaction (redact.Options; an empty URL: none).
	Redact redact.Options
	// MCPTools is mcpsvc.Options.Tools, the MCP tool surface.
	MCPTools       string
	Admission      admission.Options
	HealthInterval time.Duration
	// Metrics makes the service record Prometheus metrics (service.metrics).
	Metrics bool
	// GRPC are extra gRPC server options (TLS, keepalive, limits).
	GRPC []grpc.ServerOption
	// MCPOrigins are mcpsvc.Options.AllowedOrigins; MCPWriteTimeout is its WriteTimeout.
	MCPOrigins      []string
	MCPWriteTimeout time.Duration
	// MCPResourceURL and AuthorizationServers are mcpsvc.Options' (RFC 9728 metadata).
	MCPResourceURL       string
	AuthorizationServers []string
	// ConnLimit, when set, learns which connections authenticated.
	ConnLimit *netlimit.Limiter
	// Writer, when set, applies the writes of the WriteService (admins only), and every
	// query holds its gate (ingest.Writer.Reader).
	Writer *ingest.Writer
	// Edges, with Writer, is the edge cache of path_finding (graph-cache-mb; nil: none). Set
	// it only for the embedded engine, which Writer alone writes; the local socket's pipeline
	// shares it.
	Edges *executor.EdgeCache
	// HealthActivity is grpcsvc.Options.HealthActivity: set when this process alone uses the
	// engine (the embedded one), so that the health check of an idle server runs no statement.
	HealthActivity func() uint64
	// Indexer, when set, serves the MCP index tool.
	Indexer mcpsvc.Indexer
	Logger  *slog.Logger
}

// jwksReady is serve's readiness condition for an identity provider's keys (nil without
// one): not ready while the key set holds no key, as before the first read of --jwks-url has
// succeeded, since no token of the provider could verify.
func jwksReady(ks auth.KeySource) func() error {
	if ks == nil {
		return nil
	}
	return func() error {
		if set := ks.KeySet(); set == nil || set.Len() == 0 {
			return errors.New("no JWKS keys: the identity provider's key set has not been read yet")
		}
		return nil
	}
}

// newService wires the faces of o over one pipeline on eng.
func newService(eng engine, ont *ontology.Ontology, o serviceOptions) (*service, error) {
	v, err := auth.NewVerifier(auth.Options{Keys: o.Keys, KeyIDs: o.KeyIDs, JWKS: o.JWKS, Issuer: o.Issuer, Audience: o.Audience,
		Leeway: o.ClockSkew, UserClaim: o.UserClaim, ScopesClaim: o.ScopesClaim, AdminClaim: o.AdminClaim})
	if err != nil {
		return nil, err
	}
	ctl, err := admission.New(o.Admission)
	if err != nil {
		return nil, err
	}
	var m *telemetry.Metrics
	if o.Metrics {
		if m, err = telemetry.New(telemetry.Options{Admission: ctl, Process: true}); err != nil {
			return nil, err
		}
	}
	// Without a shared secret (a JWKS only) there is nothing to derive cursor keys from: a
	// random key of the process signs them, so cursors last as long as the process.
	cursors := compiler.RandomCursorKeys()
	if len(o.Keys) > 0 {
		if cursors, err = compiler.NewCursorKeys(cursorKeys(o.Keys)...); err != nil {
			return nil, err
		}
	}
	var writer ingest.Target
	var edges *executor.EdgeCache
	if o.Writer != nil {
		eng, writer, edges = gatedEngine{eng, o.Writer.Reader(eng)}, o.Writer, o.Edges
	}
	pipe, err := newPipeline(eng, ont, ctl, m, o.MaxQueryBytes, o.MaxWalkCost, o.MaxValueBytes, cursors, o.Redact, o.Logger, edges)
	if err != nil {
		return nil, err
	}
	var grpcAuthed func(context.Context, int64)
	var httpAuthed func(*http.Request, int64)
	if o.ConnLimit != nil {
		grpcAuthed, httpAuthed = connAuthenticated(o.ConnLimit)
	}
	srv, err := grpcsvc.New(eng, pipe.Registry(), grpcsvc.Options{
		Pipeline: pipe, Verifier: v,
		ResponseSchema: config.QueryResponseSchema(), RawVersion: config.RawVersion(),
		HealthInterval: o.HealthInterval, MaxQueryBytes: o.MaxQueryBytes, Metrics: m, Logger: o.Logger,
		Authenticated: grpcAuthed, Writer: writer, ReadyCheck: jwksReady(o.JWKS), HealthActivity: o.HealthActivity,
	})
	if err != nil {
		return nil, err
	}
	mc, err := mcpsvc.New(mcpsvc.Options{Pipeline: pipe, Verifier: v, Metrics: m, Logger: o.Logger,
		AllowedOrigins: o.MCPOrigins, WriteTimeout: o.MCPWriteTimeout, Authenticated: httpAuthed,
		ResourceURL: o.MCPResourceURL, AuthorizationServers: o.AuthorizationServers, Tools: o.MCPTools, Indexer: o.Indexer,
		ResponseSchema: config.QueryResponseSchema(), ResponseVersion: config.RawVersion()})
	if err != nil {
		return nil, err
	}
	return &service{server: srv, mcp: mc, metrics: m, grpcOpts: o.GRPC, verifier: v, cursors: cursors}, nil
}

// mergeWhenIdle merges, once no query has run for idle, what the merges after writes left
// (ingest.Writer.MergeIdle), checking every idle, until ctx ends or the returned stop is
// called; stop returns once no merge runs.
func mergeWhenIdle(ctx context.Context, w *ingest.Writer, idle time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(idle)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				w.MergeIdle(ctx, idle)
			}
		}
	}()
	return func() { cancel(); <-done }
}

// gatedEngine is an engine whose statements run through a writer's gate
// (ingest.Writer.Reader), so that each sees the graph before a write or after it.
type gatedEngine struct {
	engine
	r executor.Runner
}

func (g gatedEngine) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	return g.r.Run(ctx, q)
}

// Lend lends a second connection of the engine, its statements gated as g's are
// ([executor.Lender]); ok is false when the engine does not lend (a ClickHouse server) or is
// busy.
func (g gatedEngine) Lend() (executor.Runner, func(), bool) {
	if l, ok := g.r.(executor.Lender); ok {
		return l.Lend()
	}
	return nil, nil, false
}

// lookupSplitKinds is the pipeline's SplitKinds: a neighbors lookup or hydration of at least
// 4 kinds runs in two halves at once when the embedded engine is otherwise idle. On an idle
// 2-core machine it took the admin's neighbors at scale 10 from 24.2–25.2 to 19.5–20.8 ms of
// wall (docs/compiler.md, "Lookups in two halves"); a busy engine never lends, so serve
// under load runs one statement, as before.
const lookupSplitKinds = 4

// serveLocal serves graphwire's local gRPC on the write socket of the embedded data
// directory dir, until the returned stop is called: writes through wr (index, load), and
// queries (query --embedded) on a pipeline of its own over eng, gated by wr, that answers as
// a local run would — the caller the client names (grpcsvc.LocalCallerHeader), the cursor
// keys of local runs, no redaction authority, and the process's edge cache (edges, nil: none;
// its entries are keyed by each caller's whole authorization). Only the socket authenticates
// (owner-only, peers checked), so the verifier's key is a random one nobody holds.
func serveLocal(eng engine, ont *ontology.Ontology, wr *ingest.Writer, edges *executor.EdgeCache, dir string, logger *slog.Logger) (stop func(), err error) {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{key}})
	if err != nil {
		return nil, err
	}
	gated := gatedEngine{eng, wr.Reader(eng)}
	pipe, err := newPipeline(gated, ont, nil, nil, 0, 0, 0, localCursorKeys(), redact.Options{}, logger, edges)
	if err != nil {
		return nil, err
	}
	srv, err := grpcsvc.New(gated, pipe.Registry(), grpcsvc.Options{Pipeline: pipe, Verifier: v, Writer: wr, Logger: logger,
		ResponseSchema: config.QueryResponseSchema(), RawVersion: config.RawVersion()})
	if err != nil {
		return nil, err
	}
	l, err := listenLocal(dir)
	if err != nil {
		return nil, err
	}
	g := srv.LocalGRPCServer()
	go g.Serve(l)
	logger.Info("local_write_socket", "path", l.Addr().String())
	return g.Stop, nil
}

// runServe is the running half of graphwire serve. It reports its own errors and returns the
// exit code. Under --log-format json every line serve writes to stderr is a JSON object, the
// error it stops with included (msg serve_failed, with err and exit_code); under text the error
// is the plain "graphwire serve: ..." line of the other commands.
func runServe(ctx context.Context, c serveconfig.Config, ef engineFlags, stderr io.Writer) int {
	logger := newLogger(c, stderr)
	if err := serve(ctx, c, ef, logger); err != nil {
		code := exitCode(err)
		if c.LogFormat == "text" {
			fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		} else {
			logger.Error("serve_failed", "err", oneLine(err), "exit_code", code)
		}
		return code
	}
	return exitOK
}

// serve runs the service as c says until ctx ends, logging to logger: the engine's warnings
// and the HTTP servers' own errors too, so that nothing bypasses its format.
func serve(ctx context.Context, c serveconfig.Config, ef engineFlags, logger *slog.Logger) error {
	ef.logger = logger
	o := serviceOptions{Issuer: c.JWTIssuer, Audience: c.JWTAudience, ClockSkew: c.JWTClockSkew,
		UserClaim: c.JWTUserClaim, ScopesClaim: c.JWTScopesClaim, AdminClaim: c.JWTAdminClaim, Admission: c.Admission, HealthInterval: c.HealthInterval,
		MaxQueryBytes: c.MaxRecvMsgSize, MaxWalkCost: float64(c.MaxWalkCost), MaxValueBytes: c.MaxValueBytes, Metrics: c.MetricsListen != "", Logger: logger,
		MCPOrigins: splitOrigins(c.MCPAllowedOrigins), MCPWriteTimeout: c.HTTPWriteTimeout,
		MCPResourceURL: c.MCPResourceURL, AuthorizationServers: splitOrigins(c.JWTAuthorizationServers),
		MCPTools: c.MCPTools,
		Redact: redact.Options{URL: c.RedactURL, Timeout: c.RedactTimeout, BatchSize: c.RedactBatchSize, CacheTTL: c.RedactCacheTTL,
			CacheEntries: c.RedactCacheEntries, CacheCallers: c.RedactCacheCallers}}
	if len(o.AuthorizationServers) == 0 && c.JWTIssuer != "" {
		o.AuthorizationServers = []string{c.JWTIssuer}
	}
	if c.JWTSecretFile != "" {
		keys, err := serveconfig.ReadKeys(c.JWTSecretFile)
		if err != nil {
			return err
		}
		o.Keys, o.KeyIDs = splitKeys(keys)
	}
	var jwksFile *auth.StaticKeys
	var fetcher *auth.Fetcher
	switch {
	case c.JWKSFile != "":
		jwksFile = &auth.StaticKeys{}
		if err := loadJWKSFile(c.JWKSFile, jwksFile, logger); err != nil {
			return err
		}
		o.JWKS = jwksFile
	case c.JWKSURL != "":
		f, err := auth.NewFetcher(auth.FetchOptions{URL: c.JWKSURL, Interval: c.JWKSRefresh, MinInterval: c.JWKSMinRefresh,
			Timeout: c.JWKSTimeout, Logger: logger})
		if err != nil {
			return err
		}
		fetcher, o.JWKS = f, f
	}
	var err error
	var certs *serveconfig.CertLoader
	if c.TLSCert != "" {
		if certs, err = serveconfig.NewCertLoader(c.TLSCert, c.TLSKey, c.TLSClientCA); err != nil {
			return err
		}
	}
	o.GRPC = grpcServerOptions(c, certs)
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	eng, err := ef.openGraph(ctx, ont, io.Discard) // the engine logs to ef.logger
	if err != nil {
		return err
	}
	defer eng.Close()
	// Sized once the engine is open, so that its descriptors count as in use.
	budget := sizeConnections(c, raiseFileLimit(), openFiles())
	budget.opts.Logger = logger
	if o.ConnLimit, err = netlimit.New(budget.opts); err != nil {
		return err
	}
	budget.log(logger)
	// This process owns the engine: writes (index, load) come through it.
	wo := ingest.Options{Logger: logger}
	if ef.clickhouse == "" && !c.NoMerge {
		wo.Merge = &load.MergeOptions{}
	}
	o.Writer = ingest.NewWriter(eng, ont, wo)
	if ef.clickhouse == "" {
		// The embedded engine has one writer, this process: path_finding may walk cached
		// edges. A ClickHouse server has others, so no cache there.
		if o.Edges, err = newEdgeCache(o.Writer, int64(c.GraphCacheMB)<<20); err != nil {
			return err
		}
		// The embedded engine is this process's alone (it holds the directory): what its
		// health check reads changes only through o.Writer.
		o.HealthActivity = o.Writer.Activity
	}
	if wo.Merge != nil && c.MergeIdle > 0 {
		defer mergeWhenIdle(ctx, o.Writer, c.MergeIdle)() // stops before the engine closes
	}
	if roots := splitOrigins(c.IndexRoots); len(roots) > 0 {
		if o.Indexer, err = newTreeIndexer(roots, o.Writer, logger); err != nil {
			return err
		}
	}
	svc, err := newService(eng, ont, o)
	if err != nil {
		return err
	}
	if ef.clickhouse == "" {
		// graphwire index and load on this machine find the data directory in use and write
		// through this socket instead (owner-only, peers checked).
		// Without it (a read-only directory, a system without peer checks) serve still serves;
		// writes then need --server.
		if stop, err := serveLocal(eng, ont, o.Writer, o.Edges, ef.dataDir(), logger); err != nil {
			logger.Warn("local_write_socket_unavailable", "err", oneLine(err))
		} else {
			defer stop()
		}
	}
	ls, err := listen(c, certs, o.ConnLimit, logger)
	if err != nil {
		return err
	}
	// Catch SIGHUP before saying "listening", so that a reload asked for
	// from then on is never the default action (exit).
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	hctx, stopHup := context.WithCancel(ctx)
	defer stopHup()
	go reloadOnHangup(hctx, hup, reloadable{keyFile: c.JWTSecretFile, jwksFile: c.JWKSFile, jwks: jwksFile, fetcher: fetcher}, svc.verifier, svc.cursors, certs, logger)
	if fetcher != nil {
		// The first fetch runs beside the listeners: until it succeeds every asymmetric
		// token is refused (and asks for a fetch, rate limited), and health says NOT_SERVING
		// (jwksReady).
		go fetcher.Run(hctx)
	}
	adm := svc.server.Admission().Options()
	logger.Info("listening", "addr", ls.grpc.Addr().String(), "engine", ef.describe(), "tls", certs != nil, "mtls", c.TLSClientCA != "",
		"max_concurrent", adm.MaxConcurrent, "max_per_caller", adm.MaxPerCaller, "max_queued", adm.MaxQueued, "admission_wait_ms", adm.Wait.Milliseconds())
	go newPageReleaser(eng).run(hctx, logger)
	newHTTP := func(h http.Handler) *http.Server { return newHTTPServer(c, h, logger) }
	if err := serveUntilDone(ctx, svc, ls, newHTTP, c.PProf, c.ShutdownGrace); err != nil {
		return err // runServe logs it
	}
	logger.Info("stopped")
	return nil
}

// grpcServerOptions are the gRPC transport settings of c: credentials,
// keepalive and its enforcement, idle and handshake timeouts and limits (the
// request size limit is grpcsvc's).
func grpcServerOptions(c serveconfig.Config, certs *serveconfig.CertLoader) []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: c.KeepaliveTime, Timeout: c.KeepaliveTimeout, MaxConnectionIdle: c.GRPCMaxConnectionIdle}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: c.KeepaliveMinTime}),
		grpc.ConnectionTimeout(c.ReadHeaderTimeout),
	}
	if c.MaxSendMsgSize > 0 {
		opts = append(opts, grpc.MaxSendMsgSize(c.MaxSendMsgSize))
	}
	if c.MaxConcurrentStreams > 0 {
		opts = append(opts, grpc.MaxConcurrentStreams(uint32(c.MaxConcurrentStreams)))
	}
	if certs != nil {
		opts = append(opts, grpc.Creds(credentials.NewTLS(certs.TLSConfig("h2"))))
	}
	return opts
}

// listeners are serve's open sockets; mcp and metrics are nil when not
// asked for.
type listeners struct {
	grpc, mcp, metrics net.Listener
}

func (ls listeners) close() {
	for _, l := range []net.Listener{ls.grpc, ls.mcp, ls.metrics} {
		if l != nil {
			l.Close()
		}
	}
}

// listen opens the listeners c asks for, their connections bounded by
// lim; the MCP one speaks TLS when certs is set (gRPC's credentials do that
// themselves).
func listen(c serveconfig.Config, certs *serveconfig.CertLoader, lim *netlimit.Limiter, logger *slog.Logger) (listeners, error) {
	var ls listeners
	var err error
	if ls.grpc, err = net.Listen("tcp", c.Listen); err != nil {
		return ls, err
	}
	ls.grpc = lim.Listener(ls.grpc)
	if c.MCPListen != "" {
		if ls.mcp, err = net.Listen("tcp", c.MCPListen); err != nil {
			ls.close()
			return ls, err
		}
		ls.mcp = lim.Listener(ls.mcp)
		if certs != nil {
			ls.mcp = tls.NewListener(ls.mcp, certs.TLSConfig("h2", "http/1.1"))
		}
		logger.Info("mcp_listening", "addr", ls.mcp.Addr().String(), "path", "/mcp", "tls", certs != nil)
	}
	if c.MetricsListen != "" {
		if ls.metrics, err = net.Listen("tcp", c.MetricsListen); err != nil {
			ls.close()
			return ls, err
		}
		ls.metrics = lim.Listener(ls.metrics)
		logger.Info("metrics_listening", "addr", ls.metrics.Addr().String(), "path", "/metrics", "pprof", c.PProf)
	}
	return ls, nil
}

// reloadOnHangup reloads, on every signal from hup until ctx ends, the JWT
// key file into v (a rotation without a restart) and the TLS material when
// there is some. A file that fails to read or validate is logged and the
// last good keys or certificates stay in force.
func reloadOnHangup(ctx context.Context, hup <-chan os.Signal, r reloadable, v *auth.Verifier, cursors *compiler.CursorKeys, certs *serveconfig.CertLoader, logger *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		}
		if r.keyFile != "" {
			if err := reloadKeys(r.keyFile, v, cursors); err != nil {
				logger.Error("jwt_keys_reload_failed", "err", err)
			} else {
				logger.Info("jwt_keys_reloaded")
			}
		}
		if r.jwksFile != "" {
			if err := loadJWKSFile(r.jwksFile, r.jwks, logger); err != nil {
				logger.Error("jwks_reload_failed", "file", r.jwksFile, "err", err)
			}
		}
		if r.fetcher != nil {
			// Read --jwks-url now (the fetcher logs the outcome, jwks_fetched or
			// jwks_fetch_failed, and keeps the last good keys on a failure).
			r.fetcher.Refresh(ctx)
		}
		if certs == nil {
			continue
		}
		if err := certs.Reload(); err != nil {
			logger.Error("tls_reload_failed", "err", err)
			continue
		}
		logger.Info("tls_reloaded")
	}
}

// reloadable is what SIGHUP reads again besides TLS: the HS256 key file and the JWKS file
// ("" for none), whose keys go to jwks, and the JWKS URL of fetcher (nil for none).
type reloadable struct {
	keyFile, jwksFile string
	jwks              *auth.StaticKeys
	fetcher           *auth.Fetcher
}

// loadJWKSFile reads the JWKS file at path into dst, logging the keys it holds and those it
// leaves out. A file that does not parse or holds no usable key is an error and leaves dst
// as it was.
func loadJWKSFile(path string, dst *auth.StaticKeys, logger *slog.Logger) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read JWKS file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, auth.MaxJWKSBytes+1))
	if err != nil {
		return fmt.Errorf("read JWKS file %s: %w", path, err)
	}
	ks, err := auth.ParseKeySet(data)
	if err != nil {
		return fmt.Errorf("JWKS file %s: %w", path, err)
	}
	for _, s := range ks.Skipped() {
		logger.Warn("jwks_key_skipped", "file", path, "key", s)
	}
	if ks.Len() == 0 {
		return fmt.Errorf("JWKS file %s: no usable signature key in it", path)
	}
	dst.Set(ks)
	logger.Info("jwks_loaded", "file", path, "keys", ks.Len(), "kids", ks.KeyIDs())
	return nil
}

// reloadKeys reads the JWT key file and gives its keys to v, and the cursor keys derived
// from them to cursors.
func reloadKeys(file string, v *auth.Verifier, cursors *compiler.CursorKeys) error {
	keys, err := serveconfig.ReadKeys(file)
	if err != nil {
		return err
	}
	secrets, ids := splitKeys(keys)
	if err := v.SetKeys(secrets, ids); err != nil {
		return err
	}
	return cursors.Set(cursorKeys(secrets)...)
}

// cursorKeys derives the keys that sign and verify pagination cursors from the JWT keys, so
// that a key rotation rotates them too: the newest JWT key (the last, as readSecret takes it)
// signs, and every key verifies.
func cursorKeys(jwtKeys [][]byte) [][]byte {
	out := make([][]byte, 0, len(jwtKeys))
	for i := len(jwtKeys) - 1; i >= 0; i-- {
		out = append(out, compiler.DeriveCursorKey(jwtKeys[i]))
	}
	return out
}

// splitKeys returns the secrets of keys and their ids, in the two lists auth takes.
func splitKeys(keys []serveconfig.Key) (secrets [][]byte, ids []string) {
	for _, k := range keys {
		secrets, ids = append(secrets, k.Secret), append(ids, k.ID)
	}
	return secrets, ids
}

// metricsHandler serves m at /metrics and, with pprof, net/http/pprof at
// /debug/pprof/.
func metricsHandler(m *telemetry.Metrics, withPProf bool, ready func() (bool, string)) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	// /healthz: the process is up and serving HTTP (liveness). /readyz: the gRPC health
	// status, the same signal — the engine answers with a complete graph, and the server is
	// not draining — with the reason on 503 (readiness, for HTTP load balancers and probes).
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if ok, reason := ready(); !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "not ready: "+oneLine(errors.New(reason))+"\n")
			return
		}
		io.WriteString(w, "ready\n")
	})
	if withPProf {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// serveUntilDone serves gRPC, and MCP over streamable HTTP and the metrics
// (HTTP servers from newHTTP) when their listeners are set, until ctx ends, then stops them
// gracefully, falling back to a hard stop after grace. Meanwhile a watcher
// keeps the health status in step with the engine; from the start of the
// shutdown it is NOT_SERVING.
func serveUntilDone(ctx context.Context, svc *service, ls listeners, newHTTP func(http.Handler) *http.Server, withPProf bool, grace time.Duration) error {
	g := svc.server.GRPCServer(svc.grpcOpts...)
	wctx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { svc.server.WatchHealth(wctx); close(watched) }()
	defer func() { stopWatch(); <-watched }()
	errc := make(chan error, 3)
	go func() { errc <- g.Serve(ls.grpc) }()
	var https []*http.Server
	serveHTTP := func(lis net.Listener, h http.Handler) {
		// newHTTP bounds every connection's reads and writes (conns.go) and sends net/http's own
		// errors (TLS handshakes, accept failures) through the logger.
		hs := newHTTP(h)
		https = append(https, hs)
		go func() {
			if err := hs.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	if ls.mcp != nil {
		mux := http.NewServeMux()
		mux.Handle("/mcp", svc.mcp.HTTPHandler())
		meta := svc.mcp.ResourceMetadataHandler()
		mux.Handle(mcpsvc.ResourceMetadataPath, meta)
		mux.Handle(mcpsvc.ResourceMetadataRootPath, meta)
		serveHTTP(ls.mcp, mux)
	}
	if ls.metrics != nil {
		serveHTTP(ls.metrics, metricsHandler(svc.metrics, withPProf, svc.server.Ready))
	}
	select {
	case err := <-errc:
		g.Stop()
		for _, hs := range https {
			hs.Close()
		}
		return err
	case <-ctx.Done():
	}
	// Draining: health says NOT_SERVING while in-flight calls finish.
	svc.server.Drain()
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	for _, hs := range https {
		if err := hs.Shutdown(sctx); err != nil {
			hs.Close()
		}
	}
	select {
	case <-done:
	case <-sctx.Done():
		g.Stop()
	}
	return nil
}
