package gcf_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

// benchResponse builds a seeded traversal response with n nodes and m edges.
func benchResponse(n, m int) *graphresponse.Response {
	r := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	types := []string{"User", "Project", "MergeRequest", "Issue"}
	resp := &graphresponse.Response{FormatVersion: "5.0.1", QueryType: graphresponse.QueryTraversal,
		Pagination: &graphresponse.Pagination{}}
	for i := range n {
		t := types[i%len(types)]
		resp.Nodes = append(resp.Nodes, graphresponse.Node{Type: t, ID: int64(1000000 + i*7919), Props: []graphresponse.Member{
			{Key: "name", Value: graphresponse.String(fmt.Sprintf("%s number %d", t, i))},
			{Key: "state", Value: graphresponse.String([]string{"opened", "merged", "closed"}[i%3])},
			{Key: "iid", Value: graphresponse.Int(int64(i))},
		}})
	}
	for range m {
		a, b := r.IntN(n), r.IntN(n)
		resp.Edges = append(resp.Edges, graphresponse.Edge{From: resp.Nodes[a].Type, FromID: resp.Nodes[a].ID,
			To: resp.Nodes[b].Type, ToID: resp.Nodes[b].ID, Type: []string{"AUTHORED", "IN_PROJECT", "MENTIONS"}[r.IntN(3)]})
	}
	return resp
}

var benchSizes = []struct{ n, m int }{{10, 8}, {30, 25}, {500, 200}}

func BenchmarkEncodeGraph(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%d_%d", sz.n, sz.m), func(b *testing.B) {
			r := benchResponse(sz.n, sz.m)
			opts := gcf.Options{Profile: gcf.ProfileGraph}
			out, err := gcf.Marshal(r, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			enc := gcf.NewEncoder(io.Discard, opts)
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.Encode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeGraph(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%d_%d", sz.n, sz.m), func(b *testing.B) {
			opts := gcf.Options{Profile: gcf.ProfileGraph}
			data, err := gcf.Marshal(benchResponse(sz.n, sz.m), opts)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gcf.Unmarshal(data, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchTable is a 2,000-row generic table.
func benchTable() any {
	rows := make([]any, 2000)
	for i := range rows {
		o := gcf.NewObject(5)
		o.Set("id", int64(i))
		o.Set("name", fmt.Sprintf("row %d", i))
		o.Set("score", float64(i)/7)
		o.Set("active", i%2 == 0)
		o.Set("tag", []string{"a|b", "plain", "-"}[i%3])
		rows[i] = o
	}
	root := gcf.NewObject(1)
	root.Set("rows", rows)
	return root
}

func BenchmarkEncodeTable(b *testing.B) {
	v := benchTable()
	out, err := gcf.MarshalValue(v, gcf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	enc := gcf.NewEncoder(io.Discard, gcf.Options{})
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.EncodeValue(v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeTable(b *testing.B) {
	data, err := gcf.MarshalValue(benchTable(), gcf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gcf.NewDecoder(bytes.NewReader(data), gcf.Options{}).DecodeValue(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeGCF(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%d_%d", sz.n, sz.m), func(b *testing.B) {
			r := benchResponse(sz.n, sz.m)
			out, err := gcf.Marshal(r, gcf.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(out)))
			enc := gcf.NewEncoder(io.Discard, gcf.Options{})
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.Encode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeGCF(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(fmt.Sprintf("%d_%d", sz.n, sz.m), func(b *testing.B) {
			data, err := gcf.Marshal(benchResponse(sz.n, sz.m), gcf.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gcf.Unmarshal(data, gcf.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// symbolGraph builds a seeded graph-profile payload model with n symbols and
// m distinct edges, the shape of the public GCF codecs' own benchmarks.
func symbolGraph(n, m int) *gcf.Graph {
	r := rand.New(rand.NewPCG(uint64(n), uint64(m)))
	kinds := []string{"function", "method", "type", "interface", "var", "package"}
	g := &gcf.Graph{Tool: "search_symbols", Budget: 8000, Tokens: 4000}
	for i := range n {
		g.Symbols = append(g.Symbols, gcf.Symbol{Kind: kinds[i%len(kinds)],
			Name:  fmt.Sprintf("github.com/acme/svc/pkg%d.Symbol%d", i%17, i),
			Score: float64(r.IntN(100)) / 100, Provenance: []string{"lsp", "ast"}[i%2], Distance: i % 3})
	}
	seen := map[[2]int]bool{}
	for len(g.Edges) < m {
		a, c := r.IntN(n), r.IntN(n)
		if a == c || seen[[2]int{a, c}] {
			continue
		}
		seen[[2]int{a, c}] = true
		g.Edges = append(g.Edges, gcf.Edge{Source: g.Symbols[a].Name, Target: g.Symbols[c].Name,
			Type: []string{"calls", "imports", "references"}[r.IntN(3)]})
	}
	return g
}

// BenchmarkEncodeSymbolGraph and BenchmarkDecodeSymbolGraph measure the
// graph profile on its own model ([gcf.Graph]), as the public GCF codecs do.
func BenchmarkEncodeSymbolGraph(b *testing.B) {
	g := symbolGraph(500, 200)
	var buf bytes.Buffer
	if err := gcf.NewEncoder(&buf, gcf.Options{}).EncodeGraph(g); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	enc := gcf.NewEncoder(io.Discard, gcf.Options{})
	b.ReportAllocs()
	for b.Loop() {
		if err := enc.EncodeGraph(g); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeSymbolGraph(b *testing.B) {
	var buf bytes.Buffer
	if err := gcf.NewEncoder(&buf, gcf.Options{}).EncodeGraph(symbolGraph(500, 200)); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := gcf.NewDecoder(bytes.NewReader(data), gcf.Options{}).DecodeGraph(); err != nil {
			b.Fatal(err)
		}
	}
}
