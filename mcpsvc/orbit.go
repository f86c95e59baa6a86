package mcpsvc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/formatter"
)

// Tool surfaces ([Options.Tools]).
const (
	// ToolsGraphwire is graphwire's own tools: query_graph, get_graph_schema,
	// get_query_dsl and get_response_format, each a tool.
	ToolsGraphwire = "graphwire"
	// ToolsOrbit is GitLab Orbit's agent command surface (its ADR 011): two
	// tools, list_commands and invoke_command, whose commands are
	// query_graph, get_graph_schema, get_query_dsl and get_response_format
	// with Orbit's argument shapes, so that an agent configured for Orbit
	// works unchanged. A session sees one surface, never both, as in Orbit.
	ToolsOrbit = "orbit"
)

// orbitFormat is Orbit's output-format parameter: llm (compact text, the
// default) or raw (JSON).
const orbitFormat = `{"type":"string","enum":["llm","raw"],"description":"llm (default): compact text for a model; raw: JSON."}`

// orbitCommand is one command of the Orbit surface.
type orbitCommand struct {
	name, description string
	input             string // JSON Schema of the command's parameters
	run               func(s *Server, ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, params json.RawMessage) (*mcp.CallToolResult, error)
}

// orbitCommands is the catalog, in Orbit's order.
var orbitCommands = []orbitCommand{
	{name: "query_graph",
		description: "Run a graph query in the JSON query DSL and return the answer. Call get_query_dsl and get_graph_schema first; do not guess entity, relationship or property names.",
		input: `{"type":"object","required":["query"],"additionalProperties":false,"properties":{
"query":{"anyOf":[{"type":"object"},{"type":"string"}],"description":"JSON Query DSL object (or the object as a JSON string)."},
"language":{"type":"string","enum":["json_dsl"],"default":"json_dsl","description":"Query language; graphwire speaks the JSON DSL only."},
"format":` + orbitFormat + `}}`,
		run: (*Server).orbitQuery},
	{name: "get_graph_schema",
		description: "The graph's entities and relationship types. Pass expand_nodes with the entities you intend to query to get their properties, types and enum values.",
		input: `{"type":"object","additionalProperties":false,"properties":{
"expand_nodes":{"type":"array","items":{"type":"string"},"description":"Entity types to expand with their properties and relationships."},
"entity_types":{"type":"array","items":{"type":"string"},"description":"Alias for expand_nodes."},
"format":` + orbitFormat + `}}`,
		run: (*Server).orbitSchema},
	{name: "get_query_dsl",
		description: "The query DSL grammar and its version: how to write query_graph queries (raw: the JSON Schema).",
		input:       `{"type":"object","additionalProperties":false,"properties":{"format":` + orbitFormat + `}}`,
		run:         (*Server).orbitDSL},
	{name: "get_response_format",
		description: "The JSON Schema of query_graph's raw answers and its version, for code that reads them.",
		input:       `{"type":"object","additionalProperties":false,"properties":{"format":` + orbitFormat + `}}`,
		run:         (*Server).orbitResponseFormat},
}

func orbitCommandNames() []string {
	names := make([]string, len(orbitCommands))
	for i, c := range orbitCommands {
		names[i] = c.name
	}
	return names
}

// registerOrbit adds the two tools of the Orbit surface.
func (s *Server) registerOrbit() {
	var summary strings.Builder
	summary.WriteString("List the commands invoke_command runs, with their input schemas. Call it once per session. Commands:")
	for _, c := range orbitCommands {
		summary.WriteString("\n- " + c.name + ": " + c.description)
	}
	s.mcp.AddTool(&mcp.Tool{Name: "list_commands", Title: "List commands", Description: summary.String(),
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{
"command_names":{"type":"array","items":{"type":"string"},"description":"Optional command names to describe. Omit to list every command."},
"format":` + orbitFormat + `}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("list_commands", s.listCommands))
	s.mcp.AddTool(&mcp.Tool{Name: "invoke_command", Title: "Invoke a command",
		Description: "Run one command from list_commands: command_name names it and parameters holds its input object. " +
			"Start with get_query_dsl and get_graph_schema, then query_graph.",
		InputSchema: json.RawMessage(`{"type":"object","required":["command_name"],"additionalProperties":false,"properties":{
"command_name":{"type":"string","description":"Command name returned by list_commands."},
"parameters":{"type":"object","description":"The command's input object. Put the command's inputs here, not beside command_name."}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, s.wrap("invoke_command", s.invokeCommand))
}

func (s *Server) listCommands(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		CommandNames []string `json:"command_names"`
		Format       string   `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	raw2, err := orbitRaw(a.Format)
	if err != nil {
		return nil, err
	}
	type entry struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	var out []entry
	for i, n := range a.CommandNames {
		if !slices.Contains(orbitCommandNames(), n) {
			return nil, &argError{msg: fmt.Sprintf("unknown command %q; commands: %s", n, strings.Join(orbitCommandNames(), ", ")),
				pointer: "/command_names/" + strconv.Itoa(i)}
		}
	}
	for _, c := range orbitCommands {
		if len(a.CommandNames) == 0 || slices.Contains(a.CommandNames, c.name) {
			out = append(out, entry{Name: c.name, Description: c.description, InputSchema: compactJSON(c.input)})
		}
	}
	if raw2 {
		b, _ := json.Marshal(map[string]any{"commands": out}) // plain values: cannot fail
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "commands[%d]:\n", len(out))
	for _, e := range out {
		fmt.Fprintf(&b, "- name: %s\n  description: %s\n  input_schema: %s\n", e.Name, e.Description, e.InputSchema)
	}
	b.WriteString("Call invoke_command with command_name and parameters (the command's input object).\n")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
}

func (s *Server) invokeCommand(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		CommandName string          `json:"command_name"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.CommandName == "" {
		return nil, &argError{msg: "command_name is required; commands: " + strings.Join(orbitCommandNames(), ", "), pointer: "/command_name"}
	}
	i := slices.IndexFunc(orbitCommands, func(c orbitCommand) bool { return c.name == a.CommandName })
	if i < 0 {
		return nil, &argError{msg: fmt.Sprintf("unknown command %q; commands: %s (see list_commands)", a.CommandName, strings.Join(orbitCommandNames(), ", ")),
			pointer: "/command_name"}
	}
	p := bytes.TrimSpace(a.Parameters)
	if len(p) > 0 && p[0] != '{' && string(p) != "null" {
		return nil, &argError{msg: "parameters must be an object", pointer: "/parameters"}
	}
	res, err := orbitCommands[i].run(s, ctx, req, claims, a.Parameters)
	if ae, ok := err.(*argError); ok {
		// Name the valid parameters, so an agent that passed an unknown one
		// corrects itself without another list_commands (as Orbit does).
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal([]byte(orbitCommands[i].input), &schema)
		names := make([]string, 0, len(schema.Properties))
		for n := range schema.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, &argError{msg: fmt.Sprintf("%s rejected the parameters: %s. Valid parameters: %s", a.CommandName, ae.msg, strings.Join(names, ", ")),
			pointer: "/parameters" + ae.pointer}
	}
	return res, err
}

// orbitRaw reports whether Orbit's format parameter asks for raw JSON.
func orbitRaw(format string) (bool, error) {
	switch format {
	case "", "llm":
		return false, nil
	case "raw":
		return true, nil
	}
	return false, &argError{msg: fmt.Sprintf("unknown format %q (want llm or raw)", format), pointer: "/format"}
}

func (s *Server) orbitQuery(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Query    json.RawMessage `json:"query"`
		Language string          `json:"language"`
		Format   string          `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	if a.Language != "" && a.Language != "json_dsl" {
		return nil, &argError{msg: fmt.Sprintf("language %q is not supported: graphwire speaks the JSON DSL only (json_dsl)", a.Language), pointer: "/language"}
	}
	isRaw, err := orbitRaw(a.Format)
	if err != nil {
		return nil, err
	}
	format := formatter.GOON // Orbit's llm answers are GOON
	if isRaw {
		format = formatter.JSON
	}
	args, _ := json.Marshal(queryArgs{Query: a.Query, Format: format}) // plain values: cannot fail
	return s.queryGraph(ctx, req, claims, args)
}

func (s *Server) orbitSchema(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		ExpandNodes []string `json:"expand_nodes"`
		EntityTypes []string `json:"entity_types"`
		Format      string   `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	isRaw, err := orbitRaw(a.Format)
	if err != nil {
		return nil, err
	}
	expand := slices.Clone(a.ExpandNodes)
	for _, e := range a.EntityTypes {
		if !slices.Contains(expand, e) {
			expand = append(expand, e)
		}
	}
	if isRaw {
		// The whole ontology as JSON: every entity with its properties.
		if _, err := s.pipe.Schema(expand); err != nil {
			return nil, err // an unknown entity is still an error
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.pipe.SchemaJSON()}}}, nil
	}
	args, _ := json.Marshal(map[string]any{"expand_nodes": expand})
	return s.graphSchema(ctx, req, claims, args)
}

func (s *Server) orbitDSL(_ context.Context, _ *mcp.CallToolRequest, _ *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Format string `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	isRaw, err := orbitRaw(a.Format)
	if err != nil {
		return nil, err
	}
	if !isRaw {
		text := "QueryDSL v" + s.pipe.DSLVersion() + ":\n" + s.pipe.DSL(false)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	// The JSON Schema with its version as a member, as Orbit returns it.
	var schema map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s.pipe.DSL(true)), &schema); err != nil {
		return nil, fmt.Errorf("mcpsvc: the DSL schema is not a JSON object: %w", err)
	}
	schema["version"], _ = json.Marshal(s.pipe.DSLVersion())
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
}

func (s *Server) orbitResponseFormat(ctx context.Context, req *mcp.CallToolRequest, claims *auth.Claims, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var a struct {
		Format string `json:"format"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return nil, err
	}
	isRaw, err := orbitRaw(a.Format)
	if err != nil {
		return nil, err
	}
	f := "text"
	if isRaw {
		f = "json_schema"
	}
	args, _ := json.Marshal(map[string]string{"format": f})
	return s.responseFormat(ctx, req, claims, args)
}

// compactJSON returns s, a JSON document, without insignificant space.
func compactJSON(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return b.Bytes()
}
