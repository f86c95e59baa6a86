package auth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/graphwire/graphwire/auth"
)

// testKeys are generated once per test binary: RSA generation is slow.
type testKeys struct {
	rsa, rsa2 *rsa.PrivateKey
	small     *rsa.PrivateKey // 1024 bits: refused
	p256      *ecdsa.PrivateKey
	p384      *ecdsa.PrivateKey
	p521      *ecdsa.PrivateKey
	ed        ed25519.PrivateKey
}

var genKeys = sync.OnceValue(func() testKeys {
	must := func(k *rsa.PrivateKey, err error) *rsa.PrivateKey {
		if err != nil {
			panic(err)
		}
		return k
	}
	ec := func(c elliptic.Curve) *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			panic(err)
		}
		return k
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return testKeys{
		rsa: must(rsa.GenerateKey(rand.Reader, 2048)), rsa2: must(rsa.GenerateKey(rand.Reader, 2048)),
		small: must(rsa.GenerateKey(rand.Reader, 1024)),
		p256:  ec(elliptic.P256()), p384: ec(elliptic.P384()), p521: ec(elliptic.P521()), ed: ed,
	}
})

// jwk is one member of a test JWKS.
type jwk struct {
	pub      any
	kid, alg string
	use      string
}

func jwksJSON(t *testing.T, keys ...jwk) []byte {
	t.Helper()
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	doc.Keys = []json.RawMessage{}
	for _, k := range keys {
		b, err := jose.JSONWebKey{Key: k.pub, KeyID: k.kid, Algorithm: k.alg, Use: k.use}.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		doc.Keys = append(doc.Keys, b)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keySet(t *testing.T, keys ...jwk) *auth.KeySet {
	t.Helper()
	ks, err := auth.ParseKeySet(jwksJSON(t, keys...))
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func jwksVerifier(t *testing.T, src auth.KeySource, hmac ...[]byte) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Options{Keys: hmac, JWKS: src, Issuer: "gitlab", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func signAsym(t *testing.T, method jwt.SigningMethod, priv crypto.Signer, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func static(ks *auth.KeySet) *auth.StaticKeys {
	s := &auth.StaticKeys{}
	s.Set(ks)
	return s
}

func TestJWKSAlgorithms(t *testing.T) {
	k := genKeys()
	ks := keySet(t,
		jwk{pub: k.rsa.Public(), kid: "rsa"},
		jwk{pub: k.p256.Public(), kid: "p256", alg: "ES256", use: "sig"},
		jwk{pub: k.p384.Public(), kid: "p384"},
		jwk{pub: k.p521.Public(), kid: "p521"},
		jwk{pub: k.ed.Public(), kid: "ed", alg: "EdDSA"},
	)
	if ks.Len() != 5 || len(ks.Skipped()) != 0 {
		t.Fatalf("usable keys %v, skipped %v", ks.KeyIDs(), ks.Skipped())
	}
	v := jwksVerifier(t, static(ks))
	for _, tc := range []struct {
		method jwt.SigningMethod
		priv   crypto.Signer
		kid    string
	}{
		{jwt.SigningMethodRS256, k.rsa, "rsa"}, {jwt.SigningMethodRS384, k.rsa, "rsa"}, {jwt.SigningMethodRS512, k.rsa, "rsa"},
		{jwt.SigningMethodPS256, k.rsa, "rsa"}, {jwt.SigningMethodPS384, k.rsa, "rsa"}, {jwt.SigningMethodPS512, k.rsa, "rsa"},
		{jwt.SigningMethodES256, k.p256, "p256"}, {jwt.SigningMethodES384, k.p384, "p384"}, {jwt.SigningMethodES512, k.p521, "p521"},
		{jwt.SigningMethodEdDSA, k.ed, "ed"},
		{jwt.SigningMethodES256, k.p256, ""}, // no kid: every key that fits is tried
		{jwt.SigningMethodRS256, k.rsa, ""},
	} {
		t.Run(tc.method.Alg()+"/"+tc.kid, func(t *testing.T) {
			c, err := v.Verify(signAsym(t, tc.method, tc.priv, tc.kid, base()))
			if err != nil {
				t.Fatal(err)
			}
			if c.UserID != 1 || len(c.Scopes) != 2 {
				t.Fatalf("claims %+v", c)
			}
		})
	}
}

func TestJWKSRefuses(t *testing.T) {
	k := genKeys()
	ks := keySet(t,
		jwk{pub: k.rsa.Public(), kid: "rsa", alg: "RS256"},
		jwk{pub: k.p384.Public(), kid: "p384"},
		jwk{pub: k.p256.Public(), kid: "enc", use: "enc"},
		jwk{pub: k.small.Public(), kid: "small"},
	)
	if got := ks.KeyIDs(); len(got) != 2 || got[0] != "rsa" || got[1] != "p384" {
		t.Fatalf("usable keys %v, want [rsa p384]", got)
	}
	if s := strings.Join(ks.Skipped(), "\n"); !strings.Contains(s, `kid "enc"`) || !strings.Contains(s, "not a signature key") ||
		!strings.Contains(s, `kid "small"`) || !strings.Contains(s, "1024 bits") {
		t.Fatalf("skipped:\n%s", s)
	}
	der, err := x509.MarshalPKIXPublicKey(k.rsa.Public())
	if err != nil {
		t.Fatal(err)
	}
	n := k.rsa.N.Bytes()
	// HMAC keys of the verifier that are the RSA public key itself: an HS
	// token made with it must still fail, since HS256 uses only the shared
	// secret and never a JWKS key.
	jwksOnly := jwksVerifier(t, static(ks))
	confused := jwksVerifier(t, static(ks), key)
	for name, tc := range map[string]struct {
		v     *auth.Verifier
		token string
		want  string
	}{
		"none": {jwksOnly, unsignedToken(t), "not accepted"},
		"HS256 with the RSA public key (DER) as secret": {jwksOnly, signKid(t, der, "rsa"), "no shared secret"},
		"HS256 with the RSA modulus as secret, HS keys": {confused, signKid(t, n, ""), "bad signature"},
		"unknown kid":                 {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.rsa, "nope", base()), "unknown key id"},
		"RS384 on a key of alg RS256": {jwksOnly, signAsym(t, jwt.SigningMethodRS384, k.rsa, "rsa", base()), "no JWKS key fits"},
		"ES256 on a P-384 key":        {jwksOnly, signAsym(t, jwt.SigningMethodES256, k.p256, "p384", base()), "no JWKS key fits"},
		"RS256 naming an EC key":      {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.rsa, "p384", base()), "no JWKS key fits"},
		"use enc key":                 {jwksOnly, signAsym(t, jwt.SigningMethodES256, k.p256, "enc", base()), "unknown key id"},
		"RSA key under 2048 bits":     {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.small, "small", base()), "unknown key id"},
		"signed by another key":       {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.rsa2, "rsa", base()), "bad signature"},
		"expired":                     {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.rsa, "rsa", with(base(), "exp", now.Unix()-3600)), "expired"},
		"wrong issuer":                {jwksOnly, signAsym(t, jwt.SigningMethodRS256, k.rsa, "rsa", with(base(), "iss", "evil")), "wrong issuer"},
		"no JWKS: RS256 refused":      {verifier(t, key), signAsym(t, jwt.SigningMethodRS256, k.rsa, "rsa", base()), "no JWKS"},
		"empty key set: fail closed":  {jwksVerifier(t, &auth.StaticKeys{}), signAsym(t, jwt.SigningMethodRS256, k.rsa, "rsa", base()), "no JWKS key is loaded"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := tc.v.Verify(tc.token)
			if !errors.Is(err, auth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalidToken saying %q", err, tc.want)
			}
		})
	}
	// HS256 still verifies beside the JWKS.
	if _, err := confused.Verify(sign(t, key, jwt.SigningMethodHS256, base())); err != nil {
		t.Fatalf("HS256 beside a JWKS: %v", err)
	}
}

func unsignedToken(t *testing.T) string {
	t.Helper()
	s, err := jwt.NewWithClaims(jwt.SigningMethodNone, base()).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func signKid(t *testing.T, secret []byte, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, base())
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseKeySetRefuses(t *testing.T) {
	k := genKeys()
	for name, doc := range map[string][]byte{
		"malformed":  []byte(`{"keys": [`),
		"not keys":   []byte(`{"kty": "RSA"}`),
		"array":      []byte(`[]`),
		"over 1 MiB": append(append([]byte(`{"keys": [], "pad": "`), bytes.Repeat([]byte("a"), auth.MaxJWKSBytes)...), `"}`...),
	} {
		if _, err := auth.ParseKeySet(doc); !errors.Is(err, auth.ErrJWKS) {
			t.Errorf("%s: err = %v, want ErrJWKS", name, err)
		}
	}
	// Keys left out, each with its reason.
	priv, err := jose.JSONWebKey{Key: k.p256, KeyID: "priv"}.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	doc := `{"keys": [` + string(priv) + `, {"kty": "oct", "kid": "hmac", "k": "AAAA"},` +
		`{"kty": "RSA", "kid": "ops", "key_ops": ["encrypt"], "n": "AQAB", "e": "AQAB"}, {"kty": "EC", "kid": "bad", "crv": "P-256", "x": "AA", "y": "AA"}]}`
	ks, err := auth.ParseKeySet([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(ks.Skipped(), "\n")
	for _, want := range []string{"private key material", "symmetric (oct)", "key_ops", `kid "bad"`} {
		if !strings.Contains(got, want) {
			t.Errorf("skipped does not say %q:\n%s", want, got)
		}
	}
	if ks.Len() != 0 {
		t.Fatalf("usable keys %v", ks.KeyIDs())
	}
}

func TestClaimMapping(t *testing.T) {
	k := genKeys()
	v, err := auth.NewVerifier(auth.Options{JWKS: static(keySet(t, jwk{pub: k.ed.Public(), kid: "ed"})), Issuer: "gitlab",
		Now: func() time.Time { return now }, UserClaim: "user_id", ScopesClaim: "https://graphwire.dev/scopes", AdminClaim: "is_admin"})
	if err != nil {
		t.Fatal(err)
	}
	c := with(with(with(base(), "sub", "a0b1-uuid"), "user_id", 42), "is_admin", true)
	c = with(with(c, "https://graphwire.dev/scopes", []any{map[string]any{"path": "7/", "access_level": 40}}), "scopes", "ignored")
	got, err := v.Verify(signAsym(t, jwt.SigningMethodEdDSA, k.ed, "ed", c))
	if err != nil {
		t.Fatal(err)
	}
	if got.UserID != 42 || !got.Admin || len(got.Scopes) != 1 || got.Scopes[0] != (auth.Scope{Path: "7/", Level: 40}) {
		t.Fatalf("claims %+v", got)
	}
	if _, err := v.Verify(signAsym(t, jwt.SigningMethodEdDSA, k.ed, "ed", with(c, "is_admin", "yes"))); err == nil ||
		!strings.Contains(err.Error(), "is_admin must be a boolean") {
		t.Fatalf("err = %v", err)
	}
	if _, err := v.Verify(signAsym(t, jwt.SigningMethodEdDSA, k.ed, "ed", with(c, "user_id", -3))); err == nil ||
		!strings.Contains(err.Error(), "user_id must be a positive decimal user id") {
		t.Fatalf("err = %v", err)
	}
	if _, err := auth.NewVerifier(auth.Options{Keys: [][]byte{key}, AdminClaim: "sub"}); err == nil {
		t.Fatal("NewVerifier took the same claim for the user and the admin flag")
	}
}

// jwksServer serves a JWKS that the test changes, counting requests.
type jwksServer struct {
	*httptest.Server
	doc  atomic.Pointer[[]byte]
	hits atomic.Int64
}

func newJWKSServer(t *testing.T, doc []byte) *jwksServer {
	s := &jwksServer{}
	s.doc.Store(&doc)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		w.Header().Set("Content-Type", "application/jwk-set+json")
		w.Write(*s.doc.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

// clock is a settable time for the fetcher's rate limit.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// syncBuffer is a log sink safe for the fetcher's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestFetcherRotation(t *testing.T) {
	k := genKeys()
	srv := newJWKSServer(t, jwksJSON(t, jwk{pub: k.rsa.Public(), kid: "old"}))
	clk := &clock{t: now}
	var logs syncBuffer
	f, err := auth.NewFetcher(auth.FetchOptions{URL: srv.URL, MinInterval: time.Minute, Now: clk.now,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	v := jwksVerifier(t, f)
	old := signAsym(t, jwt.SigningMethodRS256, k.rsa, "old", base())
	next := signAsym(t, jwt.SigningMethodES256, k.p256, "next", base())

	// Before any fetch: the old kid is unknown, so the verifier asks, and
	// the first fetch is never rate limited.
	if _, err := v.Verify(old); err != nil {
		t.Fatalf("old key after the first fetch: %v", err)
	}
	if srv.hits.Load() != 1 {
		t.Fatalf("%d fetches, want 1", srv.hits.Load())
	}
	// A new kid appears at the URL: a token naming it triggers a fetch...
	srv.doc.Store(ptr(jwksJSON(t, jwk{pub: k.rsa.Public(), kid: "old"}, jwk{pub: k.p256.Public(), kid: "next"})))
	// ...but not within the rate limit.
	if _, err := v.Verify(next); err == nil || !strings.Contains(err.Error(), "unknown key id") {
		t.Fatalf("new kid within the rate limit: err = %v", err)
	}
	if srv.hits.Load() != 1 {
		t.Fatalf("%d fetches within the rate limit, want 1", srv.hits.Load())
	}
	clk.add(time.Minute)
	if _, err := v.Verify(next); err != nil {
		t.Fatalf("new kid after the rate limit: %v", err)
	}
	if srv.hits.Load() != 2 {
		t.Fatalf("%d fetches, want 2", srv.hits.Load())
	}
	// Known kids never fetch.
	for range 5 {
		if _, err := v.Verify(old); err != nil {
			t.Fatal(err)
		}
	}
	if srv.hits.Load() != 2 {
		t.Fatalf("%d fetches for known kids, want 2", srv.hits.Load())
	}
	// The old key is removed: refused from the next fetch on.
	srv.doc.Store(ptr(jwksJSON(t, jwk{pub: k.p256.Public(), kid: "next"})))
	if err := f.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(old); err == nil || !strings.Contains(err.Error(), "unknown key id") {
		t.Fatalf("removed key: err = %v", err)
	}
	if _, err := v.Verify(next); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "msg=jwks_fetched") || !strings.Contains(logs.String(), "reason=unknown_kid") {
		t.Fatalf("logs:\n%s", logs.String())
	}
}

func ptr[T any](v T) *T { return &v }

func TestFetcherRun(t *testing.T) {
	k := genKeys()
	srv := newJWKSServer(t, jwksJSON(t, jwk{pub: k.ed.Public(), kid: "ed"}))
	f, err := auth.NewFetcher(auth.FetchOptions{URL: srv.URL, Interval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	for i := 0; f.KeySet().Len() == 0; i++ {
		if i > 1000 {
			t.Fatal("Run never fetched")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	if got := f.KeySet().KeyIDs(); len(got) != 1 || got[0] != "ed" {
		t.Fatalf("keys %v", got)
	}
}

func TestFetcherFailsClosed(t *testing.T) {
	k := genKeys()
	good := jwksJSON(t, jwk{pub: k.rsa.Public(), kid: "rsa"})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downURL := "http://" + down.Addr().String() + "/jwks.json"
	down.Close() // nothing listens there now

	for name, tc := range map[string]struct {
		handler http.HandlerFunc
		url     string
		want    string
	}{
		"server down": {url: downURL, want: "connection refused"},
		"huge body": {handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"keys": [], "pad": "`))
			w.Write(bytes.Repeat([]byte("a"), 2048))
			w.Write([]byte(`"}`))
		}, want: "answer over 1024 bytes"},
		"slow body": {handler: func(w http.ResponseWriter, r *http.Request) {
			w.Write(good[:10])
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}, want: "deadline exceeded"},
		"malformed JSON": {handler: func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"keys": [{`)) }, want: "invalid JWKS"},
		"status 500":     {handler: func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }, want: "HTTP status 500"},
	} {
		t.Run(name, func(t *testing.T) {
			url := tc.url
			if tc.handler != nil {
				s := httptest.NewServer(tc.handler)
				t.Cleanup(s.Close)
				url = s.URL
			}
			var logs syncBuffer
			f, err := auth.NewFetcher(auth.FetchOptions{URL: url, MaxBytes: 1024, Timeout: 200 * time.Millisecond,
				Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Refresh(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Refresh: err = %v, want one saying %q", err, tc.want)
			}
			v := jwksVerifier(t, f)
			if _, err := v.Verify(signAsym(t, jwt.SigningMethodRS256, k.rsa, "rsa", base())); !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("token verified with no keys fetched: %v", err)
			}
			if l := logs.String(); !strings.Contains(l, `"msg":"jwks_fetch_failed"`) || !strings.Contains(l, tc.want) {
				t.Fatalf("log does not say why:\n%s", l)
			}
		})
	}
}
