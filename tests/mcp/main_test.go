// Package mcp_test drives graphwire's MCP server with real clients: the
// official Go SDK's client over stdio (the built binary as a subprocess)
// and over streamable HTTP on loopback (graphwire serve --mcp-listen), and
// the MCP Inspector's CLI when npm is present.
package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/internal/hermetic"
	"github.com/graphwire/graphwire/tests/serverdb"
)

var secret = []byte("mcp-test-secret-0123456789abcdef0123")

// env is built once: the binary, a seeded graph and the secret. The graph is an embedded
// data directory, or with GRAPHWIRE_TEST_ENGINE=server (make test-server) a database of its
// own on the ClickHouse server GRAPHWIRE_CLICKHOUSE_DSN names; graph holds the flags that
// select it (--embedded DIR or --clickhouse DSN).
var env struct {
	bin, secretFile string
	graph           []string
	err             error
}

// TestMain runs the tests in a home of their own (internal/hermetic): the graphwire binary they
// start falls back on the user's data directory, config and GRAPHWIRE_ variables.
func TestMain(m *testing.M) {
	if dir := os.Getenv(storeHelperEnv); dir != "" {
		os.Exit(storeHelper(dir)) // a child process of a test: see storeInvalidUTF8
	}
	os.Exit(hermetic.Main(func() int { return runMain(m) }, chdb.DefaultCacheDir()))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "graphwire-mcp-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	drop, err := setup(dir)
	defer drop()
	env.err = err
	if err != nil && os.Getenv(serverdb.EngineEnv) == "server" {
		fmt.Fprintln(os.Stderr, err) // a run asked for the server cannot skip it
		return 1
	}
	return m.Run()
}

// setup builds the binary and seeds its graph; drop removes a server database it made.
func setup(dir string) (drop func(), err error) {
	if _, err := os.Stat(chdb.DefaultLibrary()); err != nil {
		return func() {}, fmt.Errorf("libchdb.so not found (run bash scripts/install-chdb.sh, or set GRAPHWIRE_CHDB_LIB): %w", err)
	}
	env.bin = filepath.Join(dir, "graphwire")
	build := exec.Command("go", "build", "-o", env.bin, "github.com/graphwire/graphwire/cmd/graphwire")
	if out, err := build.CombinedOutput(); err != nil {
		return func() {}, fmt.Errorf("build: %v\n%s", err, out)
	}
	env.graph, drop, err = serverdb.GraphArgs(filepath.Join(dir, "data"), "gw_mcptest")
	if err != nil {
		return drop, err
	}
	seed := exec.Command(env.bin, slices.Concat([]string{"seed"}, env.graph, []string{"--scale", "0.2", "--seed", "42"})...)
	if out, err := seed.CombinedOutput(); err != nil {
		return drop, fmt.Errorf("seed: %v\n%s", err, out)
	}
	env.secretFile = filepath.Join(dir, "secret")
	return drop, os.WriteFile(env.secretFile, secret, 0o600)
}

func ready(t *testing.T) {
	t.Helper()
	if env.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the embedded engine is unavailable: %v", env.err)
		}
		t.Skipf("embedded engine unavailable: %v", env.err)
	}
}

// stdio starts "graphwire mcp" with the caller flags and connects the SDK
// client to it; the process ends with the test.
func stdio(t *testing.T, caller ...string) *mcp.ClientSession {
	t.Helper()
	return stdioAt(t, env.graph, caller...)
}

// stdioAt is [stdio] on the graph the flags graph select.
func stdioAt(t *testing.T, graph []string, caller ...string) *mcp.ClientSession {
	t.Helper()
	ready(t)
	args := slices.Concat([]string{"mcp"}, graph, caller)
	cmd := exec.Command(env.bin, args...)
	stderr := &logBuffer{}
	cmd.Stderr = stderr
	// Registered before the session's Close, so it runs after the process ended.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("graphwire mcp stderr:\n%s", stderr.String())
		}
	})
	c := mcp.NewClient(&mcp.Implementation{Name: "graphwire-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// logBuffer keeps a subprocess's stderr for the test log on failure; os/exec
// writes it from its own goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server starts "graphwire serve --mcp-listen" on loopback, with the extra
// flags args, and returns the MCP endpoint URL; the process ends with the test.
func server(t *testing.T, args ...string) string {
	t.Helper()
	ready(t)
	cmd := exec.Command(env.bin, slices.Concat([]string{"serve"}, env.graph, []string{"--jwt-secret-file", env.secretFile,
		"--listen", "127.0.0.1:0", "--mcp-listen", "127.0.0.1:0", "--shutdown-grace", "2s"}, args)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "mcp_listening" {
			go func() {
				for sc.Scan() {
				}
			}()
			return "http://" + line.Addr + "/mcp"
		}
	}
	t.Fatalf("serve exited before listening: %v", sc.Err())
	return ""
}

func token(t *testing.T, c auth.Claims) string {
	t.Helper()
	tok, err := auth.Mint(secret, c, auth.MintOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// overHTTP connects the SDK client to url with the token of c.
func overHTTP(t *testing.T, url string, c auth.Claims) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token(t, c), http.DefaultTransport}},
		DisableStandaloneSSE: true, MaxRetries: -1}
	cl := mcp.NewClient(&mcp.Implementation{Name: "graphwire-test", Version: "1"}, nil)
	s, err := cl.Connect(t.Context(), tr, nil)
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// result is a decoded query_graph result.
type result struct {
	Text    string
	IsError bool
	Meta    struct {
		Format         string `json:"format"`
		QueryType      string `json:"query_type"`
		RowCount       int64  `json:"row_count"`
		TokenCount     int    `json:"token_count"`
		HasMore        bool   `json:"has_more"`
		NextCursor     string `json:"next_cursor"`
		Truncated      bool   `json:"truncated"`
		PackRoot       string `json:"pack_root"`
		GraphOutcome   string `json:"graph_outcome"`
		AlteredValues  int    `json:"altered_values"`
		AutoConsidered []struct {
			Format string `json:"format"`
			Tokens int    `json:"tokens"`
		} `json:"auto_considered"`
		Error struct {
			Code    string `json:"code"`
			Reason  string `json:"reason"`
			Pointer string `json:"pointer"`
			Message string `json:"message"`
			Hint    string `json:"hint"`
		} `json:"error"`
	}
}

// call calls tool with args: a map, or a json.RawMessage sent as it is.
func call(t *testing.T, s *mcp.ClientSession, tool string, args any) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	var r result
	r.IsError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.Text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &r.Meta); err != nil {
			t.Fatalf("%s: structured content %s: %v", tool, b, err)
		}
	}
	return r
}

// query calls query_graph and fails the test on an error result.
func query(t *testing.T, s *mcp.ClientSession, args map[string]any) result {
	t.Helper()
	r := call(t, s, "query_graph", args)
	if r.IsError {
		t.Fatalf("query_graph %v: %s", args, r.Text)
	}
	return r
}
