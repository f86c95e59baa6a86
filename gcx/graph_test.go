package gcx_test

import (
	"errors"
	"testing"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

func mustResponse(t testing.TB, raw string) *graphresponse.Response {
	t.Helper()
	r, err := graphresponse.Unmarshal([]byte(raw))
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	return r
}

func ptr[T any](v T) *T { return &v }

// TestMarshalSpecExamples checks the worked examples of spec §11.8–§11.10
// byte for byte, and both round-trip properties of §13.2 on them.
func TestMarshalSpecExamples(t *testing.T) {
	tests := []struct {
		name string
		r    func(t testing.TB) *graphresponse.Response
		want string
	}{
		{
			name: "traversal",
			r: func(t testing.TB) *graphresponse.Response {
				return mustResponse(t, `{"format_version":"5.0.1","query_type":"traversal",
 "nodes":[
  {"type":"User","id":"5252563","username":"jordan_ng","name":"Jordan NG"},
  {"type":"MergeRequest","id":"482927048","iid":18,"state":"merged","title":"chore: move skill to project scope"},
  {"type":"Project","id":"80212187","name":"webapp-scaffold","full_path":"gitlab-com/cx-engineering/webapp-scaffold"}],
 "edges":[
  {"from":"User","from_id":"5252563","to":"MergeRequest","to_id":"482927048","type":"AUTHORED"},
  {"from":"MergeRequest","from_id":"482927048","to":"Project","to_id":"80212187","type":"IN_PROJECT"}],
 "pagination":{"has_more":false,"truncated":false}}`)
			},
			want: "GCX1 tool=graph.nodes fields=id,iid,state,title query_type=traversal rows=1 type=MergeRequest\n482927048\t18\tmerged\tchore: move skill to project scope\nGCX1 tool=graph.nodes fields=id,full_path,name rows=1 type=Project\n80212187\tgitlab-com/cx-engineering/webapp-scaffold\twebapp-scaffold\nGCX1 tool=graph.nodes fields=id,name,username rows=1 type=User\n5252563\tJordan NG\tjordan_ng\nGCX1 tool=graph.edges fields=from_id,to_id from=User rows=1 to=MergeRequest type=AUTHORED\n5252563\t482927048\nGCX1 tool=graph.edges fields=from_id,to_id from=MergeRequest rows=1 to=Project type=IN_PROJECT\n482927048\t80212187\n",
		},
		{
			name: "path finding with catch-all",
			r: func(testing.TB) *graphresponse.Response {
				return &graphresponse.Response{
					QueryType: graphresponse.QueryPathFinding,
					Nodes: []graphresponse.Node{
						{Type: "User", ID: 64248, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("stanhu")}}},
						{Type: "Legal Entity", ID: 9, Props: []graphresponse.Member{
							{Key: "name", Value: graphresponse.String("ACME")},
							{Key: "tax id", Value: graphresponse.String("X-1")},
							{Key: "id", Value: graphresponse.String("dup")},
						}},
					},
					Edges: []graphresponse.Edge{
						{From: "User", FromID: 64248, To: "MergeRequest", ToID: 482927048, Type: "AUTHORED", PathID: graphresponse.Some(0), Step: graphresponse.Some(0)},
						{From: "MergeRequest", FromID: 482927048, To: "Project", ToID: 278964, Type: "IN_PROJECT", PathID: graphresponse.Some(0), Step: graphresponse.Some(1)},
					},
				}
			},
			want: "GCX1 tool=graph.nodes fields=id,username query_type=path_finding rows=1 type=User\n64248\tstanhu\nGCX1 tool=graph.nodes fields=id,type,name,_props rows=1\n9\tLegal Entity\tACME\t{\"id\":\"dup\",\"tax id\":\"X-1\"}\nGCX1 tool=graph.paths fields=path_id,step,from,from_id,type,to,to_id rows=2\n0\t0\tUser\t64248\tAUTHORED\tMergeRequest\t482927048\n0\t1\tMergeRequest\t482927048\tIN_PROJECT\tProject\t278964\n",
		},
		{
			name: "aggregation by node",
			r: func(t testing.TB) *graphresponse.Response {
				return mustResponse(t, `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],
 "columns":[{"name":"merged_count","function":"count","target":"u"}],
 "group_columns":[{"name":"u","kind":"node","node":"u","entity":"User"}],
 "rows":[
  {"u":{"type":"User","id":"1243277","properties":{"username":"ghost1"}},"merged_count":65555},
  {"u":{"type":"User","id":"35702613","properties":{"username":"bot_a"}},"merged_count":21277},
  {"u":{"type":"User","id":"26832240","properties":{"username":"bot_b"}},"merged_count":20289}],
 "pagination":{"has_more":false,"truncated":false}}`)
			},
			want: "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity query_type=aggregation rows=2\nu\tnode\t\tu\t\tUser\nmerged_count\tmetric\tcount\tu\t\t\nGCX1 tool=graph.rows fields=u.id,u.username,merged_count groups=2 rows=3\n1243277\tghost1\t65555\n35702613\tbot_a\t21277\n26832240\tbot_b\t20289\n",
		},
		{
			name: "aggregation by property with a null bucket",
			r: func(t testing.TB) *graphresponse.Response {
				return mustResponse(t, `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],
 "columns":[{"name":"vulnerability_count","function":"count","target":"v"}],
 "group_columns":[{"name":"severity","kind":"property","node":"v","property":"severity"}],
 "rows":[{"severity":"medium","vulnerability_count":8421},{"severity":"high","vulnerability_count":2350},{"severity":null,"vulnerability_count":7}]}`)
			},
			want: "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity query_type=aggregation rows=2\nseverity\tproperty\t\tv\tseverity\t\nvulnerability_count\tmetric\tcount\tv\t\t\nGCX1 tool=graph.rows fields=severity,vulnerability_count groups=1 rows=3\nmedium\t8421\nhigh\t2350\n\t7\n",
		},
		{
			name: "ungrouped null count",
			r: func(t testing.TB) *graphresponse.Response {
				return mustResponse(t, `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],
 "columns":[{"name":"total","function":"count","target":"mr"}],
 "rows":[{"total":null}]}`)
			},
			want: "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity query_type=aggregation rows=1\ntotal\tmetric\tcount\tmr\t\t\nGCX1 tool=graph.rows fields=#,total groups=0 rows=1\n1\t\n",
		},
		{
			name: "empty result",
			r: func(testing.TB) *graphresponse.Response {
				return &graphresponse.Response{
					QueryType:  graphresponse.QueryTraversal,
					Pagination: &graphresponse.Pagination{HasMore: true, Truncated: true, NextCursor: ptr("eyJoIjoiYWQyMTczMWM5MTZm")},
				}
			},
			want: "GCX1 tool=graph.nodes fields=id,type has_more=true next_cursor=eyJoIjoiYWQyMTczMWM5MTZm query_type=traversal rows=0 truncated=true\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.r(t)
			got, err := gcx.Marshal(r, gcx.Options{})
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Fatalf("Marshal:\n got %q\nwant %q", got, tt.want)
			}
			checkRoundTrip(t, r, got)
		})
	}
}

// checkRoundTrip asserts both properties of spec §13.2 for r and its
// encoding enc.
func checkRoundTrip(t *testing.T, r *graphresponse.Response, enc []byte) {
	t.Helper()
	back, err := gcx.Unmarshal(enc, gcx.Options{})
	if err != nil {
		t.Fatalf("Unmarshal: %v\npayload %q", err, enc)
	}
	if diff := responseDiff(back, gcx.Canon(r)); diff != "" {
		t.Fatalf("Unmarshal(Marshal(r)) != Canon(r) (-canon +got):\n%s\npayload %q", diff, enc)
	}
	again, err := gcx.Marshal(back, gcx.Options{})
	if err != nil {
		t.Fatalf("Marshal(decoded): %v", err)
	}
	if string(again) != string(enc) {
		t.Fatalf("re-encoding differs:\n got %q\nwant %q", again, enc)
	}
}

func TestMarshalErrors(t *testing.T) {
	tests := []struct {
		name    string
		r       *graphresponse.Response
		wantErr error
	}{
		{
			name:    "bad group kind",
			r:       &graphresponse.Response{QueryType: "aggregation", GroupColumns: []graphresponse.GroupColumn{{Name: "g", Kind: "edge"}}, Rows: []graphresponse.Row{}},
			wantErr: gcx.ErrInvalidResponse,
		},
		{
			name: "node cell that is a string",
			r: &graphresponse.Response{QueryType: "aggregation",
				GroupColumns: []graphresponse.GroupColumn{{Name: "u", Kind: "node", Node: "u"}},
				Rows:         []graphresponse.Row{{{Key: "u", Value: graphresponse.String("User:1")}}}},
			wantErr: gcx.ErrInvalidResponse,
		},
		{
			name: "node cell without id",
			r: &graphresponse.Response{QueryType: "aggregation",
				GroupColumns: []graphresponse.GroupColumn{{Name: "u", Kind: "node", Node: "u"}},
				Rows:         []graphresponse.Row{{{Key: "u", Value: graphresponse.Object(graphresponse.Member{Key: "type", Value: graphresponse.String("User")})}}}},
			wantErr: gcx.ErrInvalidResponse,
		},
		{
			name:    "cursor with a space",
			r:       &graphresponse.Response{QueryType: "traversal", Pagination: &graphresponse.Pagination{NextCursor: ptr("a b")}},
			wantErr: gcx.ErrUnsafeName,
		},
		{
			name:    "query type with a tab",
			r:       &graphresponse.Response{QueryType: "a\tb"},
			wantErr: gcx.ErrUnsafeName,
		},
		{
			name:    "nil response",
			r:       nil,
			wantErr: gcx.ErrInvalidResponse,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcx.Marshal(tt.r, gcx.Options{})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Marshal = %q, %v; want %v", got, err, tt.wantErr)
			}
		})
	}
}

func TestUnmarshalSchemaErrors(t *testing.T) {
	const cols = "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity rows=2\nu\tnode\t\tu\t\tUser\nc\tmetric\tcount\tu\t\t\n"
	tests := []struct {
		name     string
		payload  string
		wantLine int
	}{
		{name: "unknown tool", payload: "GCX1 tool=graph.nodes fields=id,type rows=0\nGCX1 tool=graph.other fields=a\n", wantLine: 2},
		{name: "rows mismatch", payload: "GCX1 tool=graph.nodes fields=id,type rows=2\n1\tUser\n", wantLine: 1},
		{name: "rows not a number", payload: "GCX1 tool=graph.nodes fields=id,type rows=x\n", wantLine: 1},
		{name: "has_more not boolean", payload: "GCX1 tool=graph.nodes fields=id,type has_more=yes\n", wantLine: 1},
		{name: "typed nodes without id", payload: "GCX1 tool=graph.nodes fields=name type=User\nx\n", wantLine: 1},
		{name: "catch-all without type", payload: "GCX1 tool=graph.nodes fields=id,name\n1\tx\n", wantLine: 1},
		{name: "id not an integer", payload: "GCX1 tool=graph.nodes fields=id type=User\n# c\nabc\n", wantLine: 1},
		{name: "_props not JSON", payload: "GCX1 tool=graph.nodes fields=id,_props type=User\n1\t{x\n", wantLine: 1},
		{name: "_props value not a string", payload: "GCX1 tool=graph.nodes fields=id,_props type=User\n1\t{\"a b\":1}\n", wantLine: 1},
		{name: "_props key is a field", payload: "GCX1 tool=graph.nodes fields=id,name,_props type=User\n1\tx\t{\"name\":\"y\"}\n", wantLine: 1},
		{name: "typed edges without from", payload: "GCX1 tool=graph.edges fields=from_id,to_id to=B type=R\n1\t2\n", wantLine: 1},
		{name: "mixed edges without to_id", payload: "GCX1 tool=graph.edges fields=from,from_id,type,to\nA\t1\tR\tB\n", wantLine: 1},
		{name: "edges with unknown field", payload: "GCX1 tool=graph.edges fields=from_id,to_id,weight from=A to=B type=R\n1\t2\t3\n", wantLine: 1},
		{name: "depth not an integer", payload: "GCX1 tool=graph.edges fields=from_id,to_id,depth from=A to=B type=R\n1\t2\tx\n", wantLine: 1},
		{name: "paths without step", payload: "GCX1 tool=graph.paths fields=path_id,from,from_id,type,to,to_id\n0\tA\t1\tR\tB\t2\n", wantLine: 1},
		{name: "columns after rows", payload: "GCX1 tool=graph.rows fields=# groups=0 rows=0\n" + cols, wantLine: 2},
		{name: "rows repeated", payload: "GCX1 tool=graph.rows fields=# groups=0 rows=0\nGCX1 tool=graph.rows fields=# groups=0 rows=0\n", wantLine: 2},
		{name: "unknown kind", payload: "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity\nx\tedge\t\t\t\t\n", wantLine: 1},
		{name: "extra rows field", payload: cols + "GCX1 tool=graph.rows fields=u.id,c,d groups=1 rows=0\n", wantLine: 4},
		{name: "node group without id", payload: cols + "GCX1 tool=graph.rows fields=u.type,c groups=1 rows=0\n", wantLine: 4},
		{name: "node group without dot", payload: cols + "GCX1 tool=graph.rows fields=u,c groups=1 rows=0\n", wantLine: 4},
		{name: "groups mismatch", payload: cols + "GCX1 tool=graph.rows fields=u.id,c groups=2 rows=0\n", wantLine: 4},
		{name: "groups missing", payload: cols + "GCX1 tool=graph.rows fields=u.id,c rows=0\n", wantLine: 4},
		{name: "too few rows fields", payload: cols + "GCX1 tool=graph.rows fields=u.id groups=1 rows=0\n", wantLine: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcx.Unmarshal([]byte(tt.payload), gcx.Options{})
			if !errors.Is(err, gcx.ErrSchema) {
				t.Fatalf("error = %v, want ErrSchema", err)
			}
			var se *gcx.SyntaxError
			if !errors.As(err, &se) || se.Line != tt.wantLine || se.Column != 1 {
				t.Fatalf("error %v: want a *SyntaxError at line %d, column 1", err, tt.wantLine)
			}
			secs, err := gcx.UnmarshalSections([]byte(tt.payload))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := gcx.DecodeGraph(secs); !errors.Is(err, gcx.ErrSchema) {
				t.Errorf("DecodeGraph error = %v, want ErrSchema", err)
			}
		})
	}
	if _, err := gcx.DecodeGraph(nil); !errors.Is(err, gcx.ErrSchema) {
		t.Errorf("DecodeGraph(nil) = %v, want ErrSchema", err)
	}
	var se *gcx.SyntaxError
	if _, err := gcx.Unmarshal(nil, gcx.Options{}); !errors.As(err, &se) || !errors.Is(err, gcx.ErrNoHeader) {
		t.Errorf("Unmarshal(nil) = %v, want ErrNoHeader", err)
	}
}

// TestDecodeGraphValues checks what decoding gives back beyond the round
// trip: strings for every value, buckets from the entity, later columns
// winning, and the empty result.
func TestDecodeGraphValues(t *testing.T) {
	payload := "GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity next_cursor= query_type=aggregation rows=3 truncated=true\n" +
		"u\tnode\t\tu\t\tUser\nx\tproperty\t\tv\ts\t\nx\tmetric\tcount\tv\t\t\n" +
		"GCX1 tool=graph.rows fields=#,u.id,u.a.b,u._props,x,x~2 groups=4 rows=2\n" +
		"1\t7\tdot\t{\"k y\":\"v\"}\tp\t3\n2\t\t\t\tq\t\n"
	r, err := gcx.Unmarshal([]byte(payload), gcx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"format_version":"` + r.FormatVersion + `","query_type":"aggregation","nodes":[],"edges":[],` +
		`"columns":[{"name":"x","function":"count","target":"v"}],` +
		`"group_columns":[{"name":"u","kind":"node","node":"u","entity":"User"},{"name":"x","kind":"property","node":"v","property":"s"}],` +
		`"rows":[{"u":{"type":"User","id":"7","properties":{"a.b":"dot","k y":"v"}},"x":"3"},{"u":null,"x":null}],` +
		`"pagination":{"has_more":false,"truncated":true,"next_cursor":""}}`
	if got := string(graphresponse.AppendJSON(nil, r)); got != want {
		t.Errorf("decoded\n got %s\nwant %s", got, want)
	}
}
