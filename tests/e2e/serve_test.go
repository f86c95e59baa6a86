package e2e

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/executor/chdb"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// oldSecret is the key a rotation is retiring; the key file names it
// "old" and gives the current key, secret, without a name.
var oldSecret = []byte("e2e-old-secret-0123456789abcdef012345")

// keyFile writes the JWT key file of the rotation: "old" and the current
// key.
func keyFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "jwt-keys")
	text := "# rotation: old goes once every token signed with it has expired\nold " + string(oldSecret) + "\n" + string(secret) + "\n"
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// mint signs a token for c with key, naming the key kid unless it is "".
func mint(t *testing.T, key []byte, kid string, c auth.Claims) string {
	t.Helper()
	tok, err := auth.Mint(key, c, auth.MintOptions{KeyID: kid})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// grpcConn connects to addr with creds; the connection closes with the test.
func grpcConn(t *testing.T, addr string, creds credentials.TransportCredentials) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// withBearer adds a bearer token to every HTTP request.
type withBearer struct {
	token string
	next  http.RoundTripper
}

func (b withBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpConnect connects the MCP SDK client to url with token over tr; the
// session closes with the test.
func mcpConnect(t *testing.T, url, token string, tr http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	ct := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: withBearer{token, tr}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "graphwire-e2e", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatalf("connect MCP: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// executeQuery runs the named query with token and returns the answer and
// the response headers.
func executeQuery(t *testing.T, conn *grpc.ClientConn, token, requestID, name string) (*pb.ExecuteQueryResponse, metadata.MD, error) {
	t.Helper()
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
	if requestID != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "x-request-id", requestID)
	}
	var header metadata.MD
	resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: queries[name]}, grpc.Header(&header))
	return resp, header, err
}

// TestServeTLSMetrics runs "graphwire serve" with TLS on gRPC and MCP and
// a metrics listener with pprof, makes real gRPC and MCP calls, and checks
// what they answer (request ids, rotated keys) and the series a scrape of
// /metrics shows afterwards.
func TestServeTLSMetrics(t *testing.T) {
	p := newPKI(t, "graphwire-e2e")
	cert, key := p.issue(t, "server-1", true)
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--tls-cert", cert, "--tls-key", key,
		"--mcp-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--pprof")
	current := mint(t, secret, "", admin)

	conn := grpcConn(t, s.grpc, credentials.NewTLS(p.clientTLS(t, "", "")))
	resp, header, err := executeQuery(t, conn, current, "e2e-tls-1", "traversal")
	if err != nil {
		t.Fatalf("query over TLS: %v", err)
	}
	if got := resp.GetMetadata().GetRequestId(); got != "e2e-tls-1" {
		t.Errorf("metadata.request_id %q, want the incoming e2e-tls-1", got)
	}
	if got := header.Get("x-request-id"); !slices.Equal(got, []string{"e2e-tls-1"}) {
		t.Errorf("x-request-id header %v", got)
	}
	// The retiring key still verifies, by its name or without one.
	for _, kid := range []string{"old", ""} {
		if _, _, err := executeQuery(t, conn, mint(t, oldSecret, kid, admin), "", "search"); err != nil {
			t.Errorf("token of the old key (kid %q): %v", kid, err)
		}
	}
	if _, _, err := executeQuery(t, conn, mint(t, secret, "old", admin), "", "search"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("current key under the old key's name: %v, want Unauthenticated", err)
	}
	plain := grpcConn(t, s.grpc, insecure.NewCredentials())
	if _, _, err := executeQuery(t, plain, current, "", "search"); status.Code(err) != codes.Unavailable {
		t.Errorf("plaintext call to the TLS listener: %v, want Unavailable", err)
	}

	// MCP over HTTPS, with the same token.
	tr := &http.Transport{TLSClientConfig: p.clientTLS(t, "", "")}
	t.Cleanup(tr.CloseIdleConnections)
	url := "https://" + s.mcp + "/mcp"
	ms := mcpConnect(t, url, current, tr)
	res, err := ms.CallTool(t.Context(), &mcp.CallToolParams{Name: "query_graph", Arguments: map[string]any{"query": queries["traversal"], "format": "goon"}})
	if err != nil || res.IsError {
		t.Fatalf("query_graph over HTTPS: %v %+v", err, res)
	}
	if id, _ := res.Meta["request_id"].(string); !newID.MatchString(id) {
		t.Errorf("tool result _meta.request_id %q, want a new 32-hex id", id)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-Id", "e2e-mcp-7")
	hr, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hr.Body.Close()
	if hr.StatusCode != http.StatusUnauthorized || hr.Header.Get("X-Request-Id") != "e2e-mcp-7" {
		t.Errorf("MCP POST without a token: %d, X-Request-Id %q; want 401 and e2e-mcp-7", hr.StatusCode, hr.Header.Get("X-Request-Id"))
	}
	if hr, err := http.Post("http://"+s.mcp+"/mcp", "application/json", strings.NewReader(`{}`)); err == nil {
		hr.Body.Close()
		if hr.StatusCode != http.StatusBadRequest {
			t.Errorf("plain HTTP to the MCP TLS listener: %d, want a refusal", hr.StatusCode)
		}
	}

	fams := scrape(t, s.metrics)
	method := "/graphwire.v1.QueryService/ExecuteQuery"
	tests := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"graphwire_requests_total", map[string]string{"face": "grpc", "method": method, "code": "OK", "query_type": "traversal"}, 3},
		{"graphwire_requests_total", map[string]string{"face": "grpc", "method": method, "code": "Unauthenticated", "query_type": ""}, 1},
		{"graphwire_requests_total", map[string]string{"face": "mcp", "method": "query_graph", "code": "OK", "query_type": "traversal"}, 1},
		{"graphwire_request_duration_seconds", map[string]string{"face": "mcp", "method": "query_graph"}, 1},
		{"graphwire_engine_duration_seconds", map[string]string{"query_type": "traversal"}, 4},
		{"graphwire_format_duration_seconds", map[string]string{"format": "goon"}, 1},
		{"graphwire_format_duration_seconds", map[string]string{"format": "json"}, 3},
		{"graphwire_admission_slots_in_use", map[string]string{}, 0},
		{"graphwire_admission_slots", map[string]string{}, 4},
		// Known label values are exported at 0 before they occur.
		{"graphwire_admission_rejections_total", map[string]string{"limit": "server"}, 0},
		{"graphwire_graph_answers_total", map[string]string{"outcome": "delta"}, 0},
		{"graphwire_graph_snapshot_lookups_total", map[string]string{"result": "miss"}, 0},
	}
	for _, tt := range tests {
		if got := sample(fams, tt.name, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "graphwire_answer_tokens_total"} {
		if _, ok := fams[name]; !ok {
			t.Errorf("no %s series", name)
		}
	}
	pr, err := http.Get("http://" + s.metrics + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	pr.Body.Close()
	if pr.StatusCode != http.StatusOK {
		t.Errorf("pprof with --pprof: %d", pr.StatusCode)
	}
}

// peerName dials addr over TLS with cfg and returns the common name of the
// certificate the server presented.
func peerName(t *testing.T, addr string, cfg *tls.Config) string {
	t.Helper()
	cfg = cfg.Clone()
	cfg.NextProtos = []string{"h2"}
	c, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	defer c.Close()
	return c.ConnectionState().PeerCertificates[0].Subject.CommonName
}

// TestServeMTLSReload: with --tls-client-ca a client without a certificate
// is refused and one with a certificate the CA signed is served; after the
// files change, SIGHUP makes new connections see the new certificate, and a
// reload of broken files keeps the last good one.
func TestServeMTLSReload(t *testing.T) {
	p := newPKI(t, "graphwire-e2e")
	first, firstKey := p.issue(t, "server-1", true)
	second, secondKey := p.issue(t, "server-2", true)
	clientCert, clientKey := p.issue(t, "client-1", false)
	certFile, keyPath := filepath.Join(t.TempDir(), "tls.crt"), filepath.Join(t.TempDir(), "tls.key")
	copyFile(t, first, certFile)
	copyFile(t, firstKey, keyPath)
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--tls-cert", certFile, "--tls-key", keyPath, "--tls-client-ca", p.caFile)

	check := func(cfg *tls.Config) (healthpb.HealthCheckResponse_ServingStatus, error) {
		conn := grpcConn(t, s.grpc, credentials.NewTLS(cfg))
		r, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{})
		return r.GetStatus(), err
	}
	if _, err := check(p.clientTLS(t, "", "")); status.Code(err) != codes.Unavailable {
		t.Errorf("client without a certificate: %v, want Unavailable", err)
	}
	stranger := newPKI(t, "stranger")
	strangerCert, strangerKey := stranger.issue(t, "client-x", false)
	cfg := p.clientTLS(t, strangerCert, strangerKey)
	if _, err := check(cfg); status.Code(err) != codes.Unavailable {
		t.Errorf("client certificate of another CA: %v, want Unavailable", err)
	}
	mtls := p.clientTLS(t, clientCert, clientKey)
	if st, err := check(mtls); err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("client with a certificate: %v %v, want SERVING", st, err)
	}
	if got := peerName(t, s.grpc, mtls); got != "server-1" {
		t.Fatalf("server certificate %q, want server-1", got)
	}

	copyFile(t, second, certFile)
	copyFile(t, secondKey, keyPath)
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "tls_reloaded")
	if got := peerName(t, s.grpc, mtls); got != "server-2" {
		t.Errorf("server certificate after SIGHUP %q, want server-2", got)
	}

	if err := os.WriteFile(keyPath, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "tls_reload_failed")
	if got := peerName(t, s.grpc, mtls); got != "server-2" {
		t.Errorf("server certificate after a failed reload %q, want server-2 still", got)
	}
	if st, err := check(mtls); err != nil || st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("after a failed reload: %v %v, want SERVING", st, err)
	}
}

// TestServeLogsOnlyJSON: under --log-format json every line serve writes to stderr, from
// start-up to shutdown, is a JSON object; net/http's own errors too (a TLS handshake that fails
// on the MCP listener was a plain line of the log package).
func TestServeLogsOnlyJSON(t *testing.T) {
	p := newPKI(t, "graphwire-e2e")
	cert, key := p.issue(t, "server-1", true)
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--tls-cert", cert, "--tls-key", key,
		"--mcp-listen", "127.0.0.1:0", "--log-format", "json", "--log-level", "debug") // net/http's errors log at debug (a flood must not flood the log)
	conn, err := net.Dial("tcp", s.mcp)
	if err != nil {
		t.Fatal(err)
	}
	// Not a TLS record, and not an HTTP request either (which net/http answers without logging).
	if _, err := conn.Write([]byte("hello, not TLS\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	io.Copy(io.Discard, conn) // until the server hangs up
	conn.Close()
	for !strings.Contains(s.next(t).raw, "TLS handshake error") { // next fails after a minute of silence
	}
	s.stop()
	lines := strings.Split(strings.TrimSuffix(s.output(), "\n"), "\n")
	for _, raw := range lines {
		var l map[string]any
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Errorf("stderr line is not JSON: %q", raw)
		}
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, `"msg":"stopped"`) {
		t.Errorf("last line %q, want the stopped line\n%s", last, s.output())
	}
}

// TestServeConfigLayersAndLogs configures serve from a file, the
// environment and flags at once, checks which source won, and then that
// the debug-level log has a request id on every line about a request and
// never a token or a key.
func TestServeConfigLayersAndLogs(t *testing.T) {
	dir := t.TempDir()
	keys := keyFile(t)
	config := filepath.Join(dir, "serve.yaml")
	// The file says text at level error; the environment's json and the
	// flag's debug win. metrics-listen comes from the file alone,
	// mcp-listen and the key file from the environment alone.
	yaml := "log-format: text\nlog-level: error\nmetrics-listen: 127.0.0.1:0\n"
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, []string{"GRAPHWIRE_LOG_FORMAT=json", "GRAPHWIRE_LOG_LEVEL=error", "GRAPHWIRE_MCP_LISTEN=127.0.0.1:0", "GRAPHWIRE_JWT_SECRET_FILE=" + keys},
		"--config", config, "--log-level", "debug")
	if s.mcp == "" || s.metrics == "" {
		t.Fatalf("mcp listener %q (environment), metrics listener %q (file): want both", s.mcp, s.metrics)
	}
	if pr, err := http.Get("http://" + s.metrics + "/debug/pprof/"); err != nil {
		t.Fatal(err)
	} else if pr.Body.Close(); pr.StatusCode != http.StatusNotFound {
		t.Errorf("pprof without --pprof: %d, want 404", pr.StatusCode)
	}

	good := mint(t, secret, "", admin)
	old := mint(t, oldSecret, "old", admin)
	forged := mint(t, []byte("forged-secret-0123456789abcdef0123456"), "", admin)
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	for _, tok := range []string{good, old} {
		if _, _, err := executeQuery(t, conn, tok, "", "search"); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := executeQuery(t, conn, forged, "", "search"); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("forged token: %v", err)
	}
	if _, _, err := executeQuery(t, conn, good, "", "no-such-query"); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("empty query: %v", err)
	}
	ms := mcpConnect(t, "http://"+s.mcp+"/mcp", good, http.DefaultTransport)
	if _, err := ms.CallTool(t.Context(), &mcp.CallToolParams{Name: "query_graph", Arguments: map[string]any{"query": queries["search"]}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ms.CallTool(t.Context(), &mcp.CallToolParams{Name: "query_graph", Arguments: map[string]any{"query": "{"}}); err != nil {
		t.Fatal(err)
	}
	ms.Close()
	s.stop()

	logged := s.output()
	for name, secretText := range map[string]string{"current key": string(secret), "old key": string(oldSecret),
		"token": good, "old token": old, "forged token": forged, "token signature": good[strings.LastIndex(good, ".")+1:]} {
		if strings.Contains(logged, secretText) {
			t.Errorf("the log holds the %s", name)
		}
	}
	levels := map[string]int{}
	for _, raw := range strings.Split(logged, "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Errorf("log line is not JSON (the environment's log-format lost): %q", raw)
			continue
		}
		levels[l["level"].(string)]++
		switch l["msg"] {
		case "rpc", "rpc_started", "mcp_tool", "query_failed":
			if id, _ := l["request_id"].(string); id == "" {
				t.Errorf("request log line without request_id: %s", raw)
			}
		}
	}
	if levels["DEBUG"] == 0 || levels["INFO"] == 0 {
		t.Errorf("log levels %v: want DEBUG and INFO lines (the flag's debug over the environment's error)", levels)
	}
}

// TestServeRefusesBadConfig: serve exits with the usage code, before
// opening anything, on plaintext to a non-loopback address and on an
// unknown config-file key, which the message locates.
func TestServeRefusesBadConfig(t *testing.T) {
	keys := keyFile(t)
	config := filepath.Join(t.TempDir(), "serve.yaml")
	if err := os.WriteFile(config, []byte("max-concurrent: 2\nlisten-adress: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		environ []string
		args    []string
		want    string
	}{
		{"public plaintext", nil, []string{"--listen", "0.0.0.0:0"}, "--plaintext"},
		{"public plaintext from env", []string{"GRAPHWIRE_MCP_LISTEN=0.0.0.0:0"}, nil, "--plaintext"},
		{"unknown file key", nil, []string{"--config", config}, config + ":2: listen-adress: unknown option"},
		{"bad env value", []string{"GRAPHWIRE_MAX_CONCURRENT=many"}, nil, "GRAPHWIRE_MAX_CONCURRENT: max-concurrent: invalid value"},
		{"not an origin", nil, []string{"--mcp-allowed-origins", "https://ok.example, ok.example/app"}, `--mcp-allowed-origins: "ok.example/app" is not an origin`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runBinary(t, tt.environ, append([]string{"serve", "--jwt-secret-file", keys}, tt.args...)...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// tool finds an external test tool on PATH or where .ci/run installs it
// (tools/bin under graphwire's cache, chdb.DefaultCacheDir: $GRAPHWIRE_CACHE, else
// ${XDG_CACHE_HOME:-$HOME/.cache}/graphwire, resolved before TestMain moved HOME). Missing, it
// fails the test under CI=true and skips it otherwise.
func tool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	p := filepath.Join(chdb.DefaultCacheDir(), "tools", "bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true and %s is missing (.ci/run installs it into %s)", name, filepath.Dir(p))
	}
	t.Skipf("%s is not installed (.ci/run installs it into %s)", name, filepath.Dir(p))
	return ""
}

// TestGrpcurlAndHealthProbe drives a TLS server with the tools operators
// use: grpc-health-probe and grpcurl (through reflection), and the
// graphwire CLI's own client flags.
func TestGrpcurlAndHealthProbe(t *testing.T) {
	probe, grpcurl := tool(t, "grpc-health-probe"), tool(t, "grpcurl")
	p := newPKI(t, "graphwire-e2e")
	cert, key := p.issue(t, "server-1", true)
	s := startServe(t, nil, "--jwt-secret-file", keyFile(t), "--tls-cert", cert, "--tls-key", key)
	tok := mint(t, secret, "", admin)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	out, err := exec.CommandContext(ctx, probe, "-addr", s.grpc, "-tls", "-tls-ca-cert", p.caFile).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SERVING") {
		t.Errorf("grpc-health-probe over TLS: %v\n%s", err, out)
	}
	if out, err := exec.CommandContext(ctx, probe, "-addr", s.grpc).CombinedOutput(); err == nil {
		t.Errorf("grpc-health-probe in plaintext succeeded against TLS:\n%s", out)
	}

	out, err = exec.CommandContext(ctx, grpcurl, "-cacert", p.caFile, s.grpc, "list").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "graphwire.v1.QueryService") {
		t.Errorf("grpcurl list: %v\n%s", err, out)
	}
	body, _ := json.Marshal(map[string]any{"query": queries["search"]})
	cmd := exec.CommandContext(ctx, grpcurl, "-cacert", p.caFile, "-H", "authorization: Bearer "+tok, "-H", "x-request-id: grpcurl-1",
		"-d", string(body), s.grpc, "graphwire.v1.QueryService/ExecuteQuery")
	out, err = cmd.Output()
	if err != nil {
		t.Fatalf("grpcurl ExecuteQuery: %v\n%s", err, out)
	}
	var got struct {
		ResultJSON string `json:"resultJson"`
		Metadata   struct {
			RequestID string `json:"requestId"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.ResultJSON == "" || got.Metadata.RequestID != "grpcurl-1" {
		t.Errorf("grpcurl ExecuteQuery answered %v %s", err, out)
	}

	// graphwire query --server with the client flags.
	q := queries["search"]
	tests := []struct {
		name     string
		args     []string
		wantCode int
	}{
		{"cacert", []string{"--cacert", p.caFile}, 0},
		{"insecure", []string{"--insecure"}, 0},
		// A server that cannot be reached as asked is "unavailable" (README, exit codes).
		{"tls with the system's CAs", []string{"--tls"}, 7},
		{"plaintext", nil, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"query", "--server", s.grpc, "--token", tok}, tt.args...)
			code, stdout, stderr := runBinary(t, nil, append(args, q)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s", code, tt.wantCode, stderr)
			}
			if code == 0 && !strings.Contains(stdout, `"nodes"`) {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
}

// TestServeReloadsJWTKeys rotates serve's JWT keys without a restart: after the key file is
// rewritten and the process gets SIGHUP, a token of the new key is accepted and one of the
// removed key refused; a key file that fails to read leaves the last good keys in force.
func TestServeReloadsJWTKeys(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jwt-keys")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("k1 " + string(oldSecret) + "\n")
	s := startServe(t, nil, "--jwt-secret-file", file)
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	before := mint(t, oldSecret, "k1", admin)
	after := mint(t, secret, "k2", admin)
	accepted := func(tok string) bool {
		t.Helper()
		_, _, err := executeQuery(t, conn, tok, "", "search")
		if err != nil && status.Code(err) != codes.Unauthenticated {
			t.Fatalf("query: %v", err)
		}
		return err == nil
	}
	if !accepted(before) || accepted(after) {
		t.Fatal("before the rotation: want the k1 token accepted and the k2 token refused")
	}

	write("k2 " + string(secret) + "\n")
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "jwt_keys_reloaded")
	if !accepted(after) {
		t.Error("after the rotation: the k2 token is refused")
	}
	if accepted(before) {
		t.Error("after the rotation: the removed k1 key still verifies")
	}

	write("k3 short\n")
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "jwt_keys_reload_failed")
	if !accepted(after) {
		t.Error("after a failed reload: the k2 token is refused, want the last good keys in force")
	}
	if strings.Contains(s.output(), string(secret)) || strings.Contains(s.output(), string(oldSecret)) {
		t.Error("a key reached the log")
	}
}
