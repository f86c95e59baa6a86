package goon_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/graphwire/graphwire/goon"
)

func FuzzDecode(f *testing.F) {
	// Seeds: every conformance output and the decoder error table.
	if dir, err := filepath.Glob(filepath.Join("..", "..", "shared", "conformance", "goon", "*.expected.goon")); err == nil {
		for _, p := range dir {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	for _, s := range []string{
		"", "@header\n", "@header\nquery_type:x\n@nodes\n@edges\n",
		"@header\nquery_type:path_finding\n@nodes\nUser(1):\n1 a=\"b\\n\"\n@paths\npath=0: A:1 --T--> B:2\n",
		"@header\nquery_type:aggregation\nrows:1\ngroup_by:g(node:G)\naggregations:n(count:g)\n@nodes\nG(1):\n7\n@edges\n@rows\ng=G:07 n=null\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := goon.Unmarshal(data, goon.Options{})
		if err != nil {
			var se *goon.SyntaxError
			if !errors.As(err, &se) || se.Line < 0 || se.Column < 1 {
				t.Fatalf("error %v is not a positioned *SyntaxError", err)
			}
			return
		}
		// Whatever decodes must encode again.
		if _, err := goon.Marshal(r, goon.Options{Version: "1.0.0"}); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
	})
}
