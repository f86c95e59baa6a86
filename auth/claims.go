package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/golang-jwt/jwt/v5"
)

// Names this package reads. A member name that is not one of these but
// folds to one (case or Unicode simple folding: "Admin", "EXP", "ſcopes")
// is ambiguous: encoding/json would have matched it case-insensitively,
// and other JWT libraries disagree on which spelling counts, so the token
// is refused rather than guessed.
var (
	claimNames  = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "admin", "scopes"}
	headerNames = []string{"alg", "typ", "kid", "cty", "crit"}
	scopeNames  = []string{"path", "access_level"}
)

// strictObject decodes one JSON object into its members, keyed by their
// exact names. It fails with [ErrAmbiguousClaim] when two names are equal
// or fold to the same string, or when a name folds to one of known without
// being spelled exactly like it. With closed set, a name outside known is an
// error too.
func strictObject(data []byte, known []string, closed bool) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, errors.New("not a JSON object")
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	members := map[string]json.RawMessage{}
	folded := map[string]string{} // fold key → the name that claimed it
	for _, k := range known {
		folded[foldKey(k)] = k
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New("malformed JSON object")
		}
		name := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("malformed JSON object")
		}
		// Messages stay constant: names come from the token.
		if _, dup := members[name]; dup {
			return nil, ErrAmbiguousClaim
		}
		fk := foldKey(name)
		if owner, ok := folded[fk]; ok && owner != name {
			return nil, ErrAmbiguousClaim
		}
		if closed && !isKnown(name, known) {
			return nil, errors.New("unknown member")
		}
		folded[fk] = name
		members[name] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, errors.New("malformed JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON object")
	}
	return members, nil
}

func isKnown(name string, known []string) bool {
	for _, k := range known {
		if k == name {
			return true
		}
	}
	return false
}

// foldKey maps s to a canonical member of its Unicode simple-folding class
// rune by rune (the smallest rune of each orbit), so two names are
// case-insensitively equal in the sense of [strings.EqualFold] exactly when
// their fold keys are equal.
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		lo := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			lo = min(lo, f)
		}
		b.WriteRune(lo)
	}
	return b.String()
}

// checkHeader reads the JOSE header of token strictly: no duplicate or
// case-variant names, and no "crit" (RFC 7515 §4.1.11): this verifier
// understands no header extension, so a token that says one must be
// understood is refused. It returns the algorithm ("alg", which must be a
// string) and the key id ("kid"), "" when there is none.
func checkHeader(token string) (alg, kid string, err error) {
	seg, _, ok := strings.Cut(token, ".")
	if !ok {
		return "", "", errors.New("malformed")
	}
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return "", "", errors.New("malformed")
	}
	h, err := strictObject(raw, headerNames, false)
	if err != nil {
		return "", "", fmt.Errorf("header: %w", err)
	}
	if _, ok := h["crit"]; ok {
		return "", "", ErrCriticalHeader
	}
	if alg, err = stringMember(h, "alg"); err != nil || alg == "" {
		return "", "", errors.New("header: alg is not a non-empty string")
	}
	if k, ok := h["kid"]; ok {
		if err := json.Unmarshal(k, &kid); err != nil || kid == "" {
			return "", "", errors.New("header: kid is not a non-empty string")
		}
	}
	return alg, kid, nil
}

// tokenClaims is the payload of a token, decoded strictly by its own
// UnmarshalJSON: exact-case names, no duplicates, JSON numbers for the
// dates. It implements [jwt.Claims], so the library checks exp, iat, nbf,
// iss and aud on exactly the values read here.
type tokenClaims struct {
	names               claimMap // set before decoding: which claims to read
	iss, sub            string
	aud                 jwt.ClaimStrings
	exp, nbf, iat       *jwt.NumericDate
	user, admin, scopes json.RawMessage
}

func (tc *tokenClaims) UnmarshalJSON(data []byte) error {
	known := append(slices.Clone(claimNames), tc.names.user, tc.names.scopes, tc.names.admin)
	m, err := strictObject(data, known, false)
	if err != nil {
		return err
	}
	if tc.iss, err = stringMember(m, "iss"); err != nil {
		return err
	}
	if tc.sub, err = stringMember(m, "sub"); err != nil {
		return err
	}
	if raw, ok := m["aud"]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			tc.aud = jwt.ClaimStrings{one}
		} else if err := json.Unmarshal(raw, (*[]string)(&tc.aud)); err != nil {
			return errors.New("aud must be a string or an array of strings")
		}
	}
	for _, d := range []struct {
		name string
		dst  **jwt.NumericDate
	}{{"exp", &tc.exp}, {"nbf", &tc.nbf}, {"iat", &tc.iat}} {
		if *d.dst, err = dateMember(m, d.name); err != nil {
			return err
		}
	}
	tc.user, tc.admin, tc.scopes = m[tc.names.user], m[tc.names.admin], m[tc.names.scopes]
	return nil
}

func stringMember(m map[string]json.RawMessage, name string) (string, error) {
	raw, ok := m[name]
	if !ok {
		return "", nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%s must be a string", name)
	}
	return s, nil
}

// dateMember reads a NumericDate: a JSON number of seconds, never a string
// (encoding/json would accept "1782903600" in quotes for a json.Number).
func dateMember(m map[string]json.RawMessage, name string) (*jwt.NumericDate, error) {
	raw, ok := m[name]
	if !ok {
		return nil, nil
	}
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return nil, fmt.Errorf("%w: %s must be a JSON number", ErrClaimType, name)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return nil, fmt.Errorf("%w: %s is out of range", ErrClaimType, name)
	}
	sec, frac := math.Modf(f)
	return jwt.NewNumericDate(time.Unix(int64(sec), int64(frac*1e9))), nil
}

func (tc *tokenClaims) GetExpirationTime() (*jwt.NumericDate, error) { return tc.exp, nil }
func (tc *tokenClaims) GetNotBefore() (*jwt.NumericDate, error)      { return tc.nbf, nil }
func (tc *tokenClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return tc.iat, nil }
func (tc *tokenClaims) GetAudience() (jwt.ClaimStrings, error)       { return tc.aud, nil }
func (tc *tokenClaims) GetIssuer() (string, error)                   { return tc.iss, nil }
func (tc *tokenClaims) GetSubject() (string, error)                  { return tc.sub, nil }
