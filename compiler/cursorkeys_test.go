package compiler_test

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

// TestCursorKeys: a cursor verifies for the caller it was signed for, with the key that
// signed it, and not once anything about it changed: a byte of its payload, the caller, or the
// keys (after the signing key left the rotation).
func TestCursorKeys(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	old, err := compiler.NewCursorKeys(oldKey)
	if err != nil {
		t.Fatal(err)
	}
	caller := &compiler.Caller{Subject: "7", Scopes: []compiler.Scope{{Path: "1/22/", Level: 30}}}
	payload := `{"h":"0123456789abcdef","k":["41"]}`
	tok := old.Sign(caller, []byte(payload))
	if got, ok := old.Open(caller, tok); !ok || string(got) != payload {
		t.Fatalf("Open(Sign) = %q, %v", got, ok)
	}

	// The attack of issue 23: the payload edited to seek elsewhere, the signature kept.
	sig := tok[strings.IndexByte(tok, '.'):]
	edited := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(payload, "41", "40", 1))) + sig
	if p, ok := old.Open(caller, edited); ok || p != nil {
		t.Errorf("an edited payload: ok %v, payload %q; want refused and no payload", ok, p)
	}
	others := []*compiler.Caller{
		{Subject: "7", Scopes: []compiler.Scope{{Path: "1/22/", Level: 40}}},
		{Subject: "7", Scopes: []compiler.Scope{{Path: "1/", Level: 30}}},
		{Subject: "7", Admin: true, Scopes: caller.Scopes},
		{Subject: "7"},
	}
	for _, o := range others {
		if _, ok := old.Open(o, tok); ok {
			t.Errorf("a cursor of %+v verifies for %+v", caller, o)
		}
	}
	for _, bad := range []string{"", ".", tok + "A", tok + "\n", tok[:3] + "\r\n" + tok[3:], strings.Replace(tok, ".", "\n.", 1), " " + tok, strings.TrimSuffix(tok, sig), tok[:len(tok)-2], "%%%." + sig[1:]} {
		if _, ok := old.Open(caller, bad); ok {
			t.Errorf("Open(%q) verifies", bad)
		}
	}

	// Rotation: the new key signs, the old one still verifies until it is dropped.
	rot, err := compiler.NewCursorKeys(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rot.Open(caller, tok); !ok {
		t.Error("a cursor of the old key does not verify during the rotation")
	}
	if rot.Sign(caller, []byte(payload)) == tok {
		t.Error("the rotation still signs with the old key")
	}
	if err := rot.Set(newKey); err != nil {
		t.Fatal(err)
	}
	if _, ok := rot.Open(caller, tok); ok {
		t.Error("a cursor of a dropped key verifies")
	}
	if err := rot.Set([]byte("short")); err == nil {
		t.Error("Set took a 5-byte key")
	}
	if _, ok := rot.Open(caller, rot.Sign(caller, []byte(payload))); !ok {
		t.Error("a failed Set changed the keys")
	}
}

// TestCompiledCursorIsSigned: the next_cursor a compiled plan hands out is the compiler's
// signed token, and editing its keys makes the next page INVALID_CURSOR, not a seek.
func TestCompiledCursorIsSigned(t *testing.T) {
	c := newCompiler(t)
	q, err := c.Compile([]byte(mrSearch+`,"cursor":{"page_size":2}}`), specCaller)
	if err != nil {
		t.Fatal(err)
	}
	sign := q.Plan.Build.SignCursor
	if sign == nil {
		t.Fatal("a paginated plan has no cursor signer")
	}
	payload := `{"h":"` + q.Plan.Build.QueryHash + `","k":["5"]}`
	tok := sign([]byte(payload))
	if tok != signed(specCaller, payload) {
		t.Errorf("plan signer %q, want the compiler's keys for the caller", tok)
	}
	next := func(after string) error {
		_, err := c.Compile([]byte(mrSearch+`,"cursor":{"page_size":2,"after":"`+after+`"}}`), specCaller)
		return err
	}
	if err := next(tok); err != nil {
		t.Fatalf("the signed cursor: %v", err)
	}
	sig := tok[strings.IndexByte(tok, '.'):]
	edited := base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(payload, `"5"`, `"6"`, 1))) + sig
	if err := next(edited); !errors.Is(err, compiler.ErrInvalidCursor) {
		t.Errorf("edited cursor: %v, want INVALID_CURSOR", err)
	}
}
