package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/mcpsvc"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
)

// serveFlags are the flags of "graphwire serve".
type serveFlags struct {
	engine     engineFlags
	listen     string
	secretFile string
	issuer     string
	audience   string
	stopGrace  time.Duration
	admission  admission.Options
	mcpListen  string
}

func parseServeFlags(args []string, stderr io.Writer) (serveFlags, error) {
	var f serveFlags
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.engine.register(fs)
	fs.StringVar(&f.listen, "listen", "127.0.0.1:7447", "address to listen on")
	fs.StringVar(&f.secretFile, "jwt-secret-file", "", "file holding the HS256 secret (at least 32 bytes); required")
	fs.StringVar(&f.issuer, "jwt-issuer", "", "required JWT iss claim (empty accepts any)")
	fs.StringVar(&f.audience, "jwt-audience", "graphwire", "required JWT aud claim")
	fs.StringVar(&f.mcpListen, "mcp-listen", "", "also serve MCP (streamable HTTP at /mcp) on this address, with the same bearer JWTs")
	fs.DurationVar(&f.stopGrace, "shutdown-grace", 10*time.Second, "time to finish in-flight calls on SIGTERM")
	fs.IntVar(&f.admission.MaxConcurrent, "max-concurrent", admission.DefaultMaxConcurrent, "queries running at once over all callers")
	fs.IntVar(&f.admission.MaxPerCaller, "max-per-caller", 0, "queries one caller (user) runs at once, and may have waiting (0: half of --max-concurrent)")
	fs.IntVar(&f.admission.MaxQueued, "max-queued", 0, "queries waiting for a slot over all callers; more are refused at once (0: 4 × --max-concurrent, -1: none)")
	fs.DurationVar(&f.admission.Wait, "admission-wait", admission.DefaultWait, "how long a query waits for a slot before RESOURCE_EXHAUSTED")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if f.secretFile == "" {
		return f, errors.New("--jwt-secret-file is required")
	}
	if fs.NArg() != 0 {
		return f, errors.New("serve takes no arguments")
	}
	if f.admission.MaxConcurrent <= 0 || f.admission.MaxPerCaller < 0 || f.admission.Wait <= 0 {
		return f, errors.New("--max-concurrent and --admission-wait must be positive, --max-per-caller not negative")
	}
	return f, f.engine.check()
}

// readSecret reads an HMAC secret file; surrounding whitespace (a final
// newline) is not part of the key.
func readSecret(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret: %w", err)
	}
	return []byte(strings.TrimSpace(string(b))), nil
}

// service holds what serve and demo wire together: one pipeline, and the
// faces over it.
type service struct {
	pipe   *pipeline.Pipeline
	server *grpcsvc.Server
	mcp    *mcpsvc.Server
	engine engine
}

// newPipeline loads the ontology and builds the shared request pipeline
// with one admission controller for every face.
func newPipeline(eng engine, adm admission.Options, logger *slog.Logger) (*pipeline.Pipeline, error) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return nil, err
	}
	comp, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		return nil, err
	}
	ctl, err := admission.New(adm)
	if err != nil {
		return nil, err
	}
	return pipeline.New(eng, pipeline.Options{Compiler: comp, Ontology: ont, Registry: formatter.Default(), Admission: ctl,
		DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion(), Logger: logger})
}

func newService(eng engine, secret []byte, issuer, audience string, adm admission.Options, logger *slog.Logger) (*service, error) {
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{secret}, Issuer: issuer, Audience: audience})
	if err != nil {
		return nil, err
	}
	pipe, err := newPipeline(eng, adm, logger)
	if err != nil {
		return nil, err
	}
	srv, err := grpcsvc.New(eng, pipe.Registry(), grpcsvc.Options{
		Pipeline: pipe, Verifier: v,
		ResponseSchema: config.QueryResponseSchema(), RawVersion: config.RawVersion(),
		Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	m, err := mcpsvc.New(mcpsvc.Options{Pipeline: pipe, Verifier: v, Logger: logger})
	if err != nil {
		return nil, err
	}
	return &service{pipe: pipe, server: srv, mcp: m, engine: eng}, nil
}

func runServe(ctx context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
	f, err := parseServeFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		return exitUsage
	}
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	secret, err := readSecret(f.secretFile)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		return exitFailure
	}
	eng, err := f.engine.openGraph(ctx, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		return exitFailure
	}
	defer eng.Close()
	svc, err := newService(eng, secret, f.issuer, f.audience, f.admission, logger)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		return exitFailure
	}
	lis, err := net.Listen("tcp", f.listen)
	if err != nil {
		fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
		return exitFailure
	}
	var mcpLis net.Listener
	if f.mcpListen != "" {
		if mcpLis, err = net.Listen("tcp", f.mcpListen); err != nil {
			lis.Close()
			fmt.Fprintf(stderr, "graphwire serve: %s\n", oneLine(err))
			return exitFailure
		}
		logger.Info("mcp_listening", "addr", mcpLis.Addr().String(), "path", "/mcp")
	}
	adm := svc.server.Admission().Options()
	logger.Info("listening", "addr", lis.Addr().String(), "engine", f.engine.describe(),
		"max_concurrent", adm.MaxConcurrent, "max_per_caller", adm.MaxPerCaller, "max_queued", adm.MaxQueued, "admission_wait_ms", adm.Wait.Milliseconds())
	if err := serveUntilDone(ctx, svc, lis, mcpLis, f.stopGrace); err != nil {
		logger.Error("serve_failed", "err", err)
		return exitFailure
	}
	logger.Info("stopped")
	return exitOK
}

// serveUntilDone serves gRPC on lis, and MCP over streamable HTTP on
// mcpLis when it is set, until ctx ends, then stops both gracefully,
// falling back to a hard stop after grace.
func serveUntilDone(ctx context.Context, svc *service, lis, mcpLis net.Listener, grace time.Duration) error {
	g := svc.server.GRPCServer()
	errc := make(chan error, 2)
	go func() { errc <- g.Serve(lis) }()
	var hs *http.Server
	if mcpLis != nil {
		mux := http.NewServeMux()
		mux.Handle("/mcp", svc.mcp.HTTPHandler())
		hs = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := hs.Serve(mcpLis); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
	}
	select {
	case err := <-errc:
		g.Stop()
		if hs != nil {
			hs.Close()
		}
		return err
	case <-ctx.Done():
	}
	done := make(chan struct{})
	go func() { g.GracefulStop(); close(done) }()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if hs != nil {
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
