package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// TestServeRotatesCursorKeys: serve's cursor keys follow its JWT keys. A keyset cursor
// handed out under the first key still continues while the key file lists both keys (the
// newest signs), and is INVALID_CURSOR once its key has left the file after SIGHUP; a cursor
// handed out under the new key continues throughout.
func TestServeRotatesCursorKeys(t *testing.T) {
	file := filepath.Join(t.TempDir(), "jwt-keys")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("k1 " + string(oldSecret) + "\n")
	s := startServe(t, nil, "--jwt-secret-file", file)
	conn := grpcConn(t, s.grpc, insecure.NewCredentials())
	const first = `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"cursor":{"page_size":2}}`
	page := func(tok, after string) (string, error) {
		t.Helper()
		q := first
		if after != "" {
			q = `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"cursor":{"page_size":2,"after":"` + after + `"}}`
		}
		ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+tok)
		resp, err := pb.NewQueryServiceClient(conn).ExecuteQuery(ctx, &pb.ExecuteQueryRequest{Query: q})
		if err != nil {
			return "", err
		}
		var r struct {
			Pagination struct {
				NextCursor string `json:"next_cursor"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal([]byte(resp.GetResultJson()), &r); err != nil || r.Pagination.NextCursor == "" {
			t.Fatalf("page without a cursor: %v %s", err, resp.GetResultJson())
		}
		return r.Pagination.NextCursor, nil
	}
	reload := func(text, event string) {
		t.Helper()
		write(text)
		if err := s.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		s.waitFor(t, event)
	}
	oldTok, newTok := mint(t, oldSecret, "k1", admin), mint(t, secret, "k2", admin)
	oldCursor, err := page(oldTok, "")
	if err != nil {
		t.Fatal(err)
	}

	reload("k1 "+string(oldSecret)+"\nk2 "+string(secret)+"\n", "jwt_keys_reloaded")
	if _, err := page(newTok, oldCursor); err != nil {
		t.Errorf("during the rotation, the cursor of the first key: %v", err)
	}
	newCursor, err := page(newTok, "")
	if err != nil {
		t.Fatal(err)
	}
	if newCursor == oldCursor {
		t.Fatal("the newest key does not sign: the cursor is the same as before the rotation")
	}

	reload("k2 "+string(secret)+"\n", "jwt_keys_reloaded")
	if _, err := page(newTok, oldCursor); status.Code(err) != codes.InvalidArgument || errorReason(err) != "INVALID_CURSOR" {
		t.Errorf("after the first key left the file, its cursor: %v, want INVALID_CURSOR", err)
	}
	if _, err := page(newTok, newCursor); err != nil {
		t.Errorf("after the rotation, the cursor of the new key: %v", err)
	}
}
