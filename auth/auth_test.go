package auth_test

import (
	"encoding/base64"
	"errors"
	"strconv"
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

// TestKeyIDs: a token's kid selects the key of that name alone; a kid no
// key has, or one naming another key than the signer, is refused; a token
// without a kid is tried with every key.
// mintKeyed signs a token of user 1 from gitlab with k, naming the key kid unless it is "".
func mintKeyed(t *testing.T, k []byte, kid string) string {
	t.Helper()
	tok, err := auth.Mint(k, auth.Claims{UserID: 1}, auth.MintOptions{Issuer: "gitlab", Now: now.Add(-time.Minute), KeyID: kid})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestKeyIDs(t *testing.T) {
	oldKey := []byte("old-0123456789abcdef0123456789abcd")
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{key, nextKey, oldKey}, KeyIDs: []string{"k1", "k2"},
		Issuer: "gitlab", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	mint := func(k []byte, kid string) string { return mintKeyed(t, k, kid) }
	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"kid k1", mint(key, "k1"), true},
		{"kid k2", mint(nextKey, "k2"), true},
		{"no kid, named key", mint(nextKey, ""), true},
		{"no kid, unnamed key", mint(oldKey, ""), true},
		{"kid of another key", mint(nextKey, "k1"), false},
		{"unknown kid", mint(key, "k9"), false},
		{"kid on an unnamed key", mint(oldKey, "k3"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(tt.token)
			if tt.ok && err != nil {
				t.Errorf("refused: %v", err)
			}
			if !tt.ok && !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("error %v, want ErrInvalidToken", err)
			}
		})
	}
	// A removed key no longer verifies what it signed.
	rotated, err := auth.NewVerifier(auth.Options{Keys: [][]byte{nextKey}, KeyIDs: []string{"k2"}, Issuer: "gitlab", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{mint(key, "k1"), mint(key, "")} {
		if _, err := rotated.Verify(tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("token of a removed key: %v, want ErrInvalidToken", err)
		}
	}
	if _, err := auth.NewVerifier(auth.Options{Keys: [][]byte{key}, KeyIDs: []string{"a", "b"}}); err == nil {
		t.Error("more key ids than keys accepted")
	}
	hdr := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT","kid":7}`))
	tok := mint(key, "")
	if _, err := v.Verify(hdr + tok[strings.Index(tok, "."):]); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("numeric kid: %v, want ErrInvalidToken", err)
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

// signRaw signs header and payload JSON exactly as given, so a test can
// send what a map cannot hold: duplicate names, case variants, odd types.
func signRaw(t *testing.T, k []byte, header, payload string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString([]byte(header)) + "." + enc.EncodeToString([]byte(payload))
	sig, err := jwt.SigningMethodHS256.Sign(signing, k)
	if err != nil {
		t.Fatal(err)
	}
	return signing + "." + enc.EncodeToString(sig)
}

// TestVerifyStrictNames: every token here is signed with the right key and
// otherwise valid, so only the strict reading of names, types and sizes
// rejects it. encoding/json matches member names case-insensitively (with
// Unicode folding) and lets the last duplicate win, which let "Admin",
// "EXP" and "ſcopes" override the real claims.
func TestVerifyStrictNames(t *testing.T) {
	v := verifier(t, key)
	const hdr = `{"alg":"HS256","typ":"JWT"}`
	iat, exp, old := strconv.FormatInt(now.Unix()-60, 10), strconv.FormatInt(now.Unix()+3600, 10), strconv.FormatInt(now.Unix()-7200, 10)
	claims := func(extra string) string {
		return `{"iss":"gitlab","aud":"graphwire","sub":"1","iat":` + iat + `,"exp":` + exp + `,"admin":false,"scopes":[{"path":"100/","access_level":30}]` + extra + `}`
	}
	tests := []struct {
		name    string
		header  string
		payload string
		wantErr error
	}{
		{"Admin variant", hdr, claims(`,"Admin":true`), auth.ErrAmbiguousClaim},
		{"Admin alone", hdr, strings.Replace(claims(`,"Admin":true`), `"admin":false,`, "", 1), auth.ErrAmbiguousClaim},
		{"admin twice", hdr, claims(`,"admin":true`), auth.ErrAmbiguousClaim},
		{"EXP over an expired exp", hdr, strings.Replace(claims(`,"EXP":`+exp), `"exp":`+exp, `"exp":`+old, 1), auth.ErrAmbiguousClaim},
		{"long s folds to scopes", hdr, claims(`,"ſcopes":[{"path":"1/","access_level":50}]`), auth.ErrAmbiguousClaim},
		{"sub twice in two cases", hdr, strings.Replace(claims(``), `"sub":"1"`, `"sub":"1","SUB":"2"`, 1), auth.ErrAmbiguousClaim},
		{"unknown claims differing in case", hdr, claims(`,"team":"a","TEAM":"b"`), auth.ErrAmbiguousClaim},
		{"scope Path variant", hdr, strings.Replace(claims(``), `{"path":"100/"`, `{"Path":"999/","path":"100/"`, 1), auth.ErrAmbiguousClaim},
		{"scope level twice", hdr, strings.Replace(claims(``), `"access_level":30`, `"access_level":30,"access_level":50`, 1), auth.ErrAmbiguousClaim},
		{"header alg twice", `{"alg":"HS256","alg":"HS256","typ":"JWT"}`, claims(``), auth.ErrAmbiguousClaim},
		{"header ALG variant", `{"alg":"HS256","ALG":"none"}`, claims(``), auth.ErrAmbiguousClaim},
		{"header Kelvin-sign kid", `{"alg":"HS256","Kid":"a"}`, claims(``), auth.ErrAmbiguousClaim},
		{"header crit", `{"alg":"HS256","crit":["b64"],"b64":false}`, claims(``), auth.ErrCriticalHeader},
		{"exp a string", hdr, strings.Replace(claims(``), `"exp":`+exp, `"exp":"`+exp+`"`, 1), auth.ErrClaimType},
		{"iat a string", hdr, strings.Replace(claims(``), `"iat":`+iat, `"iat":"`+iat+`"`, 1), auth.ErrClaimType},
		{"over the size cap", hdr, claims(`,"pad":"` + strings.Repeat("x", auth.MaxTokenBytes) + `"`), auth.ErrTokenTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := v.Verify(signRaw(t, key, tt.header, tt.payload))
			if !errors.Is(err, auth.ErrInvalidToken) || !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want ErrInvalidToken and %v", err, tt.wantErr)
			}
		})
	}
	// The same builder without the offending members verifies, so the
	// rejections above are the new checks and not a broken fixture.
	accepted := []struct{ name, header, payload string }{
		{"plain", hdr, claims(``)},
		{"unknown claims are ignored", hdr, claims(`,"jti":"x","team":"a"`)},
		{"fractional exp", hdr, strings.Replace(claims(``), `"exp":`+exp, `"exp":`+exp+`.5`, 1)},
		{"no typ", `{"alg":"HS256"}`, claims(``)},
	}
	for _, tt := range accepted {
		t.Run(tt.name, func(t *testing.T) {
			got, err := v.Verify(signRaw(t, key, tt.header, tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if got.UserID != 1 || got.Admin || len(got.Scopes) != 1 {
				t.Errorf("claims %+v", got)
			}
		})
	}
}

// TestVerifyHugeTokenWrongKey: a 13 MB token signed with another key is
// refused for its size, before base64 or JSON decoding.
func TestVerifyHugeTokenWrongKey(t *testing.T) {
	huge := sign(t, nextKey, jwt.SigningMethodHS256, with(base(), "pad", strings.Repeat("x", 13<<20)))
	_, err := verifier(t, key).Verify(huge)
	if !errors.Is(err, auth.ErrTokenTooLarge) || !errors.Is(err, auth.ErrInvalidToken) {
		t.Fatalf("err = %v, want ErrTokenTooLarge", err)
	}
}

func TestFingerprint(t *testing.T) {
	base := auth.Claims{UserID: 7, Scopes: []auth.Scope{{"100/", 30}, {"200/", 20}}}
	same := []auth.Claims{
		{UserID: 7, Scopes: []auth.Scope{{"200/", 20}, {"100/", 30}}},
		{UserID: 7, Scopes: []auth.Scope{{"100/", 30}, {"200/", 10}, {"200/", 20}}},
	}
	differ := []auth.Claims{
		{UserID: 7, Admin: true, Scopes: base.Scopes},
		{UserID: 8, Scopes: base.Scopes},
		{UserID: 7, Scopes: []auth.Scope{{"100/", 30}}},
		{UserID: 7, Scopes: []auth.Scope{{"100/", 40}, {"200/", 20}}},
		{UserID: 7, Scopes: []auth.Scope{{"100/", 30}, {"200/", 20}, {"300/", 20}}},
		{UserID: 7},
	}
	want := base.Fingerprint()
	for _, c := range same {
		if got := c.Fingerprint(); got != want {
			t.Errorf("%+v: fingerprint differs from the same authorization", c)
		}
	}
	for _, c := range differ {
		if c.Fingerprint() == want {
			t.Errorf("%+v: fingerprint equals that of %+v", c, base)
		}
	}
}

// TestSetKeys: a verifier's keys can be replaced while it serves; the new set
// decides at once, and a set that fails validation leaves the old one.
func TestSetKeys(t *testing.T) {
	v, err := auth.NewVerifier(auth.Options{Keys: [][]byte{key}, Issuer: "gitlab", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	mint := func(k []byte, kid string) string { return mintKeyed(t, k, kid) }
	old, next := mint(key, ""), mint(nextKey, "k2")
	if _, err := v.Verify(next); err == nil {
		t.Fatal("a token of a key not yet set verified")
	}
	if err := v.SetKeys([][]byte{nextKey}, []string{"k2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(next); err != nil {
		t.Errorf("new key: %v", err)
	}
	if _, err := v.Verify(old); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("removed key: %v, want ErrInvalidToken", err)
	}
	for _, bad := range []struct {
		keys [][]byte
		ids  []string
	}{{nil, nil}, {[][]byte{[]byte("short")}, nil}, {[][]byte{nextKey}, []string{"a", "b"}}} {
		if err := v.SetKeys(bad.keys, bad.ids); err == nil {
			t.Errorf("SetKeys(%d keys, %v) accepted", len(bad.keys), bad.ids)
		}
	}
	if _, err := v.Verify(next); err != nil {
		t.Errorf("after refused key sets: %v, want the last good keys still", err)
	}
}
