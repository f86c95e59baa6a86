package gcx

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Scope is where a tool runs in a workspace-aware tool server (spec §10).
type Scope string

// The three scopes of GCX1 v1.
const (
	ScopeRepo      Scope = "repo"
	ScopeWorkspace Scope = "workspace"
	ScopeFanOut    Scope = "fan-out"
)

func (s Scope) valid() bool { return s == ScopeRepo || s == ScopeWorkspace || s == ScopeFanOut }

// Error codes of the error envelope (spec §10.3).
const (
	ErrCodeUnknownRepo     = "unknown_repo"
	ErrCodeMissingRepoList = "missing_repo_list"
	ErrCodeMissingRepo     = "missing_repo"
	ErrCodeRepoNotAllowed  = "repo_not_allowed"
	ErrCodeWrongRepoShape  = "wrong_repo_shape"
)

// Tools of the envelope sections.
const (
	toolDefinitions = "tool_definitions"
	toolRequest     = "tool_request"
	toolError       = "error"
)

// ToolDefinition is one row of a tool_definitions section.
type ToolDefinition struct {
	Name  string
	Scope Scope
}

// ToolRequest is the single row of a tool_request section.
type ToolRequest struct {
	Tool  string
	Scope Scope
	Repo  string   // ScopeRepo only
	Repos []string // ScopeFanOut only; []string{"*"} means every repository
}

// ErrorEnvelope is the single row of an error section. It is also an error.
type ErrorEnvelope struct{ Code, Message, Detail string }

// Error returns "gcx: code: message".
func (e *ErrorEnvelope) Error() string { return "gcx: " + e.Code + ": " + e.Message }

// Workspace describes the server a request is resolved against.
type Workspace struct {
	Enabled bool     // workspace mode; false is single-repository mode
	Repos   []string // member repositories; in single-repository mode the first is the server's own
}

func envErr(tool, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", tool, fmt.Sprintf(format, args...), ErrSchema)
}

func checkEnvelope(s Section, tool string, fields ...string) error {
	if s.Tool != tool {
		return envErr(tool, "section tool is %q", s.Tool)
	}
	if !slices.Equal(s.Fields, fields) {
		return envErr(tool, "fields are %q, want %q", s.Fields, fields)
	}
	for i, row := range s.Rows {
		if len(row) > len(fields) {
			return envErr(tool, "row %d has %d cells", i, len(row))
		}
	}
	return nil
}

func cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// ToolDefinitionsSection returns the tool_definitions section of defs,
// sorted by name. Empty or repeated names and invalid scopes fail with
// [ErrSchema]. An empty registry is a header-only section.
func ToolDefinitionsSection(defs []ToolDefinition) (Section, error) {
	sorted := slices.Clone(defs)
	slices.SortStableFunc(sorted, func(a, b ToolDefinition) int { return strings.Compare(a.Name, b.Name) })
	s := Section{Tool: toolDefinitions, Fields: []string{"name", "scope"}, Rows: make([][]string, 0, len(defs))}
	for i, d := range sorted {
		if cellText(d.Name) == "" {
			return Section{}, envErr(toolDefinitions, "empty tool name")
		}
		if i > 0 && sorted[i-1].Name == d.Name {
			return Section{}, envErr(toolDefinitions, "tool %q defined twice", d.Name)
		}
		if !d.Scope.valid() {
			return Section{}, envErr(toolDefinitions, "tool %q has scope %q", d.Name, d.Scope)
		}
		s.Rows = append(s.Rows, []string{d.Name, string(d.Scope)})
	}
	return s, nil
}

// ParseToolDefinitions reads a tool_definitions section. Names must be
// non-empty, unique and sorted; scopes valid. Meta is ignored.
func ParseToolDefinitions(s Section) ([]ToolDefinition, error) {
	if err := checkEnvelope(s, toolDefinitions, "name", "scope"); err != nil {
		return nil, err
	}
	defs := make([]ToolDefinition, 0, len(s.Rows))
	for i, row := range s.Rows {
		d := ToolDefinition{Name: cell(row, 0), Scope: Scope(cell(row, 1))}
		if d.Name == "" {
			return nil, envErr(toolDefinitions, "row %d: empty tool name", i)
		}
		if i > 0 && defs[i-1].Name >= d.Name {
			return nil, envErr(toolDefinitions, "row %d: %q is not after %q", i, d.Name, defs[i-1].Name)
		}
		if !d.Scope.valid() {
			return nil, envErr(toolDefinitions, "row %d: scope %q", i, d.Scope)
		}
		defs = append(defs, d)
	}
	return defs, nil
}

// checkRepos checks the repo list of a fan-out request.
func checkRepos(repos []string) error {
	if len(repos) == 0 {
		return errors.New("empty repository list")
	}
	for _, r := range repos {
		if r == "*" && len(repos) > 1 {
			return errors.New(`"*" next to other names`)
		}
		if r == "" {
			return errors.New("empty repository name")
		}
	}
	return nil
}

// ToolRequestSection returns the tool_request section of r. The repo cell
// holds the name for ScopeRepo, nothing for ScopeWorkspace and a compact
// JSON array for ScopeFanOut; any other combination fails with
// [ErrSchema].
func ToolRequestSection(r ToolRequest) (Section, error) {
	if cellText(r.Tool) == "" {
		return Section{}, envErr(toolRequest, "empty tool")
	}
	var repo string
	switch r.Scope {
	case ScopeRepo:
		if cellText(r.Repo) == "" || r.Repos != nil {
			return Section{}, envErr(toolRequest, "scope repo needs one repository name and no list")
		}
		repo = r.Repo
	case ScopeWorkspace:
		if r.Repo != "" || r.Repos != nil {
			return Section{}, envErr(toolRequest, "scope workspace takes no repository")
		}
	case ScopeFanOut:
		if r.Repo != "" {
			return Section{}, envErr(toolRequest, "scope fan-out takes a list, not a name")
		}
		if err := checkRepos(r.Repos); err != nil {
			return Section{}, envErr(toolRequest, "%v", err)
		}
		b, err := compactJSON(r.Repos, false)
		if err != nil {
			return Section{}, envErr(toolRequest, "%v", err)
		}
		repo = string(b)
	default:
		return Section{}, envErr(toolRequest, "scope %q", r.Scope)
	}
	return Section{Tool: toolRequest, Fields: []string{"tool", "scope", "repo"}, Rows: [][]string{{r.Tool, string(r.Scope), repo}}}, nil
}

// ParseToolRequest reads a tool_request section: exactly one row whose
// repo cell fits its scope. A fan-out list may be any JSON array of
// strings. Meta is ignored.
func ParseToolRequest(s Section) (ToolRequest, error) {
	if err := checkEnvelope(s, toolRequest, "tool", "scope", "repo"); err != nil {
		return ToolRequest{}, err
	}
	if len(s.Rows) != 1 {
		return ToolRequest{}, envErr(toolRequest, "%d rows, want 1", len(s.Rows))
	}
	row := s.Rows[0]
	r := ToolRequest{Tool: cell(row, 0), Scope: Scope(cell(row, 1))}
	repo := cell(row, 2)
	if r.Tool == "" {
		return ToolRequest{}, envErr(toolRequest, "empty tool")
	}
	switch r.Scope {
	case ScopeRepo:
		if repo == "" {
			return ToolRequest{}, envErr(toolRequest, "scope repo without repository")
		}
		r.Repo = repo
	case ScopeWorkspace:
		if repo != "" {
			return ToolRequest{}, envErr(toolRequest, "scope workspace with repository %q", repo)
		}
	case ScopeFanOut:
		var list []string
		if err := json.Unmarshal([]byte(repo), &list); err != nil || !strings.HasPrefix(strings.TrimSpace(repo), "[") {
			return ToolRequest{}, envErr(toolRequest, "repo %q is not a JSON array of strings", repo)
		}
		if err := checkRepos(list); err != nil {
			return ToolRequest{}, envErr(toolRequest, "%v", err)
		}
		r.Repos = list
	default:
		return ToolRequest{}, envErr(toolRequest, "scope %q", r.Scope)
	}
	return r, nil
}

func snakeCase(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// ErrorSection returns the error section of e. The code must be
// snake_case ([a-z][a-z0-9_]*), else [ErrSchema].
func ErrorSection(e ErrorEnvelope) (Section, error) {
	if !snakeCase(e.Code) {
		return Section{}, envErr(toolError, "code %q is not snake_case", e.Code)
	}
	return Section{Tool: toolError, Fields: []string{"code", "message", "detail"}, Rows: [][]string{{e.Code, e.Message, e.Detail}}}, nil
}

// ParseError reads an error section: exactly one row with a non-empty
// code, which need not be a known one. Meta is ignored.
func ParseError(s Section) (ErrorEnvelope, error) {
	if err := checkEnvelope(s, toolError, "code", "message", "detail"); err != nil {
		return ErrorEnvelope{}, err
	}
	if len(s.Rows) != 1 {
		return ErrorEnvelope{}, envErr(toolError, "%d rows, want 1", len(s.Rows))
	}
	row := s.Rows[0]
	e := ErrorEnvelope{Code: cell(row, 0), Message: cell(row, 1), Detail: cell(row, 2)}
	if e.Code == "" {
		return ErrorEnvelope{}, envErr(toolError, "empty code")
	}
	return e, nil
}

// ResolveRepo checks the raw repo argument of a call to tool (a decoded
// JSON value: nil for absent or null, string, []any or []string, or
// anything else) against the tool's scope, following the table of spec
// §10.4. It returns the request to run, or the error envelope to send back.
// In single-repository mode a repo-scoped call without repo runs on
// ws.Repos[0] (empty when ws.Repos is empty).
func ResolveRepo(tool string, scope Scope, repo any, ws Workspace) (ToolRequest, *ErrorEnvelope) {
	req := ToolRequest{Tool: tool, Scope: scope}
	shape := func(want string) *ErrorEnvelope {
		return &ErrorEnvelope{Code: ErrCodeWrongRepoShape, Message: "tool " + tool + " takes repo as " + want, Detail: want}
	}
	switch scope {
	case ScopeRepo:
		switch v := repo.(type) {
		case nil:
		case string:
			if v != "" {
				req.Repo = v
				return req, nil
			}
		default:
			return ToolRequest{}, shape("string")
		}
		if ws.Enabled {
			return ToolRequest{}, &ErrorEnvelope{Code: ErrCodeMissingRepo, Message: "tool " + tool + " needs repo in workspace mode", Detail: "string"}
		}
		if len(ws.Repos) > 0 {
			req.Repo = ws.Repos[0]
		}
		return req, nil
	case ScopeWorkspace:
		if repo != nil {
			return ToolRequest{}, &ErrorEnvelope{Code: ErrCodeRepoNotAllowed, Message: "tool " + tool + " runs on the whole workspace and takes no repo", Detail: "absent"}
		}
		return req, nil
	case ScopeFanOut:
		if repo == nil {
			if ws.Enabled {
				return ToolRequest{}, &ErrorEnvelope{Code: ErrCodeMissingRepoList, Message: "tool " + tool + " needs a repo list in workspace mode", Detail: "list"}
			}
			req.Repos = []string{"*"}
			return req, nil
		}
		var names []string
		switch v := repo.(type) {
		case []string:
			names = v
		case []any:
			names = make([]string, len(v))
			for i, e := range v {
				s, ok := e.(string)
				if !ok {
					return ToolRequest{}, shape("list")
				}
				names[i] = s
			}
		default:
			return ToolRequest{}, shape("list")
		}
		if len(names) == 0 || (slices.Contains(names, "*") && len(names) > 1) {
			return ToolRequest{}, shape("list")
		}
		if len(names) == 1 && names[0] == "*" {
			req.Repos = []string{"*"}
			return req, nil
		}
		var unknown, kept []string
		for _, n := range names {
			if !slices.Contains(ws.Repos, n) {
				if !slices.Contains(unknown, n) {
					unknown = append(unknown, n)
				}
				continue
			}
			if !slices.Contains(kept, n) {
				kept = append(kept, n)
			}
		}
		if len(unknown) > 0 {
			detail, _ := compactJSON(unknown, false)
			return ToolRequest{}, &ErrorEnvelope{Code: ErrCodeUnknownRepo, Message: "fan-out request names a repository outside the workspace", Detail: string(detail)}
		}
		req.Repos = kept
		return req, nil
	}
	return ToolRequest{}, &ErrorEnvelope{Code: ErrCodeWrongRepoShape, Message: "tool " + tool + " has unknown scope " + string(scope), Detail: "absent"}
}
