package toon

import (
	"bytes"
	"errors"
	"testing"
)

// failWriter accepts limit bytes, then fails; it records any write after
// the failure.
type failWriter struct {
	limit       int
	got         bytes.Buffer
	failed      bool
	writesAfter int
	err         error
}

func (w *failWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.writesAfter++
		return 0, w.err
	}
	if w.got.Len()+len(p) > w.limit {
		n := w.limit - w.got.Len()
		w.got.Write(p[:n])
		w.failed = true
		return n, w.err
	}
	w.got.Write(p)
	return len(p), nil
}

func TestFailingWriter(t *testing.T) {
	v := table(5000, 6)
	full, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) < 3*flushSize {
		t.Fatalf("document of %d bytes is too small for the test", len(full))
	}
	for _, limit := range []int{0, 1, flushSize - 1, flushSize + 10, 2*flushSize + 7, len(full) - 1} {
		boom := errors.New("disk full")
		w := &failWriter{limit: limit, err: boom}
		enc := NewEncoder(w, Options{})
		err := enc.Encode(v)
		if !errors.Is(err, boom) {
			t.Fatalf("limit %d: Encode = %v, want the writer's error", limit, err)
		}
		if !bytes.HasPrefix(full, w.got.Bytes()) || w.got.Len() != limit {
			t.Fatalf("limit %d: wrote %d bytes, not a prefix of the document", limit, w.got.Len())
		}
		if w.writesAfter != 0 {
			t.Fatalf("limit %d: %d writes after the failure", limit, w.writesAfter)
		}
		if err := enc.Encode(Object{{"a", 1}}); !errors.Is(err, boom) || w.writesAfter != 0 {
			t.Fatalf("limit %d: second Encode = %v with %d writes, want the sticky error", limit, err, w.writesAfter)
		}
		if err := enc.EncodeResponse(neighborsResponse()); !errors.Is(err, boom) || w.writesAfter != 0 {
			t.Fatalf("limit %d: EncodeResponse after failure = %v", limit, err)
		}
	}
	// A writer that takes everything gets the whole document.
	var buf bytes.Buffer
	if err := NewEncoder(&buf, Options{}).Encode(v); err != nil || !bytes.Equal(buf.Bytes(), full) {
		t.Fatalf("full write: %v, %d bytes", err, buf.Len())
	}
	// A short write without an error is reported as io.ErrShortWrite.
	if err := NewEncoder(shortWriter{}, Options{}).Encode(v); err == nil {
		t.Fatal("short write not reported")
	}
}

func TestFailingWriterResponse(t *testing.T) {
	r := benchGraph(500, 200)
	full, err := MarshalResponse(r, Options{})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("broken pipe")
	w := &failWriter{limit: len(full) / 2, err: boom}
	if err := NewEncoder(w, Options{}).EncodeResponse(r); !errors.Is(err, boom) {
		t.Fatalf("EncodeResponse = %v", err)
	}
	if !bytes.HasPrefix(full, w.got.Bytes()) || w.writesAfter != 0 {
		t.Fatalf("bytes written are not a prefix, or writes continued")
	}
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }
