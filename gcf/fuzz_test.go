package gcf_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/internal/conformance"
)

// fuzzSeeds are hand-written inputs in addition to the conformance ones.
var fuzzSeeds = []string{
	"GCF profile=generic\n",
	"GCF profile=generic\n=42\n",
	"GCF profile=generic\n## [2]{a,b}\n1|x\n2|~\n",
	"GCF profile=generic\n## orders [1]{id,customer}\n@0 1|^{name,email}\nAlice|a@x.io\n",
	"GCF profile=generic\n## [2:]{key,x}\na|1\nb|2\n",
	"GCF profile=generic\n## r [?]{id}\n1\n##! summary counts=1\n",
	"GCF profile=graph session=true\n## targets\n@0  # previously transmitted\n",
	"GCF profile=graph delta=true base_root=a new_root=b\n## removed\nfn x\n",
	"GCF profile=generic delta=true base_root=a new_root=b key=id\n## removed [1]{@id}\n1\n",
	"GCF profile=generic\n## [1]{\"a>b\",\"a>c>d\"}\n1|-\n",
	"GCF profile=generic\n## rows [1]{id,sub}\n@0 1|^{\"x|y\",b,c}\n1|2|3\n",
}

func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	if dir, err := conformanceDir(); err == nil {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v, err := gcf.ParseJSON(data)
			if err != nil {
				return nil
			}
			o := v.(*gcf.Object)
			for _, k := range []string{"input", "expected"} {
				if s, ok := get(o, k).(string); ok && strings.HasPrefix(s, "GCF") {
					f.Add([]byte(s))
				}
			}
			return nil
		})
	}
	sentinels := gcf.Sentinels()
	opts := gcf.Options{Limits: gcf.Limits{MaxDepth: 32, MaxElements: 10000, MaxLineLength: 65536, MaxFields: 1000, MaxInputSize: 1 << 20}}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := gcf.NewDecoder(bytes.NewReader(data), opts).DecodeDocument()
		if err != nil {
			var se *gcf.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not *SyntaxError: %v", err, err)
			}
			if se.Detail == "internal decoder error" {
				t.Fatalf("decoder panicked on %q", data)
			}
			documented := false
			for _, s := range sentinels {
				if errors.Is(err, s) {
					documented = true
				}
			}
			if !documented {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		if doc.Header.Profile != "generic" || doc.SetDelta != nil {
			return
		}
		if _, ok := doc.Header.Get("key"); ok {
			return // identity-marked keyed sets re-encode through EncodeSet
		}
		enc, err := gcf.MarshalValue(doc.Value, opts)
		if errors.Is(err, gcf.ErrLimit) {
			return
		}
		if err != nil {
			t.Fatalf("re-encode of a decoded value failed: %v\ninput %q", err, data)
		}
		back, err := gcf.UnmarshalValue(enc, opts)
		if err != nil {
			t.Fatalf("decode of re-encoded value failed: %v\n%s", err, enc)
		}
		if !valueEqual(doc.Value, back) {
			t.Fatalf("re-encoded value differs:\ninput %q\nenc %q", data, enc)
		}
	})
}

// conformanceDir locates the GCF fixtures without skipping the fuzz target.
func conformanceDir() (string, error) {
	root, err := conformance.Root()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "gcf"), nil
}
