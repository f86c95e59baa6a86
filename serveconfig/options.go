package serveconfig

import (
	"strconv"
	"time"

	"github.com/graphwire/graphwire/admission"
)

// Kind is the type of an option's value.
type Kind int

// The kinds of option. Every value is written as text (a flag, an
// environment variable or a YAML scalar) and parsed by its kind.
const (
	String   Kind = iota // any text
	Int                  // a decimal integer
	Duration             // a Go duration: 500ms, 5s, 2h
	Bool                 // true or false; as a flag, present means true
)

// String names the kind as pflag's Value.Type does.
func (k Kind) String() string {
	switch k {
	case Int:
		return "int"
	case Duration:
		return "duration"
	case Bool:
		return "bool"
	}
	return "string"
}

// Option is one setting of graphwire serve: its flag name (without
// dashes), which is also its config-file key and, upper snake case behind
// GRAPHWIRE_, its environment variable.
type Option struct {
	Name    string
	Kind    Kind
	Default string // as text, parsed like any other source
	Usage   string
	// field is where [Resolve] stores the parsed value.
	field func(*Config) any
}

// Env returns the option's environment variable, GRAPHWIRE_ and the name in
// upper snake case: --max-concurrent is GRAPHWIRE_MAX_CONCURRENT.
func (o Option) Env() string {
	b := []byte("GRAPHWIRE_")
	for i := 0; i < len(o.Name); i++ {
		c := o.Name[i]
		switch {
		case c == '-':
			c = '_'
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// Config is the resolved configuration of graphwire serve. Its zero value
// is not useful; [Resolve] fills every field, from the table's defaults
// when no source sets one.
type Config struct {
	// Engine: --embedded DIR or --clickhouse DSN, as for every command.
	Embedded, ClickHouse, EngineLog, MemoryBudget string
	// Cluster: with ClickHouse, the cluster the graph is sharded over (docs/cluster.md).
	Cluster string

	Listen, MCPListen, MetricsListen string
	PProf                            bool

	JWTSecretFile, JWTIssuer, JWTAudience string
	// Identity from an IdP (docs/service.md, "Identity"): a JWKS file or URL, how often
	// the URL is read, the clock skew allowed, and the claims that carry the user id,
	// the scopes and the admin flag.
	JWKSFile, JWKSURL                           string
	JWKSRefresh, JWKSMinRefresh, JWKSTimeout    time.Duration
	JWTClockSkew                                time.Duration
	JWTUserClaim, JWTScopesClaim, JWTAdminClaim string

	HealthInterval, ShutdownGrace time.Duration
	Admission                     admission.Options
	// MaxWalkCost is compiler.Options.MaxWalkCost (0: its default, -1: no bound).
	MaxWalkCost int
	// MaxValueBytes is pipeline.Options.MaxValueBytes (0: its default, -1: no cap).
	MaxValueBytes int

	TLSCert, TLSKey, TLSClientCA string
	Plaintext                    bool

	LogLevel, LogFormat string

	KeepaliveTime, KeepaliveTimeout time.Duration
	MaxRecvMsgSize, MaxSendMsgSize  int
	MaxConcurrentStreams            int

	// Connection bounds (docs/service.md, "Connections and file descriptors").
	ReadHeaderTimeout, HTTPReadTimeout, HTTPWriteTimeout, HTTPIdleTimeout time.Duration
	GRPCMaxConnectionIdle, KeepaliveMinTime                               time.Duration
	MaxConnections, MaxConnectionsPerIP, MaxUnauthenticatedConnections    int
	EngineFDReserve                                                       int
	// MCPAllowedOrigins lists, comma-separated, the browser origins MCP serves besides
	// loopback ones ("*": every origin).
	MCPAllowedOrigins string
	// MCPResourceURL is MCP's public URL and JWTAuthorizationServers (comma-separated) the
	// issuers of its tokens, both published as OAuth protected-resource metadata (RFC 9728).
	MCPResourceURL, JWTAuthorizationServers string
	// Redaction (docs/redaction.md): the authority's URL ("" for none), the deadline of one
	// call, the ids per call, and the per-caller cache's TTL (negative: no cache) and bounds.
	RedactURL                           string
	RedactTimeout, RedactCacheTTL       time.Duration
	RedactBatchSize, RedactCacheEntries int
	RedactCacheCallers                  int
	// MCPTools is MCP\'s tool surface: graphwire or orbit (mcpsvc.Options.Tools).
	MCPTools string
	// IndexRoots lists, comma-separated, the directories under which the MCP tool
	// index_repository may index a repository; empty leaves the tool out.
	IndexRoots string
	// NoMerge: writes through this server leave their parts unmerged (embedded engine only;
	// docs/loading.md, "Merging after a write"). MergeIdle: how long no query must have run
	// before the parts those merges left are merged too (0: never).
	NoMerge   bool
	MergeIdle time.Duration
	// GraphCacheMB bounds, in MiB, the edge sets path finding, walks, neighbors and
	// traversals of two or more hops run on with the embedded engine (docs/compiler.md, "Path
	// finding on cached edges" and the sections after it); 0 turns the cache off.
	GraphCacheMB int
}

// MaxGraphCacheMB is the largest graph-cache-mb (1 TiB): its bytes stay far from int64's
// limit, past which they would wrap to nothing or to a small cache.
const MaxGraphCacheMB = 1 << 20

// DefaultHealthInterval is --health-interval's default.
const DefaultHealthInterval = 5 * time.Second

// DefaultMaxRecvMsgSize is --max-recv-msg-size's default: the largest
// request message, and so the longest query text, the server reads.
const DefaultMaxRecvMsgSize = 131072

// table lists every option of graphwire serve, in the order help shows
// them.
var table = []Option{
	{"embedded", String, "", "data directory of the embedded engine (default $GRAPHWIRE_DATA, else ${XDG_DATA_HOME:-$HOME/.local/share}/graphwire/data)",
		func(c *Config) any { return &c.Embedded }},
	{"clickhouse", String, "", "ClickHouse server DSN, e.g. clickhouse://127.0.0.1:9000/graphwire",
		func(c *Config) any { return &c.ClickHouse }},
	{"cluster", String, "", "with --clickhouse: the graph is sharded over this cluster of the server's remote_servers (docs/cluster.md)",
		func(c *Config) any { return &c.Cluster }},
	{"engine-log", String, "", "append the embedded engine's own log (warnings and worse) to this file; by default it is off",
		func(c *Config) any { return &c.EngineLog }},
	{"memory-budget", String, "", "memory the embedded engine may use in total, e.g. 8GiB (default half of physical memory or the cgroup limit)",
		func(c *Config) any { return &c.MemoryBudget }},
	{"listen", String, "127.0.0.1:7447", "address of the gRPC service",
		func(c *Config) any { return &c.Listen }},
	{"mcp-listen", String, "", "also serve MCP (streamable HTTP at /mcp) on this address, with the same bearer JWTs and TLS",
		func(c *Config) any { return &c.MCPListen }},
	{"metrics-listen", String, "", "serve Prometheus metrics (plain HTTP at /metrics) on this address",
		func(c *Config) any { return &c.MetricsListen }},
	{"pprof", Bool, "false", "also serve net/http/pprof at /debug/pprof/ on --metrics-listen",
		func(c *Config) any { return &c.PProf }},
	{"jwt-secret-file", String, "", "file of HS256 keys, one per line (\"KID SECRET\" or just SECRET, each at least 32 bytes; # comments); this, --jwks-file or --jwks-url is required",
		func(c *Config) any { return &c.JWTSecretFile }},
	{"jwks-file", String, "", "JWKS file of an identity provider's public keys (RS*, PS*, ES*, EdDSA tokens); reloaded on SIGHUP",
		func(c *Config) any { return &c.JWKSFile }},
	{"jwks-url", String, "", "JWKS URL of an identity provider (https, or http on loopback); read at start, every --jwks-refresh, on an unknown kid and on SIGHUP",
		func(c *Config) any { return &c.JWKSURL }},
	{"jwks-refresh", Duration, "10m", "how often --jwks-url is read again",
		func(c *Config) any { return &c.JWKSRefresh }},
	{"jwks-min-refresh", Duration, "30s", "least time between two reads of --jwks-url asked for by tokens naming an unknown kid",
		func(c *Config) any { return &c.JWKSMinRefresh }},
	{"jwks-timeout", Duration, "10s", "time one read of --jwks-url may take, body included (the body is at most 1 MiB)",
		func(c *Config) any { return &c.JWKSTimeout }},
	{"jwt-clock-skew", Duration, "60s", "clock skew allowed when checking a token's exp, nbf and iat",
		func(c *Config) any { return &c.JWTClockSkew }},
	{"jwt-user-claim", String, "sub", "claim holding the user id, a positive decimal integer",
		func(c *Config) any { return &c.JWTUserClaim }},
	{"jwt-scopes-claim", String, "scopes", "claim holding the scopes, an array of {\"path\": \"100/\", \"access_level\": 30}",
		func(c *Config) any { return &c.JWTScopesClaim }},
	{"jwt-admin-claim", String, "admin", "claim holding the admin flag, a boolean",
		func(c *Config) any { return &c.JWTAdminClaim }},
	{"jwt-issuer", String, "", "required JWT iss claim (empty accepts any)",
		func(c *Config) any { return &c.JWTIssuer }},
	{"jwt-audience", String, "graphwire", "required JWT aud claim",
		func(c *Config) any { return &c.JWTAudience }},
	{"health-interval", Duration, DefaultHealthInterval.String(), "how often the health service checks that the engine answers and holds a complete graph (the embedded engine: only once a query or write ran since the last check)",
		func(c *Config) any { return &c.HealthInterval }},
	{"shutdown-grace", Duration, "10s", "time to finish in-flight calls on SIGTERM",
		func(c *Config) any { return &c.ShutdownGrace }},
	{"max-concurrent", Int, strconv.Itoa(admission.DefaultMaxConcurrent), "queries running at once over all callers",
		func(c *Config) any { return &c.Admission.MaxConcurrent }},
	{"max-per-caller", Int, "0", "queries one caller (user) runs at once, and may have waiting (0: half of --max-concurrent)",
		func(c *Config) any { return &c.Admission.MaxPerCaller }},
	{"max-queued", Int, "0", "queries waiting for a slot over all callers; more are refused at once (0: 4 × --max-concurrent, -1: none)",
		func(c *Config) any { return &c.Admission.MaxQueued }},
	{"admission-wait", Duration, admission.DefaultWait.String(), "how long a query waits for a slot before RESOURCE_EXHAUSTED",
		func(c *Config) any { return &c.Admission.Wait }},
	{"max-walk-cost", Int, "0", "refuse a walk of several hops estimated above this many edge combinations, before it runs (QUERY_TOO_EXPENSIVE; 0: 10000000000, -1: no bound)",
		func(c *Config) any { return &c.MaxWalkCost }},
	{"max-value-bytes", Int, "0", "longest string value an answer in gcf, gcf-graph, gcx, toon or auto carries whole; a longer one is cut and marked (0: 65536, -1: no cap; json stays exact)",
		func(c *Config) any { return &c.MaxValueBytes }},
	{"tls-cert", String, "", "PEM certificate (chain) of the gRPC and MCP listeners; reloaded on SIGHUP",
		func(c *Config) any { return &c.TLSCert }},
	{"tls-key", String, "", "PEM private key of --tls-cert; reloaded on SIGHUP",
		func(c *Config) any { return &c.TLSKey }},
	{"tls-client-ca", String, "", "PEM CA bundle: require client certificates signed by it (mTLS); reloaded on SIGHUP",
		func(c *Config) any { return &c.TLSClientCA }},
	{"plaintext", Bool, "false", "serve without TLS on a non-loopback address (loopback is plaintext unless --tls-cert is given)",
		func(c *Config) any { return &c.Plaintext }},
	{"log-level", String, "info", "least severe log level written: debug, info, warn or error",
		func(c *Config) any { return &c.LogLevel }},
	{"log-format", String, "json", "log line format: json or text",
		func(c *Config) any { return &c.LogFormat }},
	{"keepalive-time", Duration, "2h", "ping a gRPC client after this long without activity",
		func(c *Config) any { return &c.KeepaliveTime }},
	{"keepalive-timeout", Duration, "20s", "close a gRPC connection whose ping is not answered within this",
		func(c *Config) any { return &c.KeepaliveTimeout }},
	{"max-recv-msg-size", Int, strconv.Itoa(DefaultMaxRecvMsgSize), "largest gRPC request message in bytes (bounds the query text)",
		func(c *Config) any { return &c.MaxRecvMsgSize }},
	{"max-send-msg-size", Int, "0", "largest gRPC response message in bytes (0: gRPC's default, 2 GiB)",
		func(c *Config) any { return &c.MaxSendMsgSize }},
	{"max-concurrent-streams", Int, "100", "concurrent gRPC calls per client connection (0: unlimited)",
		func(c *Config) any { return &c.MaxConcurrentStreams }},
	{"keepalive-min-time", Duration, "5m", "a gRPC client that pings more often than this, or pings with no call open, is disconnected (gRPC's enforcement policy)",
		func(c *Config) any { return &c.KeepaliveMinTime }},
	{"grpc-max-connection-idle", Duration, "5m", "close a gRPC connection that has had no call open for this long",
		func(c *Config) any { return &c.GRPCMaxConnectionIdle }},
	{"read-header-timeout", Duration, "10s", "time a new connection has to send its HTTP request headers, or to finish the TLS and HTTP/2 handshake on gRPC",
		func(c *Config) any { return &c.ReadHeaderTimeout }},
	{"http-read-timeout", Duration, "30s", "time an HTTP request (MCP, metrics) has to arrive whole, body included",
		func(c *Config) any { return &c.HTTPReadTimeout }},
	{"http-write-timeout", Duration, "60s", "time an HTTP response write may wait for a slow client (MCP renews it for every message of a stream)",
		func(c *Config) any { return &c.HTTPWriteTimeout }},
	{"http-idle-timeout", Duration, "2m", "close an HTTP keep-alive connection idle between requests for this long",
		func(c *Config) any { return &c.HTTPIdleTimeout }},
	{"max-connections", Int, "0", "connections open at once over the gRPC, MCP and metrics listeners (0: what the descriptor limit leaves after --engine-fd-reserve)",
		func(c *Config) any { return &c.MaxConnections }},
	{"max-connections-per-ip", Int, "0", "connections open at once from one client address (0: a quarter of --max-connections)",
		func(c *Config) any { return &c.MaxConnectionsPerIP }},
	{"max-unauthenticated-connections", Int, "0", "connections open at once that have not yet sent a valid token; beyond, the oldest is closed (0: a quarter of --max-connections)",
		func(c *Config) any { return &c.MaxUnauthenticatedConnections }},
	{"engine-fd-reserve", Int, "1024", "file descriptors kept free of connections for the engine (at most half the descriptor limit)",
		func(c *Config) any { return &c.EngineFDReserve }},
	{"mcp-allowed-origins", String, "", "browser origins (scheme://host[:port], comma-separated; * for any) MCP serves besides loopback ones; other origins get 403",
		func(c *Config) any { return &c.MCPAllowedOrigins }},
	{"mcp-resource-url", String, "", "public URL of the MCP endpoint (https://host/mcp), published at /.well-known/oauth-protected-resource/mcp (RFC 9728); default: each request's own scheme and host",
		func(c *Config) any { return &c.MCPResourceURL }},
	{"mcp-tools", String, "graphwire", "MCP tool surface: graphwire (query_graph, get_graph_schema, get_query_dsl, get_response_format) or orbit (GitLab Orbit's list_commands and invoke_command, for agents configured for Orbit)",
		func(c *Config) any { return &c.MCPTools }},
	{"redact-url", String, "", "redaction authority (docs/redaction.md): every answer's nodes are checked with it and rows showing a denied node withheld; if it cannot decide, the request fails (UNAVAILABLE). Empty: no redaction",
		func(c *Config) any { return &c.RedactURL }},
	{"redact-timeout", Duration, "2s", "deadline of one call to --redact-url; a later answer fails the request",
		func(c *Config) any { return &c.RedactTimeout }},
	{"redact-batch-size", Int, "500", "most ids of one entity type in one call to --redact-url",
		func(c *Config) any { return &c.RedactBatchSize }},
	{"redact-cache-ttl", Duration, "30s", "how long a redaction decision is reused for the same caller (negative: not cached)",
		func(c *Config) any { return &c.RedactCacheTTL }},
	{"redact-cache-entries", Int, "10000", "redaction decisions cached per caller",
		func(c *Config) any { return &c.RedactCacheEntries }},
	{"redact-cache-callers", Int, "1024", "callers whose redaction decisions are cached (least recently used go first)",
		func(c *Config) any { return &c.RedactCacheCallers }},
	{"jwt-authorization-server", String, "", "issuer URLs (comma-separated) of the authorization servers that issue tokens, published in MCP's resource metadata (default: --jwt-issuer)",
		func(c *Config) any { return &c.JWTAuthorizationServers }},
	{"index-root", String, "", "directories (comma-separated) under which admins may index a repository with the MCP tool index_repository; paths outside them, symbolic links included, are refused (default: none, the tool is off)",
		func(c *Config) any { return &c.IndexRoots }},
	{"no-merge", Bool, "false", "with the embedded engine: do not merge the graph tables a write (load, index) left in several parts; a ClickHouse server merges by itself either way",
		func(c *Config) any { return &c.NoMerge }},
	{"merge-idle", Duration, "10s", "with the embedded engine: once no query has run for this long, merge the parts of large tables that the merges after writes left (0: never)",
		func(c *Config) any { return &c.MergeIdle }},
	{"graph-cache-mb", Int, "128", "with the embedded engine: MiB of memory for the edge sets that path finding, walks, neighbors and traversals of two or more hops from named ids follow in Go, per caller and relationship type (0: off, the engine reads every edge)",
		func(c *Config) any { return &c.GraphCacheMB }},
}

// Options returns the table of serve's options, in help order. The caller
// may keep and change the returned slice.
func Options() []Option {
	return append([]Option(nil), table...)
}

// lookup returns the option called name.
func lookup(name string) (Option, bool) {
	for _, o := range table {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}
