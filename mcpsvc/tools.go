package mcpsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/telemetry"
)

// Tool input schemas (JSON Schema 2020-12). Names and shapes follow
// Orbit's tools where Orbit has them.
const (
	queryGraphInput = `{"type":"object","additionalProperties":false,"required":["query"],"properties":{
"query":{"anyOf":[{"type":"object"},{"type":"string"}],"description":"The graph query in the DSL (see get_query_dsl), as a JSON object or a JSON string."},
"format":{"type":"string","enum":["goon","gcf","gcf-graph","gcx","toon","json","markdown","xml","auto"],"default":"goon","description":"Answer format; auto picks the lossless format with the fewest tokens."},
"cursor":{"type":"string","description":"next_cursor of an earlier answer to the same query: continue after its last row."},
"pack_root":{"type":"string","description":"gcf-graph: the pack_root you hold, for an unchanged or delta answer."},
"max_tokens":{"type":"integer","minimum":1,"description":"The answer's text never exceeds this many o200k tokens; when it would, it stops after the last whole row that fits, with has_more and next_cursor."}}}`
	queryGraphOutput = `{"type":"object","properties":{
"format":{"type":"string"},"format_version":{"type":"string"},"query_type":{"type":"string"},
"row_count":{"type":"integer"},"token_count":{"type":"integer"},
"has_more":{"type":"boolean"},"next_cursor":{"type":"string"},"truncated":{"type":"boolean"},
"pack_root":{"type":"string"},"graph_outcome":{"type":"string"},"altered_values":{"type":"integer"},
"auto_considered":{"type":"array"},"redacted":{"type":"boolean"},"withheld_rows":{"type":"integer"},"error":{"type":"object"}}}`
	schemaInput = `{"type":"object","additionalProperties":false,"properties":{
"expand":{"type":"array","items":{"type":"string"},"maxItems":32,"description":"Entities whose properties (types, filterability, enum values, descriptions) to add."},
"expand_nodes":{"type":"array","items":{"type":"string"},"maxItems":32,"description":"Alias of expand."}}}`
	dslInput = `{"type":"object","additionalProperties":false,"properties":{
"format":{"type":"string","enum":["text","json_schema"],"default":"text","description":"text: the compact reference; json_schema: the DSL's JSON Schema. Both list the ontology's entity and relationship names."}}}`
	responseFormatInput = `{"type":"object","additionalProperties":false,"properties":{
"format":{"type":"string","enum":["text","json_schema"],"default":"text","description":"text: the version and the JSON Schema as text; json_schema: {schema, version} as JSON."}}}`
)

// register adds the tools of the surface Options.Tools names (with the
// prompt, for graphwire's own) and the resources.
func (s *Server) register() {
	if s.opts.Tools == ToolsOrbit {
		s.registerOrbit()
	} else {
		s.registerTools()
	}
	s.registerResources()
}

// registerTools adds graphwire's own tools.
func (s *Server) registerTools() {
	s.mcp.AddTool(&mcp.Tool{Name: "query_graph", Title: "Query the graph",
		Description: "Run a graph query (traversal, aggregation, path_finding, neighbors) written in the graphwire DSL and return the answer as compact text. " +
			"Read get_graph_schema and get_query_dsl first. Metadata (format, rows, tokens, has_more, next_cursor, pack_root) is in the structured content.",
		InputSchema: json.RawMessage(queryGraphInput), OutputSchema: json.RawMessage(queryGraphOutput),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("query_graph", s.queryGraph))
	s.mcp.AddTool(&mcp.Tool{Name: "get_graph_schema", Title: "Graph schema",
		Description: "The graph's entities (one-line descriptions) and relationship types with their endpoints. Pass expand=[Entity,...] to add those entities' properties.",
		InputSchema: json.RawMessage(schemaInput), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("get_graph_schema", s.graphSchema))
	s.mcp.AddTool(&mcp.Tool{Name: "get_query_dsl", Title: "Query DSL reference",
		Description: "How to write query_graph queries: the DSL reference with this graph's entity and relationship names (format=json_schema for the JSON Schema).",
		InputSchema: json.RawMessage(dslInput), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("get_query_dsl", s.queryDSL))
	s.mcp.AddTool(&mcp.Tool{Name: "get_response_format", Title: "Raw answer format",
		Description: "The JSON Schema of query_graph's json answers (format=json) and its version, for code that reads them.",
		InputSchema: json.RawMessage(responseFormatInput), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("get_response_format", s.responseFormat))
	// The prompt teaches these tools by name, so the Orbit surface goes without it.
	s.mcp.AddPrompt(&mcp.Prompt{Name: "explore_graph", Title: "Explore the graph",
		Description: "Teaches the schema → search → traversal workflow for a question about the graph.",
		Arguments:   []*mcp.PromptArgument{{Name: "question", Description: "What you want to find out.", Required: false}}}, explorePrompt)
	if s.opts.Indexer != nil {
		s.registerIndex()
	}
}

// registerResources adds the resources, on either surface.
func (s *Server) registerResources() {
	s.mcp.AddResource(&mcp.Resource{URI: "graphwire://ontology", Name: "ontology", Title: "Graph schema (full JSON)", MIMEType: "application/json",
		Description: "Every entity with its properties and every relationship with its endpoint pairs."},
		s.resource("graphwire://ontology", "application/json", func() string { return s.pipe.SchemaJSON() }))
	s.mcp.AddResource(&mcp.Resource{URI: "graphwire://dsl-schema", Name: "dsl-schema", Title: "Query DSL JSON Schema", MIMEType: "application/schema+json",
		Description: "The query DSL's JSON Schema with the ontology's entity and relationship enums."},
		s.resource("graphwire://dsl-schema", "application/schema+json", func() string { return s.pipe.DSLSchema() }))
}

type toolFunc func(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, args json.RawMessage) (*mcp.CallToolResult, error)

// wrap authenticates, bounds the time of, recovers, counts and logs one
// tool call, and puts its request id in the result's _meta.request_id; the
// error a tool returns becomes an isError result (errorResult).
func (s *Server) wrap(name string, f toolFunc) mcp.ToolHandler {
	return s.wrapTimeout(name, s.opts.DefaultTimeout, f)
}

// wrapTimeout is wrap with a time bound of its own.
func (s *Server) wrapTimeout(name string, timeout time.Duration, f toolFunc) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		start := time.Now()
		incoming := ""
		if req.Extra != nil && req.Extra.Header != nil {
			incoming = req.Extra.Header.Get(RequestIDHeader)
		}
		call := &telemetry.Call{ID: telemetry.RequestID(incoming)}
		ctx = telemetry.WithCall(ctx, call)
		claims, ok := s.caller(req)
		defer func() {
			if r := recover(); r != nil {
				s.log.ErrorContext(ctx, "panic", "tool", name, "panic", r, "stack", string(debug.Stack()))
				res, err = errorResult(errors.New("internal")), nil
			}
			attrs := []any{"tool", name, "elapsed_ms", time.Since(start).Milliseconds()}
			if claims != nil {
				attrs = append(attrs, "user_id", claims.UserID)
			}
			code := "OK"
			if res != nil && res.IsError {
				code = errorCode(res)
			}
			attrs = append(attrs, "code", code)
			if call.QueryType != "" {
				attrs = append(attrs, "query_type", call.QueryType)
			}
			if res != nil {
				if res.Meta == nil {
					res.Meta = mcp.Meta{}
				}
				res.Meta["request_id"] = call.ID
			}
			s.opts.Metrics.Request("mcp", name, code, call.QueryType, time.Since(start))
			s.log.InfoContext(ctx, "mcp_tool", attrs...)
		}()
		if !ok {
			return errorResult(pipeline.ErrUnauthenticated), nil
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		res, err = f(ctx, req, claims, req.Params.Arguments)
		if err != nil {
			return errorResult(err), nil
		}
		return res, nil
	}
}

// decodeArgs decodes tool arguments strictly: an unknown member is an
// error naming it.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return &argError{msg: "arguments: " + err.Error()}
	}
	return nil
}

type queryArgs struct {
	Query     json.RawMessage `json:"query"`
	Format    string          `json:"format"`
	Cursor    string          `json:"cursor"`
	PackRoot  string          `json:"pack_root"`
	MaxTokens int             `json:"max_tokens"`
}

// queryMeta is the structured content of a query_graph answer.
type queryMeta struct {
	Format        string `json:"format"`
	FormatVersion string `json:"format_version"`
	QueryType     string `json:"query_type"`
	RowCount      int64  `json:"row_count"`
	TokenCount    int    `json:"token_count"`
	HasMore       bool   `json:"has_more"`
	NextCursor    string `json:"next_cursor,omitempty"`
	Truncated     bool   `json:"truncated,omitempty"`
	PackRoot      string `json:"pack_root,omitempty"`
	GraphOutcome  string `json:"graph_outcome,omitempty"`
	AlteredValues int    `json:"altered_values,omitempty"`
	// Redacted and WithheldRows: see docs/redaction.md.
	Redacted       bool                 `json:"redacted,omitempty"`
	WithheldRows   int                  `json:"withheld_rows,omitempty"`
	AutoConsidered []pipeline.Candidate `json:"auto_considered,omitempty"`
}

func (s *Server) queryGraph(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a queryArgs
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	q := bytes.TrimSpace(a.Query)
	if len(q) == 0 {
		return nil, &argError{msg: "query is required: a DSL object, or the object as a JSON string", pointer: "/query"}
	}
	if q[0] == '"' {
		// The query as a JSON string: its content is the DSL document.
		text, err := unquoteQuery(q)
		if err != nil {
			return nil, err
		}
		q = []byte(text)
	}
	if f, err := s.pipe.Registry().Lookup(a.Format); err == nil && formatter.IsBinary(f) {
		// MCP content is text; a binary payload would reach the model as mojibake.
		return nil, &pipeline.RequestError{Field: "format", Reason: "BINARY_FORMAT", Message: f.Name() +
			" is a binary format and MCP answers are text: use json for the exact answer, or goon, gcf, gcx, toon, xml or auto (" +
			f.Name() + " is served by gRPC ExecuteQuery as formatted_bytes, graphwire query, format and export)"}
	}
	ans, err := s.pipe.Run(ctx, pipeline.Request{Query: q, Claims: claims, Format: a.Format, Cursor: a.Cursor,
		PackRoot: a.PackRoot, MaxTokens: a.MaxTokens, Session: sessionKey(req)})
	if err != nil {
		return nil, err
	}
	meta := queryMeta{Format: ans.Format, FormatVersion: ans.Version, QueryType: ans.QueryType, RowCount: ans.Rows,
		TokenCount: ans.Tokens, HasMore: ans.HasMore, NextCursor: ans.NextCursor, Truncated: ans.Truncated,
		PackRoot: ans.PackRoot, GraphOutcome: ans.Outcome, AlteredValues: ans.Altered, AutoConsidered: ans.Considered,
		Redacted: ans.Redacted, WithheldRows: ans.Withheld}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(ans.Text)}}, StructuredContent: meta}, nil
}

func (s *Server) graphSchema(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Expand      []string `json:"expand"`
		ExpandNodes []string `json:"expand_nodes"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	text, err := s.pipe.Schema(append(a.Expand, a.ExpandNodes...))
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
}

func (s *Server) queryDSL(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Format string `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	switch a.Format {
	case "", "text":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.pipe.DSL(false)}}}, nil
	case "json_schema":
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.pipe.DSL(true)}}}, nil
	}
	return nil, &argError{msg: fmt.Sprintf("unknown format %q (want text or json_schema)", a.Format), pointer: "/format"}
}

func (s *Server) responseFormat(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Format string `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	schema, version := s.opts.ResponseSchema, s.opts.ResponseVersion
	if len(schema) == 0 {
		return nil, errors.New("mcpsvc: no response schema configured")
	}
	switch a.Format {
	case "", "text":
		text := "ResponseFormat v" + version + " (JSON Schema):\n" + string(schema)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	case "json_schema":
		b, err := json.Marshal(struct {
			Schema  json.RawMessage `json:"schema"`
			Version string          `json:"version"`
		}{compactJSON(string(schema)), version})
		if err != nil {
			return nil, fmt.Errorf("mcpsvc: the response schema is not JSON: %w", err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	}
	return nil, &argError{msg: fmt.Sprintf("unknown format %q (want text or json_schema)", a.Format), pointer: "/format"}
}

func (s *Server) resource(uri, mime string, text func() string) mcp.ResourceHandler {
	return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text()}}}, nil
	}
}

func explorePrompt(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	q := strings.TrimSpace(req.Params.Arguments["question"])
	if q == "" {
		q = "what is in this graph and how it connects"
	}
	text := "Answer using the graphwire tools: " + q + "\n" +
		"1. Call get_graph_schema to see the entities and relationship types; call it again with expand=[Entity] for the properties of the entities you need.\n" +
		"2. Call get_query_dsl once to learn the query shape.\n" +
		"3. Search: a traversal with one node and filters (e.g. {\"query_type\":\"traversal\",\"nodes\":[{\"id\":\"u\",\"entity\":\"User\",\"filters\":{\"username\":\"alice\"}}]}) to find the ids you need.\n" +
		"4. Traverse from those ids (node_ids) along relationships, or use neighbors / path_finding / aggregation.\n" +
		"Use format auto, set max_tokens to what you can afford and follow next_cursor only if you need more. On an error, read its pointer and hint and fix that part of the query."
	return &mcp.GetPromptResult{Description: "Explore the graph", Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
}
