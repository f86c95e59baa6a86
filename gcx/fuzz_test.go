package gcx_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/internal/conformance"
)

// fuzzSeeds returns payloads from the unit tables and, when present, the
// conformance goldens and vectors.
func fuzzSeeds(f *testing.F) [][]byte {
	seeds := [][]byte{
		[]byte(""),
		[]byte("GCX1 tool=x fields=a,b\n1\t2\n"),
		[]byte("GCX1 tool=a fields=x\n1\nGCX2 tool=b fields=y\n"),
		[]byte("GCX1 tool=x fields=a rows=1 k\\n=v\\=w\n\\#1\n# c\n\r\n"),
		[]byte("GCX1 tool=graph.columns fields=name,kind,function,alias,property,entity query_type=aggregation rows=1\ntotal\tmetric\tcount\tmr\t\t\nGCX1 tool=graph.rows fields=#,total groups=0 rows=1\n1\t\n"),
		[]byte("GCX1 tool=graph.nodes fields=id,type,name,_props rows=1\n9\tLegal Entity\tACME\t{\"id\":\"dup\",\"tax id\":\"X-1\"}\n"),
		[]byte("GCX1 tool=graph.rows fields=u.id,u.username,merged_count groups=2 rows=1\n1\tghost1\t65555\n"),
	}
	root, err := conformance.Root()
	if err != nil {
		return seeds
	}
	dir := filepath.Join(root, "gcx")
	for _, p := range glob(f, filepath.Join(dir, "golden", "*", "*.gcx")) {
		seeds = append(seeds, readFile(f, p))
	}
	var vs []struct {
		Payload     string `json:"payload"`
		ExpectedGCX string `json:"expected_gcx"`
	}
	for _, name := range []string{"decode.json", "encode.json", "encode_any.json"} {
		var more []struct {
			Payload     string `json:"payload"`
			ExpectedGCX string `json:"expected_gcx"`
		}
		if p := filepath.Join(dir, "vectors", name); fileExists(p) {
			readJSON(f, p, &more)
		}
		vs = append(vs, more...)
	}
	for _, v := range vs {
		seeds = append(seeds, []byte(v.Payload+v.ExpectedGCX))
	}
	return seeds
}

// FuzzDecode checks that decoding never panics, that every error is a
// *SyntaxError, and that what decodes re-encodes to something that decodes
// to the same sections; graph decoding gets the same treatment.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, small uint8) {
		opts := gcx.Options{}
		if small > 0 {
			opts.MaxLineBytes = 8 + int(small)
		}
		secs, err := decodeAll(data, opts)
		if err != nil {
			var se *gcx.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
		}
		for _, s := range secs {
			if s.Meta == nil {
				t.Fatal("nil Meta")
			}
			if _, ok := s.Meta["tool"]; ok {
				t.Fatal("meta holds tool")
			}
			if _, ok := s.Meta["fields"]; ok {
				t.Fatal("meta holds fields")
			}
			for _, row := range s.Rows {
				if len(row) != len(s.Fields) {
					t.Fatalf("row of %d cells for %d fields", len(row), len(s.Fields))
				}
			}
		}
		if err == nil {
			if enc, err := gcx.MarshalSections(secs...); err == nil {
				back, err := gcx.UnmarshalSections(enc)
				if err != nil {
					t.Fatalf("re-encoded payload does not decode: %v\n%q", err, enc)
				}
				want := make([]gcx.Section, len(secs))
				for i, s := range secs {
					want[i] = logical(s)
				}
				if diff := cmp.Diff(want, back, sectionOpts); diff != "" {
					t.Fatalf("re-encoded payload decodes differently (-want +got):\n%s", diff)
				}
			}
			// Graph level: no panic, errors wrap ErrSchema.
			if r, err := gcx.DecodeGraph(secs); err != nil {
				if !errors.Is(err, gcx.ErrSchema) {
					t.Fatalf("DecodeGraph error %v does not wrap ErrSchema", err)
				}
			} else if _, err := gcx.Marshal(r, gcx.Options{}); err != nil && !errors.Is(err, gcx.ErrUnsafeName) && !errors.Is(err, gcx.ErrInvalidResponse) {
				t.Fatalf("Marshal of a decoded graph: %v", err)
			}
		}
		if _, err := gcx.Unmarshal(data, opts); err != nil {
			var se *gcx.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Unmarshal error %v (%T) is not a *SyntaxError", err, err)
			}
		}
		// The streaming decoder, fed in small pieces, agrees.
		streamed, serr := decodeStream(data, opts)
		if (serr == nil) != (err == nil) || !cmp.Equal(secs, streamed, sectionOpts) {
			t.Fatalf("streaming decode differs: %v vs %v", serr, err)
		}
	})
}

func decodeAll(data []byte, opts gcx.Options) ([]gcx.Section, error) {
	return readAll(gcx.NewDecoder(bytes.NewReader(data), opts))
}

func decodeStream(data []byte, opts gcx.Options) ([]gcx.Section, error) {
	return readAll(gcx.NewDecoder(&chunkReader{data: data, n: 3}, opts))
}

func readAll(d *gcx.Decoder) ([]gcx.Section, error) {
	var out []gcx.Section
	for {
		s, err := d.ReadSection()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, s)
	}
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(c.n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// FuzzGraphRoundTrip lets fuzz input seed the response generator of the
// property test; both properties of spec §13.2 must hold.
func FuzzGraphRoundTrip(f *testing.F) {
	for _, seed := range []int64{0, 1, 2, 42, 20261121} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed int64) {
		r := genResponse(rand.New(rand.NewSource(seed)))
		enc, err := gcx.Marshal(r, gcx.Options{})
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		checkRoundTrip(t, r, enc)
	})
}
