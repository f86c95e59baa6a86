package markdown_test

import (
	"io"
	"testing"

	"github.com/graphwire/graphwire/internal/graphgen"
	"github.com/graphwire/graphwire/markdown"
)

func BenchmarkEncode(b *testing.B) {
	r := graphgen.Graph(42, 500, 800)
	out, err := markdown.Marshal(r, markdown.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	e := markdown.NewEncoder(io.Discard, markdown.Options{})
	for b.Loop() {
		if err := e.Encode(r); err != nil {
			b.Fatal(err)
		}
	}
}
