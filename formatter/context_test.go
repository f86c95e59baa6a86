package formatter_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
)

// cancelAfter is a writer that cancels its context once more than n bytes went through it.
type cancelAfter struct {
	buf    bytes.Buffer
	n      int
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	n, err := c.buf.Write(p)
	if c.buf.Len() > c.n {
		c.cancel()
	}
	return n, err
}

// manyNodes is an answer of about 4 MB in every format.
func manyNodes() *graphresponse.Response {
	r := &graphresponse.Response{QueryType: graphresponse.QueryTraversal, Edges: []graphresponse.Edge{}}
	for i := range 2000 {
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: "Note", ID: int64(i + 1),
			Props: []graphresponse.Member{{Key: "body", Value: graphresponse.String(strings.Repeat("word ", 400))}}})
	}
	return r
}

// TestFormatStopsOnContext: a context that ends while an answer is being written fails it with
// the context's error in every format, and the formats that write as they go stop within
// 64 KiB (plus a codec's buffer); a context already ended fails before anything is written.
func TestFormatStopsOnContext(t *testing.T) {
	r := manyNodes()
	for _, f := range formatter.Default().Formatters() {
		t.Run(f.Name(), func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			w := &cancelAfter{n: 1 << 10, cancel: cancel}
			_, err := formatter.FormatCountContext(ctx, f, w, r)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			// goon and toon write as they go; the others build their text first and
			// report the ended context once it is written.
			if streams := f.Name() == formatter.GOON || f.Name() == formatter.TOON; streams && w.buf.Len() > 1<<20 {
				t.Errorf("%d bytes written, want the format stopped soon after 1 KiB", w.buf.Len())
			}
			if _, err := formatter.StampContext(ctx, f, r); !errors.Is(err, context.Canceled) {
				t.Errorf("ended context: err = %v, want context.Canceled", err)
			}
		})
	}
}

// TestGCXLongRow: a gcx row is one line of at most 4 MiB; an answer with a longer one (a
// 10 MiB value with the server's cap turned off) is ErrUnrepresentable, which the faces report
// as UNREPRESENTABLE, not an internal error.
func TestGCXLongRow(t *testing.T) {
	r := &graphresponse.Response{QueryType: graphresponse.QueryTraversal, Edges: []graphresponse.Edge{},
		Nodes: []graphresponse.Node{{Type: "Note", ID: 1,
			Props: []graphresponse.Member{{Key: "note", Value: graphresponse.String(strings.Repeat("lorem ipsum ", 10<<20/12))}}}}}
	f, err := formatter.Default().Lookup(formatter.GCX)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := formatter.Stamp(f, r); !errors.Is(err, formatter.ErrUnrepresentable) {
		t.Errorf("err = %v, want ErrUnrepresentable", err)
	}
}
