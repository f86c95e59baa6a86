package mcp_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/executor/chdb"
)

// TestOrbitSurface drives "graphwire mcp --tools orbit" with the SDK client as an agent
// configured for GitLab Orbit does (ADR 011): list_commands once, then invoke_command with
// get_query_dsl, get_graph_schema, get_response_format and query_graph, in Orbit's argument
// shapes; mistakes come back as errors that name the valid parameters or commands.
func TestOrbitSurface(t *testing.T) {
	s := stdio(t, "--admin", "--tools", "orbit")
	tools, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		b, _ := json.Marshal(tl.InputSchema)
		if strings.Contains(string(b), `"type":[`) {
			t.Errorf("tool %s: input schema has a type array: %s", tl.Name, b)
		}
	}
	slices.Sort(names)
	if want := []string{"invoke_command", "list_commands"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (one surface, never both)", names, want)
	}
	if ps, err := s.ListPrompts(t.Context(), nil); err == nil && len(ps.Prompts) != 0 {
		t.Errorf("the Orbit surface lists prompts %v that teach graphwire's tools", ps.Prompts)
	}

	var catalog struct {
		Commands []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"commands"`
	}
	lc := call(t, s, "list_commands", map[string]any{"format": "raw"})
	if lc.IsError || json.Unmarshal([]byte(lc.Text), &catalog) != nil {
		t.Fatalf("list_commands raw: %s", lc.Text)
	}
	var cmds []string
	for _, c := range catalog.Commands {
		cmds = append(cmds, c.Name)
		var schema map[string]any
		if len(c.Description) == 0 || len(c.Description) >= 400 || json.Unmarshal(c.InputSchema, &schema) != nil || schema["type"] != "object" {
			t.Errorf("command %s: description of %d bytes, input schema %s", c.Name, len(c.Description), c.InputSchema)
		}
	}
	if want := []string{"query_graph", "get_graph_schema", "get_query_dsl", "get_response_format"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %v, want %v", cmds, want)
	}
	if r := call(t, s, "list_commands", map[string]any{"command_names": []string{"get_query_dsl"}}); r.IsError || !strings.Contains(r.Text, "name: get_query_dsl") || strings.Contains(r.Text, "name: query_graph") {
		t.Errorf("list_commands for one command: %s", r.Text)
	}
	if r := call(t, s, "list_commands", map[string]any{"command_names": []string{"run_sql"}}); !r.IsError || !strings.Contains(r.Text, "get_response_format") {
		t.Errorf("list_commands for an unknown command: %s", r.Text)
	}

	// get_query_dsl: text with the version, or the JSON Schema with a version member.
	if r := orbitInvoke(t, s, "get_query_dsl", nil); !strings.HasPrefix(r.Text, "QueryDSL v"+config.QueryDSLVersion()+":\n") {
		t.Errorf("get_query_dsl llm: %.80q", r.Text)
	}
	var dsl map[string]any
	if r := orbitInvoke(t, s, "get_query_dsl", map[string]any{"format": "raw"}); json.Unmarshal([]byte(r.Text), &dsl) != nil ||
		dsl["version"] != config.QueryDSLVersion() || dsl["properties"] == nil {
		t.Errorf("get_query_dsl raw: %.200s", r.Text)
	}

	// get_response_format: the committed response schema and RAW_OUTPUT_FORMAT_VERSION.
	var rf struct {
		Schema  map[string]any `json:"schema"`
		Version string         `json:"version"`
	}
	var want map[string]any
	if err := json.Unmarshal(config.QueryResponseSchema(), &want); err != nil {
		t.Fatal(err)
	}
	r := orbitInvoke(t, s, "get_response_format", map[string]any{"format": "raw"})
	if err := json.Unmarshal([]byte(r.Text), &rf); err != nil || rf.Version != config.RawVersion() || !jsonEqual(rf.Schema, want) {
		t.Errorf("get_response_format raw: version %q (want %q), schema equal %v: %v", rf.Version, config.RawVersion(), jsonEqual(rf.Schema, want), err)
	}
	if r := orbitInvoke(t, s, "get_response_format", nil); !strings.HasPrefix(r.Text, "ResponseFormat v"+config.RawVersion()+" (JSON Schema):\n") {
		t.Errorf("get_response_format llm: %.80q", r.Text)
	}

	// get_graph_schema: expand_nodes and its alias entity_types add properties.
	for _, key := range []string{"expand_nodes", "entity_types"} {
		if r := orbitInvoke(t, s, "get_graph_schema", map[string]any{key: []string{"User"}}); !strings.Contains(r.Text, "username") {
			t.Errorf("get_graph_schema %s=[User] lacks username: %.200s", key, r.Text)
		}
	}
	if r := orbitInvoke(t, s, "get_graph_schema", map[string]any{"format": "raw"}); !json.Valid([]byte(r.Text)) || !strings.Contains(r.Text, "MergeRequest") {
		t.Errorf("get_graph_schema raw: %.200s", r.Text)
	}

	// query_graph: llm is GOON, raw the GraphResponse JSON; the query as an object or a string.
	q := map[string]any{"query_type": "traversal", "nodes": []any{map[string]any{"id": "u", "entity": "User", "filters": map[string]any{"username": "alice"}}}}
	llm := orbitInvoke(t, s, "query_graph", map[string]any{"query": q})
	if llm.Meta.Format != "goon" || llm.Meta.RowCount < 1 {
		t.Errorf("query_graph llm: format %q, %d rows", llm.Meta.Format, llm.Meta.RowCount)
	}
	qs, _ := json.Marshal(q)
	raw := orbitInvoke(t, s, "query_graph", map[string]any{"query": string(qs), "format": "raw", "language": "json_dsl"})
	if got := parse(t, "json", raw.Text); len(got.Nodes) < 1 || got.Nodes[0].Type != "User" {
		t.Errorf("query_graph raw: %s", raw.Text)
	}

	// Mistakes: an unknown parameter names the valid ones; an unknown command lists them.
	tests := []struct {
		name   string
		args   map[string]any
		reason string
		says   string
	}{
		{"unknown parameter", map[string]any{"command_name": "get_graph_schema", "parameters": map[string]any{"node_types": []string{"User"}}},
			"INVALID_ARGUMENTS", "Valid parameters: entity_types, expand_nodes, format"},
		{"unknown command", map[string]any{"command_name": "run_sql"}, "INVALID_ARGUMENTS", "get_response_format"},
		{"no command", map[string]any{"parameters": map[string]any{}}, "INVALID_ARGUMENTS", "command_name is required"},
		{"gql", map[string]any{"command_name": "query_graph", "parameters": map[string]any{"query": "MATCH (u:User) RETURN u", "language": "gql"}},
			"INVALID_ARGUMENTS", "json_dsl"},
		{"bad format", map[string]any{"command_name": "get_query_dsl", "parameters": map[string]any{"format": "yaml"}}, "INVALID_ARGUMENTS", "llm or raw"},
		{"bad query", map[string]any{"command_name": "query_graph", "parameters": map[string]any{"query": map[string]any{"query_type": "traversal", "nodes": []any{map[string]any{"id": "u", "entity": "Usr"}}}}},
			"UNKNOWN_ENTITY", "Usr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, s, "invoke_command", tt.args)
			if !r.IsError || r.Meta.Error.Reason != tt.reason || !strings.Contains(r.Text, tt.says) {
				t.Errorf("invoke_command %v: isError %v, reason %q, text %q; want %s saying %q", tt.args, r.IsError, r.Meta.Error.Reason, r.Text, tt.reason, tt.says)
			}
		})
	}
}

// TestResponseFormatTool: graphwire's own surface has get_response_format too.
func TestResponseFormatTool(t *testing.T) {
	s := stdio(t, "--admin")
	r := call(t, s, "get_response_format", map[string]any{"format": "json_schema"})
	var rf struct {
		Schema  map[string]any `json:"schema"`
		Version string         `json:"version"`
	}
	var want map[string]any
	if err := json.Unmarshal(config.QueryResponseSchema(), &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(r.Text), &rf); r.IsError || err != nil || rf.Version != config.RawVersion() || !jsonEqual(rf.Schema, want) {
		t.Errorf("get_response_format json_schema: %.200s (%v)", r.Text, err)
	}
	if r := call(t, s, "get_response_format", nil); r.IsError || !strings.Contains(r.Text, config.RawVersion()) || !strings.Contains(r.Text, `"$schema"`) {
		t.Errorf("get_response_format text: %.200s", r.Text)
	}
}

// TestInspectorOrbit drives "graphwire mcp --tools orbit" (chosen through
// $GRAPHWIRE_MCP_TOOLS) with the official MCP Inspector's CLI.
func TestInspectorOrbit(t *testing.T) {
	ready(t)
	bin := inspector(t)
	run := func(args ...string) (map[string]any, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		defer cancel()
		full := slices.Concat([]string{"--cli", "-e", "GRAPHWIRE_CHDB_LIB=" + chdb.DefaultLibrary(), "-e", "GRAPHWIRE_MCP_TOOLS=orbit",
			env.bin, "mcp"}, env.graph, []string{"--admin"}, args)
		out, err := exec.CommandContext(ctx, bin, full...).Output()
		var v map[string]any
		if jerr := json.Unmarshal(out, &v); jerr != nil {
			t.Fatalf("inspector %v: %v, output not JSON (%v):\n%s", args, err, jerr, out)
		}
		return v, err
	}
	list, err := run("--method", "tools/list")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list["tools"].([]any) {
		names = append(names, tl.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"invoke_command", "list_commands"}) {
		t.Errorf("tools/list via the Inspector: %v", names)
	}
	res, err := run("--method", "tools/call", "--tool-name", "invoke_command", "--tool-arg", "command_name=query_graph",
		"--tool-arg", `parameters={"query":{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]},"format":"raw"}`)
	sc, _ := res["structuredContent"].(map[string]any)
	if err != nil || res["isError"] == true || sc == nil || sc["format"] != "json" || sc["row_count"].(float64) < 1 {
		t.Errorf("invoke_command query_graph via the Inspector: %v %v", err, res)
	}
	res, err = run("--method", "tools/call", "--tool-name", "invoke_command", "--tool-arg", "command_name=get_response_format")
	content, _ := res["content"].([]any)
	if err != nil || len(content) != 1 || !strings.HasPrefix(content[0].(map[string]any)["text"].(string), "ResponseFormat v") {
		t.Errorf("invoke_command get_response_format via the Inspector: %v %v", err, res)
	}
}

// orbitInvoke runs an Orbit command and fails the test on an error result.
func orbitInvoke(t *testing.T, s *mcp.ClientSession, name string, params map[string]any) result {
	t.Helper()
	args := map[string]any{"command_name": name}
	if params != nil {
		args["parameters"] = params
	}
	r := call(t, s, "invoke_command", args)
	if r.IsError {
		t.Fatalf("invoke_command %s %v: %s", name, params, r.Text)
	}
	return r
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
