package grpcsvc

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
	"github.com/graphwire/graphwire/toon"
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
	// GraphSnapshots bounds the gcf-graph graphs remembered across calls for
	// unchanged/delta answers; 0 means 1024.
	GraphSnapshots int
	// GraphSnapshotTTL is how long a remembered graph may serve as a delta
	// base; 0 means 15 min.
	GraphSnapshotTTL time.Duration
	// Admission hands out the query slots. Share one controller between
	// the service faces of a process so a caller's limit holds across them;
	// nil means a controller with admission's defaults, for this server only.
	Admission *admission.Controller
	// Logger receives one line per call; nil discards.
	Logger *slog.Logger
}

// Server is the graphwire query service. It is safe for concurrent use.
type Server struct {
	pb.UnimplementedQueryServiceServer

	exec     Executor
	reg      *formatter.Registry
	verifier *auth.Verifier
	tokens   *tokens.Counter
	graphs   *snapshots
	log      *slog.Logger

	// The ontology for GetGraphSchema, rendered once.
	schemaJSON, schemaTOON string
	opts                   Options
}

// New returns a server that runs queries on exec and formats them with reg.
func New(exec Executor, reg *formatter.Registry, opts Options) (*Server, error) {
	switch {
	case exec == nil || reg == nil:
		return nil, errors.New("grpcsvc: an executor and a formatter registry are required")
	case opts.Compiler == nil || opts.Ontology == nil || opts.Verifier == nil:
		return nil, errors.New("grpcsvc: Options.Compiler, Ontology and Verifier are required")
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
	if opts.StreamChunkBytes == 0 {
		opts.StreamChunkBytes = 32 << 10
	}
	if opts.GraphSnapshots == 0 {
		opts.GraphSnapshots = 1024
	}
	if opts.GraphSnapshotTTL == 0 {
		opts.GraphSnapshotTTL = 15 * time.Minute
	}
	if opts.Admission == nil {
		ctl, err := admission.New(admission.Options{})
		if err != nil {
			return nil, fmt.Errorf("grpcsvc: admission: %w", err)
		}
		opts.Admission = ctl
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	doc, err := json.Marshal(schemaDoc(opts.Ontology))
	if err != nil {
		return nil, fmt.Errorf("grpcsvc: render the graph schema: %w", err)
	}
	text, err := toon.FromJSON(doc, toon.Options{})
	if err != nil {
		return nil, fmt.Errorf("grpcsvc: render the graph schema as TOON: %w", err)
	}
	return &Server{exec: exec, reg: reg, verifier: opts.Verifier, tokens: tokens.New(), graphs: newSnapshots(opts.GraphSnapshots, opts.GraphSnapshotTTL), log: log, opts: opts,
		schemaJSON: string(doc), schemaTOON: string(text)}, nil
}

// Admission returns the controller that hands out this server's query
// slots.
func (s *Server) Admission() *admission.Controller { return s.opts.Admission }
