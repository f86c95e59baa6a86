package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
	"github.com/golang-jwt/jwt/v5"
)

// ErrPrivateKey is wrapped by every error of [ParsePrivateKey].
var ErrPrivateKey = errors.New("auth: invalid private key")

// ParsePrivateKey reads a PEM private key that can sign tokens the verifier accepts: an RSA key
// of at least [MinRSABits] bits ("PRIVATE KEY" in PKCS #8, or "RSA PRIVATE KEY" in PKCS #1), an
// ECDSA key on P-256, P-384 or P-521 (PKCS #8, or "EC PRIVATE KEY" in SEC 1), or an Ed25519 key
// (PKCS #8), as openssl genpkey writes them. The first PEM block must be the key; an encrypted
// key is refused.
func ParsePrivateKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("%w: no PEM block", ErrPrivateKey)
	}
	if _, encrypted := block.Headers["DEK-Info"]; encrypted || block.Type == "ENCRYPTED PRIVATE KEY" {
		return nil, fmt.Errorf("%w: the key is encrypted; decrypt it first (openssl pkey -in FILE)", ErrPrivateKey)
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("%w: PEM block %q, want PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY", ErrPrivateKey, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrPrivateKey, block.Type, err)
	}
	switch k := key.(type) {
	case *rsa.PrivateKey:
		if k.N.BitLen() < MinRSABits {
			return nil, fmt.Errorf("%w: RSA key of %d bits, want at least %d", ErrPrivateKey, k.N.BitLen(), MinRSABits)
		}
		return k, nil
	case *ecdsa.PrivateKey:
		if DefaultAlgorithm(k) == "" {
			return nil, fmt.Errorf("%w: ECDSA curve %s, want P-256, P-384 or P-521", ErrPrivateKey, k.Curve.Params().Name)
		}
		return k, nil
	case ed25519.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("%w: %T keys cannot sign a token graphwire accepts", ErrPrivateKey, key)
}

// DefaultAlgorithm is the algorithm [MintSigned] uses for key when none is asked for: RS256 for
// RSA, ES256, ES384 or ES512 by the ECDSA curve, EdDSA for Ed25519; "" for any other key.
func DefaultAlgorithm(key crypto.Signer) string {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return "RS256"
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256"
		case elliptic.P384():
			return "ES384"
		case elliptic.P521():
			return "ES512"
		}
	case ed25519.PrivateKey:
		return "EdDSA"
	}
	return ""
}

// SigningAlgorithm resolves alg for key ("" is [DefaultAlgorithm]) and refuses one the key
// cannot make, or that the verifier does not accept.
func SigningAlgorithm(key crypto.Signer, alg string) (string, error) {
	if alg == "" {
		alg = DefaultAlgorithm(key)
	}
	if !slices.Contains(asymmetricAlgorithms, alg) {
		return "", fmt.Errorf("auth: algorithm %q, want one of %s", alg, strings.Join(asymmetricAlgorithms, ", "))
	}
	if !fits(alg, key.Public()) {
		return "", fmt.Errorf("auth: the %s key cannot sign %s (its algorithm is %s)", keyKind(key), alg, DefaultAlgorithm(key))
	}
	return alg, nil
}

func keyKind(key crypto.Signer) string {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return "RSA"
	case *ecdsa.PrivateKey:
		return "ECDSA " + k.Curve.Params().Name
	case ed25519.PrivateKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", key)
}

// MintSigned signs a token for c with an asymmetric key and alg ("" for
// [DefaultAlgorithm]), which must fit the key: what an identity provider would issue, for a
// server that verifies with the key's JWKS ([PublicJWKS]). The claims are [Mint]'s.
func MintSigned(key crypto.Signer, alg string, c Claims, opts MintOptions) (string, error) {
	alg, err := SigningAlgorithm(key, alg)
	if err != nil {
		return "", err
	}
	t, err := newToken(jwt.GetSigningMethod(alg), c, opts)
	if err != nil {
		return "", err
	}
	return t.SignedString(key)
}

// PublicJWKS is the JWKS document of key's public half, for serve --jwks-file: one signature key
// ("use": "sig") for alg ("" for [DefaultAlgorithm]), named kid when kid is not "".
func PublicJWKS(key crypto.Signer, alg, kid string) ([]byte, error) {
	alg, err := SigningAlgorithm(key, alg)
	if err != nil {
		return nil, err
	}
	doc := struct {
		Keys []jose.JSONWebKey `json:"keys"`
	}{[]jose.JSONWebKey{{Key: key.Public(), KeyID: kid, Algorithm: alg, Use: "sig"}}}
	return json.Marshal(doc)
}
