package auth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/go-jose/go-jose/v4"
)

// MaxJWKSBytes bounds a JWKS document, from a file or a URL: an identity
// provider publishes a few keys, a few kilobytes.
const MaxJWKSBytes = 1 << 20

// MaxJWKSKeys bounds the keys of one JWKS.
const MaxJWKSKeys = 100

// MinRSABits is the shortest accepted RSA modulus.
const MinRSABits = 2048

// AsymmetricAlgorithms are the JWS algorithms verified with JWKS keys.
var asymmetricAlgorithms = []string{
	"RS256", "RS384", "RS512",
	"PS256", "PS384", "PS512",
	"ES256", "ES384", "ES512",
	"EdDSA",
}

// ErrJWKS is wrapped by every error of [ParseKeySet].
var ErrJWKS = errors.New("auth: invalid JWKS")

// KeySet is the usable public keys of one JWKS document, immutable once
// parsed. The zero value and nil hold no key: every token signed with an
// asymmetric algorithm is refused.
type KeySet struct {
	keys []publicKey
	// skipped says, per key left out, which and why.
	skipped []string
}

// publicKey is one usable JWK.
type publicKey struct {
	kid string
	alg string // "" when the JWK names none: any algorithm of its type
	key any    // *rsa.PublicKey, *ecdsa.PublicKey or ed25519.PublicKey
}

// Len returns the number of usable keys.
func (ks *KeySet) Len() int {
	if ks == nil {
		return 0
	}
	return len(ks.keys)
}

// KeyIDs returns the kid of every usable key, in document order.
func (ks *KeySet) KeyIDs() []string {
	if ks == nil {
		return nil
	}
	ids := make([]string, len(ks.keys))
	for i, k := range ks.keys {
		ids[i] = k.kid
	}
	return ids
}

// Skipped says, for each key of the document left out, its position, kid
// and why ("keys[2] (kid \"enc-1\"): use \"enc\" is not a signature key").
func (ks *KeySet) Skipped() []string {
	if ks == nil {
		return nil
	}
	return slices.Clone(ks.skipped)
}

// ParseKeySet reads a JWKS document (RFC 7517 §5: {"keys": [...]}). Keys
// are parsed with go-jose. A key is left out, and said so by
// [KeySet.Skipped], when it is not a signature key ("use" other than
// "sig", "key_ops" without "verify"), is symmetric ("oct": HMAC keys never
// come from a JWKS, so an HS token cannot be checked against a public key
// used as a secret), holds private material, is an RSA key under
// [MinRSABits], names an "alg" this package does not verify or one that does
// not fit its type or curve, or does not parse. The document itself must be
// a JSON object with a "keys" array of at most [MaxJWKSKeys] members, at
// most [MaxJWKSBytes] long; otherwise the error wraps [ErrJWKS]. A document
// with no usable key is not an error: it verifies nothing.
func ParseKeySet(data []byte) (*KeySet, error) {
	if len(data) > MaxJWKSBytes {
		return nil, fmt.Errorf("%w: %d bytes, at most %d", ErrJWKS, len(data), MaxJWKSBytes)
	}
	var doc struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrJWKS, err)
	}
	if doc.Keys == nil {
		return nil, fmt.Errorf("%w: no \"keys\" array", ErrJWKS)
	}
	if len(doc.Keys) > MaxJWKSKeys {
		return nil, fmt.Errorf("%w: %d keys, at most %d", ErrJWKS, len(doc.Keys), MaxJWKSKeys)
	}
	ks := &KeySet{}
	for i, raw := range doc.Keys {
		k, err := parseKey(raw)
		if err != nil {
			ks.skipped = append(ks.skipped, fmt.Sprintf("keys[%d]%s: %v", i, kidNote(raw), err))
			continue
		}
		ks.keys = append(ks.keys, k)
	}
	return ks, nil
}

func kidNote(raw json.RawMessage) string {
	var m struct {
		Kid string `json:"kid"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Kid == "" {
		return ""
	}
	return fmt.Sprintf(" (kid %q)", m.Kid)
}

func parseKey(raw json.RawMessage) (publicKey, error) {
	var extra struct {
		Use    string   `json:"use"`
		KeyOps []string `json:"key_ops"`
		Kty    string   `json:"kty"`
	}
	if err := json.Unmarshal(raw, &extra); err != nil {
		return publicKey{}, errors.New("not a JSON object")
	}
	if extra.Use != "" && extra.Use != "sig" {
		return publicKey{}, fmt.Errorf("use %q is not a signature key", extra.Use)
	}
	if extra.KeyOps != nil && !slices.Contains(extra.KeyOps, "verify") {
		return publicKey{}, errors.New("key_ops does not allow verify")
	}
	switch extra.Kty {
	case "RSA", "EC", "OKP":
	case "oct":
		return publicKey{}, errors.New("symmetric (oct) keys are not taken from a JWKS")
	default:
		return publicKey{}, fmt.Errorf("kty %q is not supported", extra.Kty)
	}
	var jwk jose.JSONWebKey
	if err := jwk.UnmarshalJSON(raw); err != nil {
		return publicKey{}, fmt.Errorf("does not parse: %v", err)
	}
	if !jwk.IsPublic() {
		return publicKey{}, errors.New("holds private key material")
	}
	k := publicKey{kid: jwk.KeyID, alg: jwk.Algorithm, key: jwk.Key}
	if k.alg != "" && !slices.Contains(asymmetricAlgorithms, k.alg) {
		return publicKey{}, fmt.Errorf("alg %q is not verified here", k.alg)
	}
	switch pk := jwk.Key.(type) {
	case *rsa.PublicKey:
		if pk.N.BitLen() < MinRSABits {
			return publicKey{}, fmt.Errorf("RSA key of %d bits, at least %d", pk.N.BitLen(), MinRSABits)
		}
	case *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return publicKey{}, fmt.Errorf("key type %T is not supported", jwk.Key)
	}
	if k.alg != "" && !fits(k.alg, k.key) {
		return publicKey{}, fmt.Errorf("alg %q does not fit a %s key", k.alg, extra.Kty)
	}
	return k, nil
}

// fits reports whether key may verify alg: RS and PS take RSA keys, ES256,
// ES384 and ES512 the P-256, P-384 and P-521 curves, EdDSA Ed25519.
func fits(alg string, key any) bool {
	switch pk := key.(type) {
	case *rsa.PublicKey:
		return alg[:2] == "RS" || alg[:2] == "PS"
	case *ecdsa.PublicKey:
		switch alg {
		case "ES256":
			return pk.Curve == elliptic.P256()
		case "ES384":
			return pk.Curve == elliptic.P384()
		case "ES512":
			return pk.Curve == elliptic.P521()
		}
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// candidates returns the keys that may verify a token of alg naming kid
// ("" when it names none: every key that fits).
func (ks *KeySet) candidates(alg, kid string) []any {
	if ks == nil {
		return nil
	}
	var out []any
	for _, k := range ks.keys {
		if kid != "" && k.kid != kid {
			continue
		}
		if (k.alg == "" || k.alg == alg) && fits(alg, k.key) {
			out = append(out, k.key)
		}
	}
	return out
}

// hasKID reports whether some key, of any type, is named kid.
func (ks *KeySet) hasKID(kid string) bool {
	return ks != nil && slices.ContainsFunc(ks.keys, func(k publicKey) bool { return k.kid == kid })
}
