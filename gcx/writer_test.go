package gcx_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// failWriter accepts limit bytes, then fails every write.
type failWriter struct {
	buf   bytes.Buffer
	limit int
	calls int
}

var errDiskFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	w.calls++
	room := w.limit - w.buf.Len()
	if room >= len(p) {
		return w.buf.Write(p)
	}
	if room > 0 {
		w.buf.Write(p[:room])
		return room, errDiskFull
	}
	return 0, errDiskFull
}

func bigResponse() *graphresponse.Response {
	r := &graphresponse.Response{QueryType: graphresponse.QueryTraversal}
	for i := range 300 {
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: []string{"User", "Project"}[i%2], ID: int64(i),
			Props: []graphresponse.Member{{Key: "name", Value: graphresponse.String(strings.Repeat("n", i%40))}}})
		r.Edges = append(r.Edges, graphresponse.Edge{From: "User", FromID: int64(i), To: "Project", ToID: int64(i + 1), Type: "MEMBER_OF"})
	}
	return r
}

// TestFailingWriter checks that every encoding path stops at the first
// write error, returns it unchanged from then on, and leaves a correct
// prefix of the full output.
func TestFailingWriter(t *testing.T) {
	full, err := gcx.Marshal(bigResponse(), gcx.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sec := gcx.Section{Tool: "x", Fields: []string{"a", "b"}, Rows: [][]string{{"1", "2"}, {"3", strings.Repeat("z", 5000)}}}
	fullSec, err := gcx.MarshalSections(sec)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		want   []byte
		encode func(e *gcx.Encoder) error
	}{
		{name: "Encode", want: full, encode: func(e *gcx.Encoder) error { return e.Encode(bigResponse()) }},
		{name: "EncodeSection", want: fullSec, encode: func(e *gcx.Encoder) error { return e.EncodeSection(sec) }},
		{name: "WriteHeader and WriteRow", want: fullSec, encode: func(e *gcx.Encoder) error {
			if err := e.WriteHeader(sec.Tool, sec.Fields, nil); err != nil {
				return err
			}
			for _, row := range sec.Rows {
				if err := e.WriteRow(row...); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, tt := range tests {
		for _, limit := range []int{0, 1, 30, 4096, len(tt.want) - 1} {
			t.Run(tt.name, func(t *testing.T) {
				w := &failWriter{limit: limit}
				enc := gcx.NewEncoder(w, gcx.Options{})
				if err := tt.encode(enc); err != errDiskFull {
					t.Fatalf("limit %d: error = %v, want the writer's error unchanged", limit, err)
				}
				if !bytes.HasPrefix(tt.want, w.buf.Bytes()) {
					t.Fatalf("limit %d: written bytes are not a prefix of the full output", limit)
				}
				calls := w.calls
				for _, again := range []error{enc.Encode(bigResponse()), enc.EncodeSection(sec), enc.WriteRow("a"), enc.WriteComment("c"), enc.EncodeValue("x", 1)} {
					if again != errDiskFull {
						t.Errorf("limit %d: later call = %v, want the first error", limit, again)
					}
				}
				if w.calls != calls {
					t.Errorf("limit %d: %d writes after the failure", limit, w.calls-calls)
				}
			})
		}
	}
}

func TestEncodeRejectsBeforeWriting(t *testing.T) {
	var buf bytes.Buffer
	enc := gcx.NewEncoder(&buf, gcx.Options{})
	bad := gcx.Section{Tool: "x", Fields: []string{"a"}, Rows: [][]string{{"1"}, {"2", "3"}}}
	if err := enc.EncodeSection(bad); !errors.Is(err, gcx.ErrTooManyCells) {
		t.Fatalf("error = %v, want ErrTooManyCells", err)
	}
	if buf.Len() != 0 {
		t.Errorf("an invalid section wrote %q", buf.String())
	}
	r := &graphresponse.Response{QueryType: "traversal", Pagination: &graphresponse.Pagination{NextCursor: ptr("a b")}}
	buf.Reset()
	if err := gcx.NewEncoder(&buf, gcx.Options{}).Encode(r); !errors.Is(err, gcx.ErrUnsafeName) || buf.Len() != 0 {
		t.Errorf("Encode = %v with %d bytes, want ErrUnsafeName and nothing written", err, buf.Len())
	}
}
