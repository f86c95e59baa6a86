package main

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
)

// writePrivateKey writes key as a PKCS #8 PEM file, as openssl genpkey does.
func writePrivateKey(t *testing.T, key crypto.Signer) string {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTokenPrivateKey: graphwire token --jwt-private-key mints RS256, PS256, ES256 and EdDSA
// tokens, and --print-jwks prints the JWKS that serve --jwks-file verifies them with; the
// token carries the kid, claims and issuer asked for.
func TestTokenPrivateKey(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		alg  string // --jwt-alg, "" for the key's default
		key  crypto.Signer
		want string
	}{
		{"", rsaKey, "RS256"},
		{"PS256", rsaKey, "PS256"},
		{"", ecKey, "ES256"},
		{"", edKey, "EdDSA"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			file := writePrivateKey(t, tc.key)
			args := []string{"--jwt-private-key", file, "--jwt-key-id", "idp-1"}
			if tc.alg != "" {
				args = append(args, "--jwt-alg", tc.alg)
			}
			jwks := runCLI(append([]string{"token", "--print-jwks"}, args...)...)
			if jwks.code != exitOK || jwks.stderr != "" || strings.Contains(jwks.stdout, `"d":`) {
				t.Fatalf("--print-jwks: exit %d, stderr %q, stdout %q", jwks.code, jwks.stderr, jwks.stdout)
			}
			// serve --jwks-file reads the printed document.
			jwksFile := filepath.Join(t.TempDir(), "jwks.json")
			if err := os.WriteFile(jwksFile, []byte(jwks.stdout), 0o600); err != nil {
				t.Fatal(err)
			}
			keys := &auth.StaticKeys{}
			if err := loadJWKSFile(jwksFile, keys, slog.New(slog.DiscardHandler)); err != nil {
				t.Fatal(err)
			}
			tok := runCLI(append([]string{"token", "--sub", "9", "--scope", "2/:20", "--jwt-issuer", "https://me.test"}, args...)...)
			if tok.code != exitOK || tok.stderr != "" {
				t.Fatalf("token: exit %d, stderr %q", tok.code, tok.stderr)
			}
			v, err := auth.NewVerifier(auth.Options{JWKS: keys, Issuer: "https://me.test"})
			if err != nil {
				t.Fatal(err)
			}
			c, err := v.Verify(strings.TrimSpace(tok.stdout))
			if err != nil || c.UserID != 9 || c.Admin || len(c.Scopes) != 1 || c.Scopes[0] != (auth.Scope{Path: "2/", Level: 20}) {
				t.Fatalf("Verify: %+v, %v", c, err)
			}
			if !strings.Contains(jwks.stdout, `"alg":"`+tc.want+`"`) || !strings.Contains(jwks.stdout, `"kid":"idp-1"`) {
				t.Errorf("JWKS %s: want alg %s and kid idp-1", jwks.stdout, tc.want)
			}
		})
	}
}

// TestTokenPrivateKeyErrors: a key file that is no key, an algorithm the key cannot make and
// conflicting flags are refused with what is wrong, naming the file.
func TestTokenPrivateKeyErrors(t *testing.T) {
	ecKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key := writePrivateKey(t, ecKey)
	junk := filepath.Join(t.TempDir(), "junk.pem")
	if err := os.WriteFile(junk, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte(strings.Repeat("s", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--jwt-private-key", junk, "--sub", "1"}, exitFailure, "--jwt-private-key " + junk + ": auth: invalid private key: no PEM block"},
		{[]string{"--jwt-private-key", key, "--sub", "1", "--jwt-alg", "ES256"}, exitUsage, "--jwt-alg: auth: the ECDSA P-384 key cannot sign ES256 (its algorithm is ES384)"},
		{[]string{"--jwt-private-key", key, "--print-jwks", "--jwt-alg", "HS256"}, exitUsage, `--jwt-alg: auth: algorithm "HS256"`},
		{[]string{"--jwt-private-key", key, "--jwt-secret-file", secret, "--sub", "1"}, exitUsage, "use --jwt-secret-file or --jwt-private-key, not both"},
		{[]string{"--jwt-secret-file", secret, "--print-jwks"}, exitUsage, "--jwt-alg and --print-jwks need --jwt-private-key"},
	} {
		r := runCLI(append([]string{"token"}, tc.args...)...)
		if r.code != tc.code || r.stdout != "" || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("token %q: exit %d, stderr %q; want exit %d and %q", tc.args, r.code, r.stderr, tc.code, tc.want)
		}
	}
}
