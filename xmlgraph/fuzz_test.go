package xmlgraph_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/xmlgraph"
)

// FuzzDecode checks that the decoder never panics, that every error is a
// positioned *SyntaxError, and that whatever it accepts encodes to a
// document that decodes to an equal response.
func FuzzDecode(f *testing.F) {
	for _, r := range conformance.GoonInputs(f) {
		f.Add(marshal(f, r))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 8 {
		f.Add(marshal(f, hostile(rng)))
	}
	f.Add([]byte(head + "<nodes><node type=\"T\" id=\"1\"><property key=\"k\" type=\"array\"><item type=\"object\"><member key=\"a\" type=\"int\">1</member></item></property></node></nodes><edges/></graph_response>"))
	for _, tt := range decodeErrors {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := xmlgraph.Unmarshal(data, xmlgraph.Options{})
		if err != nil {
			var se *xmlgraph.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
			if se.Line < 1 || se.Column < 1 {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		out, err := xmlgraph.Marshal(r, xmlgraph.Options{})
		if err != nil {
			t.Fatal(err)
		}
		back, err := xmlgraph.Unmarshal(out, xmlgraph.Options{})
		if err != nil {
			t.Fatalf("re-decode: %v\n%s", err, out)
		}
		if !back.Equal(r) {
			t.Fatalf("re-decode differs:\n%s\n%s", graphresponse.Marshal(r), graphresponse.Marshal(back))
		}
	})
}
