package load_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/load"
)

// TestExportAnswer exports the answer of a traversal for a caller scoped to 1/10/ and loads it
// into an empty graph: that graph holds exactly the answer's nodes and edges, and none of the
// rows under 1/20/, not even the File that shares an id with one of the answer's.
func TestExportAnswer(t *testing.T) {
	o := ont(t)
	path := t.TempDir()
	first := openAt(t, path, "first")
	if _, err := load.Load(t.Context(), first, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if _, err := load.Load(t.Context(), first, o, []load.Source{
		{Path: write(t, other, "Directory.jsonl", `{"id": 101, "traversal_path": "1/20/", "path": "pkg", "name": "pkg", "project_id": 20}`+"\n")},
		{Path: write(t, other, "File.jsonl", `{"id": 200, "traversal_path": "1/20/", "path": "pkg/a.go", "name": "a.go", "project_id": 20}`+"\n")},
		{Path: write(t, other, "CONTAINS.jsonl", `{"traversal_path": "1/20/", "source_kind": "Directory", "source_id": 101, "target_kind": "File", "target_id": 200}`+"\n")},
	}, load.Options{}); err != nil {
		t.Fatal(err)
	}
	comp, err := compiler.New(o, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	caller := &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "1/10/", Level: 30}}}
	q, err := comp.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"d","entity":"Directory","node_ids":[101]},{"id":"f","entity":"File","columns":["path"]}],`+
		`"relationships":[{"type":"CONTAINS","from":"d","to":"f"}],"limit":10}`), caller)
	if err != nil {
		t.Fatal(err)
	}
	resp, _, err := executor.Respond(t.Context(), first, comp, q)
	if err != nil {
		t.Fatal(err)
	}
	var wantNodes, wantEdges [][]any
	for _, n := range resp.Nodes {
		wantNodes = append(wantNodes, []any{n.Type, n.ID, "1/10/"})
	}
	for _, e := range resp.Edges {
		wantEdges = append(wantEdges, []any{e.Type, e.From, e.FromID, e.To, e.ToID})
	}
	sortRows(wantNodes)
	sortRows(wantEdges)
	if len(wantNodes) != 3 || len(wantEdges) != 2 {
		t.Fatalf("answer has %d nodes and %d edges, want Directory 101 and Files 200 and 201 joined by 2 edges: %+v", len(wantNodes), len(wantEdges), resp)
	}
	for _, f := range load.Formats {
		t.Run(string(f), func(t *testing.T) {
			files, err := load.ExportAnswer(t.Context(), first, o, resp, caller, t.TempDir(), load.ExportOptions{Format: f})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var srcs []load.Source
			for _, fr := range files {
				names = append(names, filepath.Base(fr.Path))
				srcs = append(srcs, load.Source{Path: fr.Path})
			}
			ext := "." + string(f)
			if want := []string{"CONTAINS" + ext, "Directory" + ext, "File" + ext}; !slices.Equal(names, want) {
				t.Fatalf("files = %v, want %v", names, want)
			}
			second := openAt(t, path, "answer_"+string(f))
			if _, err := load.Load(t.Context(), second, o, srcs, load.Options{}); err != nil {
				t.Fatal(err)
			}
			got := query(t, second, "SELECT 'Directory', id, traversal_path FROM gl_directory FINAL WHERE _deleted = false "+
				"UNION ALL SELECT 'File', id, traversal_path FROM gl_file FINAL WHERE _deleted = false")
			sortRows(got)
			if diff := cmp.Diff(wantNodes, got); diff != "" {
				t.Errorf("nodes after load(export(answer)) (-answer +got):\n%s", diff)
			}
			got = query(t, second, "SELECT relationship_kind, source_kind, source_id, target_kind, target_id FROM gl_edge FINAL WHERE _deleted = false")
			sortRows(got)
			if diff := cmp.Diff(wantEdges, got); diff != "" {
				t.Errorf("edges after load(export(answer)) (-answer +got):\n%s", diff)
			}
			// The rows are whole: a property the query did not ask for came along.
			if got := query(t, second, "SELECT content FROM gl_file FINAL WHERE id = 200"); len(got) != 1 || got[0][0] != "package pkg\n\nfunc A() { B() }\n" {
				t.Errorf("File 200 content = %v, want the fixture's", got)
			}
		})
	}
}

// sortRows orders rows by their printed form.
func sortRows(rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int { return strings.Compare(fmt.Sprint(a...), fmt.Sprint(b...)) })
}
