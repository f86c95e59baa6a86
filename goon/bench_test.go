package goon_test

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
)

var benchSizes = []struct{ nodes, edges int }{{10, 8}, {500, 200}, {500, 800}, {50000, 20000}}

func BenchmarkEncode(b *testing.B) {
	for _, sz := range benchSizes {
		r := graphgen.Graph(42, sz.nodes, sz.edges)
		out, _ := goon.Marshal(r, opts)
		b.Run(fmt.Sprintf("%d_%d", sz.nodes, sz.edges), func(b *testing.B) {
			enc := goon.NewEncoder(io.Discard, opts)
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if err := enc.Encode(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMarshal(b *testing.B) {
	for _, sz := range benchSizes {
		r := graphgen.Graph(42, sz.nodes, sz.edges)
		out, _ := goon.Marshal(r, opts)
		b.Run(fmt.Sprintf("%d_%d", sz.nodes, sz.edges), func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := goon.Marshal(r, opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, sz := range benchSizes {
		out, _ := goon.Marshal(graphgen.Graph(42, sz.nodes, sz.edges), opts)
		b.Run(fmt.Sprintf("%d_%d", sz.nodes, sz.edges), func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := goon.Unmarshal(out, goon.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRawJSONEncode(b *testing.B) {
	for _, sz := range benchSizes {
		r := graphgen.Graph(42, sz.nodes, sz.edges)
		out := graphresponse.Marshal(r)
		b.Run(fmt.Sprintf("%d_%d", sz.nodes, sz.edges), func(b *testing.B) {
			buf := make([]byte, 0, len(out))
			b.SetBytes(int64(len(out)))
			b.ReportAllocs()
			for b.Loop() {
				buf = graphresponse.AppendJSON(buf[:0], r)
			}
		})
	}
}

// BenchmarkEncodeConformance encodes every conformance input once per
// iteration with its case's options: the same work as the reference
// measurement of Orbit's encoder over the 62 inputs.
func BenchmarkEncodeConformance(b *testing.B) {
	cases := loadCases(b)
	names := slices.Sorted(maps.Keys(cases))
	encs := make([]*goon.Encoder, len(names))
	inputs := make([]*graphresponse.Response, len(names)) // no map lookup inside the loop
	total := 0
	for i, name := range names {
		encs[i] = goon.NewEncoder(io.Discard, goon.Options{Version: cases[name].meta.GoonVersion})
		inputs[i] = cases[name].input
		total += len(cases[name].out)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	for b.Loop() {
		for i, r := range inputs {
			if err := encs[i].Encode(r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
