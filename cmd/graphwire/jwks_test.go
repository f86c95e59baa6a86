package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"

	"github.com/graphwire/graphwire/auth"
)

// TestLoadJWKSFile: serve's --jwks-file is taken with its usable keys, a key left out is
// logged with why, and a file with no usable key or that does not parse is an error that
// leaves the keys in force.
func TestLoadJWKSFile(t *testing.T) {
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwkJSON := func(k jose.JSONWebKey) string {
		b, err := k.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.json", `{"keys": [`+jwkJSON(jose.JSONWebKey{Key: ed.Public(), KeyID: "ed"})+`, `+
		jwkJSON(jose.JSONWebKey{Key: ec.Public(), KeyID: "enc", Use: "enc"})+`]}`)
	var logs bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	keys := &auth.StaticKeys{}
	if err := loadJWKSFile(good, keys, logger); err != nil {
		t.Fatal(err)
	}
	if ids := keys.KeySet().KeyIDs(); len(ids) != 1 || ids[0] != "ed" {
		t.Fatalf("keys %v, want [ed]", ids)
	}
	if l := logs.String(); !strings.Contains(l, `"msg":"jwks_key_skipped"`) || !strings.Contains(l, `not a signature key`) ||
		!strings.Contains(l, `"msg":"jwks_loaded"`) {
		t.Fatalf("log:\n%s", l)
	}
	for name, text := range map[string]string{
		"enc-only.json": `{"keys": [` + jwkJSON(jose.JSONWebKey{Key: ec.Public(), KeyID: "enc", Use: "enc"}) + `]}`,
		"broken.json":   `{"keys": [`,
		"huge.json":     `{"keys": [], "pad": "` + strings.Repeat("a", auth.MaxJWKSBytes) + `"}`,
	} {
		err := loadJWKSFile(write(name, text), keys, logger)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want one naming the file", name, err)
		}
		if ids := keys.KeySet().KeyIDs(); len(ids) != 1 || ids[0] != "ed" {
			t.Errorf("%s: keys %v after a failed load, want [ed] kept", name, ids)
		}
	}

	// graphwire mcp --token verifies an IdP token with --jwks-file and the claim mapping.
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"aud": "graphwire", "sub": "x-uuid", "uid": 9,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "roles_admin": true})
	tok.Header["kid"] = "ed"
	signed, err := tok.SignedString(ed)
	if err != nil {
		t.Fatal(err)
	}
	f := mcpFlags{token: signed, jwksFile: good, audience: "graphwire", userClaim: "uid", scopesClaim: "scopes", adminClaim: "roles_admin"}
	c, err := f.claims(logger)
	if err != nil {
		t.Fatal(err)
	}
	if c.UserID != 9 || !c.Admin {
		t.Fatalf("claims %+v", c)
	}
	f.jwksFile = ""
	f.secretFile = write("secret", "0123456789abcdef0123456789abcdef\n")
	if _, err := f.claims(logger); err == nil {
		t.Fatal("an EdDSA token verified with only an HS256 secret")
	}
}
