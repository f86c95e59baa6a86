package mcp_test

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/mcpsvc"
)

// TestHTTPBodyBound: the HTTP request body is bounded by the query limit of the server
// (mcpsvc.RequestBytes), not by the MCP SDK's fixed 4 MiB. At the default limit a body just
// over the bound is refused with 413 before it is read whole; with --max-recv-msg-size raised
// past 4 MiB, a query of that size is answered over HTTP as on the other faces.
func TestHTTPBodyBound(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		url := server(t)
		body := bytes.Repeat([]byte(" "), int(mcpsvc.RequestBytes(131072))+1)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token(t, auth.Claims{UserID: 1, Admin: true}))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a %d-byte body: status %d, want 413", len(body), resp.StatusCode)
		}
	})
	t.Run("raised", func(t *testing.T) {
		const limit = 5 << 20
		url := server(t, "--max-recv-msg-size", "5242880")
		s := overHTTP(t, url, auth.Claims{UserID: 1, Admin: true})
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`
		r := query(t, s, map[string]any{"query": q + strings.Repeat(" ", limit-len(q)), "format": "json"})
		if r.Meta.RowCount != 1 {
			t.Errorf("a %d-byte query under a %d-byte limit: %d rows, want 1\n%s", limit, limit, r.Meta.RowCount, r.Text)
		}
	})
}
