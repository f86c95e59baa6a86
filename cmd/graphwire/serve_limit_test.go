package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
)

// TestServeRaisedQueryLimit: serve --max-recv-msg-size above the default raises the bound of
// the query text on every layer, the compiler's too, so a query between the default and the
// new limit is answered, and one over the new limit is still refused.
func TestServeRaisedQueryLimit(t *testing.T) {
	requireCHDB(t)
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "data")
	if out, err := child(t, "run", "seed", "--embedded", dir, "--scale", "0.02").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	secret := bytes.Repeat([]byte("k"), 32)
	secretFile := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	const limit = 262144
	addr := startServer(t, "--embedded", dir, "--listen", "127.0.0.1:0", "--jwt-secret-file", secretFile,
		"--max-recv-msg-size", "262144")
	tok, err := auth.Mint(secret, auth.Claims{UserID: 1, Admin: true}, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A valid query padded with trailing white space to n bytes.
	padded := func(n int) string {
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username"]}],"limit":1}`
		return q + strings.Repeat(" ", n-len(q))
	}
	r := runCLI("query", "--server", addr, "--token", tok, padded(200000))
	if r.code != exitOK || !strings.Contains(r.stdout, `"username":"alice"`) {
		t.Errorf("a 200000-byte query under a %d-byte limit: exit %d\n%s%s", limit, r.code, r.stdout, r.stderr)
	}
	r = runCLI("query", "--server", addr, "--token", tok, padded(limit+1))
	if r.code == exitOK || !strings.Contains(r.stderr, "262144") {
		t.Errorf("a query over the raised limit: exit %d, want a refusal naming %d\n%s%s", r.code, limit, r.stdout, r.stderr)
	}
}
