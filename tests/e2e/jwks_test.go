package e2e

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// idpKey is one signing key of the test's identity provider.
type idpKey struct {
	kid    string
	method jwt.SigningMethod
	priv   crypto.Signer
}

// token signs an admin token for user 7 the way an IdP would: its own
// claim names for the user and the admin flag, and a kid.
func (k idpKey) token(t *testing.T) string {
	t.Helper()
	now := time.Now()
	tok := jwt.NewWithClaims(k.method, jwt.MapClaims{"iss": "https://idp.test", "aud": "graphwire", "sub": "f3b1c2d4-uuid",
		"user_id": "7", "groups_admin": true, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	tok.Header["kid"] = k.kid
	s, err := tok.SignedString(k.priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jwksDoc(t *testing.T, keys ...idpKey) []byte {
	t.Helper()
	var doc struct {
		Keys []jose.JSONWebKey `json:"keys"`
	}
	for _, k := range keys {
		doc.Keys = append(doc.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: k.method.Alg(), Use: "sig"})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestServeJWKSRotation runs "graphwire serve --jwks-url" against a JWKS
// served on loopback with no shared secret at all, and rotates the IdP's
// keys: a token of a kid published later is accepted once the unknown kid
// has made serve read the URL again, and a token of a key removed from the
// URL is refused after the next read; over gRPC and over MCP HTTP both.
func TestServeJWKSRotation(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k1 := idpKey{"k1", jwt.SigningMethodRS256, rsaKey}
	k2 := idpKey{"k2", jwt.SigningMethodES256, ecKey}
	k3 := idpKey{"k3", jwt.SigningMethodES256, ecKey} // never published: asks for a fetch

	var doc atomic.Pointer[[]byte]
	var fetches atomic.Int64
	publish := func(keys ...idpKey) { b := jwksDoc(t, keys...); doc.Store(&b) }
	publish(k1)
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jwks.json" {
			http.NotFound(w, r)
			return
		}
		fetches.Add(1)
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(*doc.Load())
	}))
	t.Cleanup(idp.Close)

	s := startServe(t, nil, "--jwks-url", idp.URL+"/jwks.json", "--jwks-min-refresh", "50ms",
		"--jwt-issuer", "https://idp.test", "--jwt-user-claim", "user_id", "--jwt-admin-claim", "groups_admin",
		"--mcp-listen", "127.0.0.1:0")
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	overGRPC := func(tok string) bool {
		t.Helper()
		_, _, err := executeQuery(t, conn, tok, "", "search")
		if err != nil && status.Code(err) != codes.Unauthenticated {
			t.Fatalf("query: %v", err)
		}
		return err == nil
	}
	mcpURL := "http://" + s.mcp + "/mcp"
	var lastChallenge string // WWW-Authenticate of the last MCP refusal
	overMCP := func(tok string) bool {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, mcpURL, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
			return true
		case http.StatusUnauthorized:
			lastChallenge = resp.Header.Get("WWW-Authenticate")
			return false
		}
		t.Fatalf("MCP initialize: HTTP %d", resp.StatusCode)
		return false
	}
	// eventually retries check, each time after a token of the unpublished
	// kid k3 asks serve to read the JWKS again (rate limited to one read per
	// 50 ms), until it holds or the bound is reached.
	eventually := func(what string, check func() bool) {
		t.Helper()
		for range 200 {
			overGRPC(k3.token(t))
			if check() {
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("%s: never, after 200 reads of the JWKS asked for\n%s", what, s.output())
	}

	t1 := k1.token(t)
	if !overGRPC(t1) || !overMCP(t1) {
		t.Fatalf("k1 token refused before the rotation\n%s", s.output())
	}
	t2 := k2.token(t)
	if overGRPC(t2) || overMCP(t2) {
		t.Fatal("k2 token accepted before k2 was published")
	}

	// A refusal points MCP clients at the resource metadata (RFC 9728), which names the IdP.
	metaURL := "http://" + s.mcp + "/.well-known/oauth-protected-resource/mcp"
	if !strings.Contains(lastChallenge, `resource_metadata="`+metaURL+`"`) {
		t.Errorf("MCP 401 WWW-Authenticate %q, want resource_metadata=%q", lastChallenge, metaURL)
	}
	resp, err := http.Get(metaURL)
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || meta.Resource != mcpURL ||
		len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != "https://idp.test" {
		t.Errorf("resource metadata: HTTP %d %+v (%v), want resource %s and authorization server https://idp.test", resp.StatusCode, meta, err, mcpURL)
	}

	// The IdP publishes k2 beside k1: an unknown kid makes serve read the URL again.
	publish(k1, k2)
	before := fetches.Load()
	eventually("k2 accepted over gRPC after it was published", func() bool { return overGRPC(t2) })
	if fetches.Load() == before {
		t.Error("k2 was accepted without a new read of the JWKS")
	}
	if !overMCP(t2) {
		t.Error("k2 token refused over MCP after it was published")
	}
	ms := mcpConnect(t, mcpURL, t2, http.DefaultTransport)
	res, err := ms.CallTool(t.Context(), &mcp.CallToolParams{Name: "query_graph", Arguments: map[string]any{"query": queries["search"]}})
	if err != nil || res.IsError {
		t.Fatalf("query_graph with the k2 token: %v %+v", err, res)
	}

	// The IdP retires k1: refused from the next read on, over both faces.
	publish(k2)
	eventually("k1 refused over gRPC after it was removed", func() bool { return !overGRPC(t1) })
	if overMCP(t1) {
		t.Error("k1 token accepted over MCP after it was removed")
	}
	if !overGRPC(t2) || !overMCP(t2) {
		t.Error("k2 token refused after k1 was removed")
	}
	out := s.output()
	if !strings.Contains(out, `"msg":"jwks_fetched"`) || !strings.Contains(out, `"reason":"unknown_kid"`) {
		t.Errorf("serve did not log its JWKS reads:\n%s", out)
	}
	if strings.Contains(out, t1) || strings.Contains(out, t2) {
		t.Error("a token reached the log")
	}
}

// TestServeJWKSFileReload runs "graphwire serve --jwks-file" beside an HS256 key file: both
// kinds of token verify, and SIGHUP rotates the JWKS file (the new key accepted, the removed
// one refused, a broken file logged and the last keys kept).
func TestServeJWKSFileReload(t *testing.T) {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k1 := idpKey{"k1", jwt.SigningMethodEdDSA, ed}
	k2 := idpKey{"k2", jwt.SigningMethodES384, ecKey}
	file := filepath.Join(t.TempDir(), "jwks.json")
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(jwksDoc(t, k1))
	s := startServe(t, nil, "--jwks-file", file, "--jwt-secret-file", keyFile(t), "--jwt-issuer", "https://idp.test",
		"--jwt-user-claim", "user_id", "--jwt-admin-claim", "groups_admin")
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	accepted := func(tok string) bool {
		t.Helper()
		_, _, err := executeQuery(t, conn, tok, "", "search")
		if err != nil && status.Code(err) != codes.Unauthenticated {
			t.Fatalf("query: %v", err)
		}
		return err == nil
	}
	t1, t2 := k1.token(t), k2.token(t)
	if !accepted(t1) || accepted(t2) {
		t.Fatal("before the reload: want the k1 token accepted and the k2 token refused")
	}
	// An HS256 token minted for the shared secret verifies too; its claims use the mapped names.
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://idp.test", "aud": "graphwire",
		"user_id": 3, "groups_admin": true, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()})
	hsTok, err := hs.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	if !accepted(hsTok) {
		t.Error("an HS256 token is refused beside --jwks-file")
	}
	write(jwksDoc(t, k2))
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "jwks_loaded")
	if !accepted(t2) || accepted(t1) {
		t.Error("after the reload: want the k2 token accepted and the removed k1 refused")
	}
	write([]byte(`{"keys": [`))
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	s.waitFor(t, "jwks_reload_failed")
	if !accepted(t2) {
		t.Error("after a failed reload: the k2 token is refused, want the last good keys in force")
	}
}

// TestServeJWKSURLReadinessAndHangup runs "graphwire serve --jwks-url" against an identity
// provider that fails at first: serve starts, but /readyz and gRPC health say not ready, since
// no token could verify without keys. Once the provider answers, SIGHUP makes serve read the
// URL at once (the scheduled and rate-limited reads are an hour away): the provider's token
// verifies, and serve becomes ready.
func TestServeJWKSURLReadinessAndHangup(t *testing.T) {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	k1 := idpKey{"k1", jwt.SigningMethodEdDSA, ed}
	var up atomic.Bool
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(jwksDoc(t, k1))
	}))
	t.Cleanup(idp.Close)
	s := startServe(t, nil, "--jwks-url", idp.URL+"/jwks.json", "--jwks-refresh", "1h", "--jwks-min-refresh", "1h",
		"--jwt-issuer", "https://idp.test", "--jwt-user-claim", "user_id", "--jwt-admin-claim", "groups_admin",
		"--metrics-listen", "127.0.0.1:0", "--health-interval", "50ms")
	readyz := func() (int, string) {
		t.Helper()
		c := http.Client{Timeout: 10 * time.Second}
		resp, err := c.Get("http://" + s.metrics + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	health := func() healthpb.HealthCheckResponse_ServingStatus {
		t.Helper()
		r, err := healthpb.NewHealthClient(grpcConn(t, s.grpc, insecure.NewCredentials())).Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetStatus()
	}
	// until polls /readyz, every 25 ms and at most 400 times, until it answers code.
	until := func(code int) string {
		t.Helper()
		for range 400 {
			if c, body := readyz(); c == code {
				return body
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("/readyz never answered %d\n%s", code, s.output())
		return ""
	}
	s.waitFor(t, "jwks_fetch_failed")
	if body := until(http.StatusServiceUnavailable); !strings.Contains(body, "no JWKS keys") {
		t.Errorf("/readyz without keys: %q, want the reason", body)
	}
	if st := health(); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("gRPC health without keys: %v, want NOT_SERVING as /readyz", st)
	}

	up.Store(true)
	if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if l := s.waitFor(t, "jwks_fetched"); l.fields["reason"] != "refresh" {
		t.Errorf("the read after SIGHUP has reason %v, want refresh", l.fields["reason"])
	}
	until(http.StatusOK)
	if st := health(); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("gRPC health with keys: %v, want SERVING", st)
	}
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	if _, _, err := executeQuery(t, conn, k1.token(t), "", "search"); err != nil {
		t.Errorf("the provider's token after SIGHUP: %v", err)
	}
}
