package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/tests/serverdb"
)

// TestQueryTextNotUTF8: a query holding invalid UTF-8 or a lone surrogate escape is refused
// over stdio and HTTP, at the offending string, instead of running with U+FFFD in its place.
// The arguments are sent as raw JSON: the SDK's client would repair a Go string itself.
func TestQueryTextNotUTF8(t *testing.T) {
	dsl := func(username string) string {
		return `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"` + username + `"}}]}`
	}
	quoted := func(s string) string {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	tests := []struct {
		name, args, reason, pointer string
	}{
		{"object, invalid byte", `{"query":` + dsl("al\xffice") + `}`, "PARSE_ERROR", "/nodes/0/filters/username"},
		{"object, lone surrogate", `{"query":` + dsl(`al\ud800ice`) + `}`, "PARSE_ERROR", "/nodes/0/filters/username"},
		{"string, invalid byte", `{"query":` + quoted(dsl("al\xffice")) + `}`, "INVALID_ARGUMENTS", "/query"},
		{"string, lone surrogate", `{"query":"{\"query_type\":\"traversal\",\"nodes\":[{\"id\":\"u\",\"entity\":\"User\",\"filters\":{\"username\":\"al\udc00ice\"}}]}"}`, "INVALID_ARGUMENTS", "/query"},
		{"string, lone surrogate in the DSL", `{"query":` + quoted(dsl(`al\ud800ice`)) + `}`, "PARSE_ERROR", "/nodes/0/filters/username"},
	}
	// One face at a time: one process at a time may open the graph.
	faces := []struct {
		name    string
		connect func(t *testing.T) *mcp.ClientSession
	}{
		{"stdio", func(t *testing.T) *mcp.ClientSession { return stdio(t, "--admin") }},
		{"http", func(t *testing.T) *mcp.ClientSession {
			return overHTTP(t, server(t), auth.Claims{UserID: 1, Admin: true})
		}},
	}
	for _, face := range faces {
		t.Run(face.name, func(t *testing.T) {
			s := face.connect(t)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					r := call(t, s, "query_graph", json.RawMessage(tt.args))
					if e := r.Meta.Error; !r.IsError || e.Reason != tt.reason || e.Pointer != tt.pointer {
						t.Errorf("got isError=%v %+v (%s); want %s at %s", r.IsError, e, r.Text, tt.reason, tt.pointer)
					}
				})
			}
		})
	}
}

// storeHelperEnv names the graph a child process of [storeInvalidUTF8] writes to.
const storeHelperEnv = "GRAPHWIRE_MCP_TEST_STORE_INVALID_UTF8"

// Merge request 900001: a copy of 1 with text that is not UTF-8 (two strings).
const (
	badMRQuery    = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[900001],"columns":["title","description"]}]}`
	repairedTitle = "ok \uFFFD end"
	repairedDesc  = "caf\uFFFD"
)

// invalidUTF8Insert stores merge request 900001. The filter sits in a sub-query: at the outer
// level id resolves to the REPLACE alias.
const invalidUTF8Insert = "INSERT INTO gl_merge_request SELECT * REPLACE (900001 AS id, unhex('6f6b20fffe20656e64') AS title," +
	" unhex('636166c3') AS description) FROM (SELECT * FROM gl_merge_request FINAL WHERE id = 1 AND _deleted = false)"

// storeHelper writes merge request 900001 into the graph in dir, as a load before the loader
// refused such text (or another writer) would have left it. It runs in a child process, so
// that the test process never holds an engine.
func storeHelper(dir string) int {
	e, err := chdb.Open(chdb.Options{Library: chdb.DefaultLibrary(), Path: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Close()
	if err := e.Exec(context.Background(), invalidUTF8Insert); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// storeInvalidUTF8 returns the flags selecting a copy of the seeded graph holding merge
// request 900001.
func storeInvalidUTF8(t *testing.T) []string {
	t.Helper()
	ready(t)
	if env.graph[0] == "--clickhouse" {
		// On the server the test process itself writes, into a copy of the database.
		dsn, drop, err := serverdb.CopyGraph(t.Context(), env.graph[1], "gw_mcptest_utf8")
		t.Cleanup(drop)
		if err != nil {
			t.Fatalf("copy the graph: %v", err)
		}
		e, err := clickhouse.Open(clickhouse.Options{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.Exec(t.Context(), invalidUTF8Insert); err != nil {
			t.Fatalf("store invalid UTF-8: %v", err)
		}
		return []string{"--clickhouse", dsn}
	}
	dir := filepath.Join(t.TempDir(), "data")
	if out, err := exec.Command("cp", "-a", env.graph[1], dir).CombinedOutput(); err != nil {
		t.Fatalf("copy the graph: %v\n%s", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), storeHelperEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("store invalid UTF-8: %v\n%s", err, out)
	}
	return []string{"--embedded", dir}
}

// TestStoredInvalidUTF8: text that is not UTF-8 already in the graph is answered in every
// format over MCP, repaired the same way (each run of bad bytes as U+FFFD) and counted in
// altered_values, as over gRPC (tests/e2e TestStoredInvalidUTF8EveryFormat).
func TestStoredInvalidUTF8(t *testing.T) {
	s := stdioAt(t, storeInvalidUTF8(t), "--admin")
	for _, f := range []string{"goon", "gcf", "gcf-graph", "gcx", "toon", "json", "auto"} {
		t.Run(f, func(t *testing.T) {
			r := call(t, s, "query_graph", map[string]any{"query": badMRQuery, "format": f})
			if r.IsError {
				t.Fatalf("error: %s", r.Text)
			}
			if !utf8.ValidString(r.Text) || !strings.Contains(r.Text, "MergeRequest") || f != "gcf-graph" && !strings.Contains(r.Text, "\uFFFD end") {
				t.Errorf("text is not the repaired answer:\n%q", r.Text)
			}
			if r.Meta.AlteredValues != 2 {
				t.Errorf("altered_values %d, want 2", r.Meta.AlteredValues)
			}
			if f == "json" || f == "goon" || f == "gcf" || f == "gcx" || f == "toon" {
				back := parse(t, f, r.Text)
				if len(back.Nodes) != 1 {
					t.Fatalf("%d nodes, want merge request 900001", len(back.Nodes))
				}
				title, _ := back.Nodes[0].Prop("title")
				desc, _ := back.Nodes[0].Prop("description")
				if title.Str() != repairedTitle || desc.Str() != repairedDesc {
					t.Errorf("title %q, description %q; want %q, %q", title.Str(), desc.Str(), repairedTitle, repairedDesc)
				}
			}
		})
	}
}
