package graphresponse_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

func FuzzUnmarshal(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "goon", "testdata", "*.input.json"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(node(`,"x":1e999`)))
	f.Add([]byte(`{"a":"\ud800\udc00\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			var se *graphresponse.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Column < 1 {
				t.Fatalf("error %v is not a positioned *SyntaxError", err)
			}
			return
		}
		// Whatever decodes re-encodes to a fixed point.
		out := graphresponse.Marshal(r)
		back, err := graphresponse.Unmarshal(out)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		if !bytes.Equal(graphresponse.Marshal(back), out) {
			t.Fatalf("raw JSON is not a fixed point:\n%s\n%s", out, graphresponse.Marshal(back))
		}
	})
}
