package mcpsvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/telemetry"
)

// Options configures a [Server]. Pipeline is required, and Verifier for
// [Server.HTTPHandler]; every other zero field means its documented
// default.
type Options struct {
	Pipeline *pipeline.Pipeline
	// Indexer, when set, adds the tool index_repository (admins only); nil leaves it out.
	Indexer Indexer
	// IndexTimeout bounds one index_repository call; 0 means 10 min.
	IndexTimeout time.Duration
	// Verifier checks the bearer JWTs of HTTP requests (the same as gRPC's).
	Verifier *auth.Verifier
	// Version is the server version reported to clients; "" means "dev".
	Version string
	// DefaultTimeout bounds one tool call; 0 means 30 s.
	DefaultTimeout time.Duration
	// SessionTimeout closes idle HTTP sessions; 0 means 30 min.
	SessionTimeout time.Duration
	// Metrics counts and times every tool call (face "mcp"); nil records
	// nothing.
	Metrics *telemetry.Metrics
	// MaxSessions bounds the live HTTP sessions over all callers, and
	// MaxSessionsPerCaller those of one caller (a user, the token's sub, as
	// in admission); 0 means [DefaultMaxSessions] and
	// [DefaultMaxSessionsPerCaller]. A request that would open one more is
	// refused with 429 Too Many Requests until a session is deleted or
	// times out.
	MaxSessions          int
	MaxSessionsPerCaller int
	// MaxRequestBytes bounds the body of an HTTP request, which is read whole before any
	// tool sees the query in it; a longer body is refused with 413. 0 means
	// [RequestBytes] of the pipeline's query limit, so that every query the pipeline
	// accepts fits however it is escaped, and a body far over that limit is not read.
	MaxRequestBytes int64
	// AllowedOrigins are the browser origins (scheme://host[:port]) whose requests the HTTP
	// transport serves besides loopback ones; "*" allows every origin. A request without an
	// Origin header (a non-browser client) is always served; one from any other origin is
	// refused with 403 before its token is looked at (DNS rebinding, see originGate). New
	// ignores entries that are not origins; [CheckOrigins] finds them.
	AllowedOrigins []string
	// WriteTimeout, when positive, bounds each write of an authenticated request's response
	// to a client that does not read, renewed for every message of a stream, and lifts the
	// server's read deadline once the request body is read (see streamDeadlines); serve it
	// with an http.Server whose ReadTimeout and WriteTimeout bound the rest. 0 leaves the
	// server's deadlines alone.
	WriteTimeout time.Duration
	// Authenticated, when set, is called for every HTTP request whose bearer token
	// verifies, before the request is served, with the token's user. serve uses it to move
	// the request's connection out of the budget of unauthenticated connections, up to a
	// bound of connections per user.
	Authenticated func(r *http.Request, user int64)
	// Logger receives one line per tool call; nil discards.
	Logger *slog.Logger
	// ResourceURL is the public URL of the MCP endpoint (https://graphwire.example/mcp),
	// the resource of its OAuth protected-resource metadata (RFC 9728,
	// [Server.ResourceMetadataHandler]); "" takes each request's own scheme and host.
	ResourceURL string
	// AuthorizationServers are the issuer URLs of the authorization servers whose tokens
	// this server takes, published in that metadata.
	AuthorizationServers []string
	// Tools names the tool surface: [ToolsGraphwire] ("" means it) or [ToolsOrbit].
	Tools string
	// ResponseSchema is the JSON Schema of raw answers (config/schemas/query_response.json)
	// and ResponseVersion its version, which get_response_format returns; without them the
	// tool answers an error.
	ResponseSchema  []byte
	ResponseVersion string
}

// Server is the MCP server. It is safe for concurrent use.
type Server struct {
	pipe *pipeline.Pipeline
	mcp  *mcp.Server
	opts Options
	log  *slog.Logger
	// origins decides which browser origins the HTTP transport serves.
	origins originGate
	// fixed holds the caller of each stdio or in-process session.
	fixed sync.Map // *mcp.ServerSession → *auth.Claims
}

// New returns an MCP server over opts.Pipeline.
func New(opts Options) (*Server, error) {
	if opts.Pipeline == nil {
		return nil, errors.New("mcpsvc: Options.Pipeline is required")
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.DefaultTimeout == 0 {
		opts.DefaultTimeout = 30 * time.Second
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = 30 * time.Minute
	}
	if opts.IndexTimeout == 0 {
		opts.IndexTimeout = 10 * time.Minute
	}
	if opts.MaxSessions == 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.MaxSessionsPerCaller == 0 {
		opts.MaxSessionsPerCaller = DefaultMaxSessionsPerCaller
	}
	if opts.MaxSessions < 0 || opts.MaxSessionsPerCaller < 0 || opts.MaxSessionsPerCaller > opts.MaxSessions {
		return nil, errors.New("mcpsvc: session bounds must be positive, the per-caller one at most the total")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	switch opts.Tools {
	case "":
		opts.Tools = ToolsGraphwire
	case ToolsGraphwire, ToolsOrbit:
	default:
		return nil, fmt.Errorf("mcpsvc: unknown tool surface %q (want %s or %s)", opts.Tools, ToolsGraphwire, ToolsOrbit)
	}
	opts.AllowedOrigins = slices.Clone(opts.AllowedOrigins)
	s := &Server{pipe: opts.Pipeline, opts: opts, log: log, origins: newOriginGate(opts.AllowedOrigins)}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "graphwire", Title: "graphwire graph query service", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructionsFor(opts.Tools)})
	s.register()
	return s, nil
}

// instructions is what the server tells a client at initialization.
const instructions = "graphwire answers graph queries over a software-development graph (users, groups, projects, merge requests, issues, pipelines, …). " +
	"Start with get_graph_schema (compact; expand=[Entity] for properties), then get_query_dsl, then query_graph. " +
	"Use max_tokens to bound an answer and pass next_cursor back as cursor to continue; format auto picks the cheapest lossless format."

// orbitInstructions is what the server tells a client of the Orbit surface.
const orbitInstructions = "graphwire answers graph queries over a software-development graph (users, groups, projects, merge requests, issues, pipelines, …). " +
	"Call list_commands once, then invoke_command with command_name get_query_dsl and get_graph_schema (expand_nodes for the entities you need) before query_graph. " +
	"Do not guess entity, relationship or property names."

func instructionsFor(tools string) string {
	if tools == ToolsOrbit {
		return orbitInstructions
	}
	return instructions
}

// RunStdio serves one MCP session over r and w (a local agent's stdin and
// stdout) as the fixed caller claims, until the client closes the stream
// or ctx ends.
func (s *Server) RunStdio(ctx context.Context, claims *auth.Claims, r io.ReadCloser, w io.WriteCloser) error {
	ss, err := s.Connect(ctx, claims, &mcp.IOTransport{Reader: r, Writer: w})
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		ss.Close()
		<-done
		return nil
	}
}

// Connect serves one session over t as the fixed caller claims (stdio,
// in-process clients); the session ends when the client closes it.
func (s *Server) Connect(ctx context.Context, claims *auth.Claims, t mcp.Transport) (*mcp.ServerSession, error) {
	if claims == nil {
		return nil, errors.New("mcpsvc: a caller is required")
	}
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return nil, err
	}
	s.fixed.Store(ss, claims)
	go func() {
		ss.Wait()
		s.fixed.Delete(ss)
	}()
	return ss, nil
}

// HTTPHandler serves streamable HTTP. Every request needs a valid bearer
// JWT: without one the answer is 401 with a WWW-Authenticate header, before
// the MCP layer sees the request. Every response has an X-Request-Id
// header ([RequestIDHeader]), which tool results repeat in
// _meta.request_id. A session is bound to the authorization
// context (the claims' fingerprint) that opened it. Live sessions are
// bounded per caller and in all (Options.MaxSessions,
// MaxSessionsPerCaller): beyond them, opening one more answers 429. A request body
// longer than Options.MaxRequestBytes answers 413 without being read whole.
//
// A request with an Origin header that is neither a loopback origin nor one of
// Options.AllowedOrigins answers 403 (DNS rebinding; the SDK checks Host). A JSON-RPC
// batch answers 400 with a JSON-RPC error unless the request's protocol version (its
// Mcp-Protocol-Version header, else its session's) is one before 2025-06-18, which
// removed batches. A refusal for a missing or bad token or a foreign origin closes the
// connection (Connection: close), so that an unauthenticated peer cannot keep it.
func (s *Server) HTTPHandler() http.Handler {
	body := s.opts.MaxRequestBytes
	if body <= 0 {
		body = RequestBytes(s.pipe.MaxQueryBytes())
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.log, SessionTimeout: s.opts.SessionTimeout, MaxRequestBodyBytes: body})
	verify := func(_ context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		if s.opts.Verifier == nil {
			return nil, sdkauth.ErrInvalidToken
		}
		c, err := s.opts.Verifier.Verify(token)
		if err != nil {
			return nil, sdkauth.ErrInvalidToken
		}
		if s.opts.Authenticated != nil {
			s.opts.Authenticated(r, c.UserID)
		}
		// UserID binds the session: the SDK refuses a request of another
		// authorization context on it.
		return &sdkauth.TokenInfo{UserID: c.Fingerprint(), Extra: map[string]any{"claims": c}}, nil
	}
	limit := newSessionLimit(s.mcp, s.opts.MaxSessions, s.opts.MaxSessionsPerCaller, sessionRetryAfter)
	inner := sdkauth.RequireBearerToken(verify, &sdkauth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamDeadlines(s.opts.WriteTimeout, s.refuseBatches(body, limit.wrap(h))))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.origins.allows(r.Header.Get("Origin")) {
			refuseOrigin(w)
			return
		}
		// Every response, a refusal too, names its request; a tool call
		// carried by this request takes the same id from the header.
		id := telemetry.RequestID(r.Header.Get(RequestIDHeader))
		w.Header().Set(RequestIDHeader, id)
		r2 := *r
		r2.Header = r.Header.Clone()
		r2.Header.Set(RequestIDHeader, id)
		inner.ServeHTTP(&challenge{ResponseWriter: w, metadata: metadataURL(s.resourceURL(r))}, &r2)
	})
}

// RequestBytes is the default bound of an HTTP request body for a query limit of
// maxQuery bytes: the query written as a JSON string with every byte escaped as \u00XX (6
// bytes), and 64 KiB for the JSON-RPC envelope and the other arguments. For the default
// limit of 131072 bytes that is 851968 bytes.
func RequestBytes(maxQuery int) int64 { return 6*int64(maxQuery) + 64<<10 }

// RequestIDHeader is the HTTP header of request ids, both ways: a sane
// incoming id is kept (telemetry.RequestID), and every response carries
// the request's id.
const RequestIDHeader = "X-Request-Id"

// sessionRetryAfter is the Retry-After of a refused session: about how long a client
// needs to close one of its idle sessions.
const sessionRetryAfter = 10 * time.Second

// challenge adds the WWW-Authenticate header to a 401 (RFC 6750 §3), with the URL of the
// resource metadata (RFC 9728 §5.1) in its resource_metadata parameter.
type challenge struct {
	http.ResponseWriter
	metadata string
}

// The connection closes after a 401 (Connection: close; over HTTP/2 a GOAWAY): a peer
// without a valid token gets its answer and nothing more, and cannot hold the socket.
func (c *challenge) WriteHeader(code int) {
	if code == http.StatusUnauthorized {
		if c.Header().Get("WWW-Authenticate") == "" {
			c.Header().Set("WWW-Authenticate", `Bearer realm="graphwire", error="invalid_token", resource_metadata=`+strconv.Quote(c.metadata))
		}
		c.Header().Set("Connection", "close")
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challenge) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (c *challenge) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// caller returns the verified caller of a tool call: the bearer token's
// claims over HTTP, the fixed caller over stdio.
func (s *Server) caller(req *mcp.CallToolRequest) (*auth.Claims, bool) {
	if req.Extra != nil && req.Extra.TokenInfo != nil {
		c, ok := req.Extra.TokenInfo.Extra["claims"].(*auth.Claims)
		return c, ok
	}
	if req.Session == nil {
		return nil, false
	}
	v, ok := s.fixed.Load(req.Session)
	if !ok {
		return nil, false
	}
	return v.(*auth.Claims), true
}

// sessionKey names the MCP session of a request for the pipeline's
// gcf-graph state: the HTTP session id, or for a transport without ids the
// session object itself.
func sessionKey(req *mcp.CallToolRequest) string {
	if req.Session == nil {
		return "none"
	}
	if id := req.Session.ID(); id != "" {
		return "mcp:" + id
	}
	return fmt.Sprintf("mcp-conn:%p", req.Session)
}
