package xmlgraph_test

import (
	"io"
	"testing"

	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/xmlgraph"
)

func BenchmarkEncode(b *testing.B) {
	r := graphgen.Graph(42, 500, 800)
	out := marshal(b, r)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	e := xmlgraph.NewEncoder(io.Discard, xmlgraph.Options{})
	for b.Loop() {
		if err := e.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	out := marshal(b, graphgen.Graph(42, 500, 800))
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := xmlgraph.Unmarshal(out, xmlgraph.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
