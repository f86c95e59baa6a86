package gcx_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/gcx"
)

// TestEnvelopeExamples re-encodes the example sections of spec §10 byte
// for byte after parsing them.
func TestEnvelopeExamples(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		rebuild func(s gcx.Section) (gcx.Section, error)
	}{
		{
			name:    "tool_definitions",
			payload: "GCX1 tool=tool_definitions fields=name,scope\nfind_usages\trepo\nlist_repos\tworkspace\nsearch_all\tfan-out\n",
			rebuild: func(s gcx.Section) (gcx.Section, error) {
				defs, err := gcx.ParseToolDefinitions(s)
				if err != nil {
					return gcx.Section{}, err
				}
				return gcx.ToolDefinitionsSection(defs)
			},
		},
		{
			name:    "tool_request",
			payload: "GCX1 tool=tool_request fields=tool,scope,repo\nsearch_all\tfan-out\t[\"*\"]\n",
			rebuild: func(s gcx.Section) (gcx.Section, error) {
				r, err := gcx.ParseToolRequest(s)
				if err != nil {
					return gcx.Section{}, err
				}
				return gcx.ToolRequestSection(r)
			},
		},
		{
			name:    "error",
			payload: "GCX1 tool=error fields=code,message,detail\nunknown_repo\tfan-out request names a repository outside the workspace\t[\"ghost\"]\n",
			rebuild: func(s gcx.Section) (gcx.Section, error) {
				e, err := gcx.ParseError(s)
				if err != nil {
					return gcx.Section{}, err
				}
				return gcx.ErrorSection(e)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, err := gcx.UnmarshalSections([]byte(tt.payload))
			if err != nil || len(secs) != 1 {
				t.Fatalf("decode: %v, %d sections", err, len(secs))
			}
			s, err := tt.rebuild(secs[0])
			if err != nil {
				t.Fatalf("parse and rebuild: %v", err)
			}
			got, err := gcx.MarshalSections(s)
			if err != nil || string(got) != tt.payload {
				t.Errorf("re-encoded %q, %v; want %q", got, err, tt.payload)
			}
		})
	}
}

func TestToolDefinitions(t *testing.T) {
	got, err := gcx.ToolDefinitionsSection([]gcx.ToolDefinition{{"search_all", gcx.ScopeFanOut}, {"find_usages", gcx.ScopeRepo}})
	want := gcx.Section{Tool: "tool_definitions", Fields: []string{"name", "scope"}, Rows: [][]string{{"find_usages", "repo"}, {"search_all", "fan-out"}}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("sorted registry = %+v, %v; want %+v", got, err, want)
	}
	empty, err := gcx.ToolDefinitionsSection(nil)
	if b, _ := gcx.MarshalSections(empty); err != nil || string(b) != "GCX1 tool=tool_definitions fields=name,scope\n" {
		t.Errorf("empty registry = %q, %v", b, err)
	}
	encodeErrs := []struct {
		name string
		defs []gcx.ToolDefinition
	}{
		{"duplicate name", []gcx.ToolDefinition{{"a", gcx.ScopeRepo}, {"a", gcx.ScopeWorkspace}}},
		{"empty name", []gcx.ToolDefinition{{"", gcx.ScopeRepo}}},
		{"empty scope", []gcx.ToolDefinition{{"a", ""}}},
		{"unknown scope", []gcx.ToolDefinition{{"a", "global"}}},
	}
	for _, tt := range encodeErrs {
		t.Run("encode "+tt.name, func(t *testing.T) {
			if _, err := gcx.ToolDefinitionsSection(tt.defs); !errors.Is(err, gcx.ErrSchema) {
				t.Errorf("error = %v, want ErrSchema", err)
			}
		})
	}
	decodeTests := []struct {
		name    string
		payload string
		want    []gcx.ToolDefinition
		wantErr error
	}{
		{name: "meta ignored", payload: "GCX1 tool=tool_definitions fields=name,scope rows=1\na\trepo\n", want: []gcx.ToolDefinition{{"a", gcx.ScopeRepo}}},
		{name: "empty registry", payload: "GCX1 tool=tool_definitions fields=name,scope\n", want: []gcx.ToolDefinition{}},
		{name: "unsorted", payload: "GCX1 tool=tool_definitions fields=name,scope\nb\trepo\na\trepo\n", wantErr: gcx.ErrSchema},
		{name: "duplicate", payload: "GCX1 tool=tool_definitions fields=name,scope\na\trepo\na\trepo\n", wantErr: gcx.ErrSchema},
		{name: "missing scope", payload: "GCX1 tool=tool_definitions fields=name,scope\na\n", wantErr: gcx.ErrSchema},
		{name: "unknown scope", payload: "GCX1 tool=tool_definitions fields=name,scope\na\tall\n", wantErr: gcx.ErrSchema},
		{name: "empty name", payload: "GCX1 tool=tool_definitions fields=name,scope\n\trepo\n", wantErr: gcx.ErrSchema},
		{name: "wrong fields", payload: "GCX1 tool=tool_definitions fields=scope,name\nrepo\ta\n", wantErr: gcx.ErrSchema},
		{name: "wrong tool", payload: "GCX1 tool=tools fields=name,scope\na\trepo\n", wantErr: gcx.ErrSchema},
	}
	for _, tt := range decodeTests {
		t.Run("decode "+tt.name, func(t *testing.T) {
			secs, err := gcx.UnmarshalSections([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			got, err := gcx.ParseToolDefinitions(secs[0])
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && !cmp.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestToolRequest(t *testing.T) {
	encodeTests := []struct {
		name    string
		req     gcx.ToolRequest
		want    string
		wantErr error
	}{
		{name: "repo", req: gcx.ToolRequest{Tool: "find_usages", Scope: gcx.ScopeRepo, Repo: "gortex"}, want: "GCX1 tool=tool_request fields=tool,scope,repo\nfind_usages\trepo\tgortex\n"},
		{name: "workspace", req: gcx.ToolRequest{Tool: "list_repos", Scope: gcx.ScopeWorkspace}, want: "GCX1 tool=tool_request fields=tool,scope,repo\nlist_repos\tworkspace\t\n"},
		{name: "fan-out all", req: gcx.ToolRequest{Tool: "search_all", Scope: gcx.ScopeFanOut, Repos: []string{"*"}}, want: "GCX1 tool=tool_request fields=tool,scope,repo\nsearch_all\tfan-out\t[\"*\"]\n"},
		{name: "fan-out named", req: gcx.ToolRequest{Tool: "s", Scope: gcx.ScopeFanOut, Repos: []string{"gortex", "a,b", "<x>"}}, want: "GCX1 tool=tool_request fields=tool,scope,repo\ns\tfan-out\t[\"gortex\",\"a,b\",\"<x>\"]\n"},
		{name: "repo without name", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeRepo}, wantErr: gcx.ErrSchema},
		{name: "repo with list", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeRepo, Repo: "a", Repos: []string{"b"}}, wantErr: gcx.ErrSchema},
		{name: "workspace with repo", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeWorkspace, Repo: "a"}, wantErr: gcx.ErrSchema},
		{name: "fan-out empty", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repos: []string{}}, wantErr: gcx.ErrSchema},
		{name: "fan-out star and names", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repos: []string{"*", "a"}}, wantErr: gcx.ErrSchema},
		{name: "fan-out with name", req: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repo: "a"}, wantErr: gcx.ErrSchema},
		{name: "empty tool", req: gcx.ToolRequest{Scope: gcx.ScopeWorkspace}, wantErr: gcx.ErrSchema},
		{name: "unknown scope", req: gcx.ToolRequest{Tool: "t", Scope: "all"}, wantErr: gcx.ErrSchema},
	}
	for _, tt := range encodeTests {
		t.Run("encode "+tt.name, func(t *testing.T) {
			s, err := gcx.ToolRequestSection(tt.req)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			b, err := gcx.MarshalSections(s)
			if err != nil || string(b) != tt.want {
				t.Fatalf("got %q, %v; want %q", b, err, tt.want)
			}
			back, err := gcx.ParseToolRequest(s)
			if err != nil || !cmp.Equal(back, tt.req) {
				t.Errorf("parse back = %+v, %v; want %+v", back, err, tt.req)
			}
		})
	}
	decodeTests := []struct {
		name    string
		row     string
		want    gcx.ToolRequest
		wantErr error
	}{
		{name: "spaced JSON", row: "s\tfan-out\t[ \"a\" , \"b\" ]", want: gcx.ToolRequest{Tool: "s", Scope: gcx.ScopeFanOut, Repos: []string{"a", "b"}}},
		{name: "comma list", row: "s\tfan-out\ta,b", wantErr: gcx.ErrSchema},
		{name: "JSON string", row: "s\tfan-out\t\"a\"", wantErr: gcx.ErrSchema},
		{name: "non-string element", row: "s\tfan-out\t[1]", wantErr: gcx.ErrSchema},
		{name: "empty list", row: "s\tfan-out\t[]", wantErr: gcx.ErrSchema},
		{name: "star and names", row: "s\tfan-out\t[\"*\",\"a\"]", wantErr: gcx.ErrSchema},
		{name: "null", row: "s\tfan-out\tnull", wantErr: gcx.ErrSchema},
		{name: "repo empty", row: "s\trepo\t", wantErr: gcx.ErrSchema},
		{name: "workspace with repo", row: "s\tworkspace\tx", wantErr: gcx.ErrSchema},
		{name: "bad scope", row: "s\tglobal\t", wantErr: gcx.ErrSchema},
		{name: "empty tool", row: "\tworkspace\t", wantErr: gcx.ErrSchema},
	}
	for _, tt := range decodeTests {
		t.Run("decode "+tt.name, func(t *testing.T) {
			secs, err := gcx.UnmarshalSections([]byte("GCX1 tool=tool_request fields=tool,scope,repo\n" + tt.row + "\n"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := gcx.ParseToolRequest(secs[0])
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr == nil && !cmp.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	two := gcx.Section{Tool: "tool_request", Fields: []string{"tool", "scope", "repo"}, Rows: [][]string{{"a", "workspace", ""}, {"b", "workspace", ""}}}
	if _, err := gcx.ParseToolRequest(two); !errors.Is(err, gcx.ErrSchema) {
		t.Errorf("two rows: %v, want ErrSchema", err)
	}
}

func TestErrorEnvelope(t *testing.T) {
	if _, err := gcx.ErrorSection(gcx.ErrorEnvelope{Code: "Unknown-Repo"}); !errors.Is(err, gcx.ErrSchema) {
		t.Errorf("non-snake code: %v, want ErrSchema", err)
	}
	if _, err := gcx.ErrorSection(gcx.ErrorEnvelope{}); !errors.Is(err, gcx.ErrSchema) {
		t.Errorf("empty code: %v, want ErrSchema", err)
	}
	s, err := gcx.ErrorSection(gcx.ErrorEnvelope{Code: gcx.ErrCodeMissingRepo, Message: "needs\trepo", Detail: "string"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := gcx.MarshalSections(s)
	if want := "GCX1 tool=error fields=code,message,detail\nmissing_repo\tneeds\\trepo\tstring\n"; string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	// Decoding accepts codes added later, in any spelling, but not an
	// empty one or a second row.
	tests := []struct {
		name    string
		s       gcx.Section
		want    gcx.ErrorEnvelope
		wantErr error
	}{
		{name: "future code", s: gcx.Section{Tool: "error", Fields: []string{"code", "message", "detail"}, Rows: [][]string{{"Rate-Limited", "m", ""}}}, want: gcx.ErrorEnvelope{Code: "Rate-Limited", Message: "m"}},
		{name: "empty code", s: gcx.Section{Tool: "error", Fields: []string{"code", "message", "detail"}, Rows: [][]string{{"", "m", ""}}}, wantErr: gcx.ErrSchema},
		{name: "two rows", s: gcx.Section{Tool: "error", Fields: []string{"code", "message", "detail"}, Rows: [][]string{{"a", "", ""}, {"b", "", ""}}}, wantErr: gcx.ErrSchema},
		{name: "wrong fields", s: gcx.Section{Tool: "error", Fields: []string{"code", "message"}, Rows: [][]string{{"a", ""}}}, wantErr: gcx.ErrSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcx.ParseError(tt.s)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	var e error = &gcx.ErrorEnvelope{Code: "unknown_repo", Message: "m"}
	if e.Error() != "gcx: unknown_repo: m" {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestResolveRepo(t *testing.T) {
	ws := gcx.Workspace{Enabled: true, Repos: []string{"gortex", "gortex-cloud", "web"}}
	single := gcx.Workspace{Repos: []string{"gortex"}}
	tests := []struct {
		name     string
		scope    gcx.Scope
		repo     any
		ws       gcx.Workspace
		want     gcx.ToolRequest
		wantCode string
		detail   string
	}{
		{name: "repo named", scope: gcx.ScopeRepo, repo: "web", ws: ws, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeRepo, Repo: "web"}},
		{name: "repo absent in workspace", scope: gcx.ScopeRepo, repo: nil, ws: ws, wantCode: gcx.ErrCodeMissingRepo, detail: "string"},
		{name: "repo empty in workspace", scope: gcx.ScopeRepo, repo: "", ws: ws, wantCode: gcx.ErrCodeMissingRepo, detail: "string"},
		{name: "repo absent single", scope: gcx.ScopeRepo, repo: nil, ws: single, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeRepo, Repo: "gortex"}},
		{name: "repo as list", scope: gcx.ScopeRepo, repo: []any{"web"}, ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "string"},
		{name: "repo as number", scope: gcx.ScopeRepo, repo: 3.0, ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "string"},
		{name: "workspace absent", scope: gcx.ScopeWorkspace, repo: nil, ws: ws, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeWorkspace}},
		{name: "workspace with name", scope: gcx.ScopeWorkspace, repo: "web", ws: ws, wantCode: gcx.ErrCodeRepoNotAllowed, detail: "absent"},
		{name: "workspace with empty string", scope: gcx.ScopeWorkspace, repo: "", ws: ws, wantCode: gcx.ErrCodeRepoNotAllowed, detail: "absent"},
		{name: "fan-out absent in workspace", scope: gcx.ScopeFanOut, repo: nil, ws: ws, wantCode: gcx.ErrCodeMissingRepoList, detail: "list"},
		{name: "fan-out absent single", scope: gcx.ScopeFanOut, repo: nil, ws: single, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repos: []string{"*"}}},
		{name: "fan-out string", scope: gcx.ScopeFanOut, repo: "web", ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "list"},
		{name: "fan-out empty list", scope: gcx.ScopeFanOut, repo: []any{}, ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "list"},
		{name: "fan-out non-string", scope: gcx.ScopeFanOut, repo: []any{"web", 1.0}, ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "list"},
		{name: "fan-out star and names", scope: gcx.ScopeFanOut, repo: []any{"*", "web"}, ws: ws, wantCode: gcx.ErrCodeWrongRepoShape, detail: "list"},
		{name: "fan-out star", scope: gcx.ScopeFanOut, repo: []any{"*"}, ws: ws, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repos: []string{"*"}}},
		{name: "fan-out unknown", scope: gcx.ScopeFanOut, repo: []any{"ghost", "web", "zz", "ghost"}, ws: ws, wantCode: gcx.ErrCodeUnknownRepo, detail: `["ghost","zz"]`},
		{name: "fan-out known with duplicates", scope: gcx.ScopeFanOut, repo: []string{"web", "gortex", "web"}, ws: ws, want: gcx.ToolRequest{Tool: "t", Scope: gcx.ScopeFanOut, Repos: []string{"web", "gortex"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, env := gcx.ResolveRepo("t", tt.scope, tt.repo, tt.ws)
			if tt.wantCode != "" {
				if env == nil || env.Code != tt.wantCode || env.Detail != tt.detail || env.Message == "" {
					t.Fatalf("envelope = %+v, want code %s detail %s", env, tt.wantCode, tt.detail)
				}
				if _, err := gcx.ErrorSection(*env); err != nil {
					t.Errorf("envelope does not encode: %v", err)
				}
				return
			}
			if env != nil {
				t.Fatalf("unexpected envelope %+v", env)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
