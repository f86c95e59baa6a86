package gcf_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

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

// The texts of spec §3.2.6 and §3.3.9, byte for byte.
const (
	workedGCF = `GCF profile=generic
query_type=traversal
mapping_version=1.0.0
## pagination
  has_more=false
  truncated=false
## MergeRequest [1]{id,iid,state,title}
482927048|18|merged|chore: move skill to project scope
## Project [1]{id,full_path,name}
80212187|gitlab-com/cx-engineering/webapp-scaffold|webapp-scaffold
## User [1]{id,name,username}
5252563|Jordan NG|jordan_ng
## edges [2]{from,from_id,to,to_id,type}
User|5252563|MergeRequest|482927048|AUTHORED
MergeRequest|482927048|Project|80212187|IN_PROJECT
`
	workedRoot      = "sha256:473c894022b98f4f37879348d6fe049633c408055ae29a697c1ca3a5ba1cc16d"
	workedGraph     = "GCF profile=graph symbols=3 edges=2 pack_root=" + workedRoot + " query_type=traversal\n## targets\n@0 User User:5252563 1.00 traversal.07656549\n## related\n@1 MergeRequest MergeRequest:482927048 1.00 traversal.d2763235\n## extended\n@2 Project Project:80212187 1.00 traversal.f8cedb8f\n## edges [2]\n@1<@0 AUTHORED\n@2<@1 IN_PROJECT\n"
	workedSession1  = "GCF profile=graph symbols=3 edges=2 session=true pack_root=" + workedRoot + " query_type=traversal\n## targets\n@0 User User:5252563 1.00 traversal.07656549\n## related\n@1 MergeRequest MergeRequest:482927048 1.00 traversal.d2763235\n## extended\n@2 Project Project:80212187 1.00 traversal.f8cedb8f\n## edges [2]\n@1<@0 AUTHORED\n@2<@1 IN_PROJECT\n"
	workedSession2  = "GCF profile=graph symbols=3 edges=2 session=true pack_root=" + workedRoot + " query_type=traversal\n## targets\n@0  # previously transmitted\n## related\n@1  # previously transmitted\n## extended\n@2  # previously transmitted\n## edges [2]\n@1<@0 AUTHORED\n@2<@1 IN_PROJECT\n"
	workedUnchanged = "GCF profile=graph unchanged=true pack_root=" + workedRoot + " symbols=3 query_type=traversal\n"
	closedRoot      = "sha256:bb7b151404816f83a016134a33d36dcf144cabf3f81472d60f9f0f73b1ed5c43"
	workedDelta     = "GCF profile=graph delta=true base_root=" + workedRoot + " new_root=" + closedRoot + " query_type=traversal\n## removed\nMergeRequest MergeRequest:482927048\n## added\n@0 MergeRequest MergeRequest:482927048 1.00 traversal.b3f8b0d4 1\n"

	aggregationJSON = `{"format_version":"5.0.1","query_type":"aggregation","nodes":[],"edges":[],
"group_columns":[{"name":"u","kind":"node","node":"u","entity":"User"},{"name":"mr_state","kind":"property","node":"mr","property":"state"}],
"columns":[{"name":"count_mr","function":"count","target":"mr"}],
"rows":[{"u":{"type":"User","id":"5252563","properties":{"name":"Jordan NG","username":"jordan_ng"}},"mr_state":"merged","count_mr":12},
{"u":{"type":"User","id":"42","properties":{"username":"alice"}},"mr_state":"opened","count_mr":3}],
"pagination":{"has_more":false,"truncated":false}}`
	aggregationGCF = `GCF profile=generic
query_type=aggregation
mapping_version=1.0.0
## pagination
  has_more=false
  truncated=false
## group_columns [2]{name,kind,node,entity,property}
u|node|u|User|~
mr_state|property|mr|~|state
## columns [1]{name,function,target}
count_mr|count|mr
## rows [2]{"u.type","u.id","u.name","u.username",mr_state,count_mr}
User|5252563|Jordan NG|jordan_ng|merged|12
User|42|~|alice|opened|3
`
)

func workedResponse(t testing.TB) *graphresponse.Response {
	return loadResponse(t, "testdata/worked_example.json")
}

// closedResponse is the worked example with the merge request closed.
func closedResponse(t testing.TB) *graphresponse.Response {
	r := workedResponse(t)
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Type != "MergeRequest" {
			continue
		}
		for j := range n.Props {
			if n.Props[j].Key == "state" {
				n.Props[j].Value = graphresponse.String("closed")
			}
		}
	}
	return r
}

func TestWorkedExamples(t *testing.T) {
	r := workedResponse(t)
	agg, err := graphresponse.Unmarshal([]byte(aggregationJSON))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		r    *graphresponse.Response
		opts gcf.Options
		want string
	}{
		{"gcf", r, gcf.Options{}, workedGCF},
		{"gcf-graph", r, gcf.Options{Profile: gcf.ProfileGraph}, workedGraph},
		{"aggregation", agg, gcf.Options{}, aggregationGCF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcf.Marshal(tt.r, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("Marshal (-want +got):\n%s", diff)
			}
			back, err := gcf.Unmarshal(got, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tt.opts.Profile == gcf.ProfileGeneric && !equivalent(tt.r, back) {
				t.Errorf("Unmarshal(Marshal(r)) not equivalent to r:\n%s\n%s", graphresponse.Marshal(tt.r), graphresponse.Marshal(back))
			}
		})
	}
}

func TestRespondSequence(t *testing.T) {
	cur, err := gcf.ToGraph(workedResponse(t), gcf.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cur.PackRoot != workedRoot {
		t.Fatalf("root %s, want %s", cur.PackRoot, workedRoot)
	}
	sess := gcf.NewSession(gcf.Options{})
	closed, err := gcf.ToGraph(closedResponse(t), gcf.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	closedFull, err := gcf.Marshal(closedResponse(t), gcf.Options{Profile: gcf.ProfileGraph})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		cur     *gcf.Graph
		st      gcf.GraphState
		want    string
		outcome gcf.Outcome
	}{
		{"no session", cur, gcf.GraphState{}, workedGraph, gcf.OutcomeFull},
		{"session call 1", cur, gcf.GraphState{Session: sess}, workedSession1, gcf.OutcomeFull},
		{"session call 2", cur, gcf.GraphState{Session: sess}, workedSession2, gcf.OutcomeFull},
		{"unchanged", cur, gcf.GraphState{ClientRoot: workedRoot, Base: cur}, workedUnchanged, gcf.OutcomeUnchanged},
		{"delta not worthwhile", closed, gcf.GraphState{ClientRoot: workedRoot, Base: cur}, string(closedFull), gcf.OutcomeFull},
	}
	for _, s := range steps {
		var b bytes.Buffer
		got, err := gcf.Respond(&b, s.cur, s.st, gcf.Options{})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got != s.outcome {
			t.Errorf("%s: outcome %v, want %v", s.name, got, s.outcome)
		}
		if diff := cmp.Diff(s.want, b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", s.name, diff)
		}
	}
	if closed.PackRoot != closedRoot {
		t.Errorf("closed root %s, want %s", closed.PackRoot, closedRoot)
	}
	d, err := gcf.Delta(cur, closed)
	if err != nil {
		t.Fatal(err)
	}
	d.Extra = closed.Extra
	var b bytes.Buffer
	if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeDelta(d); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(workedDelta, b.String()); diff != "" {
		t.Errorf("delta (-want +got):\n%s", diff)
	}
	if len(workedDelta) != 334 || len(closedFull) != 378 {
		t.Errorf("sizes %d and %d, spec says 334 and 378", len(workedDelta), len(closedFull))
	}
	// The consumer applies the delta to its snapshot and reaches the new root.
	dd, err := gcf.NewDecoder(strings.NewReader(b.String()), gcf.Options{}).DecodeDelta()
	if err != nil {
		t.Fatal(err)
	}
	res, err := gcf.ApplyDelta(cur, dd)
	if err != nil {
		t.Fatal(err)
	}
	if root, _ := gcf.PackRoot(res); root != closedRoot {
		t.Errorf("applied root %s", root)
	}
}

func TestRespondDelta(t *testing.T) {
	// A large graph with one changed node: the delta is worthwhile.
	mk := func(state string) *graphresponse.Response {
		r := &graphresponse.Response{QueryType: "traversal"}
		for i := range 40 {
			r.Nodes = append(r.Nodes, graphresponse.Node{Type: "Issue", ID: int64(i), Props: []graphresponse.Member{{Key: "state", Value: graphresponse.String("open")}}})
			if i > 0 {
				r.Edges = append(r.Edges, graphresponse.Edge{From: "Issue", FromID: int64(i - 1), To: "Issue", ToID: int64(i), Type: "BLOCKS"})
			}
		}
		r.Nodes[5].Props[0].Value = graphresponse.String(state)
		return r
	}
	base, _ := gcf.ToGraph(mk("open"), gcf.GraphOptions{})
	next, _ := gcf.ToGraph(mk("closed"), gcf.GraphOptions{})
	var b bytes.Buffer
	out, err := gcf.Respond(&b, next, gcf.GraphState{ClientRoot: base.PackRoot, Base: base}, gcf.Options{})
	if err != nil || out != gcf.OutcomeDelta {
		t.Fatalf("outcome %v, %v", out, err)
	}
	d, err := gcf.NewDecoder(&b, gcf.Options{}).DecodeDelta()
	if err != nil {
		t.Fatal(err)
	}
	res, err := gcf.ApplyDelta(base, d)
	if err != nil {
		t.Fatal(err)
	}
	if root, _ := gcf.PackRoot(res); root != next.PackRoot {
		t.Errorf("root %s, want %s", root, next.PackRoot)
	}
}

func TestMarshalErrors(t *testing.T) {
	node := func(typ string, id int64, props ...graphresponse.Member) graphresponse.Node {
		return graphresponse.Node{Type: typ, ID: id, Props: props}
	}
	tests := []struct {
		name    string
		r       *graphresponse.Response
		opts    gcf.Options
		wantErr error
	}{
		{"reserved type", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("edges", 1)}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"empty type", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("", 1)}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"duplicate node", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("A", 1), node("A", 1)}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"id property", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("A", 1, graphresponse.Member{Key: "id", Value: graphresponse.Int(2)})}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"non-finite", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("A", 1, graphresponse.Member{Key: "x", Value: graphresponse.Float(math.Inf(1))})}}, gcf.Options{}, gcf.ErrNonFinite},
		{"dotted metric", &graphresponse.Response{QueryType: "aggregation", Columns: []graphresponse.Column{{Name: "a.b", Function: "count", Target: "x"}}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"unknown row key", &graphresponse.Response{QueryType: "aggregation", Columns: []graphresponse.Column{{Name: "n", Function: "count", Target: "x"}}, Rows: []graphresponse.Row{{{Key: "zz", Value: graphresponse.Int(1)}}}}, gcf.Options{}, gcf.ErrUnrepresentable},
		{"aggregation as graph", &graphresponse.Response{QueryType: "aggregation"}, gcf.Options{Profile: gcf.ProfileGraph}, gcf.ErrUnsupportedQuery},
		{"kind collides with abbreviation", &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{node("pkg", 1)}}, gcf.Options{Profile: gcf.ProfileGraph}, gcf.ErrUnrepresentable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcf.Marshal(tt.r, tt.opts)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("got %v, want %v", err, tt.wantErr)
			}
			var ee *gcf.EncodeError
			if !errors.As(err, &ee) {
				t.Fatalf("error %T is not *EncodeError", err)
			}
		})
	}
}

func TestPackRootSensitivity(t *testing.T) {
	root := func(r *graphresponse.Response) string {
		g, err := gcf.ToGraph(r, gcf.GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return g.PackRoot
	}
	base := root(workedResponse(t))
	if got := root(closedResponse(t)); got == base {
		t.Error("changing a property did not change the root")
	}
	r := workedResponse(t)
	r.Pagination.HasMore = true
	if got := root(r); got != base {
		t.Error("changing pagination changed the root")
	}
}

func TestGraphTopologyAnchors(t *testing.T) {
	tests := []struct {
		file string
		want map[string]int // name -> distance
	}{
		{"snapshot_path_finding", map[string]int{"User:64248": 0, "MergeRequest:482927048": 1, "Project:278964": 2}},
	}
	for _, tt := range tests {
		r := loadResponse(t, goonInput(t, tt.file))
		g, err := gcf.ToGraph(r, gcf.GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, s := range g.Symbols {
			got[s.Name] = s.Distance
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s distances (-want +got):\n%s", tt.file, diff)
		}
	}
}

// equivalent is response equivalence of spec §3.2.5.
func equivalent(a, b *graphresponse.Response) bool {
	if a.QueryType != b.QueryType {
		return false
	}
	if (a.Pagination == nil) != (b.Pagination == nil) {
		return false
	}
	if p, q := a.Pagination, b.Pagination; p != nil {
		if p.HasMore != q.HasMore || p.Truncated != q.Truncated || (p.NextCursor == nil) != (q.NextCursor == nil) || (p.NextCursor != nil && *p.NextCursor != *q.NextCursor) {
			return false
		}
	}
	if len(a.Nodes) != len(b.Nodes) {
		return false
	}
	for _, n := range a.Nodes {
		i := slices.IndexFunc(b.Nodes, func(m graphresponse.Node) bool { return m.Type == n.Type && m.ID == n.ID })
		if i < 0 || !membersEquiv(n.Props, b.Nodes[i].Props) {
			return false
		}
	}
	edgeKeys := func(es []graphresponse.Edge) []string {
		var out []string
		for _, e := range es {
			out = append(out, string(graphresponse.Marshal(&graphresponse.Response{Edges: []graphresponse.Edge{e}})))
		}
		slices.Sort(out)
		return out
	}
	if !slices.Equal(edgeKeys(a.Edges), edgeKeys(b.Edges)) {
		return false
	}
	if (a.Columns == nil) != (b.Columns == nil) || !slices.Equal(a.Columns, b.Columns) {
		return false
	}
	if (a.GroupColumns == nil) != (b.GroupColumns == nil) || !slices.Equal(a.GroupColumns, b.GroupColumns) {
		return false
	}
	if (a.Rows == nil) != (b.Rows == nil) || len(a.Rows) != len(b.Rows) {
		return false
	}
	for i := range a.Rows {
		if !membersEquiv(a.Rows[i], b.Rows[i]) {
			return false
		}
	}
	return true
}

func membersEquiv(a, b []graphresponse.Member) bool {
	if len(a) != len(b) {
		return false
	}
	for _, m := range a {
		i := slices.IndexFunc(b, func(x graphresponse.Member) bool { return x.Key == m.Key })
		if i < 0 || !valueEquiv(m.Value, b[i].Value) {
			return false
		}
	}
	return true
}

func valueEquiv(a, b graphresponse.Value) bool {
	ak, bk := a.Kind(), b.Kind()
	num := func(k graphresponse.Kind) bool { return k == graphresponse.KindInt || k == graphresponse.KindFloat }
	if num(ak) && num(bk) {
		switch {
		case ak == graphresponse.KindInt && bk == graphresponse.KindInt:
			return a.Int() == b.Int()
		case ak == graphresponse.KindFloat && bk == graphresponse.KindFloat:
			return a.Float() == b.Float()
		case ak == graphresponse.KindInt:
			return float64(a.Int()) == b.Float() && b.Float() == math.Trunc(b.Float()) && int64(b.Float()) == a.Int()
		default:
			return float64(b.Int()) == a.Float() && a.Float() == math.Trunc(a.Float()) && int64(a.Float()) == b.Int()
		}
	}
	if ak != bk {
		return false
	}
	switch ak {
	case graphresponse.KindArray:
		x, y := a.Elems(), b.Elems()
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valueEquiv(x[i], y[i]) {
				return false
			}
		}
		return true
	case graphresponse.KindObject:
		return membersEquiv(a.Members(), b.Members())
	}
	return a.Equal(b)
}

func TestGraphOptions(t *testing.T) {
	r := workedResponse(t)
	gopts := gcf.GraphOptions{
		Anchors: []gcf.NodeRef{{Type: "Project", ID: 80212187}, {Type: "Nope", ID: 1}},
		Scores:  map[gcf.NodeRef]float64{{Type: "User", ID: 5252563}: 0.625},
	}
	direct, err := gcf.Marshal(r, gcf.Options{Profile: gcf.ProfileGraph, Tool: "q", Graph: gopts})
	if err != nil {
		t.Fatal(err)
	}
	g, err := gcf.ToGraph(r, gopts)
	if err != nil {
		t.Fatal(err)
	}
	g.Tool = "q"
	var b bytes.Buffer
	if err := gcf.NewEncoder(&b, gcf.Options{}).EncodeGraph(g); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.String(), string(direct)); diff != "" {
		t.Fatalf("Marshal and ToGraph+EncodeGraph differ (-ToGraph +Marshal):\n%s", diff)
	}
	want := map[string]struct {
		dist  int
		score float64
	}{
		"Project:80212187":       {0, 1},
		"MergeRequest:482927048": {1, 1},
		"User:5252563":           {2, 0.62},
	}
	for _, s := range g.Symbols {
		if w := want[s.Name]; s.Distance != w.dist || s.Score != w.score {
			t.Errorf("%s: distance %d score %v, want %d %v", s.Name, s.Distance, s.Score, w.dist, w.score)
		}
	}
}
