package goon_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gkampitakis/go-snaps/snaps"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
)

// snapshotVersion is the fixed version of encoder-level snapshots, so a
// version bump does not churn them.
const snapshotVersion = "1.0.0"

func readResponse(t testing.TB, path string) *graphresponse.Response {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := graphresponse.Unmarshal(data)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

func TestSnapshots(t *testing.T) {
	inputs, err := filepath.Glob("testdata/*.input.json")
	if err != nil || len(inputs) < 15 {
		t.Fatalf("want at least 15 snapshot inputs in testdata, found %d (%v)", len(inputs), err)
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.json")
		t.Run(name, func(t *testing.T) {
			out, err := goon.Marshal(readResponse(t, in), goon.Options{Version: snapshotVersion})
			if err != nil {
				t.Fatal(err)
			}
			snaps.MatchStandaloneSnapshot(t, string(out))
		})
	}
}

func TestEncodeRejectsBadVersion(t *testing.T) {
	r := readResponse(t, "testdata/search.input.json")
	for _, v := range []string{"", "4", "4.0", "v4.0.1", "04.0.1", "4.0.1-", "4.0.1+", "4.0.1-01", "4.0.1 ", "4.0.1\n"} {
		var w countingWriter
		err := goon.NewEncoder(&w, goon.Options{Version: v}).Encode(r)
		if !errors.Is(err, goon.ErrVersion) {
			t.Errorf("version %q: err = %v, want ErrVersion", v, err)
		}
		if w.n != 0 {
			t.Errorf("version %q: %d bytes written before the error", v, w.n)
		}
	}
	for _, v := range []string{"0.0.0", "4.0.1", "10.20.30", "1.0.0-alpha.1", "1.0.0-0A.is.legal", "1.0.0+build.01", "1.0.0-rc.1+b"} {
		if _, err := goon.Marshal(r, goon.Options{Version: v}); err != nil {
			t.Errorf("version %q rejected: %v", v, err)
		}
	}
}

func TestProductionVersion(t *testing.T) {
	out, err := goon.Marshal(readResponse(t, "testdata/search.input.json"), goon.Options{Version: config.GOONVersion()})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("\ngoon_version:"+config.GOONVersion()+"\n")) || config.GOONVersion() != "4.1.0" {
		t.Errorf("production version line missing or not 4.1.0:\n%s", out)
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// failingWriter accepts limit bytes, then fails.
type failingWriter struct {
	buf   bytes.Buffer
	limit int
	calls int
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.calls++
	room := w.limit - w.buf.Len()
	if len(p) <= room {
		return w.buf.Write(p)
	}
	w.buf.Write(p[:max(room, 0)])
	return max(room, 0), errDiskFull
}

func TestFailingWriter(t *testing.T) {
	r := graphgen.Graph(1, 2000, 1000)
	opts := goon.Options{Version: "4.0.1"}
	full, err := goon.Marshal(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{0, 1, 100, 40 << 10, len(full) - 1} {
		w := &failingWriter{limit: limit}
		enc := goon.NewEncoder(w, opts)
		if err := enc.Encode(r); !errors.Is(err, errDiskFull) {
			t.Fatalf("limit %d: err = %v, want the writer's error", limit, err)
		}
		if !bytes.HasPrefix(full, w.buf.Bytes()) {
			t.Errorf("limit %d: written bytes are not a prefix of the full output", limit)
		}
		calls := w.calls
		if err := enc.Encode(r); !errors.Is(err, errDiskFull) {
			t.Errorf("limit %d: second Encode err = %v, want the sticky error", limit, err)
		}
		if w.calls != calls {
			t.Errorf("limit %d: encoder wrote again after the first error", limit)
		}
	}
}

func TestConcurrentEncode(t *testing.T) {
	r := graphgen.Graph(7, 300, 200)
	want, err := goon.Marshal(r, goon.Options{Version: "4.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([][]byte, 8)
	for i := range outs {
		wg.Go(func() {
			outs[i], _ = goon.Marshal(r, goon.Options{Version: "4.0.1"})
		})
	}
	wg.Wait()
	for i, o := range outs {
		if !bytes.Equal(o, want) {
			t.Errorf("goroutine %d produced different bytes", i)
		}
	}
}

func TestDecodeConformanceOutputs(t *testing.T) {
	cases := loadCases(t)
	for name, c := range cases {
		got, err := goon.Unmarshal(c.out, goon.Options{})
		if err != nil {
			t.Errorf("%s: decode of graphwire output: %v", name, err)
			continue
		}
		if got.QueryType != c.input.QueryType {
			t.Errorf("%s: query_type = %q, want %q", name, got.QueryType, c.input.QueryType)
		}
		if (got.Pagination == nil) != (c.input.Pagination == nil) && (c.input.Pagination == nil || c.input.Pagination.HasMore || c.input.Pagination.Truncated || c.input.Pagination.NextCursor != nil) {
			t.Errorf("%s: pagination presence differs", name)
		}
		// Decoding is a fixed point after one round: what GOON keeps survives
		// another encode and decode unchanged.
		again, err := goon.Marshal(got, goon.Options{Version: c.meta.GoonVersion})
		if err != nil {
			t.Fatal(err)
		}
		got2, err := goon.Unmarshal(again, goon.Options{})
		if err != nil {
			t.Fatalf("%s: decode of re-encoded output: %v", name, err)
		}
		if !got.Equal(got2) {
			t.Errorf("%s: decode(encode(decode(x))) != decode(x):\n%s\n%s", name, graphresponse.Marshal(got), graphresponse.Marshal(got2))
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		wantErr   error
	}{
		{"empty", "", 0, 1, goon.ErrHeader},
		{"no header", "@nodes\n", 1, 1, goon.ErrHeader},
		{"no final newline", "@header\nquery_type:traversal", 2, 21, goon.ErrTruncated},
		{"bad header line", "@header\nquery_type:x\nbogus\n", 3, 1, goon.ErrHeader},
		{"bad count", "@header\nquery_type:x\nnodes:x\n", 3, 7, goon.ErrHeader},
		{"missing nodes", "@header\nquery_type:x\n@edges\n", 3, 1, goon.ErrSection},
		{"bad group", "@header\nquery_type:x\n@nodes\nUser:\n", 4, 1, goon.ErrGroup},
		{"short group", "@header\nquery_type:x\n@nodes\nUser(2):\n1\n@edges\n", 6, 1, goon.ErrCount},
		{"bad id", "@header\nquery_type:x\n@nodes\nUser(1):\nabc\n", 5, 1, goon.ErrInvalidID},
		{"unterminated quote", "@header\nquery_type:x\n@nodes\nUser(1):\n1 name=\"abc\n", 5, 12, goon.ErrQuote},
		{"bad escape", "@header\nquery_type:x\n@nodes\nUser(1):\n1 name=\"a\\qb\"\n", 5, 10, goon.ErrQuote},
		{"bad pair", "@header\nquery_type:x\n@nodes\nUser(1):\n1 name\n", 5, 3, goon.ErrLine},
		{"bad edge", "@header\nquery_type:x\n@nodes\n@edges\nT(1):\nUser:1 -> User:2\n", 6, 1, goon.ErrLine},
		{"bad edge id", "@header\nquery_type:x\n@nodes\n@edges\nT(1):\nUser:1 --> User:z\n", 6, 17, goon.ErrInvalidID},
		{"trailing section", "@header\nquery_type:x\n@nodes\n@edges\n@nodes\n", 5, 1, goon.ErrSection},
		{"invalid utf8", "@header\nquery_type:\xff\n", 2, 1, goon.ErrInvalidUTF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := goon.Unmarshal([]byte(tt.in), goon.Options{})
			var se *goon.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SyntaxError", err)
			}
			want := &goon.SyntaxError{Line: tt.line, Column: tt.col, Err: tt.wantErr}
			if *se != *want {
				t.Errorf("err = %#v (%v), want %#v", se, se, want)
			}
		})
	}
}

func TestDecodeRestores(t *testing.T) {
	in := "@header\nquery_type:aggregation\ngoon_version:4.0.1\nnodes:1\nedges:0\nhas_more:true\nnext_cursor:abc\nrows:2\n" +
		"group_by:p(node:Project),mr_state(property:state)\naggregations:n(count:mr),latest(max:mr.updated_at)\n" +
		"@nodes\nProject(1):\n7 name=\"Web App\" path=web\n@edges\n@rows\np=Project:7 mr_state=merged n=12 latest=2026-05-08T22:55:58\np=Project:7 mr_state=null n=3 latest=\"null\"\n"
	r, err := goon.Unmarshal([]byte(in), goon.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 0 || len(r.Rows) != 2 || len(r.GroupColumns) != 2 || len(r.Columns) != 2 {
		t.Fatalf("decoded shape: nodes=%d rows=%d groups=%d cols=%d", len(r.Nodes), len(r.Rows), len(r.GroupColumns), len(r.Columns))
	}
	if got := r.Columns[1]; got != (graphresponse.Column{Name: "latest", Function: "max", Target: "mr", Property: "updated_at"}) {
		t.Errorf("column = %+v", got)
	}
	if got := r.GroupColumns[1]; got != (graphresponse.GroupColumn{Name: "mr_state", Kind: "property", Node: "mr_state", Property: "state"}) {
		t.Errorf("group column = %+v", got)
	}
	p, _ := r.Rows[0].Get("p")
	props, _ := p.Get("properties")
	if name, _ := props.Get("name"); name.Str() != "Web App" {
		t.Errorf("bucket properties = %#v", props)
	}
	if v, _ := r.Rows[1].Get("mr_state"); !v.IsNull() {
		t.Errorf("bare null = %#v, want null", v)
	}
	if v, _ := r.Rows[1].Get("latest"); v.Kind() != graphresponse.KindString || v.Str() != "null" {
		t.Errorf("quoted null = %#v, want the string", v)
	}
	if v, _ := r.Rows[0].Get("n"); v.Int() != 12 {
		t.Errorf("n = %#v", v)
	}
	if !r.Pagination.HasMore || r.Pagination.Truncated || *r.Pagination.NextCursor != "abc" {
		t.Errorf("pagination = %+v", r.Pagination)
	}
}
