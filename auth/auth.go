// Package auth verifies the JSON Web Tokens that carry a caller's identity
// and scopes (docs/service.md, "Authentication" and "Identity"), and mints
// HS256 ones for local use.
//
// Two kinds of token verify. HS256 tokens are checked against shared
// secrets ([Options.Keys]); tokens of an identity provider signed with
// RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA are checked against
// the public keys of a JWKS ([Options.JWKS]: a [StaticKeys] read from a file,
// or a [Fetcher] that reads a URL, refreshes it on an interval and on an
// unknown kid, rate limited, and fails closed). The header's alg chooses:
// an HS256 token never meets a JWKS key and an RS256 token never meets a
// shared secret, so a token signed with a public key as its HMAC secret
// cannot verify; a JWKS key verifies only the algorithms its kty, curve
// and alg allow, never with "use": "enc", never an RSA key under 2048 bits.
// "alg": "none" and every other algorithm are refused.
//
// Signatures and registered claims are checked by github.com/golang-jwt/jwt/v5,
// which the HS256 verifier already used and which implements every
// algorithm above; JWK documents are parsed by github.com/go-jose/go-jose/v4
// (RSA, EC with on-curve checks, OKP), which is maintained, has no
// dependencies beyond the standard library and x/crypto, and is already in
// this module's graph. The fetch, its bounds and the key selection are this
// package's own, small enough to read whole (jwks.go, jwksfetch.go), so the
// refusals above are ours to test rather than a library's defaults.
//
// A token's claims:
//
//	{"iss": "gitlab", "aud": "graphwire", "sub": "1", "iat": 1782900000, "exp": 1782903600,
//	 "admin": false,
//	 "scopes": [{"path": "100/", "access_level": 30}, {"path": "200/201/", "access_level": 20}]}
//
// Verification fails closed: an algorithm not listed above, a missing exp or iat, a
// lifetime over 24 h, a malformed sub, an admin claim that is not a boolean,
// or a scope with a malformed path or an unknown access level makes the whole
// token invalid. Tokens are never logged or echoed in errors.
//
// Names are read exactly. A token longer than [MaxTokenBytes] is refused
// before it is decoded. In the header and the payload (and in each scope
// object), a member name that repeats, or that differs only in case from
// another name or from a name this package reads ("Admin", "EXP", or
// "ſcopes", which Unicode folding maps to "scopes"), makes the token
// invalid instead of being resolved one way or the other. A "crit" header
// is refused, since no extension is understood, and exp, iat and nbf must
// be JSON numbers.
package auth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ErrInvalidToken is wrapped by every verification failure.
var ErrInvalidToken = errors.New("auth: invalid token")

// Sentinels that [Verifier.Verify] wraps next to [ErrInvalidToken] for the
// structural checks it makes before trusting the claims.
var (
	// ErrTokenTooLarge: the token is longer than [MaxTokenBytes].
	ErrTokenTooLarge = errors.New("auth: token too large")
	// ErrAmbiguousClaim: a header or claim name repeats, or differs from
	// another or from a name this package reads only in case ("Admin",
	// "EXP", "ſcopes").
	ErrAmbiguousClaim = errors.New("auth: duplicate or case-variant claim name")
	// ErrCriticalHeader: the header has "crit"; no extension is understood.
	ErrCriticalHeader = errors.New("auth: critical header extension not understood")
	// ErrClaimType: a date claim (exp, iat, nbf) is not a JSON number.
	ErrClaimType = errors.New("auth: claim has the wrong JSON type")
)

// MaxTokenBytes bounds the length of a token, checked before any decoding.
// Real tokens carry a few dozen scopes; one near [MaxScopes] would not fit.
const MaxTokenBytes = 8 << 10

// MinKeyBytes is the shortest accepted HMAC key.
const MinKeyBytes = 32

// MaxLifetime bounds exp - iat.
const MaxLifetime = 24 * time.Hour

// MaxScopes bounds the scopes of one token.
const MaxScopes = 10000

// AccessLevels are the GitLab access levels a scope may carry.
var accessLevels = []int{5, 10, 15, 20, 25, 30, 40, 50}

var scopePath = regexp.MustCompile(`^([1-9][0-9]{0,18}/){1,20}$`)

// Scope grants Level on every namespace under the traversal-path prefix Path.
type Scope struct {
	Path  string
	Level int
}

// Claims is what a verified token says about its caller.
type Claims struct {
	UserID int64
	Admin  bool
	Scopes []Scope // duplicates merged (highest level wins), sorted by Path
}

// Options configures a [Verifier]. Keys must hold at least one key; all are
// accepted, so a rotation lists the current and the next key.
//
// KeyIDs, when set, names Keys[i] KeyIDs[i] ("" for a key without a name;
// a shorter slice leaves the rest unnamed). A token whose header has a
// "kid" is verified with the key of that name only, and refused when no
// key has it; a token without one is tried with every key.
//
// JWKS, when set, verifies tokens signed with an asymmetric algorithm
// (RS256/384/512, PS256/384/512, ES256/384/512, EdDSA) with its public
// keys; Keys may then be empty, and HS256 tokens are refused. With both,
// a token verifies with either, as its "alg" says.
//
// UserClaim, ScopesClaim and AdminClaim name the claims that carry the
// user id (a positive decimal integer, as a string or a number; "" means
// "sub"), the scopes (an array of {"path", "access_level"}; "" means
// "scopes") and the admin flag (a boolean; "" means "admin"), so that an
// identity provider's own claim names can be used.
type Options struct {
	Keys     [][]byte
	KeyIDs   []string
	JWKS     KeySource
	Issuer   string        // required iss; "" accepts any issuer
	Audience string        // required aud; "" means "graphwire"
	Leeway   time.Duration // clock skew allowed; 0 means 30 s
	Now      func() time.Time

	UserClaim, ScopesClaim, AdminClaim string
}

// Verifier checks tokens. It is safe for concurrent use, also with
// [Verifier.SetKeys].
type Verifier struct {
	parser *jwt.Parser // HS256; built once from the options; safe to share
	// asym holds one parser per asymmetric algorithm, each accepting only it.
	asym  map[string]*jwt.Parser
	jwks  KeySource // nil: no asymmetric token verifies
	names claimMap
	keys  atomic.Pointer[keySet]
}

// claimMap is the claim names of Options.UserClaim, ScopesClaim and AdminClaim.
type claimMap struct{ user, scopes, admin string }

// keySet is the HMAC keys a verifier accepts and their kid names.
type keySet struct {
	keys [][]byte
	ids  []string
}

// newKeySet validates and copies keys and their ids.
func newKeySet(keys [][]byte, ids []string, jwks bool) (*keySet, error) {
	if len(keys) == 0 && !jwks {
		return nil, errors.New("auth: no HMAC key")
	}
	ks := &keySet{keys: make([][]byte, len(keys)), ids: slices.Clone(ids)}
	for i, k := range keys {
		if len(k) < MinKeyBytes {
			return nil, fmt.Errorf("auth: HMAC key %d is %d bytes, want at least %d", i, len(k), MinKeyBytes)
		}
		ks.keys[i] = bytes.Clone(k)
	}
	if len(ids) > len(keys) {
		return nil, fmt.Errorf("auth: %d key ids for %d keys", len(ids), len(keys))
	}
	return ks, nil
}

// NewVerifier validates opts and returns a verifier. Keys are copied.
func NewVerifier(opts Options) (*Verifier, error) {
	ks, err := newKeySet(opts.Keys, opts.KeyIDs, opts.JWKS != nil)
	if err != nil {
		return nil, err
	}
	names := claimMap{user: opts.UserClaim, scopes: opts.ScopesClaim, admin: opts.AdminClaim}
	if names.user == "" {
		names.user = "sub"
	}
	if names.scopes == "" {
		names.scopes = "scopes"
	}
	if names.admin == "" {
		names.admin = "admin"
	}
	if names.user == names.scopes || names.user == names.admin || names.scopes == names.admin {
		return nil, fmt.Errorf("auth: the user, scopes and admin claims must differ (%q, %q, %q)", names.user, names.scopes, names.admin)
	}
	opts.Keys, opts.KeyIDs = nil, nil
	if opts.Audience == "" {
		opts.Audience = "graphwire"
	}
	if opts.Leeway == 0 {
		opts.Leeway = 30 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	common := []jwt.ParserOption{
		jwt.WithAudience(opts.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(opts.Leeway),
		jwt.WithTimeFunc(opts.Now),
	}
	if opts.Issuer != "" {
		common = append(common, jwt.WithIssuer(opts.Issuer))
	}
	parser := func(alg string) *jwt.Parser {
		return jwt.NewParser(append([]jwt.ParserOption{jwt.WithValidMethods([]string{alg})}, common...)...)
	}
	v := &Verifier{parser: parser("HS256"), jwks: opts.JWKS, names: names, asym: map[string]*jwt.Parser{}}
	for _, alg := range asymmetricAlgorithms {
		v.asym[alg] = parser(alg)
	}
	v.keys.Store(ks)
	return v, nil
}

// SetKeys replaces the keys (and their kid names) that tokens are checked
// against, as [Options.Keys] and [Options.KeyIDs] set them: a key rotation
// without a restart. Keys that fail validation leave the current ones in
// place. Tokens being verified meanwhile see the old set or the new one,
// never a mix.
func (v *Verifier) SetKeys(keys [][]byte, ids []string) error {
	ks, err := newKeySet(keys, ids, false)
	if err != nil {
		return err
	}
	v.keys.Store(ks)
	return nil
}

// Verify checks token and returns its claims. Every failure wraps
// [ErrInvalidToken] (and, where one applies, a more specific sentinel such
// as [ErrTokenTooLarge]) and never contains the token.
func (v *Verifier) Verify(token string) (*Claims, error) {
	// The size check comes before any decoding: a huge token costs nothing
	// but its length.
	if len(token) > MaxTokenBytes {
		return nil, fmt.Errorf("%w: %w", ErrInvalidToken, ErrTokenTooLarge)
	}
	alg, kid, err := checkHeader(token)
	if err != nil {
		return nil, invalid(err)
	}
	if alg != "HS256" {
		return v.verifyAsymmetric(token, alg, kid)
	}
	ks := v.keys.Load()
	if len(ks.keys) == 0 {
		return nil, fmt.Errorf("%w: HS256 tokens are not accepted (no shared secret)", ErrInvalidToken)
	}
	keys := ks.keys
	if kid != "" {
		i := slices.Index(ks.ids, kid)
		if i < 0 {
			return nil, fmt.Errorf("%w: unknown key id", ErrInvalidToken)
		}
		keys = keys[i : i+1]
	}
	var lastErr error
	for _, key := range keys {
		c, err := v.verifyWith(token, key)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if !errors.Is(err, jwt.ErrSignatureInvalid) && !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
			break // not a key problem: another key will not help
		}
	}
	return nil, invalid(lastErr)
}

// invalid wraps err as an [ErrInvalidToken] with a token-free message,
// keeping this package's own sentinels visible to errors.Is.
func invalid(err error) error {
	for _, s := range []error{ErrAmbiguousClaim, ErrCriticalHeader, ErrClaimType} {
		if errors.Is(err, s) {
			return fmt.Errorf("%w: %w", ErrInvalidToken, s)
		}
	}
	return fmt.Errorf("%w: %s", ErrInvalidToken, reason(err))
}

func (v *Verifier) verifyWith(token string, key []byte) (*Claims, error) {
	return v.parse(v.parser, token, key)
}

// parse verifies token's signature with key and its claims with p.
func (v *Verifier) parse(p *jwt.Parser, token string, key any) (*Claims, error) {
	tc := tokenClaims{names: v.names}
	_, err := p.ParseWithClaims(token, &tc, func(*jwt.Token) (any, error) { return key, nil })
	if err != nil {
		return nil, err
	}
	return tc.claims()
}

// verifyAsymmetric checks a token whose alg is not HS256 against the JWKS
// keys that fit its alg (and its kid, when it names one). A kid that names
// no key asks the key source to look again (rate limited) before the token
// is refused.
func (v *Verifier) verifyAsymmetric(token, alg, kid string) (*Claims, error) {
	p, ok := v.asym[alg]
	if !ok {
		return nil, fmt.Errorf("%w: algorithm %q is not accepted", ErrInvalidToken, alg)
	}
	if v.jwks == nil {
		return nil, fmt.Errorf("%w: %s tokens are not accepted (no JWKS)", ErrInvalidToken, alg)
	}
	ks := v.jwks.KeySet()
	if kid != "" && !ks.hasKID(kid) {
		ks = v.jwks.Missing(kid)
	}
	keys := ks.candidates(alg, kid)
	if len(keys) == 0 {
		if ks.Len() == 0 {
			return nil, fmt.Errorf("%w: no JWKS key is loaded", ErrInvalidToken)
		}
		if kid != "" && !ks.hasKID(kid) {
			return nil, fmt.Errorf("%w: unknown key id", ErrInvalidToken)
		}
		return nil, fmt.Errorf("%w: no JWKS key fits algorithm %s", ErrInvalidToken, alg)
	}
	var lastErr error
	for _, key := range keys {
		c, err := v.parse(p, token, key)
		if err == nil {
			return c, nil
		}
		lastErr = err
		if !errors.Is(err, jwt.ErrSignatureInvalid) && !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
			break
		}
	}
	return nil, invalid(lastErr)
}

func (tc *tokenClaims) claims() (*Claims, error) {
	if tc.iat == nil {
		return nil, errors.New("iat is required")
	}
	if tc.exp.Sub(tc.iat.Time) > MaxLifetime {
		return nil, errors.New("lifetime exceeds 24h")
	}
	uid, ok := userID(tc.user)
	if !ok {
		return nil, fmt.Errorf("%s must be a positive decimal user id", tc.names.user)
	}
	c := &Claims{UserID: uid}
	switch a := string(bytes.TrimSpace(tc.admin)); a {
	case "", "false":
	case "true":
		c.Admin = true
	default:
		return nil, fmt.Errorf("%s must be a boolean", tc.names.admin)
	}
	if len(tc.scopes) > 0 && string(tc.scopes) != "null" {
		var raw []json.RawMessage
		if err := json.Unmarshal(tc.scopes, &raw); err != nil {
			return nil, fmt.Errorf("%s must be an array of {path, access_level}", tc.names.scopes)
		}
		if len(raw) > MaxScopes {
			return nil, fmt.Errorf("more than %d scopes", MaxScopes)
		}
		best := map[string]int{}
		for i, obj := range raw {
			m, err := strictObject(obj, scopeNames, true)
			if err != nil {
				return nil, fmt.Errorf("scopes[%d]: %w", i, err)
			}
			path, err := stringMember(m, "path")
			if _, ok := m["path"]; !ok || err != nil || !scopePath.MatchString(path) || !segmentsFitInt64(path) {
				return nil, fmt.Errorf("scopes[%d].path is malformed", i)
			}
			level, err := strconv.Atoi(string(m["access_level"]))
			if err != nil || !slices.Contains(accessLevels, level) {
				return nil, fmt.Errorf("scopes[%d].access_level is not a known access level", i)
			}
			best[path] = max(best[path], level)
		}
		for p, l := range best {
			c.Scopes = append(c.Scopes, Scope{Path: p, Level: l})
		}
		slices.SortFunc(c.Scopes, func(a, b Scope) int { return strings.Compare(a.Path, b.Path) })
	}
	return c, nil
}

// userID reads the user claim: a positive decimal integer, written as a
// JSON string or a JSON number, without sign, leading zeros or exponent.
func userID(raw json.RawMessage) (int64, bool) {
	s := string(raw)
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, false
		}
	}
	uid, err := strconv.ParseInt(s, 10, 64)
	if err != nil || uid <= 0 || strconv.FormatInt(uid, 10) != s {
		return 0, false
	}
	return uid, true
}

func segmentsFitInt64(p string) bool {
	for _, seg := range strings.Split(strings.TrimSuffix(p, "/"), "/") {
		if _, err := strconv.ParseInt(seg, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// reason turns a verification error into a safe, token-free message.
func reason(err error) string {
	switch {
	case err == nil:
		return "unknown"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrSignatureInvalid):
		return "bad signature or algorithm"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "not valid yet"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "required claim missing"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "wrong audience"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "wrong issuer"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "unverifiable"
	}
	return err.Error()
}

// MintOptions configures [Mint] and [MintSigned].
type MintOptions struct {
	Issuer   string
	Audience string        // "" means "graphwire"
	TTL      time.Duration // 0 means 1 h; at most 24 h
	Now      time.Time     // zero means time.Now()
	KeyID    string        // the header's "kid"; "" sets none
}

// Mint signs a development token for c with key.
func Mint(key []byte, c Claims, opts MintOptions) (string, error) {
	if len(key) < MinKeyBytes {
		return "", fmt.Errorf("auth: HMAC key is %d bytes, want at least %d", len(key), MinKeyBytes)
	}
	t, err := newToken(jwt.SigningMethodHS256, c, opts)
	if err != nil {
		return "", err
	}
	return t.SignedString(key)
}

// newToken is the unsigned token [Mint] and [MintSigned] sign: c's claims, as the verifier's
// default claim names carry them, and opts' registered claims and kid.
func newToken(method jwt.SigningMethod, c Claims, opts MintOptions) (*jwt.Token, error) {
	if c.UserID <= 0 {
		return nil, errors.New("auth: user id must be positive")
	}
	if opts.TTL == 0 {
		opts.TTL = time.Hour
	}
	if opts.TTL > MaxLifetime {
		return nil, errors.New("auth: ttl exceeds 24h")
	}
	if opts.Audience == "" {
		opts.Audience = "graphwire"
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	type scope struct {
		Path        string `json:"path"`
		AccessLevel int    `json:"access_level"`
	}
	scopes := make([]scope, 0, len(c.Scopes))
	for _, s := range c.Scopes {
		if !scopePath.MatchString(s.Path) || !slices.Contains(accessLevels, s.Level) {
			return nil, fmt.Errorf("auth: invalid scope %s:%d", s.Path, s.Level)
		}
		scopes = append(scopes, scope{s.Path, s.Level})
	}
	now := opts.Now.Truncate(time.Second)
	claims := jwt.MapClaims{
		"sub":    strconv.FormatInt(c.UserID, 10),
		"aud":    opts.Audience,
		"iat":    now.Unix(),
		"exp":    now.Add(opts.TTL).Unix(),
		"admin":  c.Admin,
		"scopes": scopes,
	}
	if opts.Issuer != "" {
		claims["iss"] = opts.Issuer
	}
	t := jwt.NewWithClaims(method, claims)
	if opts.KeyID != "" {
		t.Header["kid"] = opts.KeyID
	}
	return t, nil
}

// Fingerprint identifies the whole authorization context of c: the user,
// the admin flag and the scope set with its levels. Two claims have the
// same fingerprint exactly when they authorize the same reads, whatever
// the order or repetition of their scopes (duplicates count at their
// highest level). It is the SHA-256 of a canonical text, in hex, so it can
// key per-caller state without holding the scopes themselves.
func (c *Claims) Fingerprint() string {
	best := map[string]int{}
	for _, s := range c.Scopes {
		best[s.Path] = max(best[s.Path], s.Level)
	}
	h := sha256.New()
	fmt.Fprintf(h, "graphwire-authz-v1\nsub:%d\nadmin:%t\n", c.UserID, c.Admin)
	for _, p := range slices.Sorted(maps.Keys(best)) {
		// Paths are digits and slashes (scopePath), so the encoding is
		// unambiguous.
		fmt.Fprintf(h, "scope:%s:%d\n", p, best[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}
