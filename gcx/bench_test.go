package gcx_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// benchSection builds a seeded section of n rows and 6 fields that looks
// like a symbol search result.
func benchSection(n int) gcx.Section {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	kinds := []string{"func", "method", "type", "var", "const"}
	words := []string{"Server", "Start", "handle", "Request", "parse", "Config", "load", "graph", "node", "edge"}
	s := gcx.Section{Tool: "search_symbols", Fields: []string{"id", "kind", "name", "path", "line", "signature"},
		Meta: map[string]string{"rows": strconv.Itoa(n), "total": strconv.Itoa(n)}}
	for i := range n {
		name := words[rng.IntN(len(words))] + words[rng.IntN(len(words))]
		path := "internal/" + words[rng.IntN(len(words))] + "/" + words[rng.IntN(len(words))] + ".go"
		sig := "func (s *" + words[rng.IntN(len(words))] + ") " + name + "(ctx context.Context, n int) error"
		if i%10 == 0 {
			sig += "\n\t// escaped"
		}
		s.Rows = append(s.Rows, []string{path + "::" + name, kinds[rng.IntN(len(kinds))], name, path, strconv.Itoa(1 + rng.IntN(900)), sig})
	}
	return s
}

func BenchmarkEncodeSection(b *testing.B) {
	for _, n := range []int{100, 5000} {
		s := benchSection(n)
		size, err := gcx.MarshalSections(s)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(n)+"x6/MarshalSections", func(b *testing.B) {
			b.SetBytes(int64(len(size)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gcx.MarshalSections(s); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(strconv.Itoa(n)+"x6/Encoder", func(b *testing.B) {
			b.SetBytes(int64(len(size)))
			b.ReportAllocs()
			for b.Loop() {
				if err := gcx.NewEncoder(io.Discard, gcx.Options{}).EncodeSection(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeSection(b *testing.B) {
	for _, n := range []int{100, 5000} {
		data, err := gcx.MarshalSections(benchSection(n))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strconv.Itoa(n)+"x6/UnmarshalSections", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gcx.UnmarshalSections(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(strconv.Itoa(n)+"x6/Decoder", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			r := bytes.NewReader(data)
			for b.Loop() {
				r.Reset(data)
				if _, err := gcx.NewDecoder(r, gcx.Options{}).ReadSection(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchResponse builds a seeded traversal of nodes over 4 types and edges
// over 3 triples.
func benchResponse(nodes, edges int) *graphresponse.Response {
	rng := rand.New(rand.NewPCG(7, 11))
	types := []string{"User", "Project", "MergeRequest", "Pipeline"}
	states := []string{"opened", "merged", "closed"}
	r := &graphresponse.Response{FormatVersion: "5.0.1", QueryType: graphresponse.QueryTraversal,
		Pagination: &graphresponse.Pagination{HasMore: true, NextCursor: ptr("eyJoIjoiYWQyMTczMWM5MTZm")}}
	for i := range nodes {
		t := types[i%len(types)]
		props := []graphresponse.Member{
			{Key: "name", Value: graphresponse.String("name-" + strconv.Itoa(rng.IntN(100000)))},
			{Key: "created_at", Value: graphresponse.String("2026-05-08T14:47:05Z")},
		}
		switch t {
		case "MergeRequest":
			props = append(props,
				graphresponse.Member{Key: "iid", Value: graphresponse.Int(int64(rng.IntN(5000)))},
				graphresponse.Member{Key: "state", Value: graphresponse.String(states[rng.IntN(3)])},
				graphresponse.Member{Key: "title", Value: graphresponse.String("fix: handle the\tedge case #" + strconv.Itoa(i))})
		case "Pipeline":
			props = append(props, graphresponse.Member{Key: "duration", Value: graphresponse.Float(rng.Float64() * 1000)})
		}
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: t, ID: int64(1_000_000 + i), Props: props})
	}
	triples := [][3]string{{"AUTHORED", "User", "MergeRequest"}, {"IN_PROJECT", "MergeRequest", "Project"}, {"TRIGGERED", "User", "Pipeline"}}
	for i := range edges {
		tr := triples[i%len(triples)]
		r.Edges = append(r.Edges, graphresponse.Edge{Type: tr[0], From: tr[1], To: tr[2],
			FromID: int64(1_000_000 + rng.IntN(nodes)), ToID: int64(1_000_000 + rng.IntN(nodes))})
	}
	return r
}

func BenchmarkMarshal(b *testing.B) {
	r := benchResponse(500, 200)
	out, err := gcx.Marshal(r, gcx.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gcx.Marshal(r, gcx.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	data, err := gcx.Marshal(benchResponse(500, 200), gcx.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gcx.Unmarshal(data, gcx.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeValue measures the generic fallback (spec §9) on 5,000 JSON
// objects of 6 keys, as decoded by encoding/json: the shape of gcx-go's
// EncodeAny benchmark.
func BenchmarkEncodeValue(b *testing.B) {
	s := benchSection(5000)
	rows := make([]any, len(s.Rows))
	for i, row := range s.Rows {
		o := make(map[string]any, len(s.Fields))
		for j, f := range s.Fields {
			o[f] = row[j]
		}
		o["line"], _ = strconv.ParseFloat(row[4], 64) // a JSON number
		rows[i] = o
	}
	out, err := gcx.MarshalValue("search_symbols", rows)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if err := gcx.NewEncoder(io.Discard, gcx.Options{}).EncodeValue("search_symbols", rows); err != nil {
			b.Fatal(err)
		}
	}
}
