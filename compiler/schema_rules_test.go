package compiler_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/tools/txtar"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/config"
)

// publishedSchema compiles config/schemas/graph_query.schema.json as clients get it, without
// the compiler's translation or semantic pass.
func publishedSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(config.GraphQuerySchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("graph_query.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("graph_query.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func schemaAccepts(t *testing.T, s *jsonschema.Schema, query string) error {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(query))
	if err != nil {
		t.Fatalf("bad test query %s: %v", query, err)
	}
	return s.Validate(doc)
}

// TestSchemaShapeRules: each per-query-type rule and the closed operator list (Orbit's
// schema states them; docs/compiler.md "DSL differences from Orbit") is in the published
// schema itself, and the compiler reports a breach with the reason, pointer and wording of
// the semantic pass.
func TestSchemaShapeRules(t *testing.T) {
	const mr = `{"id":"mr","entity":"MergeRequest","node_ids":[1]}`
	const p = `{"id":"p","entity":"Project"}`
	cases := []errCase{
		{name: "traversal: path field", query: `{"query_type":"traversal","nodes":[` + mr + `],"path":{"type":"shortest","from":"mr","to":"mr","max_depth":1}}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/path"},
		{name: "traversal: aggregations field", query: `{"query_type":"traversal","nodes":[` + mr + `],"aggregations":[{"count":"mr"}]}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/aggregations"},
		{name: "traversal: two nodes without relationships", query: `{"query_type":"traversal","nodes":[` + mr + `,` + p + `]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships"},
		{name: "traversal: two nodes, empty relationships", query: `{"query_type":"traversal","nodes":[` + mr + `,` + p + `],"relationships":[]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships"},
		{name: "traversal: one node with a relationship", query: `{"query_type":"traversal","nodes":[` + mr + `],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"mr"}]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships"},
		{name: "aggregation: no aggregations", query: `{"query_type":"aggregation","nodes":[` + mr + `]}`, wantErr: compiler.ErrSchemaViolation, wantPath: ""},
		{name: "aggregation: both directions", query: `{"query_type":"aggregation","nodes":[` + mr + `,` + p + `],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p","direction":"both"}],"aggregations":[{"count":"mr"}]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships/0/direction"},
		{name: "aggregation: order_by field", query: `{"query_type":"aggregation","nodes":[` + mr + `],"aggregations":[{"count":"mr"}],"order_by":"mr.iid"}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/order_by"},
		{name: "aggregation: neighbors field", query: `{"query_type":"aggregation","nodes":[` + mr + `],"aggregations":[{"count":"mr"}],"neighbors":{}}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/neighbors"},
		{name: "path_finding: no path", query: `{"query_type":"path_finding","nodes":[` + mr + `,{"id":"p","entity":"Project","node_ids":[1]}]}`, wantErr: compiler.ErrSchemaViolation, wantPath: ""},
		{name: "path_finding: one node", query: `{"query_type":"path_finding","nodes":[` + mr + `],"path":{"type":"shortest","from":"mr","to":"mr","max_depth":1,"rel_types":"*"}}`, wantErr: compiler.ErrInvalidShape, wantPath: "/nodes"},
		{name: "path_finding: three nodes", query: `{"query_type":"path_finding","nodes":[` + mr + `,{"id":"p","entity":"Project","node_ids":[1]},{"id":"u","entity":"User","node_ids":[1]}],"path":{"type":"shortest","from":"mr","to":"p","max_depth":1,"rel_types":"*"}}`, wantErr: compiler.ErrInvalidShape, wantPath: "/nodes"},
		{name: "path_finding: relationships field", query: `{"query_type":"path_finding","nodes":[` + mr + `,{"id":"p","entity":"Project","node_ids":[1]}],"relationships":[],"path":{"type":"shortest","from":"mr","to":"p","max_depth":1,"rel_types":"*"}}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/relationships"},
		{name: "path_finding: order_by field", query: `{"query_type":"path_finding","nodes":[` + mr + `,{"id":"p","entity":"Project","node_ids":[1]}],"path":{"type":"shortest","from":"mr","to":"p","max_depth":1,"rel_types":"*"},"order_by":"mr.iid"}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/order_by"},
		{name: "neighbors: no neighbors", query: `{"query_type":"neighbors","nodes":[` + mr + `]}`, wantErr: compiler.ErrSchemaViolation, wantPath: ""},
		{name: "neighbors: two nodes", query: `{"query_type":"neighbors","nodes":[` + mr + `,` + p + `],"neighbors":{}}`, wantErr: compiler.ErrInvalidShape, wantPath: "/nodes"},
		{name: "neighbors: group_by field", query: `{"query_type":"neighbors","nodes":[` + mr + `],"neighbors":{},"group_by":["mr.state"]}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/group_by"},
		{name: "operator: unknown", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"like":"%auth%"}}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/filters/title/like"},
		{name: "operator: unknown in a list", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"added_lines":[{"gte":10},{"between":[1,2]}]}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/filters/added_lines/1/between"},
		{name: "operator: unknown on an edge", query: `{"query_type":"traversal","nodes":[` + mr + `,` + p + `],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p","filters":{"source_id":{"greater":1}}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/relationships/0/filters/source_id/greater"},
		{name: "operator: misspelt", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"token_mach":"api"}}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/filters/title/token_mach"},
	}
	runErrCases(t, cases, map[string][]string{
		"traversal: path field":                      {`field "path" is not allowed in a traversal query`},
		"traversal: two nodes without relationships": {"needs exactly 1 relationships to connect 2 nodes"},
		"traversal: two nodes, empty relationships":  {"needs exactly 1 relationships to connect 2 nodes"},
		"traversal: one node with a relationship":    {"single-node traversal must not have a relationships field"},
		"aggregation: no aggregations":               {`missing required field "aggregations"`},
		"aggregation: both directions":               {"only outgoing or incoming"},
		"aggregation: order_by field":                {`field "order_by" is not allowed in an aggregation query`},
		"path_finding: no path":                      {`missing required field "path"`},
		"path_finding: one node":                     {"exactly 2 nodes"},
		"path_finding: three nodes":                  {"exactly 2 nodes"},
		"neighbors: no neighbors":                    {`missing required field "neighbors"`},
		"neighbors: two nodes":                       {"exactly 1 node (the center)"},
		"operator: unknown":                          {`unknown operator "like"`},
		"operator: unknown in a list":                {`unknown operator "between"`},
		"operator: misspelt":                         {`did you mean "token_match"?`},
		"path_finding: relationships field":          {`field "relationships" is not allowed in a path_finding query`},
		"neighbors: group_by field":                  {`field "group_by" is not allowed in a neighbors query`},
		"traversal: aggregations field":              {`field "aggregations" is not allowed`},
		"aggregation: neighbors field":               {`field "neighbors" is not allowed`},
		"operator: unknown on an edge":               {`unknown operator "greater"`},
		"path_finding: order_by field":               {`field "order_by" is not allowed`},
	})
	s := publishedSchema(t)
	for _, tt := range cases {
		if err := schemaAccepts(t, s, tt.query); err == nil {
			t.Errorf("%s: the published schema accepts %s", tt.name, tt.query)
		}
	}
}

// TestSchemaKeepsOurAdditions: the published schema still admits null filter values (refused
// later with a pointer to is_null), "*" relationship types, and caps cursor.after at 8 192
// bytes.
func TestSchemaKeepsOurAdditions(t *testing.T) {
	s := publishedSchema(t)
	accepted := []string{
		`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"milestone_id":null}}]}`,
		`{"query_type":"path_finding","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"Project","node_ids":[1]}],"path":{"type":"shortest","from":"a","to":"b","max_depth":2,"rel_types":"*"}}`,
		`{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"Project"}],"relationships":[{"type":"*","from":"a","to":"b"}]}`,
		`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"cursor":{"page_size":10,"after":"` + strings.Repeat("a", 8192) + `"}}`,
	}
	for _, q := range accepted {
		if err := schemaAccepts(t, s, q); err != nil {
			t.Errorf("the published schema refuses %.120s: %v", q, err)
		}
	}
	long := `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"cursor":{"page_size":10,"after":"` + strings.Repeat("a", 8193) + `"}}`
	if err := schemaAccepts(t, s, long); err == nil {
		t.Error("the published schema accepts a cursor.after of 8 193 bytes")
	}
	runErrCases(t, []errCase{
		{name: "null filter value", query: accepted[0], wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/milestone_id"},
		{name: "long cursor", query: long, wantErr: compiler.ErrLimitExceeded, wantPath: "/cursor/after"},
	}, map[string][]string{"null filter value": {"is_null"}})
}

// TestSchemaAcceptsGoldenQueries: every golden query (they cover each query type and
// operator) passes the published schema, so its new rules refuse nothing the compiler
// answers.
func TestSchemaAcceptsGoldenQueries(t *testing.T) {
	s := publishedSchema(t)
	files, err := filepath.Glob(filepath.Join("testdata", "golden", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, af := range txtar.Parse(data).Files {
			if af.Name != "query.json" {
				continue
			}
			if !json.Valid(af.Data) {
				t.Fatalf("%s: query.json is not JSON", f)
			}
			if err := schemaAccepts(t, s, string(af.Data)); err != nil {
				t.Errorf("%s: %v", f, err)
			}
		}
	}
}
