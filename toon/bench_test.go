package toon

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// table returns rows uniform objects with fields columns (id, name, email,
// active, score, tag, then extra string columns): the shape TOON writes as
// one table.
func table(rows, fields int) []any {
	rng := rand.New(rand.NewPCG(42, 1))
	tags := []string{"alpha", "beta", "gamma, delta", "needs: review", "ok"}
	out := make([]any, rows)
	for i := range out {
		o := make(Object, 0, fields)
		cols := []Member{
			{"id", json.Number(strconv.Itoa(100000 + i))},
			{"name", "User " + strconv.Itoa(i)},
			{"email", "user" + strconv.Itoa(i) + "@example.com"},
			{"active", rng.IntN(2) == 0},
			{"score", json.Number(formatFloat(float64(rng.IntN(100000)) / 100))},
			{"tag", tags[rng.IntN(len(tags))]},
		}
		for j := range fields {
			if j < len(cols) {
				o = append(o, cols[j])
			} else {
				o = append(o, Member{"f" + strconv.Itoa(j), "v" + strconv.Itoa(rng.IntN(1000))})
			}
		}
		out[i] = o
	}
	return out
}

// benchGraph is a seeded traversal response with n nodes over four types
// and m edges over three relationship types, with pagination.
func benchGraph(n, m int) *graphresponse.Response {
	rng := rand.New(rand.NewPCG(7, 11))
	types := []string{"User", "MergeRequest", "Project", "Pipeline"}
	states := []string{"opened", "merged", "closed", "locked"}
	cursor := "eyJvIjo1MDB9"
	r := &graphresponse.Response{FormatVersion: "1.2.0", QueryType: graphresponse.QueryTraversal,
		Pagination: &graphresponse.Pagination{HasMore: true, NextCursor: &cursor}}
	s, in := graphresponse.String, graphresponse.Int
	for i := range n {
		t := types[i%len(types)]
		id := int64(1_000_000 + rng.IntN(90_000_000))
		var props []graphresponse.Member
		switch t {
		case "User":
			props = []graphresponse.Member{{Key: "username", Value: s("user_" + strconv.Itoa(i))}, {Key: "name", Value: s("User Number " + strconv.Itoa(i))}, {Key: "state", Value: s("active")}}
		case "MergeRequest":
			props = []graphresponse.Member{{Key: "iid", Value: in(int64(rng.IntN(5000)))}, {Key: "title", Value: s("Fix: flaky spec in module " + strconv.Itoa(rng.IntN(300)))},
				{Key: "state", Value: s(states[rng.IntN(len(states))])}, {Key: "draft", Value: graphresponse.Bool(rng.IntN(4) == 0)},
				{Key: "created_at", Value: s("2026-05-08T14:47:05Z")}}
		case "Project":
			props = []graphresponse.Member{{Key: "name", Value: s("project-" + strconv.Itoa(i))}, {Key: "full_path", Value: s("group/sub/project-" + strconv.Itoa(i))},
				{Key: "star_count", Value: in(int64(rng.IntN(10000)))}}
		default:
			props = []graphresponse.Member{{Key: "status", Value: s(states[rng.IntN(2)])}, {Key: "duration", Value: graphresponse.Float(float64(rng.IntN(100000)) / 10)},
				{Key: "ref", Value: s("main")}}
		}
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: t, ID: id, Props: props})
	}
	rels := []struct{ typ, from, to string }{{"AUTHORED", "User", "MergeRequest"}, {"IN_PROJECT", "MergeRequest", "Project"}, {"RAN_ON", "Pipeline", "MergeRequest"}}
	byType := map[string][]int64{}
	for _, nd := range r.Nodes {
		byType[nd.Type] = append(byType[nd.Type], nd.ID)
	}
	for range m {
		rel := rels[rng.IntN(len(rels))]
		from, to := byType[rel.from], byType[rel.to]
		r.Edges = append(r.Edges, graphresponse.Edge{From: rel.from, FromID: from[rng.IntN(len(from))], To: rel.to, ToID: to[rng.IntN(len(to))], Type: rel.typ})
	}
	return r
}

func benchEncode(b *testing.B, v any) {
	out, err := Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}

func benchDecode(b *testing.B, v any) {
	data, err := Marshal(v)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeTable100x6(b *testing.B)  { benchEncode(b, table(100, 6)) }
func BenchmarkEncodeTable5000x6(b *testing.B) { benchEncode(b, table(5000, 6)) }
func BenchmarkDecodeTable100x6(b *testing.B)  { benchDecode(b, table(100, 6)) }
func BenchmarkDecodeTable5000x6(b *testing.B) { benchDecode(b, table(5000, 6)) }

func BenchmarkMarshalResponse500x200(b *testing.B) {
	r := benchGraph(500, 200)
	out, err := MarshalResponse(r, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MarshalResponse(r, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeResponse500x200(b *testing.B) {
	out, err := MarshalResponse(benchGraph(500, 200), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(out); err != nil {
			b.Fatal(err)
		}
	}
}

// The benchmarks' inputs are themselves checked, so a broken generator
// cannot make the numbers meaningless.
func TestBenchInputs(t *testing.T) {
	for _, v := range []any{table(100, 6), table(5000, 6)} {
		if msg := checkRoundTrip(v, Options{}); msg != "" {
			t.Fatal(msg)
		}
		out, _ := Marshal(v)
		if n := len(v.([]any)); string(out[:len("["+strconv.Itoa(n)+"]{")]) != "["+strconv.Itoa(n)+"]{" {
			t.Fatalf("table of %d rows is not written as a table: %.40q", n, out)
		}
	}
	r := benchGraph(500, 200)
	if len(r.Nodes) != 500 || len(r.Edges) != 200 {
		t.Fatalf("benchGraph: %d nodes, %d edges", len(r.Nodes), len(r.Edges))
	}
	checkRendering(t, r)
}
