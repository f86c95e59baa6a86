package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
)

// maxCursorBytes caps the "after" token (docs/dsl.md, "Limits").
const maxCursorBytes = 8192

// queryHash binds cursors to a query: SHA-256 over a versioned canonical form of the request
// without its cursor member, first 16 hex characters (docs/compiler.md, "Stages").
func queryHash(doc map[string]any) string {
	c := make(map[string]any, len(doc))
	for k, v := range doc {
		if k != "cursor" {
			c[k] = v
		}
	}
	h := sha256.New()
	h.Write([]byte("graphwire-cursor-v1\n"))
	h.Write(canonical(nil, c))
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// decodeCursor checks that an "after" token was signed for caller ([CursorKeys]) and issued
// for hash, and returns its keys.
func decodeCursor(token, hash string, keys *CursorKeys, caller *Caller) ([]*string, error) {
	bad := newErr("/cursor/after", ErrInvalidCursor, "the cursor is malformed or was altered; restart pagination without after")
	if len(token) > maxCursorBytes {
		return nil, bad
	}
	raw, ok := keys.Open(caller, token)
	if !ok {
		return nil, bad
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	var c struct {
		H *string   `json:"h"`
		K []*string `json:"k"`
		X []int     `json:"x"` // keys in hex: not UTF-8 (graphresponse.CursorPayload)
	}
	if err := d.Decode(&c); err != nil || c.H == nil || c.K == nil {
		return nil, bad
	}
	for _, i := range c.X {
		if i < 0 || i >= len(c.K) || c.K[i] == nil {
			return nil, bad
		}
		b, err := hex.DecodeString(*c.K[i])
		if err != nil {
			return nil, bad
		}
		s := string(b)
		c.K[i] = &s
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, bad
	}
	if len(*c.H) != 16 {
		return nil, bad
	}
	if _, err := hex.DecodeString(*c.H); err != nil {
		return nil, bad
	}
	if *c.H != hash {
		return nil, newErr("/cursor/after", ErrCursorMismatch, "the cursor was issued for a different query; restart pagination without after")
	}
	return c.K, nil
}
