package toon

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// traversalLiteral is the Go literal of spec §7.4.
const traversalLiteral = "query_type: traversal\nnodes:\n  MergeRequest[1]{id,iid,state,title}:\n    \"482927048\",18,merged,\"chore: move skill to project scope\"\n  Project[1]{id,full_path,name}:\n    \"80212187\",gitlab-com/cx-engineering/webapp-scaffold,webapp-scaffold\n  User[1]{id,name,username}:\n    \"5252563\",Jordan NG,jordan_ng\nedges:\n  AUTHORED:\n    User:\n      MergeRequest[1]{from_id,to_id}:\n        \"5252563\",\"482927048\"\n  IN_PROJECT:\n    MergeRequest:\n      Project[1]{from_id,to_id}:\n        \"482927048\",\"80212187\""

func readResponse(t testing.TB, path string) *graphresponse.Response {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := graphresponse.Unmarshal(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func TestResponseGoldens(t *testing.T) {
	golden, err := os.ReadFile("testdata/graph_traversal.toon")
	if err != nil {
		t.Fatal(err)
	}
	if string(golden) != traversalLiteral {
		t.Fatalf("testdata/graph_traversal.toon differs from the spec literal")
	}
	for _, name := range []string{"graph_traversal", "graph_aggregation", "graph_path_finding", "graph_empty", "graph_aggregation_empty"} {
		t.Run(name, func(t *testing.T) {
			r := readResponse(t, filepath.Join("testdata", name+".json"))
			want, err := os.ReadFile(filepath.Join("testdata", name+".toon"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := MarshalResponse(r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("rendering mismatch\n--- got ---\n%s\n--- want ---\n%s", got, want)
			}
			var buf bytes.Buffer
			if err := NewEncoder(&buf, Options{}).EncodeResponse(r); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("EncodeResponse differs from MarshalResponse")
			}
		})
	}
}

// goonInputs returns the RAW GraphResponses of shared/conformance/goon.
func goonInputs(t testing.TB) []string {
	t.Helper()
	dir := conformance.Dir(t, "goon")
	files, err := filepath.Glob(filepath.Join(dir, "*.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no GOON inputs under %s", dir)
	}
	slices.Sort(files)
	return files
}

// checkRendering asserts the §7.7 corpus properties for one response.
func checkRendering(t *testing.T, r *graphresponse.Response) []byte {
	t.Helper()
	shape, err := ShapeResponse(r)
	if err != nil {
		t.Fatalf("ShapeResponse: %v", err)
	}
	out, err := MarshalResponse(r, Options{})
	if err != nil {
		t.Fatalf("MarshalResponse: %v", err)
	}
	back, err := Unmarshal(out)
	if err != nil {
		t.Fatalf("strict Unmarshal of the rendering: %v\n%s", err, out)
	}
	if !Equal(back, shape) {
		t.Fatalf("decoded rendering differs from the shaped value\n got: %s\nwant: %s", describe(back), describe(shape))
	}
	again, err := MarshalResponse(r, Options{})
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("second rendering differs")
	}
	return out
}

func TestResponseCorpus(t *testing.T) {
	files := goonInputs(t)
	if len(files) < 62 {
		t.Errorf("found %d GOON inputs, want 62", len(files))
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".input.json")
		t.Run(name, func(t *testing.T) {
			r := readResponse(t, f)
			out := checkRendering(t, r)
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(strings.TrimLeft(line, " "), "- ") || strings.TrimSpace(line) == "-" {
					if len(r.GroupColumns)+len(r.Columns) == 0 && r.Rows != nil {
						continue // rows without columns are bare "-" items (§7.3)
					}
					t.Errorf("list item in the rendering: %q", line)
				}
			}
		})
	}
}

func TestResponseDeterminism(t *testing.T) {
	r := readResponse(t, "testdata/graph_traversal.json")
	want, err := MarshalResponse(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Shuffle property order and interleave node types differently.
	r2 := readResponse(t, "testdata/graph_traversal.json")
	for i := range r2.Nodes {
		slices.Reverse(r2.Nodes[i].Props)
	}
	slices.Reverse(r2.Nodes)
	got, err := MarshalResponse(r2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("reordering props and node types changed the bytes\n%s\n---\n%s", got, want)
	}
}

func TestResponseShapes(t *testing.T) {
	cursor := ""
	r := &graphresponse.Response{
		QueryType: "neighbors",
		Nodes: []graphresponse.Node{
			{Type: "Legal Entity", ID: 9, Props: []graphresponse.Member{
				{Key: "name", Value: graphresponse.String("ACME")},
				{Key: "tax id", Value: graphresponse.String("X-1")},
				{Key: "_props", Value: graphresponse.String("dup")},
				{Key: "empty", Value: graphresponse.Null()},
				{Key: "nan", Value: graphresponse.Float(nan())},
				{Key: "tags", Value: graphresponse.Array(graphresponse.String("a"), graphresponse.Int(1))},
			}},
			{Type: "Legal Entity", ID: 10, Props: []graphresponse.Member{
				{Key: "name", Value: graphresponse.String("cr\r")},
				{Key: "f", Value: graphresponse.Float(2)},
			}},
		},
		Edges: []graphresponse.Edge{
			{From: "Legal Entity", FromID: 9, To: "Legal Entity", ToID: 10, Type: "OWNS", Depth: graphresponse.Some(1)},
			{From: "Legal Entity", FromID: 10, To: "Legal Entity", ToID: 9, Type: "OWNS"},
		},
		Pagination: &graphresponse.Pagination{NextCursor: &cursor},
	}
	out := checkRendering(t, r)
	want := "query_type: neighbors\n" +
		"next_cursor: \"\"\n" +
		"nodes:\n" +
		"  \"Legal Entity\"[2]{id,f,name,tags,_props}:\n" +
		"    \"9\",null,ACME,\"[\\\"a\\\",1]\",\"{\\\"_props\\\":\\\"dup\\\",\\\"tax id\\\":\\\"X-1\\\"}\"\n" +
		"    \"10\",2,\"cr\\r\",null,null\n" +
		"edges:\n" +
		"  OWNS:\n" +
		"    \"Legal Entity\":\n" +
		"      \"Legal Entity\"[2]{from_id,to_id,depth}:\n" +
		"        \"9\",\"10\",1\n" +
		"        \"10\",\"9\",null"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestResponseRowsShapes(t *testing.T) {
	bucket := func(typ, id string, props ...graphresponse.Member) graphresponse.Value {
		return graphresponse.NodeBucket(typ, id, props)
	}
	r := &graphresponse.Response{
		QueryType: "aggregation",
		GroupColumns: []graphresponse.GroupColumn{
			{Name: "u", Kind: "node", Node: "u", Entity: "User"},
			{Name: "avg age", Kind: "property", Node: "p", Property: "age"},
		},
		Columns: []graphresponse.Column{
			{Name: "avg_age", Function: "avg", Target: "p", Property: "age"},
			{Name: "c", Function: "collect", Target: "p"},
		},
		Rows: []graphresponse.Row{
			{
				{Key: "u", Value: bucket("Bot", "1", graphresponse.Member{Key: "id", Value: graphresponse.String("x")}, graphresponse.Member{Key: "name", Value: graphresponse.String("b")})},
				{Key: "avg age", Value: graphresponse.Int(3)},
				{Key: "avg_age", Value: graphresponse.Float(2.5)},
				{Key: "c", Value: graphresponse.Array(graphresponse.Int(1), graphresponse.Int(2))},
			},
			{
				{Key: "u", Value: graphresponse.Null()},
				{Key: "avg_age", Value: graphresponse.Float(1e21)},
			},
			{
				{Key: "u", Value: bucket("User", "")},
			},
		},
	}
	out := checkRendering(t, r)
	want := "query_type: aggregation\n" +
		"columns[4]{name,kind,function,alias,property,entity}:\n" +
		"  u,node,null,u,null,User\n" +
		"  avg age,property,null,p,age,null\n" +
		"  avg_age,metric,avg,p,age,null\n" +
		"  c,metric,collect,p,null,null\n" +
		"rows[3]{u.type,u.id,u.name,u._props,avg_age,\"avg_age~2\",c}:\n" +
		"  Bot,\"1\",b,\"{\\\"id\\\":\\\"x\\\"}\",3,2.5,\"[1,2]\"\n" +
		"  null,null,null,null,null,1e+21,null\n" +
		"  null,null,null,null,null,null,null"
	if string(out) != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

func TestResponseNoColumnsRows(t *testing.T) {
	r := &graphresponse.Response{QueryType: "aggregation", Rows: []graphresponse.Row{{}, {}}}
	out := checkRendering(t, r)
	if want := "query_type: aggregation\nrows[2]:\n  -\n  -"; string(out) != want {
		t.Errorf("got %q, want %q", out, want)
	}
}

func TestResponseErrors(t *testing.T) {
	bad := &graphresponse.Response{QueryType: "aggregation",
		GroupColumns: []graphresponse.GroupColumn{{Name: "x", Kind: "edge", Node: "e"}},
		Rows:         []graphresponse.Row{}}
	if _, err := MarshalResponse(bad, Options{}); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("bad group kind: err = %v, want ErrInvalidResponse", err)
	}
	badCell := &graphresponse.Response{QueryType: "aggregation",
		GroupColumns: []graphresponse.GroupColumn{{Name: "u", Kind: "node", Node: "u"}},
		Rows:         []graphresponse.Row{{{Key: "u", Value: graphresponse.String("oops")}}}}
	if _, err := MarshalResponse(badCell, Options{}); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("malformed node cell: err = %v, want ErrInvalidResponse", err)
	}
	if _, err := MarshalResponse(nil, Options{}); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("nil response: err = %v", err)
	}
}

func nan() float64 { var z float64; return z / z }
