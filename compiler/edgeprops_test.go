package compiler

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestRelationshipEdgeProperties: a relationship filter on project_id or branch compiles for
// the types that declare them (ontology edge_properties: the code-graph edges), with the value
// bound as a parameter and the caller's scope still on the edge scan; on any other type, or a
// pattern that may also match one, it is refused with UNKNOWN_PROPERTY, naming the types that
// carry it and listing the filter keys that are valid there.
func TestRelationshipEdgeProperties(t *testing.T) {
	c := newTestCompiler(t)
	caller := &Caller{Scopes: []Scope{{Path: "1/1000/", Level: 30}}}
	ok := []string{
		`{"query_type":"traversal","nodes":[{"id":"a","entity":"Definition","node_ids":[12000]},{"id":"b","entity":"Definition"}],"relationships":[{"type":"CALLS","from":"a","to":"b","filters":{"project_id":1000}}]}`,
		`{"query_type":"traversal","nodes":[{"id":"f","entity":"File","node_ids":[1]},{"id":"d","entity":"Definition"}],"relationships":[{"type":["DEFINES","CALLS"],"from":"f","to":"d","filters":{"branch":"main-branch-x","project_id":{"in":[1000,1001]}}}]}`,
	}
	for _, q := range ok {
		out, err := c.Compile([]byte(q), caller)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if strings.Contains(out.SQL, "main-branch-x") || strings.Contains(out.SQL, "1000") {
			t.Errorf("%s: a filter value is in the SQL text:\n%s", q, out.SQL)
		}
		if !strings.Contains(out.SQL, "project_id") {
			t.Errorf("%s: no project_id predicate in\n%s", q, out.SQL)
		}
		if !strings.Contains(out.SQL, "startsWith(") && !strings.Contains(out.SQL, "traversal_path") {
			t.Errorf("%s: the edge scan is not bound to the caller's scope:\n%s", q, out.SQL)
		}
	}
	refused := map[string]string{
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr","filters":{"project_id":1000}}]}`: "project_id",
		`{"query_type":"traversal","nodes":[{"id":"d","entity":"Directory","node_ids":[1]},{"id":"f","entity":"File"}],"relationships":[{"type":"CONTAINS","from":"d","to":"f","filters":{"branch":"main"}}]}`:        "branch",
		`{"query_type":"traversal","nodes":[{"id":"d","entity":"Directory","node_ids":[1]},{"id":"f","entity":"File"}],"relationships":[{"type":"*","from":"d","to":"f","filters":{"project_id":1}}]}`:                "project_id",
		`{"query_type":"traversal","nodes":[{"id":"a","entity":"Definition","node_ids":[1]},{"id":"b","entity":"Definition"}],"relationships":[{"type":"CALLS","from":"a","to":"b","filters":{"commit_sha":"abc"}}]}`: "commit_sha",
	}
	for q, key := range refused {
		_, err := c.Compile([]byte(q), caller)
		var ce *Error
		if !errors.As(err, &ce) || !errors.Is(err, ErrUnknownProperty) && !errors.Is(err, ErrUnknownField) {
			t.Errorf("%s: err = %v, want UNKNOWN_PROPERTY or UNKNOWN_FIELD", q, err)
			continue
		}
		if !strings.HasSuffix(ce.Path, "/filters/"+key) && !strings.Contains(ce.Path, "/filters") {
			t.Errorf("%s: error at %q, want the filter key %s", q, ce.Path, key)
		}
		if !slices.Contains(ce.ValidOptions, "source_id") {
			t.Errorf("%s: valid options %v do not list the edge filter keys", q, ce.ValidOptions)
		}
		if key == "project_id" && !strings.Contains(ce.Message, "CALLS") {
			t.Errorf("%s: message %q does not name the types that carry %s", q, ce.Message, key)
		}
	}
}

// TestRelationshipFilterKeysListEdgeProperties: an unknown relationship filter key (refused by
// the schema pass) lists project_id and branch among the valid keys exactly when every type the
// relationship may match carries them, as the semantic pass would accept them.
func TestRelationshipFilterKeysListEdgeProperties(t *testing.T) {
	c := newTestCompiler(t)
	caller := &Caller{Scopes: []Scope{{Path: "1/", Level: 30}}}
	cases := []struct {
		name, rel string
		edgeProps bool
	}{
		{"a code-graph type", `{"type":"CALLS","from":"a","to":"b","filters":{"commit_sha":"x"}}`, true},
		{"a list of code-graph types", `{"type":["CALLS","EXTENDS"],"from":"a","to":"b","filters":{"commit_sha":"x"}}`, true},
		{"every type between two definitions", `{"type":"*","from":"a","to":"b","filters":{"commit_sha":"x"}}`, true},
		{"several hops", `{"type":"CALLS","from":"a","to":"b","hops":[1,2],"filters":{"commit_sha":"x"}}`, true},
	}
	for _, tc := range cases {
		q := `{"query_type":"traversal","nodes":[{"id":"a","entity":"Definition","node_ids":[1]},{"id":"b","entity":"Definition"}],"relationships":[` + tc.rel + `]}`
		checkRelFilterKeys(t, c, caller, tc.name, q, tc.edgeProps)
	}
	// Types without edge properties: AUTHORED; and "*" between User and MergeRequest.
	checkRelFilterKeys(t, c, caller, "a type without them",
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr","filters":{"commit_sha":"x"}}]}`, false)
	checkRelFilterKeys(t, c, caller, "every type between a user and a merge request",
		`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"*","from":"u","to":"mr","filters":{"commit_sha":"x"}}]}`, false)
	// A pattern that may match a type with them and one without (File DEFINES or CONTAINS ...).
	checkRelFilterKeys(t, c, caller, "a mix",
		`{"query_type":"traversal","nodes":[{"id":"d","entity":"Directory","node_ids":[1]},{"id":"f","entity":"File"}],"relationships":[{"type":"*","from":"d","to":"f","filters":{"commit_sha":"x"}}]}`, false)
}

func checkRelFilterKeys(t *testing.T, c *Compiler, caller *Caller, name, q string, edgeProps bool) {
	t.Helper()
	_, err := c.Compile([]byte(q), caller)
	var ce *Error
	if !errors.As(err, &ce) || !errors.Is(err, ErrUnknownField) && !errors.Is(err, ErrUnknownProperty) {
		t.Errorf("%s: err = %v, want an unknown relationship filter", name, err)
		return
	}
	if !strings.HasSuffix(ce.Path, "/filters/commit_sha") {
		t.Errorf("%s: error at %q, want the filter key", name, ce.Path)
	}
	for _, k := range []string{"source_id", "target_id", "traversal_path"} {
		if !slices.Contains(ce.ValidOptions, k) {
			t.Errorf("%s: valid options %v lack %s", name, ce.ValidOptions, k)
		}
	}
	for _, k := range []string{"project_id", "branch"} {
		if got := slices.Contains(ce.ValidOptions, k); got != edgeProps {
			t.Errorf("%s: %s in the valid options %v = %v, want %v (%s)", name, k, ce.ValidOptions, got, edgeProps, ce.Message)
		}
	}
	// Every key offered must compile in its place.
	for _, k := range ce.ValidOptions {
		v := `1`
		switch k {
		case "branch":
			v = `"main"`
		case "traversal_path":
			v = `{"starts_with":"1/"}`
		}
		fixed := strings.Replace(q, `"commit_sha":"x"`, `"`+k+`":`+v, 1)
		if _, err := c.Compile([]byte(fixed), caller); err != nil {
			t.Errorf("%s: the offered key %s does not compile: %v", name, k, err)
		}
	}
}
