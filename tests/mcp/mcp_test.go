package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/tokens"
)

const (
	usersQuery = `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":100000}}],"limit":200}`
	mrsQuery   = `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"limit":300}`
)

func TestToolsResourcesPrompt(t *testing.T) {
	s := stdio(t, "--admin")
	tools, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"get_graph_schema", "get_query_dsl", "get_response_format", "query_graph"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// Some clients read only a single JSON type per property: a choice is an anyOf, never a
	// type array (the Inspector's --strict flags a type array as not portable).
	for _, tl := range tools.Tools {
		b, err := json.Marshal(tl.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"type":[`) {
			t.Errorf("tool %s: input schema has a type array: %s", tl.Name, b)
		}
	}
	res, err := s.ListResources(t.Context(), nil)
	if err != nil || len(res.Resources) != 2 {
		t.Fatalf("resources %v %v", res, err)
	}
	for _, r := range res.Resources {
		rr, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: r.URI})
		if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "MergeRequest") {
			t.Errorf("read %s: %v", r.URI, err)
		}
	}
	p, err := s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "explore_graph", Arguments: map[string]string{"question": "who reviews alice's merge requests"}})
	if err != nil || len(p.Messages) != 1 {
		t.Fatalf("prompt: %v", err)
	}
}

// TestSchemaAndDSL: the compact schema names every entity and costs well
// under the full JSON schema; expand adds properties with enums and
// descriptions; the DSL reference carries the ontology's names.
func TestSchemaAndDSL(t *testing.T) {
	s := stdio(t, "--admin")
	compact := call(t, s, "get_graph_schema", nil)
	if compact.IsError || !strings.Contains(compact.Text, "MergeRequest:") || !strings.Contains(compact.Text, "MEMBER_OF:") {
		t.Fatalf("compact schema:\n%s", compact.Text)
	}
	if strings.Contains(compact.Text, "enum=") {
		t.Error("the compact schema lists properties")
	}
	rr, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "graphwire://ontology"})
	if err != nil {
		t.Fatal(err)
	}
	tc := tokens.New()
	nCompact, _ := tc.Count(tokens.O200k, compact.Text)
	nJSON, _ := tc.Count(tokens.O200k, rr.Contents[0].Text)
	t.Logf("schema tokens (o200k): compact %d, full JSON %d (%.1f%%)", nCompact, nJSON, 100*float64(nCompact)/float64(nJSON))
	if nCompact*2 > nJSON {
		t.Errorf("compact schema %d tokens is not well under the JSON's %d", nCompact, nJSON)
	}
	exp := call(t, s, "get_graph_schema", map[string]any{"expand": []string{"MergeRequest"}})
	if exp.IsError || !strings.Contains(exp.Text, "## MergeRequest") || !strings.Contains(exp.Text, "enum=") {
		t.Errorf("expanded schema:\n%s", exp.Text)
	}
	bad := call(t, s, "get_graph_schema", map[string]any{"expand": []string{"MergeRequests"}})
	if !bad.IsError || bad.Meta.Error.Reason != "UNKNOWN_ENTITY" || bad.Meta.Error.Hint != "MergeRequest" {
		t.Errorf("unknown entity in expand: %+v %s", bad.Meta.Error, bad.Text)
	}
	dsl := call(t, s, "get_query_dsl", nil)
	if dsl.IsError || !strings.Contains(dsl.Text, "query_type") || !strings.Contains(dsl.Text, "MergeRequest") || !strings.Contains(dsl.Text, "MEMBER_OF") {
		t.Errorf("dsl text:\n%s", dsl.Text)
	}
	js := call(t, s, "get_query_dsl", map[string]any{"format": "json_schema"})
	if js.IsError || !strings.Contains(js.Text, `"enum":["`) || !strings.Contains(js.Text, `"MergeRequest"`) {
		t.Errorf("dsl json schema has no entity enum")
	}
}

// TestEveryFormatAndAuto runs one query in every format, the query given
// as an object and as a string, and checks auto picks the cheapest
// lossless format it considered.
func TestEveryFormatAndAuto(t *testing.T) {
	s := stdio(t, "--admin")
	for _, f := range []string{"goon", "gcf", "gcf-graph", "gcx", "toon", "json", "markdown", "xml"} {
		r := query(t, s, map[string]any{"query": usersQuery, "format": f})
		if r.Meta.Format != f || r.Text == "" || r.Meta.TokenCount == 0 || r.Meta.RowCount == 0 {
			t.Errorf("%s: %+v", f, r.Meta)
		}
	}
	var obj map[string]any
	if err := jsonUnmarshal(usersQuery, &obj); err != nil {
		t.Fatal(err)
	}
	asObj := query(t, s, map[string]any{"query": obj, "format": "json"})
	asStr := query(t, s, map[string]any{"query": usersQuery, "format": "json"})
	if asObj.Text != asStr.Text {
		t.Error("the query as an object and as a string answer differently")
	}
	auto := query(t, s, map[string]any{"query": usersQuery, "format": "auto"})
	if len(auto.Meta.AutoConsidered) == 0 {
		t.Fatal("auto considered nothing")
	}
	best := auto.Meta.AutoConsidered[0]
	for _, c := range auto.Meta.AutoConsidered {
		if c.Tokens < best.Tokens {
			best = c
		}
	}
	if auto.Meta.Format != best.Format || auto.Meta.TokenCount != best.Tokens {
		t.Errorf("auto chose %s (%d tokens); cheapest considered %+v", auto.Meta.Format, auto.Meta.TokenCount, best)
	}
	if jsonTok := asStr.Meta.TokenCount; auto.Meta.TokenCount > jsonTok {
		t.Errorf("auto %d tokens > json %d", auto.Meta.TokenCount, jsonTok)
	}
	t.Logf("auto chose %s: %+v", auto.Meta.Format, auto.Meta.AutoConsidered)
}

// TestMaxTokensPaging pages through a large answer with a budget, in json
// and goon, and reassembles exactly the unbudgeted answer.
func TestMaxTokensPaging(t *testing.T) {
	s := stdio(t, "--admin")
	full := query(t, s, map[string]any{"query": mrsQuery, "format": "json"})
	want, err := graphresponse.Unmarshal([]byte(full.Text))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Nodes) < 100 {
		t.Fatalf("only %d merge requests in the test graph", len(want.Nodes))
	}
	for _, tc := range []struct {
		format string
		budget int
	}{{"json", 3000}, {"goon", 1500}, {"auto", 1200}} {
		t.Run(tc.format, func(t *testing.T) {
			var got []graphresponse.Node
			cursor := ""
			pages := 0
			for {
				args := map[string]any{"query": mrsQuery, "format": tc.format, "max_tokens": tc.budget}
				if cursor != "" {
					args["cursor"] = cursor
				}
				r := query(t, s, args)
				pages++
				if r.Meta.TokenCount > tc.budget {
					t.Fatalf("page %d: %d tokens > max_tokens %d", pages, r.Meta.TokenCount, tc.budget)
				}
				if n, _ := tokens.New().Count(tokens.O200k, r.Text); n != r.Meta.TokenCount {
					t.Errorf("page %d: token_count %d, text has %d", pages, r.Meta.TokenCount, n)
				}
				page := parse(t, r.Meta.Format, r.Text)
				if int64(len(page.Nodes)) != r.Meta.RowCount {
					t.Errorf("page %d: %d nodes, row_count %d", pages, len(page.Nodes), r.Meta.RowCount)
				}
				got = append(got, page.Nodes...)
				if r.Meta.NextCursor == "" {
					if r.Meta.Truncated {
						t.Fatal("a budget-cut page without a cursor")
					}
					break
				}
				if !r.Meta.HasMore || !r.Meta.Truncated {
					t.Errorf("page %d: cursor without has_more/truncated: %+v", pages, r.Meta)
				}
				cursor = r.Meta.NextCursor
				if pages > 200 {
					t.Fatal("paging does not end")
				}
			}
			if pages < 2 {
				t.Fatalf("the budget did not cut the answer (%d page)", pages)
			}
			if len(got) != len(want.Nodes) {
				t.Fatalf("%d pages hold %d nodes, the full answer %d", pages, len(got), len(want.Nodes))
			}
			for i := range got {
				if got[i].Type != want.Nodes[i].Type || got[i].ID != want.Nodes[i].ID {
					t.Fatalf("node %d: %s/%d, want %s/%d", i, got[i].Type, got[i].ID, want.Nodes[i].Type, want.Nodes[i].ID)
				}
				if tc.format == "json" && string(graphresponse.Marshal(&graphresponse.Response{Nodes: got[i : i+1]})) != string(graphresponse.Marshal(&graphresponse.Response{Nodes: want.Nodes[i : i+1]})) {
					t.Fatalf("node %d differs", i)
				}
			}
			t.Logf("%s: %d pages of at most %d tokens reassemble %d nodes", tc.format, pages, tc.budget, len(got))
		})
	}
	tiny := call(t, s, "query_graph", map[string]any{"query": mrsQuery, "max_tokens": 5})
	if !tiny.IsError || tiny.Meta.Error.Reason != "TOKEN_BUDGET" || tiny.Meta.Error.Pointer != "/max_tokens" {
		t.Errorf("max_tokens 5: %+v %s", tiny.Meta.Error, tiny.Text)
	}
}

// TestGraphSessionAndDeltas: within one session, the same gcf-graph query
// with its pack_root is "unchanged", an overlapping one with the root a
// delta; a second session with the first one's root gets a full answer.
func TestGraphSessionAndDeltas(t *testing.T) {
	s := stdio(t, "--admin")
	q1 := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3,4,5,6]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}`
	q2 := strings.Replace(q1, "[1,2,3,4,5,6]", "[1,2,3,4,5,6,7]", 1)
	first := query(t, s, map[string]any{"query": q1, "format": "gcf-graph"})
	if first.Meta.PackRoot == "" || first.Meta.GraphOutcome != "full" {
		t.Fatalf("first: %+v", first.Meta)
	}
	same := query(t, s, map[string]any{"query": q1, "format": "gcf-graph", "pack_root": first.Meta.PackRoot})
	if same.Meta.GraphOutcome != "unchanged" || same.Meta.TokenCount >= first.Meta.TokenCount {
		t.Errorf("same query with its root: %+v", same.Meta)
	}
	delta := query(t, s, map[string]any{"query": q2, "format": "gcf-graph", "pack_root": first.Meta.PackRoot})
	if delta.Meta.GraphOutcome != "delta" {
		t.Errorf("overlapping query with the root: %+v", delta.Meta)
	}
	// Without a root, nodes the session already holds are references.
	again := query(t, s, map[string]any{"query": q2, "format": "gcf-graph"})
	// chDB opens a data directory in one process at a time: end this
	// session's process before the next starts.
	s.Close()
	fresh := query(t, stdio(t, "--admin"), map[string]any{"query": q2, "format": "gcf-graph"})
	if again.Meta.TokenCount >= fresh.Meta.TokenCount {
		t.Errorf("session answer %d tokens, fresh session %d: no references used", again.Meta.TokenCount, fresh.Meta.TokenCount)
	}
	t.Logf("gcf-graph tokens: first %d, unchanged %d, delta %d, in-session %d, fresh %d",
		first.Meta.TokenCount, same.Meta.TokenCount, delta.Meta.TokenCount, again.Meta.TokenCount, fresh.Meta.TokenCount)
}

// TestToolErrors: bad DSL, a bad cursor, an unknown format and a scope
// violation come back as isError results with reason, pointer and hint.
func TestToolErrors(t *testing.T) {
	s := stdio(t, "--scope", "987654321/")
	tests := []struct {
		name, reason, pointer, hint string
		args                        map[string]any
	}{
		{"unknown entity", "UNKNOWN_ENTITY", "/nodes/0/entity", "User",
			map[string]any{"query": `{"query_type":"traversal","nodes":[{"id":"u","entity":"Usr"}]}`}},
		{"bad json", "PARSE_ERROR", "", "", map[string]any{"query": `{"query_type":`}},
		{"bad cursor", "INVALID_CURSOR", "/cursor", "", map[string]any{"query": usersQuery, "cursor": "gwc2.!!!"}},
		{"unknown format", "UNKNOWN_FORMAT", "/format", "", map[string]any{"query": usersQuery, "format": "yaml"}},
		// gcb1 is bytes: never MCP text.
		{"binary format", "BINARY_FORMAT", "/format", "", map[string]any{"query": usersQuery, "format": "gcb1"}},
		{"unknown argument", "INVALID_ARGUMENTS", "", "", map[string]any{"query": usersQuery, "colour": "red"}},
		// The compiler's limit on the query text holds over MCP too.
		{"query over the limit", "LIMIT_EXCEEDED", "", "",
			map[string]any{"query": `{"query_type":"traversal",` + strings.Repeat(" ", 131072) + `"nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, s, "query_graph", tt.args)
			e := r.Meta.Error
			if !r.IsError || e.Reason != tt.reason || (tt.pointer != "" && e.Pointer != tt.pointer) || e.Hint != tt.hint {
				t.Errorf("got isError=%v %+v (%s); want %s at %s hint %q", r.IsError, e, r.Text, tt.reason, tt.pointer, tt.hint)
			}
			if !strings.Contains(r.Text, tt.reason) {
				t.Errorf("the text %q does not name the reason", r.Text)
			}
		})
	}
}

// TestHTTPAuthAndIsolation: streamable HTTP needs a bearer JWT (401 with
// WWW-Authenticate without one); two sessions with different scopes see
// different answers and never share gcf-graph state.
func TestHTTPAuthAndIsolation(t *testing.T) {
	url := server(t)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, tok := range []string{"", "Bearer not-a-jwt", "Basic YTpi"} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("authorization %q: %d, WWW-Authenticate %q", tok, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
	}
	admin := overHTTP(t, url, auth.Claims{UserID: 1, Admin: true})
	nobody := overHTTP(t, url, auth.Claims{UserID: 2, Scopes: []auth.Scope{{Path: "987654321/", Level: 50}}})
	a := query(t, admin, map[string]any{"query": mrsQuery, "format": "gcf-graph"})
	n := query(t, nobody, map[string]any{"query": mrsQuery, "format": "gcf-graph"})
	if a.Meta.RowCount == 0 || n.Meta.RowCount != 0 {
		t.Errorf("admin sees %d rows, out-of-scope caller %d", a.Meta.RowCount, n.Meta.RowCount)
	}
	// The admin's root means nothing in the other session.
	n2 := query(t, nobody, map[string]any{"query": mrsQuery, "format": "gcf-graph", "pack_root": a.Meta.PackRoot})
	if n2.Meta.GraphOutcome == "unchanged" || n2.Meta.RowCount != 0 {
		t.Errorf("out-of-scope caller with the admin's root: %+v", n2.Meta)
	}
	// Every tool works over HTTP.
	if r := call(t, admin, "get_graph_schema", nil); r.IsError {
		t.Error(r.Text)
	}
	if r := call(t, admin, "get_query_dsl", nil); r.IsError {
		t.Error(r.Text)
	}
	same := query(t, admin, map[string]any{"query": mrsQuery, "format": "gcf-graph", "pack_root": a.Meta.PackRoot})
	if same.Meta.GraphOutcome != "unchanged" {
		t.Errorf("admin re-query with its root: %+v", same.Meta)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := admin.CallTool(ctx, &mcp.CallToolParams{Name: "query_graph", Arguments: map[string]any{"query": usersQuery}}); err == nil {
		t.Error("a canceled call succeeded")
	}
}
