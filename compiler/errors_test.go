package compiler_test

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

type errCase struct {
	name     string
	query    string
	caller   *compiler.Caller
	wantErr  error
	wantPath string
}

const mrSearch = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}]`

var errorCases = []errCase{
	{name: "parse error", query: `{"query_type":`, wantErr: compiler.ErrParse, wantPath: ""},
	{name: "not an object", query: `[1]`, wantErr: compiler.ErrParse},
	{name: "trailing data", query: mrSearch + `} {}`, wantErr: compiler.ErrParse},
	{name: "duplicate key", query: `{"query_type":"traversal","query_type":"traversal","nodes":[]}`, wantErr: compiler.ErrParse, wantPath: "/query_type"},
	{name: "too deep", query: `{"nodes":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, wantErr: compiler.ErrParse, wantPath: "/nodes" + strings.Repeat("/0", 31)},
	{name: "unknown entity", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequests","node_ids":[1]}]}`, wantErr: compiler.ErrUnknownEntity, wantPath: "/nodes/0/entity"},
	{name: "unknown relationship", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"MergeRequest"}],"relationships":[{"type":"WROTE","from":"a","to":"b"}]}`, wantErr: compiler.ErrUnknownRelationship, wantPath: "/relationships/0/type"},
	{name: "unknown field", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"colums":["iid"]}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/colums"},
	{name: "unknown top-level field", query: mrSearch + `,"limt":3}`, wantErr: compiler.ErrUnknownField, wantPath: "/limt"},
	{name: "missing required", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}]}`, wantErr: compiler.ErrSchemaViolation, wantPath: ""},
	{name: "unknown property in filter", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"titel":"x"}}]}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/nodes/0/filters/titel"},
	{name: "unknown property in columns", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":["iid","nope"]}]}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/nodes/0/columns/1"},
	{name: "unknown property in order_by", query: mrSearch + `,"order_by":"mr.nope"}`, wantErr: compiler.ErrUnknownProperty, wantPath: "/order_by"},
	{name: "unknown operator", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"like":"%auth%"}}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/filters/title/like"},
	{name: "token operator without a word index", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"merge_commit_sha":{"token_match":"abc"}}}]}`, wantErr: compiler.ErrOperatorNotAllowed, wantPath: "/nodes/0/filters/merge_commit_sha/token_match"},
	{name: "token_match of two words", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"token_match":"login-page"}}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/title/token_match"},
	{name: "all_tokens without a word", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"description":{"all_tokens":" -- "}}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/description/all_tokens"},
	{name: "any_tokens not a string", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"description":{"any_tokens":7}}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/description/any_tokens"},
	{name: "operator not allowed", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":{"contains":"mer"}}}]}`, wantErr: compiler.ErrOperatorNotAllowed, wantPath: "/nodes/0/filters/state/contains"},
	{name: "eq on long text", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"description":"x"}}]}`, wantErr: compiler.ErrOperatorNotAllowed, wantPath: "/nodes/0/filters/description"},
	{name: "cursor over a long-text sort key", query: mrSearch + `,"order_by":"mr.description","cursor":{"page_size":5}}`, wantErr: compiler.ErrUnsupportedFeature, wantPath: "/order_by"},
	{name: "order_by not filterable", query: `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[1]}],"order_by":"p.project_namespace_id"}`, wantErr: compiler.ErrNotFilterable, wantPath: "/order_by"},
	{name: "path without rel_types between node_ids", query: `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","node_ids":[1]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2}}`, wantErr: compiler.ErrNotSelective, wantPath: "/path/rel_types"},
	{name: "too many hops", query: `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[1]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,4]}]}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/relationships/0/hops/1"},
	{name: "limit out of range", query: mrSearch + `,"limit":1001}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/limit"},
	{name: "limit zero", query: mrSearch + `,"limit":0}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/limit"},
	{name: "page size out of range", query: mrSearch + `,"cursor":{"page_size":5000}}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/cursor/page_size"},
	{name: "too many node ids", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[` + strings.Repeat("1,", 500) + `1]}]}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/nodes/0/node_ids"},
	{name: "short pattern", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"source_branch":{"contains":"ab"}}}]}`, wantErr: compiler.ErrPatternTooShort, wantPath: "/nodes/0/filters/source_branch/contains"},
	{name: "short pattern emoji counts code points", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"name":{"starts_with":"🎉🎉"}}}]}`, wantErr: compiler.ErrPatternTooShort, wantPath: "/nodes/0/filters/name/starts_with"},
	{name: "malformed cursor", query: mrSearch + `,"cursor":{"page_size":2,"after":"not base64!"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "cursor not json", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + b64(`hello`) + `"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "cursor extra key", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + signed(specCaller, `{"h":"0123456789abcdef","k":[],"x":1}`) + `"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "cursor of another query", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + signed(specCaller, `{"h":"0123456789abcdef","k":["1"]}`) + `"}}`, wantErr: compiler.ErrCursorMismatch, wantPath: "/cursor/after"},
	{name: "unsigned cursor", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + b64(`{"h":"0123456789abcdef","k":["1"]}`) + `"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "cursor signed with another key", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + b64(`{"h":"0123456789abcdef","k":["1"]}`) + `.AAAAAAAAAAAAAAAAAAAAAA"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "cursor of another caller", query: mrSearch + `,"cursor":{"page_size":2,"after":"` + signed(&compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "100/", Level: 40}}}, `{"h":"0123456789abcdef","k":["1"]}`) + `"}}`, wantErr: compiler.ErrInvalidCursor, wantPath: "/cursor/after"},
	{name: "duplicate alias", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"a","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"a","to":"a"}]}`, wantErr: compiler.ErrDuplicateAlias, wantPath: "/nodes/1/id"},
	{name: "undefined alias", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"a","to":"c"}]}`, wantErr: compiler.ErrUndefinedAlias, wantPath: "/relationships/0/to"},
	{name: "field not allowed", query: mrSearch + `,"aggregation_sort":"x"}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/aggregation_sort"},
	// Kept on purpose (docs/orbit-parity.md, "Semantics", #7b): Orbit ignores it.
	{name: "path in an aggregation", query: `{"query_type":"aggregation","nodes":[{"id":"u","entity":"User"},{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"aggregations":[{"count":"mr"}],"path":{"type":"shortest","from":"u","to":"mr","max_depth":1}}`, wantErr: compiler.ErrFieldNotAllowed, wantPath: "/path"},
	{name: "single node with relationships", query: mrSearch + `,"relationships":[]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships"},
	{name: "cycle", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"WorkItem","node_ids":[1]},{"id":"b","entity":"WorkItem"}],"relationships":[{"type":"RELATED_TO","from":"a","to":"b"},{"type":"RELATED_TO","from":"b","to":"a"}]}`, wantErr: compiler.ErrInvalidShape, wantPath: "/relationships"},
	{name: "no matching relationship", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"Runner"}],"relationships":[{"type":"AUTHORED","from":"a","to":"b"}]}`, wantErr: compiler.ErrNoMatchingRelationship, wantPath: "/relationships/0/type"},
	{name: "wrong direction", query: `{"query_type":"traversal","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"a","to":"b","direction":"incoming"}]}`, wantErr: compiler.ErrNoMatchingRelationship, wantPath: "/relationships/0/type"},
	{name: "not filterable", query: `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"project_namespace_id":4}}]}`, wantErr: compiler.ErrNotFilterable, wantPath: "/nodes/0/filters/project_namespace_id"},
	{name: "value type mismatch", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"iid":"seven"}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/iid"},
	{name: "id out of int64", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":["99999999999999999999"]}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/node_ids/0"},
	{name: "integer id out of int64", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1, 9223372036854775808]}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/node_ids/1"},
	{name: "invalid enum value", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merge"}}]}`, wantErr: compiler.ErrInvalidEnumValue, wantPath: "/nodes/0/filters/state"},
	{name: "invalid enum value in list", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":["merged","nope"]}}]}`, wantErr: compiler.ErrInvalidEnumValue, wantPath: "/nodes/0/filters/state/1"},
	{name: "bad date", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"merged_at":{"gt":"yesterday"}}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/merged_at/gt"},
	{name: "sum of a string", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"sum":"mr.source_branch"}]}`, wantErr: compiler.ErrInvalidAggregation, wantPath: "/aggregations/0/sum"},
	{name: "duplicate output name", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"count":"mr"},{"count":"mr"}]}`, wantErr: compiler.ErrDuplicateOutputName, wantPath: "/aggregations/1/as"},
	{name: "undefined output", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"count":"mr"}],"aggregation_sort":"-cnt"}`, wantErr: compiler.ErrUndefinedOutput, wantPath: "/aggregation_sort"},
	{name: "not selective", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest"}]}`, wantErr: compiler.ErrNotSelective, wantPath: "/nodes"},
	{name: "wide id_range is not selective", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":200000}}]}`, wantErr: compiler.ErrNotSelective, wantPath: "/nodes"},
	{name: "path without rel_types", query: `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","filters":{"name":"api"}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2}}`, wantErr: compiler.ErrNotSelective, wantPath: "/path/rel_types"},
	{name: "path max depth", query: `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","node_ids":[1]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":4}}`, wantErr: compiler.ErrLimitExceeded, wantPath: "/path/max_depth"},
	{name: "collect is later", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"collect":"mr.iid"}]}`, wantErr: compiler.ErrUnsupportedFeature, wantPath: "/aggregations/0/collect"},
	{name: "id_property is later", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"id_property":"iid"}]}`, wantErr: compiler.ErrUnsupportedFeature, wantPath: "/nodes/0/id_property"},
	// Orbit's empty security context: refused at compile time, for every query type (a
	// caller with a scope below every floor still compiles, to PREWHERE false).
	{name: "no scopes: traversal", query: mrSearch + `}`, caller: &compiler.Caller{Subject: "9"}, wantErr: compiler.ErrNoScopes},
	{name: "no scopes: global entity only", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`, caller: &compiler.Caller{Subject: "9"}, wantErr: compiler.ErrNoScopes},
	{name: "no scopes: aggregation", query: `{"query_type":"aggregation","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":10000},"columns":["name"]},{"id":"u","entity":"User"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}],"group_by":["g"],"aggregations":[{"count":"u","as":"members"}],"limit":10}`, caller: &compiler.Caller{Subject: "9", Scopes: []compiler.Scope{{Path: "not a path", Level: 50}}}, wantErr: compiler.ErrNoScopes},
	{name: "traversal_path outside scopes", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"traversal_path":{"starts_with":"200/"}}}]}`, wantErr: compiler.ErrScopeViolation, wantPath: "/nodes/0/filters/traversal_path/starts_with"},
	{name: "malformed traversal_path", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"traversal_path":"100"}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/traversal_path"},
	{name: "aggregation with two functions", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"count":"mr"},{"count":"mr","sum":"mr.iid"}]}`, wantErr: compiler.ErrInvalidAggregation, wantPath: "/aggregations/1"},
	{name: "aggregation without function", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"as":"x"}]}`, wantErr: compiler.ErrInvalidAggregation, wantPath: "/aggregations/0"},
	{name: "filter key not a name", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"Title":{"contains":"abc"}}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/0/filters/Title"},
	{name: "filter key not a name on a later node", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"filters":{"username":"alice"}},{"id":"mr","entity":"MergeRequest","filters":{"state":"merged","Sta-te":"x"}}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/nodes/1/filters/Sta-te"},
	{name: "unknown relationship filter key", query: `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr","filters":{"weight":1}}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/relationships/0/filters/weight"},
	{name: "misspelt required field", query: `{"Query_Type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}]}`, wantErr: compiler.ErrUnknownField, wantPath: "/Query_Type"},
	{name: "group_by object with key only", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"group_by":[{"key":"mr.state"}],"aggregations":[{"count":"mr"}]}`, wantErr: compiler.ErrSchemaViolation, wantPath: "/group_by/0"},
	{name: "sum of a node", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"sum":"mr"}]}`, wantErr: compiler.ErrSchemaViolation, wantPath: "/aggregations/0/sum"},
	{name: "count target with two dots", query: `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"aggregations":[{"count":"mr.a.b"}]}`, wantErr: compiler.ErrSchemaViolation, wantPath: "/aggregations/0/count"},
	{name: "null filter value", query: `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"milestone_id":null}}]}`, wantErr: compiler.ErrValueTypeMismatch, wantPath: "/nodes/0/filters/milestone_id"},
	{name: "global node unscoped", query: `{"query_type":"aggregation","nodes":[{"id":"u","entity":"User","filters":{"state":"active"}}],"aggregations":[{"count":"u"}]}`, wantErr: compiler.ErrGlobalNodeUnscoped, wantPath: "/nodes/0"},
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// TestErrors checks the reason and the JSON Pointer of every bad-input case.
func TestErrors(t *testing.T) {
	runErrCases(t, errorCases, nil)
}

// runErrCases compiles each case and checks its reason, its JSON Pointer, that its message is
// not empty and, when want names the case, that the message contains every fragment listed.
func runErrCases(t *testing.T, cases []errCase, want map[string][]string) {
	t.Helper()
	c := newCompiler(t)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			caller := tt.caller
			if caller == nil {
				caller = specCaller
			}
			q, err := c.Compile([]byte(tt.query), caller)
			if err == nil {
				t.Fatalf("Compile succeeded, want %v:\n%s", tt.wantErr, q.SQL)
			}
			var ce *compiler.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *compiler.Error: %v", err, err)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Compile error = %v, want %v", err, tt.wantErr)
			}
			if ce.Path != tt.wantPath {
				t.Errorf("Path = %q, want %q (%v)", ce.Path, tt.wantPath, err)
			}
			if ce.Message == "" {
				t.Errorf("empty message")
			}
			for _, frag := range want[tt.name] {
				if !strings.Contains(ce.Message, frag) {
					t.Errorf("message %q does not contain %q", ce.Message, frag)
				}
			}
		})
	}
}

// TestErrorValidOptions checks the complete options list of an unknown entity.
func TestErrorValidOptions(t *testing.T) {
	c := newCompiler(t)
	_, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequests","node_ids":[1]}]}`), specCaller)
	var ce *compiler.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error = %v", err)
	}
	want := "/nodes/0/entity: unknown entity \"MergeRequests\" (did you mean \"MergeRequest\"?); valid options: Branch, Commit, ContainerRepository, Definition, Dependency, Deployment, Directory, Environment, File, Finding, Group, ImportedSymbol, Job, Label, MergeRequest, MergeRequestDiff, MergeRequestDiffFile, Milestone, Note, Package, PackageFile, Pipeline, Project, Runner, SecurityScan, Stage, User, Vulnerability, VulnerabilityIdentifier, VulnerabilityOccurrence, VulnerabilityScanner, WorkItem"
	if ce.Error() != want {
		t.Errorf("Error() =\n%s\nwant\n%s", ce.Error(), want)
	}
	if ce.Kind() != compiler.KindInvalidQuery || ce.Reason() != "UNKNOWN_ENTITY" {
		t.Errorf("Kind, Reason = %s, %s", ce.Kind(), ce.Reason())
	}
}

// TestParseErrorPosition: malformed JSON is reported with its line, its column (in
// characters) and what the grammar expected there.
func TestParseErrorPosition(t *testing.T) {
	c := newCompiler(t)
	tests := []struct {
		name, query, want string
		path              string
	}{
		{"end of input", `{"query_type":`, `malformed JSON at line 1, column 15: unexpected end of input, expected a value`, ""},
		{"missing comma on line 2", "{\"query_type\":\"traversal\",\n  \"nodes\":[{\"id\":\"mr\" \"entity\":\"MergeRequest\"}]}", `malformed JSON at line 2, column 23: unexpected '"', expected ',' or '}'`, ""},
		{"trailing comma in array", `{"nodes":[1,]}`, `malformed JSON at line 1, column 13: unexpected ']', expected a value`, ""},
		{"columns count characters", "{\"title\":\"héllo\" x}", `malformed JSON at line 1, column 18: unexpected 'x', expected ',' or '}'`, ""},
		{"unquoted key", `{query_type:1}`, `malformed JSON at line 1, column 2: unexpected 'q', expected a quoted key`, ""},
		{"bad escape", `{"a":"\q"}`, `malformed JSON at line 1, column 8: unexpected 'q', expected one of " \ / b f n r t u after \`, ""},
		{"bad literal", `{"a":tru}`, `malformed JSON at line 1, column 6: unexpected 't', expected a value`, ""},
		{"raw control character", "{\"a\":\"\x01\"}", `malformed JSON at line 1, column 7: unexpected '\x01', expected an escape such as \n or \u001f, not a raw control character`, ""},
		{"backslash at the end", `{"a":"\`, `malformed JSON at line 1, column 8: unexpected end of input, expected an escape character`, ""},
		{"short unicode escape", `{"a":"\u12x4"}`, `malformed JSON at line 1, column 9: unexpected '1', expected four hex digits after \u`, ""},
		{"unterminated string", `{"a":"abc`, `malformed JSON at line 1, column 10: unexpected end of input, expected '"' to end the string`, ""},
		{"missing colon", `{"a" 2}`, `malformed JSON at line 1, column 6: unexpected '2', expected ':' after the key`, ""},
		{"missing comma in array", `{"a":[1 2]}`, `malformed JSON at line 1, column 9: unexpected '2', expected ',' or ']'`, ""},
		{"no fraction digit", `{"a":1.x}`, `malformed JSON at line 1, column 8: unexpected 'x', expected a digit after '.'`, ""},
		{"no exponent digit", `{"a":1e+}`, `malformed JSON at line 1, column 9: unexpected '}', expected a digit in the exponent`, ""},
		{"duplicate key", `{"x/y~z":{"k":1,"k":2}}`, `duplicate key "k"`, "/x~1y~0z/k"},
		{"too deep", `{"a":` + strings.Repeat("[", 32) + strings.Repeat("]", 32) + `}`, `nesting deeper than 32 levels`, "/a" + strings.Repeat("/0", 31)},
		{"trailing data", `{"a":1} x`, `unexpected data after the query object`, ""},
		{"invalid UTF-8 in a string", "{\"nodes\":[{\"id\":\"a\xffb\"}]}", `invalid UTF-8 (byte 0xff) at line 1, column 19: the query must be UTF-8 text`, "/nodes/0/id"},
		{"invalid UTF-8 in a key", "{\"a\":{\"k\xc3\":1}}", `invalid UTF-8 (byte 0xc3) at line 1, column 9: the query must be UTF-8 text`, "/a"},
		{"invalid UTF-8 outside strings", "{\"a\":1,\n\xfe}", `invalid UTF-8 (byte 0xfe) at line 2, column 1: the query must be UTF-8 text`, ""},
		{"lone high surrogate", `{"nodes":[{"id":"x","entity":"\ud800"}]}`, `lone surrogate escape \ud800 at line 1, column 31: an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character`, "/nodes/0/entity"},
		{"lone low surrogate after text", `{"a":"\udc00\ud83d\ude00"}`, `lone surrogate escape \udc00 at line 1, column 7: an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character`, "/a"},
		{"high surrogate before a non-pair", `{"a":"\uD83D\u0041"}`, `lone surrogate escape \uD83D at line 1, column 7: an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character`, "/a"},
		{"not an object", `[]`, `the query must be a JSON object`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Compile([]byte(tt.query), specCaller)
			want := &compiler.Error{Path: tt.path, Err: compiler.ErrParse, Message: tt.want}
			var ce *compiler.Error
			if !errors.As(err, &ce) || ce.Path != want.Path || ce.Err != want.Err || ce.Message != want.Message {
				t.Errorf("error = %#v, want %#v", err, want)
			}
		})
	}
}

// TestNoRelationshipConnects: when no relationship type connects the two entities of a
// relationship, the error says so and names both, whatever types were asked for ("*" too),
// instead of suggesting "*" or a list of types that would connect them; when relationships do
// connect them the other way, it says to turn the relationship round.
func TestNoRelationshipConnects(t *testing.T) {
	c := newCompiler(t)
	caller := &compiler.Caller{Admin: true}
	cases := []struct{ name, from, to, rel, want string }{
		{"star, no pair at all", "Runner", "Label", `{"type":"*","from":"a","to":"b"}`, "no relationship connects Runner to Label (outgoing): the ontology has no relationship type with a pair between these two entities in either direction"},
		{"named type, no pair at all", "Runner", "Label", `{"type":"AUTHORED","from":"a","to":"b"}`, "no relationship connects Runner to Label (outgoing)"},
		{"star both ways", "Runner", "Label", `{"type":"*","from":"a","to":"b","direction":"both"}`, "no relationship connects Runner to Label (both): the ontology has no relationship type with a pair between these two entities;"},
		{"star, only the other way", "MergeRequest", "User", `{"type":"*","from":"a","to":"b"}`, "relationships do connect them the other way"},
	}
	for _, tc := range cases {
		q := `{"query_type":"traversal","nodes":[{"id":"a","entity":"` + tc.from + `","node_ids":[1]},{"id":"b","entity":"` + tc.to + `"}],"relationships":[` + tc.rel + `]}`
		_, err := c.Compile([]byte(q), caller)
		var ce *compiler.Error
		if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrNoMatchingRelationship) {
			t.Errorf("%s: err = %v, want NO_MATCHING_RELATIONSHIP", tc.name, err)
			continue
		}
		if !strings.Contains(ce.Message, tc.want) {
			t.Errorf("%s: message %q, want it to contain %q", tc.name, ce.Message, tc.want)
		}
		if strings.Contains(ce.Message, `use "*"`) || len(ce.ValidOptions) > 0 {
			t.Errorf("%s: message %q (options %v) suggests types although none connects the entities", tc.name, ce.Message, ce.ValidOptions)
		}
	}
}

// TestIDPropertyAmongFilters: id_property written as a filter key (a query shape Orbit's corpus
// keeps as a negative control) is refused as an unknown property, and the message says where
// the field belongs and what it may be, instead of only listing the entity's properties.
func TestIDPropertyAmongFilters(t *testing.T) {
	c := newCompiler(t)
	q := `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"id":{"eq":5},"id_property":"namespace_id"}}]}`
	_, err := c.Compile([]byte(q), &compiler.Caller{Admin: true})
	var ce *compiler.Error
	if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrUnknownProperty) || ce.Path != "/nodes/0/filters/id_property" {
		t.Fatalf("err = %v, want UNKNOWN_PROPERTY at /nodes/0/filters/id_property", err)
	}
	for _, want := range []string{"field of the node", `only "id"`} {
		if !strings.Contains(ce.Message, want) {
			t.Errorf("message %q lacks %q", ce.Message, want)
		}
	}
}
