package serveconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// ConfigEnv names the config file when Resolve's file argument is empty.
const ConfigEnv = "GRAPHWIRE_CONFIG"

// MaxFileBytes bounds the config file: a file of serve's options is a few hundred bytes, and a
// larger one is refused before it is read whole (a 200 MB file once took 1.56 GB to parse).
const MaxFileBytes = 1 << 20

// Resolve layers serve's configuration: for each option, the flag the user
// gave (explicit, flag name → text, as [FlagValue] records it), else its
// environment variable ([Option.Env], read with getenv; an empty value
// counts as unset), else the config file's key, else the default. file is
// the path of a YAML config file (a mapping of option names to scalars),
// "" for $GRAPHWIRE_CONFIG or none; it holds one YAML document of at most
// [MaxFileBytes]. Unknown names in explicit or the file are errors, and so
// is every value that does not parse or that breaks a rule between options;
// every error is an [*Error] that says where the value came from, the file's
// with its line.
func Resolve(explicit map[string]string, getenv func(string) string, file string) (Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, name := range slices.Sorted(maps.Keys(explicit)) {
		if _, ok := lookup(name); !ok {
			return Config{}, &Error{Source: "--" + name, Err: ErrUnknownOption}
		}
	}
	if file == "" {
		file = getenv(ConfigEnv)
	}
	var fromFile map[string]fileValue
	if file != "" {
		data, err := readFile(file)
		if err != nil {
			return Config{}, err
		}
		if fromFile, err = parseFile(file, data); err != nil {
			return Config{}, err
		}
	}
	var c Config
	sources := make(map[string]string) // option → where its value came from, unless the default
	for _, o := range table {
		text, source := o.Default, "default"
		if v, ok := fromFile[o.Name]; ok {
			text, source = v.text, fmt.Sprintf("%s:%d", file, v.line)
		}
		if v := getenv(o.Env()); v != "" {
			text, source = v, o.Env()
		}
		if v, ok := explicit[o.Name]; ok {
			text, source = v, "--"+o.Name
		}
		if err := parseValue(o.Kind, text, o.field(&c)); err != nil {
			return Config{}, &Error{Source: source, Option: o.Name, Err: fmt.Errorf("%w: %w", ErrInvalidValue, err)}
		}
		if source != "default" {
			sources[o.Name] = source
		}
	}
	if err := check(&c); err != nil {
		if ce, ok := err.(*Error); ok && ce.own {
			ce.Source = sources[ce.Option]
		}
		return Config{}, err
	}
	return c, nil
}

// parseValue parses text as a value of kind k into dst, a pointer to the
// option's field.
func parseValue(k Kind, text string, dst any) error {
	switch k {
	case Int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return fmt.Errorf("%q is not an integer", text)
		}
		*dst.(*int) = n
	case Duration:
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("%q is not a duration such as 500ms, 5s or 2h", text)
		}
		*dst.(*time.Duration) = d
	case Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%q is not true or false", text)
		}
		*dst.(*bool) = b
	default:
		*dst.(*string) = text
	}
	return nil
}

// fileValue is an option's text in the config file and its line.
type fileValue struct {
	text string
	line int
}

// readFile reads the config file name, refusing one over [MaxFileBytes]: by its size when it
// is a regular file, before reading, and otherwise (a pipe, say) once it has read one byte
// more than the limit.
func readFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("serveconfig: read config file: %w", err)
	}
	defer f.Close()
	tooLarge := func(size string) error {
		return &Error{Source: name, Err: fmt.Errorf("%w: %s bytes, over the limit of %d bytes", ErrInvalidFile, size, MaxFileBytes)}
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, tooLarge(strconv.FormatInt(fi.Size(), 10))
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("serveconfig: read config file: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooLarge("more than " + strconv.Itoa(MaxFileBytes))
	}
	return data, nil
}

// parseFile reads a config file: one YAML document, a mapping of option
// names to scalar values. A second document is refused rather than
// ignored, with the line it starts on.
func parseFile(name string, data []byte) (map[string]fileValue, error) {
	out := map[string]fileValue{}
	if len(bytes.TrimSpace(data)) == 0 {
		return out, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return out, nil // comments only
		}
		return nil, &Error{Source: name, Err: fmt.Errorf("%w: %w", ErrInvalidFile, err)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &Error{Source: fmt.Sprintf("%s:%d", name, next.Line), Err: fmt.Errorf("%w: a second YAML document; the file holds one mapping", ErrInvalidFile)}
	case !errors.Is(err, io.EOF):
		return nil, &Error{Source: name, Err: fmt.Errorf("%w: %w", ErrInvalidFile, err)}
	}
	if len(doc.Content) == 0 {
		return out, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Source: fmt.Sprintf("%s:%d", name, root.Line), Err: fmt.Errorf("%w: want a mapping of option names to values", ErrInvalidFile)}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		at := fmt.Sprintf("%s:%d", name, k.Line)
		if _, ok := lookup(k.Value); !ok || k.Kind != yaml.ScalarNode {
			return nil, &Error{Source: at, Option: k.Value, Err: ErrUnknownOption}
		}
		if prev, ok := out[k.Value]; ok {
			return nil, &Error{Source: at, Option: k.Value, Err: fmt.Errorf("%w: also set on line %d", ErrInvalidFile, prev.line)}
		}
		if v.Kind != yaml.ScalarNode {
			return nil, &Error{Source: fmt.Sprintf("%s:%d", name, v.Line), Option: k.Value, Err: fmt.Errorf("%w: want a single value", ErrInvalidValue)}
		}
		text := v.Value
		if v.Tag == "!!null" {
			text = ""
		}
		out[k.Value] = fileValue{text: text, line: k.Line}
	}
	return out, nil
}

// check applies the rules between options.
func check(c *Config) error {
	// bad is a rule over one option's own value: Resolve names where that value came from.
	// several is a rule between options, which names the first of them and no source.
	bad := func(option, format string, args ...any) error {
		return &Error{Option: option, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...), own: true}
	}
	several := func(option, format string, args ...any) error {
		return &Error{Option: option, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)}
	}
	switch {
	case c.JWTSecretFile == "" && c.JWKSFile == "" && c.JWKSURL == "":
		return several("jwt-secret-file", "is required (or --jwks-file or --jwks-url)")
	case c.JWKSFile != "" && c.JWKSURL != "":
		return several("jwks-url", "use --jwks-file or --jwks-url, not both")
	case c.JWKSURL != "" && !jwksURLOK(c.JWKSURL):
		return bad("jwks-url", "%q is not an https URL (or an http URL on a loopback host)", c.JWKSURL)
	case c.JWKSRefresh <= 0:
		return bad("jwks-refresh", "must be positive")
	case c.JWKSMinRefresh <= 0:
		return bad("jwks-min-refresh", "must be positive")
	case c.JWKSTimeout <= 0:
		return bad("jwks-timeout", "must be positive")
	case c.MCPResourceURL != "" && !resourceURLOK(c.MCPResourceURL):
		return bad("mcp-resource-url", "%q is not an absolute http or https URL without a query or fragment", c.MCPResourceURL)
	case c.MCPTools != "graphwire" && c.MCPTools != "orbit":
		return bad("mcp-tools", "%q is not a tool surface (want graphwire or orbit)", c.MCPTools)
	case c.RedactURL != "" && !resourceURLOK(c.RedactURL):
		return bad("redact-url", "%q is not an absolute http or https URL without a query or fragment", c.RedactURL)
	case c.RedactTimeout <= 0:
		return bad("redact-timeout", "must be positive")
	case c.RedactBatchSize <= 0:
		return bad("redact-batch-size", "must be positive")
	case c.RedactCacheEntries <= 0:
		return bad("redact-cache-entries", "must be positive")
	case c.RedactCacheCallers <= 0:
		return bad("redact-cache-callers", "must be positive")
	case c.JWTClockSkew <= 0:
		return bad("jwt-clock-skew", "must be positive")
	case c.JWTUserClaim == "":
		return bad("jwt-user-claim", "must not be empty")
	case c.JWTScopesClaim == "":
		return bad("jwt-scopes-claim", "must not be empty")
	case c.JWTAdminClaim == "":
		return bad("jwt-admin-claim", "must not be empty")
	case c.JWTUserClaim == c.JWTScopesClaim || c.JWTUserClaim == c.JWTAdminClaim || c.JWTScopesClaim == c.JWTAdminClaim:
		return several("jwt-user-claim", "--jwt-user-claim, --jwt-scopes-claim and --jwt-admin-claim must name different claims")
	case c.Embedded != "" && c.ClickHouse != "":
		return several("embedded", "use --embedded or --clickhouse, not both")
	case c.Cluster != "" && c.ClickHouse == "":
		return several("cluster", "--cluster needs --clickhouse: the DSN of one of the cluster's servers")
	case c.Admission.MaxConcurrent <= 0:
		return bad("max-concurrent", "must be positive")
	case c.Admission.MaxPerCaller < 0:
		return bad("max-per-caller", "must not be negative")
	case c.Admission.MaxQueued < -1:
		return bad("max-queued", "must be -1 (none), 0 (the default) or positive")
	case c.Admission.Wait <= 0:
		return bad("admission-wait", "must be positive")
	case c.HealthInterval <= 0:
		return bad("health-interval", "must be positive")
	case c.ShutdownGrace < 0:
		return bad("shutdown-grace", "must not be negative")
	case c.GraphCacheMB < 0:
		return bad("graph-cache-mb", "must not be negative (0: no cache)")
	case c.GraphCacheMB > MaxGraphCacheMB:
		return bad("graph-cache-mb", "must be at most "+strconv.Itoa(MaxGraphCacheMB)+" (1 TiB)")
	case c.MergeIdle < 0:
		return bad("merge-idle", "must not be negative (0: never merge when idle)")
	case c.KeepaliveTime <= 0:
		return bad("keepalive-time", "must be positive")
	case c.KeepaliveTimeout <= 0:
		return bad("keepalive-timeout", "must be positive")
	case c.MaxRecvMsgSize <= 0:
		return bad("max-recv-msg-size", "must be positive")
	case c.MaxSendMsgSize < 0:
		return bad("max-send-msg-size", "must not be negative")
	case c.MaxConcurrentStreams < 0:
		return bad("max-concurrent-streams", "must not be negative")
	case c.KeepaliveMinTime <= 0:
		return bad("keepalive-min-time", "must be positive")
	case c.GRPCMaxConnectionIdle <= 0:
		return bad("grpc-max-connection-idle", "must be positive")
	case c.ReadHeaderTimeout <= 0:
		return bad("read-header-timeout", "must be positive")
	case c.HTTPReadTimeout <= 0:
		return bad("http-read-timeout", "must be positive")
	case c.HTTPWriteTimeout <= 0:
		return bad("http-write-timeout", "must be positive")
	case c.HTTPIdleTimeout <= 0:
		return bad("http-idle-timeout", "must be positive")
	case c.MaxConnections < 0:
		return bad("max-connections", "must not be negative")
	case c.MaxConnectionsPerIP < 0:
		return bad("max-connections-per-ip", "must not be negative")
	case c.MaxUnauthenticatedConnections < 0:
		return bad("max-unauthenticated-connections", "must not be negative")
	case c.EngineFDReserve < 0:
		return bad("engine-fd-reserve", "must not be negative")
	case (c.TLSCert == "") != (c.TLSKey == ""):
		return several("tls-cert", "--tls-cert and --tls-key go together")
	case c.TLSClientCA != "" && c.TLSCert == "":
		return several("tls-client-ca", "needs --tls-cert and --tls-key")
	case c.Plaintext && c.TLSCert != "":
		return several("plaintext", "contradicts --tls-cert")
	case c.PProf && c.MetricsListen == "":
		return several("pprof", "needs --metrics-listen")
	case !slices.Contains([]string{"debug", "info", "warn", "error"}, c.LogLevel):
		return bad("log-level", "%q is not debug, info, warn or error", c.LogLevel)
	case !slices.Contains([]string{"json", "text"}, c.LogFormat):
		return bad("log-format", "%q is not json or text", c.LogFormat)
	}
	if c.TLSCert == "" && !c.Plaintext {
		for _, o := range []struct{ name, addr string }{{"listen", c.Listen}, {"mcp-listen", c.MCPListen}} {
			if o.addr != "" && !Loopback(o.addr) {
				return bad(o.name, "%s is not a loopback address: give --tls-cert and --tls-key, or --plaintext to serve it without TLS", o.addr)
			}
		}
	}
	return nil
}

// jwksURLOK reports whether u is an absolute https URL, or an http URL whose
// host is a loopback address or localhost: keys fetched in plain text over a
// network could be replaced on the way.
func jwksURLOK(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" || p.User != nil {
		return false
	}
	switch p.Scheme {
	case "https":
		return true
	case "http":
		return loopbackHost(p.Hostname())
	}
	return false
}

// resourceURLOK reports whether u can name an OAuth protected resource (RFC 9728 §1.2): an
// absolute http or https URL without a query or fragment.
func resourceURLOK(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "https" || p.Scheme == "http") && p.Host != "" && p.User == nil &&
		p.RawQuery == "" && p.Fragment == "" && !p.ForceQuery
}

// Loopback reports whether the listen address addr (host:port) only
// accepts connections from this machine: localhost or a loopback IP. An
// empty host listens on every interface and is not loopback.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return loopbackHost(host)
}

// loopbackHost reports whether host (no port, IPv6 without brackets) is localhost or a
// loopback IP.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
