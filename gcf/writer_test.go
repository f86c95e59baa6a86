package gcf_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/graphwire/graphwire/gcf"
)

var errDiskFull = errors.New("disk full")

// failWriter accepts n bytes, then fails every write.
type failWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, errDiskFull
	}
	k := min(len(p), w.n)
	w.buf.Write(p[:k])
	w.n -= k
	if k < len(p) {
		return k, errDiskFull
	}
	return k, nil
}

func TestEncoderWriteError(t *testing.T) {
	r := workedResponse(t)
	for _, opts := range []gcf.Options{{}, {Profile: gcf.ProfileGraph}} {
		want, err := gcf.Marshal(r, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{0, 1, 17, len(want) - 1} {
			w := &failWriter{n: n}
			enc := gcf.NewEncoder(w, opts)
			if err := enc.Encode(r); !errors.Is(err, errDiskFull) {
				t.Fatalf("n=%d: first error %v, want %v", n, err, errDiskFull)
			}
			if err := enc.Encode(r); !errors.Is(err, errDiskFull) {
				t.Fatalf("n=%d: second error %v, want the sticky %v", n, err, errDiskFull)
			}
			if err := enc.EncodeValue(1); !errors.Is(err, errDiskFull) {
				t.Fatalf("n=%d: EncodeValue after failure: %v", n, err)
			}
			if !bytes.HasPrefix(want, w.buf.Bytes()) {
				t.Fatalf("n=%d: written bytes are not a prefix of the output:\n%q", n, w.buf.Bytes())
			}
		}
	}
}

func TestStreamEncoderWriteError(t *testing.T) {
	syms := []gcf.Symbol{
		{Kind: "function", Name: "pkg.A", Score: 0.9, Provenance: "lsp"},
		{Kind: "function", Name: "pkg.B", Score: 0.5, Provenance: "lsp", Distance: 1},
	}
	run := func(w interface{ Write([]byte) (int, error) }) (errs []error) {
		s := gcf.NewStreamEncoder(w, gcf.StreamHeader{Tool: "t"}, gcf.Options{})
		for _, sym := range syms {
			errs = append(errs, s.WriteNode(sym))
		}
		errs = append(errs, s.WriteEdge(gcf.Edge{Source: "pkg.B", Target: "pkg.A", Type: "calls"}))
		return append(errs, s.Close())
	}
	var full bytes.Buffer
	for _, err := range run(&full) {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{0, 10, full.Len() - 1} {
		w := &failWriter{n: n}
		errs := run(w)
		// The stream buffers, so the failure surfaces at the latest in Close,
		// and every call after it returns the same error.
		first := -1
		for i, err := range errs {
			if err != nil && first < 0 {
				first = i
			}
			if first >= 0 && !errors.Is(err, errDiskFull) {
				t.Fatalf("n=%d: call %d returned %v after the failure", n, i, err)
			}
		}
		if first < 0 {
			t.Fatalf("n=%d: no error reported", n)
		}
		if !bytes.HasPrefix(full.Bytes(), w.buf.Bytes()) {
			t.Fatalf("n=%d: written bytes are not a prefix", n)
		}
	}
}
