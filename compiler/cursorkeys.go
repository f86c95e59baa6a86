package compiler

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// MinCursorKeyBytes is the shortest key [NewCursorKeys] accepts.
const MinCursorKeyBytes = 32

// cursorMACBytes is the length of the signature a cursor carries (128 bits of HMAC-SHA256).
const cursorMACBytes = 16

// CursorKeys signs the pagination cursors a compiler's answers carry and verifies the
// cursors that come back, so that an altered cursor is INVALID_CURSOR instead of a seek to
// another place (docs/dsl.md, "Ordering, limits and pages"). The first key signs; every key
// verifies, so a rotation lists the new key first and keeps the old one until the cursors it
// signed have expired from use. Each signature is also bound to the caller's authorization
// (admin flag and scopes, not the user id): a cursor does not verify for a caller with other
// rights. It is safe for concurrent use; [CursorKeys.Set] rotates the keys in place.
type CursorKeys struct {
	keys atomic.Pointer[[][]byte]
}

// NewCursorKeys returns the keys, each at least [MinCursorKeyBytes] long; at least one.
func NewCursorKeys(keys ...[]byte) (*CursorKeys, error) {
	k := &CursorKeys{}
	if err := k.Set(keys...); err != nil {
		return nil, err
	}
	return k, nil
}

// RandomCursorKeys returns one fresh random key: cursors stay valid for the life of the
// process that holds it.
func RandomCursorKeys() *CursorKeys {
	key := make([]byte, MinCursorKeyBytes)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (Go 1.24+)
	k := &CursorKeys{}
	k.keys.Store(&[][]byte{key})
	return k
}

// DeriveCursorKey derives a cursor key from another secret of the process (a JWT key), so
// that rotating that secret rotates the cursor keys with it without a key of its own.
func DeriveCursorKey(secret []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("graphwire cursor key v1"))
	return m.Sum(nil)
}

// Set replaces the keys; on an error the old ones stay.
func (k *CursorKeys) Set(keys ...[]byte) error {
	if len(keys) == 0 {
		return errors.New("compiler: no cursor key")
	}
	for i, key := range keys {
		if len(key) < MinCursorKeyBytes {
			return fmt.Errorf("compiler: cursor key %d is %d bytes, want at least %d", i+1, len(key), MinCursorKeyBytes)
		}
	}
	c := make([][]byte, len(keys))
	for i, key := range keys {
		c[i] = slices.Clone(key)
	}
	k.keys.Store(&c)
	return nil
}

// callerKey binds key to caller: the same server key gives each authorization its own
// signing key.
func callerKey(key []byte, c *Caller) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("graphwire cursor caller v1\n"))
	if c.Admin {
		m.Write([]byte("admin\n"))
	}
	for _, s := range c.Scopes {
		m.Write([]byte(s.Path + ":" + strconv.Itoa(s.Level) + "\n"))
	}
	return m.Sum(nil)
}

// signer returns the key that signs caller's cursors.
func (k *CursorKeys) signer(c *Caller) []byte { return callerKey((*k.keys.Load())[0], c) }

// signer returns the plan's cursor signer for caller: nil when the query is not paginated.
// The key is fixed when the query is compiled, so a rotation does not change a plan.
func signer(k *CursorKeys, c *Caller, paginate bool) func([]byte) string {
	if !paginate {
		return nil
	}
	key := k.signer(c)
	return func(payload []byte) string { return signWith(key, payload) }
}

func mac(key, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(payload)
	return m.Sum(nil)[:cursorMACBytes]
}

// Sign returns payload followed by "." and its signature for caller, in base64url without
// padding: the form of every cursor graphwire hands out.
func (k *CursorKeys) Sign(c *Caller, payload []byte) string {
	return signWith(k.signer(c), payload)
}

func signWith(key, payload []byte) string {
	return base64.RawURLEncoding.EncodeToString(payload) + "." + base64.RawURLEncoding.EncodeToString(mac(key, payload))
}

// Open checks a token made by [CursorKeys.Sign] for caller with any of the keys and returns
// its payload; ok is false, and the payload nil, for a malformed token or a signature that
// does not verify.
func (k *CursorKeys) Open(c *Caller, token string) (payload []byte, ok bool) {
	// Only the bytes Sign writes: encoding/base64 skips CR and LF, so without this check a
	// token with line breaks inserted would decode, and verify, as the one it was.
	for i := 0; i < len(token); i++ {
		if b := token[i]; !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' || b == '.') {
			return nil, false
		}
	}
	p, s, found := strings.Cut(token, ".")
	if !found {
		return nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return nil, false
	}
	sig, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(sig) != cursorMACBytes {
		return nil, false
	}
	good := false
	for _, key := range *k.keys.Load() {
		// Every key is tried, so the time taken does not say which one matched.
		if hmac.Equal(sig, mac(callerKey(key, c), payload)) {
			good = true
		}
	}
	if !good {
		return nil, false // an unverified payload is never handed out
	}
	return payload, true
}
