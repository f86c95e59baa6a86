package auth_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/auth"
)

var (
	key     = []byte("0123456789abcdef0123456789abcdef")
	nextKey = []byte("fedcba9876543210fedcba9876543210")
	now     = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
)

func verifier(t *testing.T, keys ...[]byte) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(auth.Options{Keys: keys, Issuer: "gitlab", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func sign(t *testing.T, k []byte, method jwt.SigningMethod, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(method, claims).SignedString(k)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func base() jwt.MapClaims {
	return jwt.MapClaims{"iss": "gitlab", "aud": "graphwire", "sub": "1", "iat": now.Unix() - 60, "exp": now.Unix() + 3600,
		"admin": false, "scopes": []any{map[string]any{"path": "100/", "access_level": 30}, map[string]any{"path": "200/201/", "access_level": 20}}}
}

func with(c jwt.MapClaims, k string, v any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for kk, vv := range c {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func TestVerify(t *testing.T) {
	v := verifier(t, key)
	got, err := v.Verify(sign(t, key, jwt.SigningMethodHS256, base()))
	if err != nil {
		t.Fatal(err)
	}
	want := &auth.Claims{UserID: 1, Scopes: []auth.Scope{{"100/", 30}, {"200/201/", 20}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	dup := with(base(), "scopes", []any{map[string]any{"path": "9/", "access_level": 10}, map[string]any{"path": "9/", "access_level": 40}})
	got, err = v.Verify(sign(t, key, jwt.SigningMethodHS256, with(dup, "admin", true)))
	if err != nil || !got.Admin || len(got.Scopes) != 1 || got.Scopes[0].Level != 40 {
		t.Errorf("merged scopes = %+v, %v", got, err)
	}
}

func TestVerifyRejects(t *testing.T) {
	v := verifier(t, key)
	noneToken := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." +
		base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"1","aud":"graphwire","iss":"gitlab","iat":1,"exp":9999999999}`)) + "."
	tests := []struct {
		name  string
		token string
	}{
		{"empty", ""},
		{"garbage", "not.a.token"},
		{"alg none", noneToken},
		{"HS384", sign(t, key, jwt.SigningMethodHS384, base())},
		{"wrong key", sign(t, nextKey, jwt.SigningMethodHS256, base())},
		{"expired", sign(t, key, jwt.SigningMethodHS256, with(base(), "exp", now.Unix()-3600))},
		{"no exp", sign(t, key, jwt.SigningMethodHS256, with(base(), "exp", nil))},
		{"no iat", sign(t, key, jwt.SigningMethodHS256, with(base(), "iat", nil))},
		{"lifetime over 24h", sign(t, key, jwt.SigningMethodHS256, with(base(), "exp", now.Unix()+25*3600))},
		{"wrong audience", sign(t, key, jwt.SigningMethodHS256, with(base(), "aud", "other"))},
		{"wrong issuer", sign(t, key, jwt.SigningMethodHS256, with(base(), "iss", "evil"))},
		{"sub not a number", sign(t, key, jwt.SigningMethodHS256, with(base(), "sub", "alice"))},
		{"sub zero", sign(t, key, jwt.SigningMethodHS256, with(base(), "sub", "0"))},
		{"sub leading zero", sign(t, key, jwt.SigningMethodHS256, with(base(), "sub", "01"))},
		{"admin string", sign(t, key, jwt.SigningMethodHS256, with(base(), "admin", "true"))},
		{"admin number", sign(t, key, jwt.SigningMethodHS256, with(base(), "admin", 1))},
		{"bad path", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", []any{map[string]any{"path": "100", "access_level": 30}}))},
		{"zero segment", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", []any{map[string]any{"path": "0/", "access_level": 30}}))},
		{"segment over int64", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", []any{map[string]any{"path": "9999999999999999999/", "access_level": 30}}))},
		{"unknown level", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", []any{map[string]any{"path": "1/", "access_level": 35}}))},
		{"scopes not array", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", "1/"))},
		{"scope extra key", sign(t, key, jwt.SigningMethodHS256, with(base(), "scopes", []any{map[string]any{"path": "1/", "access_level": 30, "x": 1}}))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(tt.token)
			if !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
			if tt.token != "" && strings.Contains(err.Error(), tt.token) {
				t.Error("error message contains the token")
			}
		})
	}
}

func TestKeyRotation(t *testing.T) {
	v := verifier(t, key, nextKey)
	for _, k := range [][]byte{key, nextKey} {
		if _, err := v.Verify(sign(t, k, jwt.SigningMethodHS256, base())); err != nil {
			t.Errorf("rotation key rejected: %v", err)
		}
	}
	if _, err := auth.NewVerifier(auth.Options{Keys: [][]byte{[]byte("short")}}); err == nil {
		t.Error("short key accepted")
	}
}

func TestMintRoundTrip(t *testing.T) {
	c := auth.Claims{UserID: 42, Admin: false, Scopes: []auth.Scope{{"1/2/", 30}}}
	tok, err := auth.Mint(key, c, auth.MintOptions{Issuer: "gitlab", TTL: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	got, err := verifier(t, key).Verify(tok)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&c, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := auth.Mint(key, c, auth.MintOptions{TTL: 48 * time.Hour}); err == nil {
		t.Error("ttl over 24h accepted")
	}
}
