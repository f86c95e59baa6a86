package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// noSizes ends an --explain made without a graph.
const noSizes = "-- table sizes unknown (no readable graph): compiled as for large tables\n"

func TestRunQuery(t *testing.T) {
	file := filepath.Join(t.TempDir(), "q.json")
	if err := os.WriteFile(file, []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name:     "explain",
			args:     []string{"--scope", "100/:30", "--explain", `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"name":"it's"},"columns":["name"]}],"limit":2}`},
			wantCode: exitOK,
			wantStdout: "SELECT t.id AS n0_id, t.name AS n0_name\nFROM gl_project AS t FINAL\nPREWHERE startsWith(t.traversal_path, {p0:String})\nWHERE t._deleted = false AND t.name = {p1:String}\n" +
				"ORDER BY t.id ASC\nLIMIT 3\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, query_plan_optimize_lazy_materialization = 0\n" +
				"-- p0 String 100/\n-- p1 String it's\n" + noSizes,
		},
		{
			name:       "explain from a file as admin",
			args:       []string{"--admin", "--explain", "@" + file},
			wantCode:   exitOK,
			wantStdout: "SELECT t.id AS n0_id, t.username AS n0_username\nFROM gl_user AS t FINAL\nPREWHERE t.id = {p0:Int64}\nWHERE t._deleted = false\nORDER BY t.id ASC\nLIMIT 31\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0\n-- p0 Int64 1\n" + noSizes,
		},
		{
			name:       "explain from stdin",
			args:       []string{"--admin", "--explain", "-"},
			stdin:      `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[2],"columns":["name"]}]}`,
			wantCode:   exitOK,
			wantStdout: "SELECT t.id AS n0_id, t.name AS n0_name\nFROM gl_user AS t FINAL\nPREWHERE t.id = {p0:Int64}\nWHERE t._deleted = false\nORDER BY t.id ASC\nLIMIT 31\nSETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0\n-- p0 Int64 2\n" + noSizes,
		},
		// A local caller without --scope or --admin may read nothing (NO_SCOPES, as Orbit
		// refuses an empty security context), and is told which flags name a caller.
		{
			name:     "no caller",
			args:     []string{"--explain", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[2]}]}`},
			wantCode: exitPermission,
			wantStderr: "graphwire query: permission_denied NO_SCOPES /: the caller has no traversal_path scope, so it may read no namespace; a token needs at least one scope (administrators need none)\n" +
				"graphwire query: hint: name the caller: --scope PATH (repeatable, e.g. --scope 1/10/) or --admin\n",
		},
		{
			name:       "unknown entity",
			args:       []string{"--explain", `{"query_type":"traversal","nodes":[{"id":"x","entity":"Usr","node_ids":[1]}]}`},
			wantCode:   exitInvalid,
			wantStderr: "graphwire query: invalid_query UNKNOWN_ENTITY /nodes/0/entity: unknown entity \"Usr\" (did you mean \"User\"?); valid options: Branch, Commit, ContainerRepository, Definition, Dependency, Deployment, Directory, Environment, File, Finding, Group, ImportedSymbol, Job, Label, MergeRequest, MergeRequestDiff, MergeRequestDiffFile, Milestone, Note, Package, PackageFile, Pipeline, Project, Runner, SecurityScan, Stage, User, Vulnerability, VulnerabilityIdentifier, VulnerabilityOccurrence, VulnerabilityScanner, WorkItem\n",
		},
		{
			name:       "scope violation",
			args:       []string{"--scope", "100/", "--explain", `{"query_type":"traversal","nodes":[{"id":"x","entity":"Project","filters":{"traversal_path":"200/"}}]}`},
			wantCode:   exitPermission,
			wantStderr: "graphwire query: permission_denied SCOPE_VIOLATION /nodes/0/filters/traversal_path: traversal_path filter lies outside the caller's scopes\n",
		},
		{
			name:       "malformed JSON",
			args:       []string{"--explain", `{"query_type":`},
			wantCode:   exitInvalid,
			wantStderr: "graphwire query: invalid_query PARSE_ERROR /: malformed JSON at line 1, column 15: unexpected end of input, expected a value\n",
		},
		{
			// Text that is not UTF-8 is refused where it is, never run with U+FFFD.
			name:       "invalid UTF-8",
			args:       []string{"--explain", "{\"query_type\":\"traversal\",\"nodes\":[{\"id\":\"u\",\"entity\":\"User\",\"filters\":{\"username\":\"a\xffb\"}}]}"},
			wantCode:   exitInvalid,
			wantStderr: "graphwire query: invalid_query PARSE_ERROR /nodes/0/filters/username: invalid UTF-8 (byte 0xff) at line 1, column 86: the query must be UTF-8 text\n",
		},
		{
			name:       "lone surrogate escape",
			args:       []string{"--explain", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"a\ud800b"}}]}`},
			wantCode:   exitInvalid,
			wantStderr: "graphwire query: invalid_query PARSE_ERROR /nodes/0/filters/username: lone surrogate escape \\ud800 at line 1, column 86: an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character\n",
		},
		{
			name:       "query over the limit",
			args:       []string{"--explain", "-"},
			stdin:      `{"query_type":"traversal",` + strings.Repeat(" ", 131072) + `"nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`,
			wantCode:   exitInvalid,
			wantStderr: "graphwire query: invalid_query LIMIT_EXCEEDED /: the query is 131150 bytes, over the limit of 131072 bytes\n",
		},
		{
			name: "bad format", args: []string{"--format", "yaml", "{}"}, wantCode: exitUsage,
			wantStderr: "graphwire query: unknown --format \"yaml\" (want gcb1, gcf, gcf-graph, gcx, goon, json, markdown, toon, xml, auto, dot, mermaid)\nRun 'graphwire query --help' for usage.\n",
		},
		{name: "admin and scope", args: []string{"--admin", "--scope", "1/", "{}"}, wantCode: exitUsage},
		{name: "bad scope", args: []string{"--scope", "abc", "{}"}, wantCode: exitUsage},
		{name: "no query", args: []string{"--admin"}, wantCode: exitUsage},
		{
			name: "redaction with a server", args: []string{"--server", "127.0.0.1:1", "--token", "t", "--redact-url", "http://127.0.0.1:2/", "{}"}, wantCode: exitUsage,
			wantStderr: "graphwire query: with --server the server redacts (its --redact-url): drop --redact-url\nRun 'graphwire query --help' for usage.\n",
		},
		// A bad flag value is reported before the graph is looked for.
		{
			name:     "unknown llm format without a graph",
			args:     []string{"--embedded", filepath.Join(t.TempDir(), "none"), "--admin", "--format", "llm", "--llm-format", "yaml", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`},
			wantCode: exitUsage,
			wantStderr: "graphwire query: --format llm --llm-format yaml is deprecated and will be removed; use --format yaml\n" +
				"graphwire query: unknown --format \"yaml\" (want gcb1, gcf, gcf-graph, gcx, goon, json, markdown, toon, xml, auto, dot, mermaid)\nRun 'graphwire query --help' for usage.\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"query"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.wantCode {
				t.Fatalf("exit = %d, want %d; stderr:\n%s", code, tt.wantCode, stderr.String())
			}
			if tt.wantStdout != "" || code == exitOK {
				if diff := cmp.Diff(tt.wantStdout, stdout.String()); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			}
			if tt.wantStderr != "" {
				if diff := cmp.Diff(tt.wantStderr, stderr.String()); diff != "" {
					t.Errorf("stderr (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestExplainNeighborsTwoSteps: --explain of a neighbors query prints the one-statement form
// and, after it, the first statement of the two-step plan that runs first, and says so.
func TestExplainNeighborsTwoSteps(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"query", "--admin", "--explain", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"outgoing","rel_types":["HAS_LABEL"]}}`}, strings.NewReader(""), &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit = %d; stderr:\n%s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "-- neighbors run in two steps") || strings.Count(out, "\nWITH\n") != 2 ||
		!strings.Contains(out, "LIMIT 31\n") || strings.Index(out, "LIMIT 31\n") > strings.Index(out, "LIMIT 1001\n") || !strings.HasSuffix(out, noSizes) {
		t.Errorf("explain of neighbors:\n%s", out)
	}
	// path_finding also runs in steps, and its header says so, not neighbors' (found by an
	// outside pass: every plan with a first statement was announced as neighbors).
	stdout.Reset()
	code = run([]string{"query", "--admin", "--explain", `{"query_type":"path_finding","nodes":[{"id":"a","entity":"User","node_ids":[1]},{"id":"b","entity":"Project","node_ids":[1]}],"path":{"type":"shortest","from":"a","to":"b","max_depth":2,"rel_types":"*"}}`}, strings.NewReader(""), &stdout, &stderr)
	// Two statements: the one-statement form, and the first step (with both anchors named by
	// id, the edges at those ids alone, without a WITH).
	if out := stdout.String(); code != exitOK || !strings.HasPrefix(out, "-- path_finding runs in steps") || strings.Count(out, "\nSETTINGS ") != 2 ||
		!strings.Contains(out, "(and of the anchors, when both name their ids)") {
		t.Errorf("explain of path_finding: exit %d\n%s", code, out)
	}
}

// fakeEngine answers the base statement and the hydration statement with canned rows.
type fakeEngine struct{ base, hydration *executor.Result }

func (f *fakeEngine) Run(_ context.Context, q *compiler.Query) (executor.Rows, error) {
	r := f.base
	if strings.HasPrefix(q.SQL, "SELECT {p0:String} AS kind") {
		r = f.hydration
	}
	return executor.SliceRows(r.Columns, r.Rows, executor.Stats{}), nil
}
func (f *fakeEngine) Ping(context.Context) error              { return nil }
func (f *fakeEngine) Version(context.Context) (string, error) { return "fake", nil }
func (f *fakeEngine) Close() error                            { return nil }

// TestExecuteHydrates runs the execute pipeline of a neighbors query on canned rows.
func TestExecuteHydrates(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	comp, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := comp.Compile([]byte(`{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[7],"columns":["iid"]}],"neighbors":{"direction":"incoming","rel_types":["AUTHORED"]}}`), &compiler.Caller{Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	cols := func(names ...string) []executor.Column {
		out := make([]executor.Column, len(names))
		for i, n := range names {
			out[i] = executor.Column{Name: n}
		}
		return out
	}
	fe := &fakeEngine{
		base: &executor.Result{Columns: cols("center_id", "nbr_id", "nbr_kind", "rel_kind", "outgoing"), Rows: [][]any{{int64(7), int64(1), "User", "AUTHORED", false}}},
		// The lookup of the two-step plan, which also hydrates (docs/compiler.md, "Two-step
		// neighbors"): tp is each node's traversal_path.
		hydration: &executor.Result{Columns: cols("kind", "id", "props", "tp"), Rows: [][]any{
			{"MergeRequest", int64(7), []any{"3"}, "1/"},
			{"User", int64(1), []any{"alice", "Alice", "active"}, ""},
		}},
	}
	resp, _, err := executor.Respond(t.Context(), fe, comp, q)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format_version":"5.0.1","query_type":"neighbors","nodes":[{"type":"MergeRequest","id":"7","iid":3},{"type":"User","id":"1","name":"Alice","state":"active","username":"alice"}],"edges":[{"from":"User","from_id":"1","to":"MergeRequest","to_id":"7","type":"AUTHORED"}],"pagination":{"has_more":false,"truncated":false}}`
	if diff := cmp.Diff(want, string(graphresponse.Marshal(resp))); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

// TestExplainReadsTableSizes: with a graph, --explain compiles with its table sizes and
// prints what a run executes: the projects of a small seeded graph are a leaf read whole,
// so their scan has no seed from the hop, and no "table sizes unknown" line follows; without
// a graph the projects are narrowed to the hop's ends and the note says why.
func TestExplainReadsTableSizes(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	if r := runCLI("seed", "--embedded", dir, "--scale", "0.02"); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	const q = `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]},{"id":"p","entity":"Project","columns":["name"]}],"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}]}`
	sized := runCLI("query", "--embedded", dir, "--admin", "--explain", q)
	if sized.code != exitOK {
		t.Fatalf("explain: exit %d; stderr:\n%s", sized.code, sized.stderr)
	}
	if strings.Contains(sized.stdout, "table sizes unknown") {
		t.Errorf("explain with a graph says the sizes are unknown:\n%s", sized.stdout)
	}
	var n1 string
	for _, line := range strings.Split(sized.stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "n1 AS (") {
			n1 = line
		}
	}
	if n1 == "" || strings.Contains(n1, "IN (SELECT") {
		t.Errorf("the small project table is not read whole (n1: %q):\n%s", n1, sized.stdout)
	}
	unsized := runCLI("query", "--embedded", filepath.Join(t.TempDir(), "none"), "--admin", "--explain", q)
	if unsized.code != exitOK || !strings.HasSuffix(unsized.stdout, noSizes) || !strings.Contains(unsized.stdout, "_arr_h0))) WHERE") {
		t.Errorf("explain without a graph: exit %d, want the narrowed statement and the note:\n%s", unsized.code, unsized.stdout)
	}
}

// TestQueryStatsAltered: --stats names the altered values (text-safety markers, and stored
// text that was not UTF-8, answered repaired) when there are any, before the time.
func TestQueryStatsAltered(t *testing.T) {
	tests := []struct {
		name string
		st   queryStats
		want string
	}{
		{"none", queryStats{format: "goon", version: "4.1.0", rows: 2, tokens: 30, bytes: 90, elapsed: 12 * time.Millisecond},
			"goon 4.1.0, 2 rows, 30 tokens (o200k_base), 90 bytes, 12ms"},
		{"two", queryStats{format: "json", version: "5.0.1", rows: 1, tokens: 40, bytes: 120, elapsed: 3 * time.Millisecond, altered: 2},
			"json 5.0.1, 1 rows, 40 tokens (o200k_base), 120 bytes, 2 altered values, 3ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.st.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestLocalCursorAcrossRuns: the next_cursor one local run prints continues in the next run
// (local cursors are signed with a fixed key), and the same cursor with an edited payload is
// INVALID_CURSOR, exit 3, instead of a seek elsewhere.
func TestLocalCursorAcrossRuns(t *testing.T) {
	requireCHDB(t)
	dir := graphFlags(t, t.TempDir())
	if r := runCLI(on(dir, "seed", "--scale", "0.02")...); r.code != exitOK {
		t.Fatalf("seed: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	page := func(after string) (ids []string, next string, r result) {
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":1000}}],"cursor":{"page_size":3` + after + `}}`
		r = runCLI(on(dir, "query", "--admin", q)...)
		if r.code != exitOK {
			return nil, "", r
		}
		var resp struct {
			Nodes []struct {
				ID string `json:"id"`
			} `json:"nodes"`
			Pagination struct {
				NextCursor string `json:"next_cursor"`
			} `json:"pagination"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil {
			t.Fatalf("answer %q: %v", r.stdout, err)
		}
		for _, n := range resp.Nodes {
			ids = append(ids, n.ID)
		}
		return ids, resp.Pagination.NextCursor, r
	}
	first, cur, r := page("")
	if len(first) != 3 || cur == "" {
		t.Fatalf("first page %v, cursor %q (exit %d, %s)", first, cur, r.code, r.stderr)
	}
	second, _, r := page(`,"after":"` + cur + `"`)
	if r.code != exitOK || len(second) == 0 || slices.Contains(second, first[len(first)-1]) {
		t.Fatalf("second page %v after %v: exit %d, %s", second, first, r.code, r.stderr)
	}
	payload, sig, _ := strings.Cut(cur, ".")
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		H string    `json:"h"`
		K []*string `json:"k"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || len(c.K) == 0 || c.K[0] == nil {
		t.Fatalf("cursor payload %s: %v", raw, err)
	}
	zero := "0"
	c.K[0] = &zero // seek back to the start
	raw, _ = json.Marshal(c)
	_, _, r = page(`,"after":"` + base64.RawURLEncoding.EncodeToString(raw) + "." + sig + `"`)
	if r.code != exitInvalid || !strings.Contains(r.stderr, "altered") {
		t.Errorf("edited cursor: exit %d, stderr %s; want exit %d, the cursor was altered", r.code, r.stderr, exitInvalid)
	}
}
