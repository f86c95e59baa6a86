package toon_test

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/toon"
)

// responseFiles returns the RAW GraphResponses the fixed-point test runs
// over: every GOON conformance input and every toon/testdata input.
func responseFiles(t testing.TB) []string {
	t.Helper()
	goon, err := filepath.Glob(filepath.Join(conformance.Dir(t, "goon"), "*.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(goon) == 0 {
		t.Fatal("no GOON conformance inputs")
	}
	local, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(local) == 0 {
		t.Fatal("no toon/testdata inputs")
	}
	files := append(goon, local...)
	slices.Sort(files)
	return files
}

func loadResponse(t testing.TB, path string) *graphresponse.Response {
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

// fixedPoint renders r, decodes the rendering and renders the result again.
// It returns the first rendering and a description of the first problem.
func fixedPoint(r *graphresponse.Response) ([]byte, *graphresponse.Response, string) {
	want, err := toon.MarshalResponse(r, toon.Options{})
	if err != nil {
		return nil, nil, "MarshalResponse: " + err.Error()
	}
	back, err := toon.UnmarshalResponse(want, toon.Options{})
	if err != nil {
		return want, nil, "UnmarshalResponse: " + err.Error() + "\n" + string(want)
	}
	got, err := toon.MarshalResponse(back, toon.Options{})
	if err != nil {
		return want, back, "MarshalResponse of the decoded response: " + err.Error()
	}
	if !bytes.Equal(got, want) {
		return want, back, "the rendering is not a fixed point\n--- got ---\n" + string(got) + "\n--- want ---\n" + string(want)
	}
	return want, back, ""
}

func TestUnmarshalResponseFixedPoint(t *testing.T) {
	t.Parallel()
	for _, f := range responseFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			t.Parallel()
			r := loadResponse(t, f)
			want, back, msg := fixedPoint(r)
			if msg != "" {
				t.Fatal(msg)
			}
			if back.FormatVersion != "" {
				t.Errorf("FormatVersion = %q, want empty", back.FormatVersion)
			}
			// The Decoder reads the same response.
			dec, err := toon.NewDecoder(bytes.NewReader(want), toon.Options{}).DecodeResponse()
			if err != nil {
				t.Fatalf("DecodeResponse: %v", err)
			}
			if !dec.Equal(back) {
				t.Errorf("DecodeResponse differs from UnmarshalResponse\n got: %s\nwant: %s", graphresponse.Marshal(dec), graphresponse.Marshal(back))
			}
			// Other delimiters and indents decode to the same response.
			for _, opts := range []toon.Options{{Delimiter: toon.Tab}, {Delimiter: toon.Pipe, IndentSize: 4}} {
				alt, err := toon.MarshalResponse(r, opts)
				if err != nil {
					t.Fatal(err)
				}
				got, err := toon.UnmarshalResponse(alt, toon.Options{IndentSize: opts.IndentSize})
				if err != nil {
					t.Fatalf("UnmarshalResponse with %+v: %v\n%s", opts, err, alt)
				}
				if !got.Equal(back) {
					t.Errorf("rendering with %+v decodes differently\n got: %s\nwant: %s", opts, graphresponse.Marshal(got), graphresponse.Marshal(back))
				}
			}
		})
	}
}

// normalize applies to r what the rendering documents as lost for the
// fixtures' values: format_version, node and edge order, an all-false
// pagination, and which of the two column lists of an aggregation is absent.
func normalize(r *graphresponse.Response) *graphresponse.Response {
	c := *r
	c.FormatVersion = ""
	c.Nodes = slices.Clone(r.Nodes)
	slices.SortStableFunc(c.Nodes, func(a, b graphresponse.Node) int { return cmp.Compare(a.Type, b.Type) })
	c.Edges = sortedEdges(r.Edges)
	if p := c.Pagination; p != nil && !p.HasMore && !p.Truncated && p.NextCursor == nil {
		c.Pagination = nil
	}
	if r.Rows != nil || len(r.GroupColumns)+len(r.Columns) > 0 {
		if c.GroupColumns == nil {
			c.GroupColumns = []graphresponse.GroupColumn{}
		}
		if c.Columns == nil {
			c.Columns = []graphresponse.Column{}
		}
	}
	return &c
}

// sortedEdges returns the edges in rendering order: edges without path_id
// stably sorted by type, from and to, then the path edges.
func sortedEdges(edges []graphresponse.Edge) []graphresponse.Edge {
	var plain, paths []graphresponse.Edge
	for _, e := range edges {
		if e.PathID.Valid {
			paths = append(paths, e)
		} else {
			plain = append(plain, e)
		}
	}
	slices.SortStableFunc(plain, func(a, b graphresponse.Edge) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
	})
	return append(plain, paths...)
}

// TestUnmarshalResponseGoldens checks that the spec §7.4/§7.5 fixtures come
// back whole, up to what the rendering documents as lost.
func TestUnmarshalResponseGoldens(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"graph_traversal", "graph_aggregation", "graph_path_finding", "graph_empty", "graph_aggregation_empty"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", name+".toon"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := toon.UnmarshalResponse(data, toon.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := normalize(loadResponse(t, filepath.Join("testdata", name+".json")))
			if !got.Equal(want) {
				t.Errorf("got:\n%s\nwant:\n%s", graphresponse.Marshal(got), graphresponse.Marshal(want))
			}
		})
	}
}

// TestUnmarshalResponseLosses pins down each documented loss.
func TestUnmarshalResponseLosses(t *testing.T) {
	t.Parallel()
	str, num := graphresponse.String, graphresponse.Int
	m := func(k string, v graphresponse.Value) graphresponse.Member {
		return graphresponse.Member{Key: k, Value: v}
	}
	cursor := "c1"
	tests := []struct {
		name string
		in   *graphresponse.Response
		want *graphresponse.Response
	}{
		{
			name: "numbers, nulls, nested values and _props",
			in: &graphresponse.Response{FormatVersion: "1.2.0", QueryType: "traversal", Nodes: []graphresponse.Node{
				{Type: "T", ID: -7, Props: []graphresponse.Member{
					m("f", graphresponse.Float(2)),
					m("g", graphresponse.Float(2.5)),
					m("big", graphresponse.Float(1e20)),
					m("u", graphresponse.Uint(1<<63)),
					m("nan", graphresponse.Float(nanValue())),
					m("null", graphresponse.Null()),
					m("list", graphresponse.Array(num(1), str("a"))),
					m("a b", num(5)),
					m("cr", str("x\ry")),
				}},
				{Type: "T", ID: 8, Props: []graphresponse.Member{m("nan", str("only here")), m("empty", str(""))}},
			}, Edges: []graphresponse.Edge{}, Pagination: &graphresponse.Pagination{}},
			want: &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{
				{Type: "T", ID: -7, Props: []graphresponse.Member{
					m("a b", str("5")),
					m("big", graphresponse.Float(1e20)),
					m("cr", str("x\ry")),
					m("f", num(2)),
					m("g", graphresponse.Float(2.5)),
					m("list", str(`[1,"a"]`)),
					m("u", graphresponse.Uint(1<<63)),
				}},
				{Type: "T", ID: 8, Props: []graphresponse.Member{m("nan", str("only here"))}},
			}, Edges: []graphresponse.Edge{}},
		},
		{
			name: "node and edge order, pagination flags",
			in: &graphresponse.Response{QueryType: "neighbors",
				Nodes: []graphresponse.Node{{Type: "B", ID: 1}, {Type: "A", ID: 2}, {Type: "B", ID: 3}},
				Edges: []graphresponse.Edge{
					{From: "B", FromID: 1, To: "A", ToID: 2, Type: "Y", Depth: graphresponse.Some(2)},
					{From: "A", FromID: 2, To: "B", ToID: 3, Type: "P", PathID: graphresponse.Some(0), Step: graphresponse.Some(1)},
					{From: "B", FromID: 3, To: "A", ToID: 2, Type: "X"},
				},
				Pagination: &graphresponse.Pagination{Truncated: true, NextCursor: &cursor}},
			want: &graphresponse.Response{QueryType: "neighbors",
				Nodes: []graphresponse.Node{{Type: "A", ID: 2}, {Type: "B", ID: 1}, {Type: "B", ID: 3}},
				Edges: []graphresponse.Edge{
					{From: "B", FromID: 3, To: "A", ToID: 2, Type: "X"},
					{From: "B", FromID: 1, To: "A", ToID: 2, Type: "Y", Depth: graphresponse.Some(2)},
					{From: "A", FromID: 2, To: "B", ToID: 3, Type: "P", PathID: graphresponse.Some(0), Step: graphresponse.Some(1)},
				},
				Pagination: &graphresponse.Pagination{Truncated: true, NextCursor: &cursor}},
		},
		{
			name: "rows",
			in: &graphresponse.Response{QueryType: "aggregation", Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{},
				GroupColumns: []graphresponse.GroupColumn{
					{Name: "u", Kind: "node", Node: "u", Entity: "User"},
					{Name: "s.t", Kind: "property", Node: "u", Property: "state"},
				},
				Columns: []graphresponse.Column{{Name: "n", Function: "count", Target: "u"}, {Name: "c", Function: "collect", Target: "u"}},
				Rows: []graphresponse.Row{
					{
						m("u", graphresponse.NodeBucket("User", "5", []graphresponse.Member{m("name", str("a")), m("id", num(9)), m("x", graphresponse.Null())})),
						m("s.t", str("open")), m("n", num(3)), m("c", graphresponse.Array(num(1))), m("extra", num(1)),
					},
					{m("u", graphresponse.NodeBucket("User", "\r", nil)), m("n", graphresponse.Float(4))},
					{m("u", graphresponse.Object(m("type", str("User")), m("id", str("6"))))},
				}},
			want: &graphresponse.Response{QueryType: "aggregation", Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{},
				GroupColumns: []graphresponse.GroupColumn{
					{Name: "u", Kind: "node", Node: "u", Entity: "User"},
					{Name: "s.t", Kind: "property", Node: "u", Property: "state"},
				},
				Columns: []graphresponse.Column{{Name: "n", Function: "count", Target: "u"}, {Name: "c", Function: "collect", Target: "u"}},
				Rows: []graphresponse.Row{
					{
						m("u", graphresponse.NodeBucket("User", "5", []graphresponse.Member{m("id", str("9")), m("name", str("a"))})),
						m("s.t", str("open")), m("n", num(3)), m("c", str("[1]")),
					},
					{m("u", graphresponse.Null()), m("s.t", graphresponse.Null()), m("n", num(4)), m("c", graphresponse.Null())},
					{m("u", graphresponse.NodeBucket("User", "6", nil)), m("s.t", graphresponse.Null()), m("n", graphresponse.Null()), m("c", graphresponse.Null())},
				}},
		},
		{
			name: "rows without columns",
			in:   &graphresponse.Response{QueryType: "aggregation", Rows: []graphresponse.Row{{}, {m("x", num(1))}}},
			want: &graphresponse.Response{QueryType: "aggregation", Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{},
				GroupColumns: []graphresponse.GroupColumn{}, Columns: []graphresponse.Column{}, Rows: []graphresponse.Row{{}, {}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := toon.MarshalResponse(tt.in, toon.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := toon.UnmarshalResponse(data, toon.Options{})
			if err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			if !got.Equal(tt.want) {
				t.Errorf("rendering:\n%s\ngot:  %s\nwant: %s", data, graphresponse.Marshal(got), graphresponse.Marshal(tt.want))
			}
			if again, _ := toon.MarshalResponse(got, toon.Options{}); !bytes.Equal(again, data) {
				t.Errorf("not a fixed point:\n%s\n---\n%s", again, data)
			}
		})
	}
}

func nanValue() float64 {
	z := 0.0
	return z / z
}

// propSeed is the gopter seed: fixed, or GRAPHWIRE_PROP_SEED to replay.
func propSeed(t *testing.T) int64 {
	t.Helper()
	seed := int64(20261121)
	if s := os.Getenv("GRAPHWIRE_PROP_SEED"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("GRAPHWIRE_PROP_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("property seed %d (replay with GRAPHWIRE_PROP_SEED=%d)", seed, seed)
	return seed
}

// survives checks what the rendering carries for a generated response: the
// fixed point, node types and ids in type-sorted order, every edge field,
// the string properties with non-empty cell text, and the row count.
func survives(r *graphresponse.Response) string {
	_, back, msg := fixedPoint(r)
	if msg != "" {
		return msg
	}
	want := normalize(r)
	if len(back.Nodes) != len(want.Nodes) {
		return fmt.Sprintf("%d nodes, want %d", len(back.Nodes), len(want.Nodes))
	}
	for i, n := range want.Nodes {
		got := back.Nodes[i]
		if got.Type != n.Type || got.ID != n.ID {
			return fmt.Sprintf("node %d is %s %d, want %s %d", i, got.Type, got.ID, n.Type, n.ID)
		}
		for _, p := range n.Props {
			if p.Value.Kind() != graphresponse.KindString {
				continue
			}
			s := p.Value.Str()
			if p.Key == "_props" {
				s = strings.ReplaceAll(s, "\r", "") // _props holds cell text
			}
			if strings.ReplaceAll(s, "\r", "") == "" {
				continue // empty cell text may have no column
			}
			if v, ok := got.Prop(p.Key); !ok || v.Kind() != graphresponse.KindString || v.Str() != s {
				return fmt.Sprintf("node %d property %q = %#v, want %q", i, p.Key, v, s)
			}
		}
	}
	if len(back.Edges) != len(want.Edges) {
		return fmt.Sprintf("%d edges, want %d", len(back.Edges), len(want.Edges))
	}
	for i, e := range want.Edges {
		if back.Edges[i] != e {
			return fmt.Sprintf("edge %d is %+v, want %+v", i, back.Edges[i], e)
		}
	}
	if len(back.Rows) != len(r.Rows) || (back.Rows == nil) != (r.Rows == nil) {
		return fmt.Sprintf("%d rows, want %d", len(back.Rows), len(r.Rows))
	}
	if back.QueryType != r.QueryType {
		return fmt.Sprintf("query_type %q, want %q", back.QueryType, r.QueryType)
	}
	return ""
}

func TestPropertyUnmarshalResponse(t *testing.T) {
	t.Parallel()
	params := gopter.DefaultTestParametersWithSeed(propSeed(t))
	params.MinSuccessfulTests = 500
	props := gopter.NewProperties(params)
	opts := graphgen.Options{NoComposite: true, NoNonFinite: true}
	props.Property("the rendering is a fixed point and carries ids, types, edges and strings", prop.ForAll(survives, graphgen.Response(opts)))
	opts.MaxNodes, opts.MaxEdges = 60, 80
	props.Property("large responses too", prop.ForAll(survives, graphgen.Response(opts)))
	opts = graphgen.Options{NoComposite: true, NoNonFinite: true, QueryType: graphresponse.QueryAggregation}
	props.Property("aggregations too", prop.ForAll(survives, graphgen.Response(opts)))
	props.TestingRun(t)
}

// invalidDocs are TOON documents that decode but are not §7.3 shapes.
var invalidDocs = []struct {
	name string
	doc  string
}{
	{"root array", "[1]: a"},
	{"root primitive", "hello"},
	{"empty document", ""},
	{"missing query_type", "nodes:"},
	{"query_type number", "query_type: 5"},
	{"unknown member", "query_type: x\nformat_version: \"1\""},
	{"members out of order", "nodes:\nquery_type: x"},
	{"has_more false", "query_type: x\nhas_more: false"},
	{"truncated string", "query_type: x\ntruncated: yes"},
	{"next_cursor null", "query_type: x\nnext_cursor: null"},
	{"nodes array", "query_type: x\nnodes[1]: a"},
	{"node table object", "query_type: x\nnodes:\n  T:\n    id: \"1\""},
	{"node row primitive", "query_type: x\nnodes:\n  T[1]: a"},
	{"node id number", "query_type: x\nnodes:\n  T[1]{id}:\n    1"},
	{"node id not int64", "query_type: x\nnodes:\n  T[1]{id}:\n    \"9223372036854775808\""},
	{"node without id", "query_type: x\nnodes:\n  T[1]{name}:\n    a"},
	{"node type column", "query_type: x\nnodes:\n  T[1]{id,type}:\n    \"1\",a"},
	{"node unsafe column", "query_type: x\nnodes:\n  T[1]{id,\"a b\"}:\n    \"1\",a"},
	{"node nested value", "query_type: x\nnodes:\n  T[1]:\n    - id: \"1\"\n      tags[1]: a"},
	{"node huge number", "query_type: x\nnodes:\n  T[1]{id,n}:\n    \"1\",1e999"},
	{"_props not JSON", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",\"{\""},
	{"_props array", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",\"[]\""},
	{"_props number", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",5"},
	{"_props safe key", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",\"{\\\"name\\\":\\\"a\\\"}\""},
	{"_props id key", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",\"{\\\"id\\\":\\\"a\\\"}\""},
	{"_props non-string value", "query_type: x\nnodes:\n  T[1]{id,_props}:\n    \"1\",\"{\\\"a b\\\":1}\""},
	{"edges array", "query_type: x\nedges[1]: a"},
	{"edges type level", "query_type: x\nedges:\n  R: a"},
	{"edges from level", "query_type: x\nedges:\n  R:\n    A: a"},
	{"edges table", "query_type: x\nedges:\n  R:\n    A:\n      B: a"},
	{"edge unknown field", "query_type: x\nedges:\n  R:\n    A:\n      B[1]{from_id,to_id,path_id}:\n        \"1\",\"2\",0"},
	{"edge missing to_id", "query_type: x\nedges:\n  R:\n    A:\n      B[1]{from_id}:\n        \"1\""},
	{"edge depth string", "query_type: x\nedges:\n  R:\n    A:\n      B[1]{from_id,to_id,depth}:\n        \"1\",\"2\",\"1\""},
	{"edge step float", "query_type: x\nedges:\n  R:\n    A:\n      B[1]{from_id,to_id,step}:\n        \"1\",\"2\",1.5"},
	{"paths object", "query_type: x\npaths:\n  a: b"},
	{"path null path_id", "query_type: x\npaths[1]{path_id,step,from,from_id,type,to,to_id}:\n  null,0,A,\"1\",R,B,\"2\""},
	{"path step beyond int64", "query_type: x\npaths[1]{path_id,step,from,from_id,type,to,to_id}:\n  0,9223372036854775808,A,\"1\",R,B,\"2\""},
	{"path missing step", "query_type: x\npaths[1]{path_id,from,from_id,type,to,to_id}:\n  0,A,\"1\",R,B,\"2\""},
	{"path type number", "query_type: x\npaths[1]{path_id,step,from,from_id,type,to,to_id}:\n  0,0,A,\"1\",7,B,\"2\""},
	{"descriptor unknown kind", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  e,edge,null,e,null,null"},
	{"descriptor group with function", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,count,u,null,User"},
	{"descriptor metric with entity", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  n,metric,count,u,null,User"},
	{"descriptor group after metric", "query_type: x\ncolumns[2]{name,kind,function,alias,property,entity}:\n  n,metric,count,u,null,null\n  s,property,null,u,state,null"},
	{"descriptor missing entity", "query_type: x\ncolumns[1]{name,kind,function,alias,property}:\n  n,metric,count,u,null"},
	{"descriptor number name", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  1,metric,count,u,null,null"},
	{"rows object", "query_type: x\nrows:\n  a: b"},
	{"row primitive", "query_type: x\nrows[1]: a"},
	{"row undeclared key", "query_type: x\nrows[1]{n}:\n  1"},
	{"row node column bare", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,User\nrows[1]{u}:\n  a"},
	{"row dotted non-node", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  n,metric,count,u,null,null\nrows[1]{n.id}:\n  \"1\""},
	{"row bucket without id", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,User\nrows[1]{u.id,u.name}:\n  null,a"},
	{"row bucket empty id", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,User\nrows[1]{u.id}:\n  \"\""},
	{"row bucket null type", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,null\nrows[1]{u.type,u.id}:\n  null,\"1\""},
	{"row bucket no type, no entity", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,null\nrows[1]{u.id}:\n  \"1\""},
	{"row bucket unsafe field", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,User\nrows[1]{u.id,\"u.a b\"}:\n  \"1\",x"},
	{"row bucket _props safe key", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  u,node,null,u,null,User\nrows[1]{u.id,u._props}:\n  \"1\",\"{\\\"name\\\":\\\"a\\\"}\""},
	{"row nested value", "query_type: x\ncolumns[1]{name,kind,function,alias,property,entity}:\n  n,metric,count,u,null,null\nrows[1]:\n  - n[1]: 1"},
}

func TestUnmarshalResponseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range invalidDocs {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := toon.Unmarshal([]byte(tt.doc)); err != nil {
				t.Fatalf("the document itself does not decode: %v", err)
			}
			r, err := toon.UnmarshalResponse([]byte(tt.doc), toon.Options{})
			if !errors.Is(err, toon.ErrInvalidResponse) {
				t.Fatalf("err = %v, want ErrInvalidResponse (response %v)", err, r)
			}
			t.Log(err)
			var se *toon.SyntaxError
			if errors.As(err, &se) {
				t.Errorf("a shape error must not be a *SyntaxError: %v", err)
			}
			if r != nil {
				t.Errorf("response %v with an error", r)
			}
		})
	}
}

func TestUnmarshalResponseErrorLocation(t *testing.T) {
	t.Parallel()
	doc := "query_type: x\nnodes:\n  \"a/b~c\"[2]{id}:\n    \"1\"\n    x"
	_, err := toon.UnmarshalResponse([]byte(doc), toon.Options{})
	want := `toon: invalid graph response: /nodes/a~1b~0c/1/id: "x" is not a decimal int64`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestUnmarshalResponseSyntaxErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		doc     string
		wantErr error
	}{
		{"length mismatch", "query_type: x\nnodes:\n  T[2]{id}:\n    \"1\"", toon.ErrLengthMismatch},
		{"width mismatch", "query_type: x\nnodes:\n  T[1]{id,a}:\n    \"1\"", toon.ErrWidthMismatch},
		{"unterminated string", "query_type: \"x", toon.ErrUnterminatedString},
		{"duplicate key", "query_type: x\nquery_type: y", toon.ErrDuplicateKey},
		{"invalid UTF-8", "query_type: \xff", toon.ErrInvalidUTF8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := toon.UnmarshalResponse([]byte(tt.doc), toon.Options{})
			var se *toon.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want a *SyntaxError with %v", err, tt.wantErr)
			}
			if errors.Is(err, toon.ErrInvalidResponse) {
				t.Errorf("a syntax error must not wrap ErrInvalidResponse")
			}
		})
	}
}

func TestDecodeResponseReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := toon.NewDecoder(iotest.ErrReader(boom), toon.Options{}).DecodeResponse()
	if err != boom {
		t.Errorf("err = %v, want the read error unchanged", err)
	}
}

func TestUnmarshalResponseLenient(t *testing.T) {
	t.Parallel()
	// Lenient decoding lets the last duplicate win; the shape check still runs.
	doc := "query_type: x\nquery_type: traversal\nnodes:\n  T[1]{id}:\n    \"4\""
	r, err := toon.UnmarshalResponse([]byte(doc), toon.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{{Type: "T", ID: 4}}, Edges: []graphresponse.Edge{}}
	if !r.Equal(want) {
		t.Errorf("got %s, want %s", graphresponse.Marshal(r), graphresponse.Marshal(want))
	}
}

// FuzzDecodeResponse decodes arbitrary bytes as a rendering, strictly and
// leniently. It never panics, every error is a *SyntaxError or wraps
// ErrInvalidResponse, and a decoded response renders to a document that
// decodes again (in the same mode) and renders to the same bytes.
func FuzzDecodeResponse(f *testing.F) {
	for _, p := range responseFiles(f) {
		r := loadResponse(f, p)
		for _, opts := range []toon.Options{{}, {Delimiter: toon.Pipe}} {
			data, err := toon.MarshalResponse(r, opts)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, false)
		}
	}
	for _, tt := range invalidDocs {
		f.Add([]byte(tt.doc), false)
		f.Add([]byte(tt.doc), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, lenient bool) {
		r, err := toon.UnmarshalResponse(data, toon.Options{Lenient: lenient})
		if err != nil {
			var se *toon.SyntaxError
			if !errors.As(err, &se) && !errors.Is(err, toon.ErrInvalidResponse) {
				t.Fatalf("error %v (%T) is neither a *SyntaxError nor ErrInvalidResponse", err, err)
			}
			if r != nil {
				t.Fatalf("response with an error")
			}
			return
		}
		out, err := toon.MarshalResponse(r, toon.Options{})
		if err != nil {
			t.Fatalf("MarshalResponse of a decoded response: %v", err)
		}
		// Same options: lenient decoding passes invalid UTF-8 through, which
		// the encoder writes back and strict decoding rejects.
		back, err := toon.UnmarshalResponse(out, toon.Options{Lenient: lenient})
		if err != nil {
			t.Fatalf("decode of the re-rendering: %v\n%s", err, out)
		}
		again, err := toon.MarshalResponse(back, toon.Options{})
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("re-rendering is not a fixed point (%v)\n%s\n---\n%s", err, out, again)
		}
	})
}

func ExampleUnmarshalResponse() {
	doc := "query_type: traversal\nhas_more: true\nnodes:\n  User[1]{id,name}:\n    \"7\",Ada\n" +
		"edges:\n  FOLLOWS:\n    User:\n      User[1]{from_id,to_id}:\n        \"7\",\"7\""
	r, err := toon.UnmarshalResponse([]byte(doc), toon.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", graphresponse.Marshal(r))
	// Output:
	// {"format_version":"","query_type":"traversal","nodes":[{"type":"User","id":"7","name":"Ada"}],"edges":[{"from":"User","from_id":"7","to":"User","to_id":"7","type":"FOLLOWS"}],"pagination":{"has_more":true,"truncated":false}}
}

func BenchmarkUnmarshalResponse500x200(b *testing.B) {
	out, err := toon.MarshalResponse(graphgen.Graph(1, 500, 200), toon.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := toon.UnmarshalResponse(out, toon.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
