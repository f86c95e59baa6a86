package grpcsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/pipeline"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/telemetry"
)

// Options configures a [Server]. Compiler, Ontology and Verifier are
// required; every other zero field means its documented default.
type Options struct {
	Compiler *compiler.Compiler
	Ontology *ontology.Ontology
	Verifier *auth.Verifier
	// DSLSchema is the query DSL JSON Schema served by GetQueryDsl.
	DSLSchema []byte
	// DSLVersion is config/QUERY_DSL_VERSION.
	DSLVersion string
	// ResponseSchema and RawVersion are served by GetResponseFormat.
	ResponseSchema []byte
	RawVersion     string
	// DefaultTimeout applies to requests that carry no deadline; 0 means 30 s.
	DefaultTimeout time.Duration
	// MaxTimeout caps any request deadline; 0 means 5 min.
	MaxTimeout time.Duration
	// MaxQueryBytes bounds a request message, and so the query DSL text
	// in it; 0 means 131072. The transport refuses a larger message before
	// reading it, with RESOURCE_EXHAUSTED naming this limit, so every
	// oversized query gets the same status, however large.
	MaxQueryBytes int
	// StreamChunkBytes is the size of ExecuteQueryStream chunks; 0 means 32 KiB.
	StreamChunkBytes int
	// MaxStreamsPerCaller bounds the ExecuteQueryStream calls one caller
	// (the token's sub) has open at once, from the call's start until its
	// last chunk is sent; 0 means [DefaultMaxStreamsPerCaller]. An open
	// stream holds its formatted answer until the client reads it, so
	// without this bound a client that never reads would pin answer after
	// answer in memory. One more is RESOURCE_EXHAUSTED / SERVER_BUSY with
	// limit "streams".
	MaxStreamsPerCaller int
	// GraphSnapshots bounds the gcf-graph graphs remembered across calls for
	// unchanged/delta answers; 0 means 1024. GraphSnapshotBytes bounds
	// their memory, and the PerCaller fields one user's share of both; see
	// [pipeline.Options] for their defaults.
	GraphSnapshots              int
	GraphSnapshotBytes          int
	GraphSnapshotsPerCaller     int
	GraphSnapshotBytesPerCaller int
	// GraphSnapshotTTL is how long a remembered graph may serve as a delta
	// base; 0 means 15 min.
	GraphSnapshotTTL time.Duration
	// Pipeline, when set, is the shared request pipeline (built once per
	// process and shared with the MCP face); Compiler, Ontology, DSL*,
	// Graph* and Admission then come from it and are ignored here. nil
	// builds one from these options.
	Pipeline *pipeline.Pipeline
	// Admission hands out the query slots. Share one controller between
	// the service faces of a process so a caller's limit holds across them;
	// nil means a controller with admission's defaults, for this server only.
	Admission *admission.Controller
	// HealthInterval is how often [Server.WatchHealth] checks that the
	// engine answers and holds a complete graph; 0 means
	// [DefaultHealthInterval].
	HealthInterval time.Duration
	// ReadyCheck, when set, is one more condition of health besides the engine's: while it
	// returns an error, [Server.CheckHealth] reports NOT_SERVING with that error (serve: a
	// JWKS that holds no key yet, so that no token could verify).
	ReadyCheck func() error
	// HealthActivity, when set, tells [Server.WatchHealth] whether anything ran on the engine
	// since its last check: it returns a count that changes with every query and every write
	// ([ingest.Writer.Activity]). While the last check found the engine ready and the count
	// is what it was when that check began, WatchHealth does not run the engine's check again
	// (ReadyCheck still runs every time): nothing this process did can have changed what the
	// check reads. Set it only when this process alone uses the engine (serve on the embedded
	// engine, which holds the data directory); on a shared ClickHouse server other processes
	// write. An idle server then runs no statement, so the engine code it gave back from its
	// resident set (docs/service.md, "Resident memory") is not faulted in again every
	// HealthInterval. nil checks the engine every HealthInterval.
	HealthActivity func() uint64
	// Metrics counts and times every call (face "grpc"); nil records
	// nothing. Set the same metrics in the pipeline's options for engine and
	// format series.
	Metrics *telemetry.Metrics
	// Authenticated, when set, is called with the context of every call whose bearer token
	// verifies, before the call runs (its peer.FromContext names the connection), with the
	// token's user. serve uses it to move the connection out of the budget of
	// unauthenticated connections, up to a bound of connections per user.
	Authenticated func(ctx context.Context, user int64)
	// Writer, when set, serves the WriteService: admins write loads and code indexes
	// through it (graphwire load and index --server). nil leaves the service unregistered.
	Writer ingest.Target
	// WriteDir is where a write's files are kept until its load ends; "" means the
	// system's temporary directory.
	WriteDir string
	// MaxWriteBytes bounds the bytes of one write's files; 0 means 4 GiB.
	MaxWriteBytes int64
	// MaxWriteTimeout caps the deadline of a write, which a client may set longer than
	// MaxTimeout; 0 means 1 h. A write without a deadline gets this one.
	MaxWriteTimeout time.Duration
	// Logger receives one line per call; nil discards. Records carry the
	// request's context: wrap the handler with [telemetry.NewLogHandler] to
	// add request_id to every line.
	Logger *slog.Logger
}

// Server is the graphwire query service. It is safe for concurrent use.
type Server struct {
	pb.UnimplementedQueryServiceServer

	pipe     *pipeline.Pipeline
	reg      *formatter.Registry
	verifier *auth.Verifier
	log      *slog.Logger
	opts     Options
	streams  *streamLimit

	// health is the standard health service, shared by every
	// [Server.GRPCServer]; healthLast is the last status a check set, to
	// log changes only, healthErr why it was NOT_SERVING, and drained that [Server.Drain]
	// ran.
	health     *health.Server
	healthMu   sync.Mutex
	healthLast healthpb.HealthCheckResponse_ServingStatus
	healthErr  error
	// engineReady is whether the last engine check found the graph ready, and engineSeen
	// what Options.HealthActivity returned when it began.
	engineReady bool
	engineSeen  uint64
	drained     bool
}

// New returns a server that runs queries on exec and formats them with reg.
func New(exec Executor, reg *formatter.Registry, opts Options) (*Server, error) {
	switch {
	case opts.Verifier == nil:
		return nil, errors.New("grpcsvc: Options.Verifier is required")
	case opts.Pipeline == nil && (exec == nil || reg == nil):
		return nil, errors.New("grpcsvc: an executor and a formatter registry are required")
	case opts.Pipeline == nil && (opts.Compiler == nil || opts.Ontology == nil):
		return nil, errors.New("grpcsvc: Options.Compiler and Ontology are required")
	}
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = 30 * time.Second
	}
	if opts.MaxTimeout == 0 {
		opts.MaxTimeout = 5 * time.Minute
	}
	if opts.MaxQueryBytes == 0 {
		opts.MaxQueryBytes = 131072
	}
	if opts.MaxWriteBytes == 0 {
		opts.MaxWriteBytes = 4 << 30
	}
	if opts.MaxWriteTimeout == 0 {
		opts.MaxWriteTimeout = time.Hour
	}
	if opts.HealthInterval == 0 {
		opts.HealthInterval = DefaultHealthInterval
	}
	if opts.StreamChunkBytes == 0 {
		opts.StreamChunkBytes = 32 << 10
	}
	if opts.MaxStreamsPerCaller == 0 {
		opts.MaxStreamsPerCaller = DefaultMaxStreamsPerCaller
	}
	if opts.MaxStreamsPerCaller < 0 {
		return nil, errors.New("grpcsvc: Options.MaxStreamsPerCaller must not be negative")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	pipe := opts.Pipeline
	if pipe == nil {
		var err error
		pipe, err = pipeline.New(exec, pipeline.Options{
			Compiler: opts.Compiler, Ontology: opts.Ontology, Registry: reg, Admission: opts.Admission,
			GraphSnapshots: opts.GraphSnapshots, GraphSnapshotTTL: opts.GraphSnapshotTTL,
			GraphSnapshotBytes: opts.GraphSnapshotBytes, GraphSnapshotsPerCaller: opts.GraphSnapshotsPerCaller,
			GraphSnapshotBytesPerCaller: opts.GraphSnapshotBytesPerCaller, Metrics: opts.Metrics, Logger: log,
			DSLSchema: opts.DSLSchema, DSLVersion: opts.DSLVersion,
		})
		if err != nil {
			return nil, fmt.Errorf("grpcsvc: %w", err)
		}
	}
	hs := health.NewServer()
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	hs.SetServingStatus(pb.QueryService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	return &Server{pipe: pipe, reg: pipe.Registry(), verifier: opts.Verifier, log: log, opts: opts,
		streams: newStreamLimit(opts.MaxStreamsPerCaller), health: hs, healthLast: healthpb.HealthCheckResponse_SERVING}, nil
}

// DefaultMaxStreamsPerCaller is the default of
// [Options.MaxStreamsPerCaller]: as many open streams as MCP sessions one
// caller may hold.
const DefaultMaxStreamsPerCaller = 16

// Admission returns the controller that hands out this server's query
// slots.
func (s *Server) Admission() *admission.Controller { return s.pipe.Admission() }
