package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/mcpsvc"
)

// rawMCP sends one streamable-HTTP POST with body to url as admin, with the headers hdr
// (name, value pairs), and returns the status, the session id header and the body.
func rawMCP(t *testing.T, url, body string, hdr ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token(t, admin))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

// initializeBody is an initialize request for protocol version v.
func initializeBody(v string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`
}

// TestMCPOriginChecked: the MCP transport validates Origin (MCP 2025-06-18, transports,
// security warning: DNS rebinding). A request without Origin (a non-browser client) and
// one from a loopback origin are served; one from another site, or the opaque origin
// "null", is refused with 403 before its token is read, and so is a site not on the
// allowed list; a listed site is served.
func TestMCPOriginChecked(t *testing.T) {
	_, url := faces(t, engine(t), nil, func(o *mcpsvc.Options) { o.AllowedOrigins = []string{"https://app.example.com"} })
	tests := []struct {
		name, origin string
		want         int
	}{
		{"no origin", "", http.StatusOK},
		{"loopback name", "http://localhost:6274", http.StatusOK},
		{"loopback IPv4", "http://127.0.0.1:8080", http.StatusOK},
		{"loopback IPv6", "http://[::1]:3000", http.StatusOK},
		{"allowed site", "https://APP.example.com:443", http.StatusOK},
		{"allowed site over http", "http://app.example.com", http.StatusForbidden},
		{"rebinding site", "http://attacker.example:" + url[strings.LastIndex(url, ":")+1:], http.StatusForbidden},
		{"opaque origin", "null", http.StatusForbidden},
		{"not an origin", "localhost", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.origin != "" {
				hdr = []string{"Origin", tt.origin}
			}
			code, _, body := rawMCP(t, url, initializeBody("2025-06-18"), hdr...)
			if code != tt.want {
				t.Errorf("Origin %q: %d %s, want %d", tt.origin, code, body, tt.want)
			}
		})
	}
	if bad, ok := mcpsvc.CheckOrigins([]string{"*", "https://a.example", "a.example/x"}); ok || bad != "a.example/x" {
		t.Errorf("CheckOrigins: %q %v, want the path entry refused", bad, ok)
	}
}

// TestMCPBatchRefused: protocol version 2025-06-18 removed JSON-RPC batches. A batch on a
// session that negotiated it is refused with 400 and a JSON-RPC Invalid Request error,
// whether or not the request repeats the version in Mcp-Protocol-Version (the SDK refused
// only with the header, and ran the batch without it) and when the header claims an older
// version than the session negotiated, and so is a batch that would open a session. A session that negotiated 2025-03-26 may still send batches.
func TestMCPBatchRefused(t *testing.T) {
	_, url := faces(t, engine(t), nil)
	open := func(version string) string {
		t.Helper()
		code, id, body := rawMCP(t, url, initializeBody(version))
		if code != http.StatusOK || id == "" {
			t.Fatalf("initialize %s: %d %q %s", version, code, id, body)
		}
		code, _, body = rawMCP(t, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", id, "Mcp-Protocol-Version", version)
		if code >= 300 {
			t.Fatalf("initialized %s: %d %s", version, code, body)
		}
		return id
	}
	const batch = ` [{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`
	refused := func(name string, hdr ...string) {
		t.Helper()
		code, _, body := rawMCP(t, url, batch, hdr...)
		var rpc struct {
			ID    any `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if code != http.StatusBadRequest || json.Unmarshal([]byte(body), &rpc) != nil || rpc.Error.Code != -32600 || !strings.Contains(rpc.Error.Message, "batch") {
			t.Errorf("%s: %d %s, want 400 with a JSON-RPC -32600 error about batches", name, code, body)
		}
	}
	current := open("2025-06-18")
	refused("batch on a 2025-06-18 session without the version header", "Mcp-Session-Id", current)
	refused("batch on a 2025-06-18 session with the version header", "Mcp-Session-Id", current, "Mcp-Protocol-Version", "2025-06-18")
	refused("batch on a 2025-06-18 session whose header claims 2025-03-26", "Mcp-Session-Id", current, "Mcp-Protocol-Version", "2025-03-26")
	refused("batch on a 2025-06-18 session whose header claims 2024-11-05", "Mcp-Session-Id", current, "Mcp-Protocol-Version", "2024-11-05")
	refused("batch opening a session")
	// The session still answers single messages.
	if code, _, body := rawMCP(t, url, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, "Mcp-Session-Id", current); code != http.StatusOK || !strings.Contains(body, "query_graph") {
		t.Errorf("tools/list after the refused batches: %d %s", code, body)
	}
	old := open("2025-03-26")
	if code, _, body := rawMCP(t, url, batch, "Mcp-Session-Id", old); code != http.StatusOK || !strings.Contains(body, "query_graph") {
		t.Errorf("batch on a 2025-03-26 session: %d %s, want it answered", code, body)
	}
}
