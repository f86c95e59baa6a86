package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
)

func pemKey(t *testing.T, key crypto.Signer, typ string) []byte {
	t.Helper()
	var der []byte
	var err error
	switch typ {
	case "PRIVATE KEY":
		der, err = x509.MarshalPKCS8PrivateKey(key)
	case "RSA PRIVATE KEY":
		der = x509.MarshalPKCS1PrivateKey(key.(*rsa.PrivateKey))
	case "EC PRIVATE KEY":
		der, err = x509.MarshalECPrivateKey(key.(*ecdsa.PrivateKey))
	}
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// TestMintSigned: a key read from each PEM form signs a token with each algorithm that fits
// it, and a verifier holding only the key's PublicJWKS accepts the token with its claims.
func TestMintSigned(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ec := map[string]*ecdsa.PrivateKey{}
	for name, curve := range map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()} {
		if ec[name], err = ecdsa.GenerateKey(curve, rand.Reader); err != nil {
			t.Fatal(err)
		}
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		key      crypto.Signer
		pemType  string
		alg      string // "" for the default
		wantAlgs string
	}{
		{rsaKey, "RSA PRIVATE KEY", "", "RS256"},
		{rsaKey, "PRIVATE KEY", "PS384", "PS384"},
		{rsaKey, "PRIVATE KEY", "RS512", "RS512"},
		{ec["P-256"], "EC PRIVATE KEY", "", "ES256"},
		{ec["P-384"], "PRIVATE KEY", "", "ES384"},
		{ec["P-521"], "EC PRIVATE KEY", "ES512", "ES512"},
		{ed, "PRIVATE KEY", "", "EdDSA"},
	}
	claims := Claims{UserID: 42, Scopes: []Scope{{Path: "1/", Level: 30}}}
	for _, tc := range cases {
		t.Run(tc.wantAlgs+"/"+tc.pemType, func(t *testing.T) {
			key, err := ParsePrivateKey(pemKey(t, tc.key, tc.pemType))
			if err != nil {
				t.Fatal(err)
			}
			tok, err := MintSigned(key, tc.alg, claims, MintOptions{KeyID: "k1", Issuer: "https://idp.test"})
			if err != nil {
				t.Fatal(err)
			}
			alg, kid, err := checkHeader(tok)
			if err != nil || alg != tc.wantAlgs || kid != "k1" {
				t.Fatalf("header alg %q kid %q (%v), want %s and k1", alg, kid, err, tc.wantAlgs)
			}
			doc, err := PublicJWKS(key, tc.alg, "k1")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(doc), `"d"`) {
				t.Fatalf("the JWKS holds the private key: %s", doc)
			}
			ks, err := ParseKeySet(doc)
			if err != nil {
				t.Fatal(err)
			}
			src := &StaticKeys{}
			src.Set(ks)
			v, err := NewVerifier(Options{JWKS: src, Issuer: "https://idp.test"})
			if err != nil {
				t.Fatal(err)
			}
			got, err := v.Verify(tok)
			if err != nil || got.UserID != 42 || got.Admin || len(got.Scopes) != 1 || got.Scopes[0] != (Scope{"1/", 30}) {
				t.Fatalf("Verify: %+v, %v", got, err)
			}
		})
	}
}

// TestMintSignedRefuses: keys and algorithms that cannot make a token the verifier accepts
// are refused with what is wrong.
func TestMintSignedRefuses(t *testing.T) {
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pem  []byte
		want string
	}{
		{"not PEM", []byte("not a key"), "no PEM block"},
		{"certificate", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}), `PEM block "CERTIFICATE"`},
		{"encrypted", pem.EncodeToMemory(&pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}}), "encrypted"},
		{"short RSA", pemKey(t, small, "RSA PRIVATE KEY"), "1024 bits"},
		{"P-224", pemKey(t, p224, "EC PRIVATE KEY"), "curve P-224"},
		{"garbage DER", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1, 2, 3}}), "PRIVATE KEY:"},
	} {
		if _, err := ParsePrivateKey(tc.pem); !errors.Is(err, ErrPrivateKey) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrPrivateKey saying %q", tc.name, err, tc.want)
		}
	}
	for alg, want := range map[string]string{"RS256": "the ECDSA P-256 key cannot sign RS256", "ES384": "cannot sign ES384", "HS256": `algorithm "HS256"`, "none": `algorithm "none"`} {
		if _, err := MintSigned(ec, alg, Claims{UserID: 1}, MintOptions{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("MintSigned with %s: %v, want %q", alg, err, want)
		}
		if _, err := PublicJWKS(ec, alg, ""); err == nil {
			t.Errorf("PublicJWKS with %s: no error", alg)
		}
	}
	if _, err := MintSigned(ec, "", Claims{UserID: 0}, MintOptions{}); err == nil {
		t.Error("MintSigned of user 0: no error")
	}
}
