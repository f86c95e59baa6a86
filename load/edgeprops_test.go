package load_test

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// oldDDL is the schema of ontology version 2: the edge tables and their view without the
// edge property columns.
func oldDDL(o *ontology.Ontology) []string {
	var out []string
	for _, s := range o.DDLStatements() {
		s = strings.ReplaceAll(s, "    project_id Int64 DEFAULT 0,\n", "")
		s = strings.ReplaceAll(s, "    branch LowCardinality(String) DEFAULT '',\n", "")
		out = append(out, strings.ReplaceAll(s, ", project_id, branch", ""))
	}
	return out
}

// TestEdgeProperties: a graph created with the version 2 schema (no project_id or branch on
// its edges) gets the columns when it is next loaded, keeps its edges (reading 0 and ”), and
// then stores and answers edge properties: a CALLS edge loaded again with a project is
// rewritten, the view fills gl_edge_by_target with the new columns, a type that does not
// declare them stores the defaults, a bad value is refused with its file, row and column, and
// a relationship filter on project_id or branch returns only that project's or branch's edges.
func TestEdgeProperties(t *testing.T) {
	o := ont(t)
	e := openAt(t, t.TempDir(), "")
	for _, s := range oldDDL(o) {
		if strings.Contains(s, "project_id Int64 DEFAULT") || strings.Contains(s, "project_id, branch") {
			t.Fatalf("old DDL still has the edge properties: %s", s)
		}
		if err := e.Exec(t.Context(), s); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Exec(t.Context(), "INSERT INTO gl_edge (traversal_path, relationship_kind, source_kind, source_id, target_kind, target_id, _version) VALUES "+
		"('1/10/', 'CALLS', 'Definition', 300, 'Definition', 301, 1), ('1/10/', 'CALLS', 'Definition', 300, 'Definition', 300, 1)"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	defs := load.Source{Path: "testdata/graph/Definition.jsonl"}
	if _, err := load.Load(t.Context(), e, o, []load.Source{defs, {Path: "testdata/graph/Directory.jsonl"}}, load.Options{}); err != nil {
		t.Fatalf("load into a version 2 graph: %v", err)
	}
	const edges = "SELECT relationship_kind, source_id, target_id, project_id, branch FROM %s FINAL WHERE _deleted = false ORDER BY ALL"
	old := [][]any{{"CALLS", int64(300), int64(300), int64(0), ""}, {"CALLS", int64(300), int64(301), int64(0), ""}}
	for _, tab := range []string{"gl_edge", "gl_edge_by_target"} {
		if diff := cmp.Diff(old, query(t, e, strings.Replace(edges, "%s", tab, 1))); diff != "" {
			t.Errorf("%s after the migration (-want +got):\n%s", tab, diff)
		}
	}
	if _, err := load.Load(t.Context(), e, o, []load.Source{
		{Path: write(t, dir, "CALLS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 300, "target_kind": "Definition", "target_id": 301, "project_id": 10, "branch": "main"}`+"\n"+
			`{"traversal_path": "1/10/", "source_kind": "Definition", "source_id": 301, "target_kind": "Definition", "target_id": 300, "project_id": "11", "branch": "dev"}`+"\n")},
		{Path: write(t, dir, "CONTAINS.jsonl", `{"traversal_path": "1/10/", "source_kind": "Directory", "source_id": 100, "target_kind": "Directory", "target_id": 101, "project_id": 10, "branch": "main"}`+"\n")},
	}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"CALLS", int64(300), int64(300), int64(0), ""},
		{"CALLS", int64(300), int64(301), int64(10), "main"},
		{"CALLS", int64(301), int64(300), int64(11), "dev"},
		{"CONTAINS", int64(100), int64(101), int64(0), ""}, // CONTAINS declares no edge property
	}
	for _, tab := range []string{"gl_edge", "gl_edge_by_target"} {
		if diff := cmp.Diff(want, query(t, e, strings.Replace(edges, "%s", tab, 1))); diff != "" {
			t.Errorf("%s after loading edge properties (-want +got):\n%s", tab, diff)
		}
	}
	// The migrated edge tables have the columns of a graph created now, in the same order
	// (a load copies one edge table's delta into the other's with SELECT *).
	for _, tab := range []string{"gl_edge", "gl_edge_by_target"} {
		var got []string
		for _, r := range query(t, e, "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '"+tab+"' ORDER BY position") {
			got = append(got, r[0].(string))
		}
		if diff := cmp.Diff(ontology.EdgeColumns, got); diff != "" {
			t.Errorf("%s columns after the migration (-want +got):\n%s", tab, diff)
		}
	}
	// The view was created again: a row inserted into gl_edge reaches gl_edge_by_target whole.
	if err := e.Exec(t.Context(), "INSERT INTO gl_edge (traversal_path, relationship_kind, source_kind, source_id, target_kind, target_id, project_id, branch, _version) VALUES "+
		"('1/10/', 'EXTENDS', 'Definition', 300, 'Definition', 302, 12, 'x', 99)"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]any{{int64(12), "x"}}, query(t, e, "SELECT project_id, branch FROM gl_edge_by_target WHERE relationship_kind = 'EXTENDS'")); diff != "" {
		t.Errorf("gl_edge_by_target row from the view (-want +got):\n%s", diff)
	}

	// An export keeps them, so that loading it again gives the same edges.
	out := t.TempDir()
	files, err := load.Export(t.Context(), e, o, out, load.ExportOptions{Types: []string{"CALLS"}})
	if err != nil || len(files) != 1 {
		t.Fatalf("export: %v %+v", err, files)
	}
	text, err := os.ReadFile(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), `"project_id":"11","branch":"dev"`) && !strings.Contains(string(text), `"project_id":11,"branch":"dev"`) {
		t.Errorf("exported CALLS without its edge properties:\n%s", text)
	}

	_, err = load.Load(t.Context(), e, o, []load.Source{{Path: write(t, dir, "IMPORTS.jsonl",
		`{"traversal_path": "1/10/", "source_kind": "File", "source_id": 200, "target_kind": "ImportedSymbol", "target_id": 1, "project_id": "ten"}`+"\n")}}, load.Options{})
	var ve *load.ValidationError
	if !errors.As(err, &ve) || !slices.ContainsFunc(ve.Issues, func(i load.Issue) bool { return i.Column == "project_id" && i.Row == 0 && i.Line == 1 }) {
		t.Errorf("project_id \"ten\": err = %v (%+v), want an issue at row 0 (line 1), column project_id", err, ve)
	}

	comp, err := compiler.New(o, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	caller := &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "1/10/", Level: 30}}}
	for filter, want := range map[string][]string{
		`{"project_id": 10}`:               {"300-CALLS->301"},
		`{"project_id": {"in": [10, 11]}}`: {"300-CALLS->301", "301-CALLS->300"},
		`{"branch": "dev"}`:                {"301-CALLS->300"},
		`{"project_id": 0}`:                {"300-CALLS->300"},
	} {
		q, err := comp.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"a","entity":"Definition","node_ids":[300,301]},{"id":"b","entity":"Definition"}],`+
			`"relationships":[{"type":"CALLS","from":"a","to":"b","filters":`+filter+`}],"limit":10}`), caller)
		if err != nil {
			t.Fatalf("filter %s: %v", filter, err)
		}
		if len(q.Params) == 0 || strings.Contains(q.SQL, "'dev'") || strings.Contains(q.SQL, "project_id = 10") || strings.Contains(q.SQL, "project_id = 0") {
			t.Errorf("filter %s: the value is not a parameter:\n%s", filter, q.SQL)
		}
		resp, _, err := executor.Respond(t.Context(), e, comp, q)
		if err != nil {
			t.Fatalf("filter %s: %v", filter, err)
		}
		var got []string
		for _, ed := range resp.Edges {
			got = append(got, strconv.FormatInt(ed.FromID, 10)+"-"+ed.Type+"->"+strconv.FormatInt(ed.ToID, 10))
		}
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("CALLS filtered by %s (-want +got):\n%s", filter, diff)
		}
	}
}
