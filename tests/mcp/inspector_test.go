package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/graphwire/graphwire/executor/chdb"
)

// inspectorVersion is the MCP Inspector release scripts/install-test-tools.sh installs.
const inspectorVersion = "2.12.0"

// inspector finds the MCP Inspector's CLI: $GRAPHWIRE_INSPECTOR, or the
// copy .ci/run installs under inspector/ in graphwire's cache
// (chdb.DefaultCacheDir: $GRAPHWIRE_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/graphwire).
func inspector(t *testing.T) string {
	t.Helper()
	p := os.Getenv("GRAPHWIRE_INSPECTOR")
	dir := filepath.Join(chdb.DefaultCacheDir(), "inspector")
	if p == "" {
		p = filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	}
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and the MCP Inspector is not installed at %s (.ci/run installs it)", p)
		}
		t.Skipf("MCP Inspector not installed at %s: npm install --prefix %s @modelcontextprotocol/inspector@%s", p, dir, inspectorVersion)
	}
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and node is missing: %v", err)
		}
		t.Skipf("node is missing: %v", err)
	}
	return p
}

// inspect runs one Inspector CLI call against "graphwire mcp --admin" and
// decodes its JSON output.
func inspect(t *testing.T, bin string, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	// The Inspector starts the server with a few variables of its own (HOME, PATH, ...), not
	// ours; TestMain's HOME has no cache, so the library path is passed on.
	full := slices.Concat([]string{"--cli", "-e", "GRAPHWIRE_CHDB_LIB=" + chdb.DefaultLibrary(), env.bin, "mcp"}, env.graph, []string{"--admin"}, args)
	cmd := exec.CommandContext(ctx, bin, full...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector output is not JSON: %v\n%s", err, out)
	}
	return v
}

// TestInspectorCLI drives graphwire mcp with a client nobody here wrote:
// the official MCP Inspector in CLI mode.
func TestInspectorCLI(t *testing.T) {
	ready(t)
	bin := inspector(t)
	list := inspect(t, bin, "--method", "tools/list")
	tools, _ := list["tools"].([]any)
	names := map[string]bool{}
	for _, tl := range tools {
		if m, ok := tl.(map[string]any); ok {
			names[m["name"].(string)] = true
		}
	}
	for _, want := range []string{"query_graph", "get_graph_schema", "get_query_dsl"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	res := inspect(t, bin, "--method", "tools/call", "--tool-name", "query_graph",
		"--tool-arg", `query={"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}`,
		"--tool-arg", "format=auto", "--tool-arg", "max_tokens=500")
	sc, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || sc == nil || sc["format"] == "auto" || sc["format"] == nil || sc["row_count"].(float64) < 1 {
		t.Errorf("query_graph via the Inspector: %v", res)
	}
	// The Inspector exits non-zero on an isError result and says so.
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--cli", "-e", "GRAPHWIRE_CHDB_LIB="+chdb.DefaultLibrary(), env.bin, "mcp", env.graph[0], env.graph[1], "--admin",
		"--method", "tools/call", "--tool-name", "query_graph",
		"--tool-arg", `query={"query_type":"traversal","nodes":[{"id":"u","entity":"Usr"}]}`).Output()
	if err == nil || !strings.Contains(string(out), `"reason": "UNKNOWN_ENTITY"`) {
		t.Errorf("a bad query via the Inspector: %v\n%s", err, out)
	}
	schema := inspect(t, bin, "--method", "tools/call", "--tool-name", "get_graph_schema")
	if schema["isError"] == true {
		t.Errorf("get_graph_schema: %v", schema)
	}
}
