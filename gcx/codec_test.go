package gcx_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/graphwire/graphwire/gcx"
)

func TestHeaderSafety(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		fields  []string
		meta    map[string]string
		want    string
		wantErr error
	}{
		{name: "plain", tool: "x", fields: []string{"a", "b"}, want: "GCX1 tool=x fields=a,b\n"},
		{name: "utf-8 names", tool: "été", fields: []string{"größe"}, meta: map[string]string{"ключ": "значение"}, want: "GCX1 tool=été fields=größe ключ=значение\n"},
		{name: "empty tool", tool: "", fields: []string{"a"}, wantErr: gcx.ErrUnsafeName},
		{name: "tool with space", tool: "a b", fields: []string{"a"}, wantErr: gcx.ErrUnsafeName},
		{name: "tool with backslash", tool: `a\b`, fields: []string{"a"}, wantErr: gcx.ErrUnsafeName},
		{name: "tool with DEL", tool: "a\x7f", fields: []string{"a"}, wantErr: gcx.ErrUnsafeName},
		{name: "tool with tab", tool: "a\tb", fields: []string{"a"}, wantErr: gcx.ErrUnsafeName},
		{name: "empty field", tool: "x", fields: []string{"a", ""}, wantErr: gcx.ErrBadField},
		{name: "field with comma", tool: "x", fields: []string{"a,b"}, wantErr: gcx.ErrUnsafeName},
		{name: "field with space", tool: "x", fields: []string{"a b"}, wantErr: gcx.ErrUnsafeName},
		{name: "field with control byte", tool: "x", fields: []string{"a\x01"}, wantErr: gcx.ErrUnsafeName},
		{name: "no fields", tool: "x", fields: nil, wantErr: gcx.ErrBadField},
		{name: "repeated field", tool: "x", fields: []string{"a", "b", "a"}, wantErr: gcx.ErrBadField},
		{name: "empty meta key", tool: "x", fields: []string{"a"}, meta: map[string]string{"": "v"}, wantErr: gcx.ErrUnsafeName},
		{name: "meta key with space", tool: "x", fields: []string{"a"}, meta: map[string]string{"a b": "v"}, wantErr: gcx.ErrUnsafeName},
		{name: "meta key with equals", tool: "x", fields: []string{"a"}, meta: map[string]string{"a=b": "v"}, wantErr: gcx.ErrUnsafeName},
		{name: "meta key tool", tool: "x", fields: []string{"a"}, meta: map[string]string{"tool": "y"}, wantErr: gcx.ErrReservedKey},
		{name: "meta key fields", tool: "x", fields: []string{"a"}, meta: map[string]string{"fields": "y"}, wantErr: gcx.ErrReservedKey},
		{name: "meta value with space", tool: "x", fields: []string{"a"}, meta: map[string]string{"k": "two words"}, wantErr: gcx.ErrUnsafeName},
		{name: "meta value with LF", tool: "x", fields: []string{"a"}, meta: map[string]string{"k": "a\nb"}, wantErr: gcx.ErrUnsafeName},
		{name: "empty meta value", tool: "x", fields: []string{"a"}, meta: map[string]string{"k": ""}, want: "GCX1 tool=x fields=a k=\n"},
		{name: "meta value with equals and comma", tool: "x", fields: []string{"a"}, meta: map[string]string{"c": "YT1i==,x"}, want: "GCX1 tool=x fields=a c=YT1i==,x\n"},
		{name: "sorted meta", tool: "x", fields: []string{"a"}, meta: map[string]string{"z": "1", "a": "2", "m": "3", "B": "4"}, want: "GCX1 tool=x fields=a B=4 a=2 m=3 z=1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := gcx.NewEncoder(&buf, gcx.Options{}).WriteHeader(tt.tool, tt.fields, tt.meta)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("WriteHeader error = %v, want %v", err, tt.wantErr)
			}
			if got := buf.String(); got != tt.want {
				t.Errorf("WriteHeader wrote %q, want %q", got, tt.want)
			}
			// EncodeSection applies the same rules.
			_, err = gcx.MarshalSections(gcx.Section{Tool: tt.tool, Fields: tt.fields, Meta: tt.meta})
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("MarshalSections error = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestRows(t *testing.T) {
	tests := []struct {
		name    string
		fields  []string
		rows    [][]string
		want    string // rows only, without the header
		wantErr error
	}{
		{name: "hash guarded", fields: []string{"a", "b"}, rows: [][]string{{"#7", "x"}}, want: "\\#7\tx\n"},
		{name: "GCX1 guarded", fields: []string{"a", "b"}, rows: [][]string{{"GCX1 tool=y", "x"}}, want: "\\GCX1 tool=y\tx\n"},
		{name: "GCX2 guarded", fields: []string{"a"}, rows: [][]string{{"GCX2"}}, want: "\\GCX2\n"},
		{name: "GCXa guarded", fields: []string{"a"}, rows: [][]string{{"GCXa"}}, want: "\\GCXa\n"},
		{name: "GCX after CR removal guarded", fields: []string{"a"}, rows: [][]string{{"G\rCX"}}, want: "\\GCX\n"},
		{name: "escaped hash not guarded", fields: []string{"a"}, rows: [][]string{{`\#`}}, want: "\\\\#\n"},
		{name: "hash in a later cell", fields: []string{"a", "b"}, rows: [][]string{{"x", "#y"}}, want: "x\t#y\n"},
		{name: "GC not guarded", fields: []string{"a"}, rows: [][]string{{"GC"}}, want: "GC\n"},
		{name: "escapes", fields: []string{"a", "b"}, rows: [][]string{{"a\\b\tc", "d\ne\r\nf"}}, want: "a\\\\b\\tc\td\\ne\\nf\n"},
		{name: "padding", fields: []string{"a", "b", "c"}, rows: [][]string{{}, {"x"}}, want: "\t\t\nx\t\t\n"},
		{name: "too many cells", fields: []string{"a"}, rows: [][]string{{"x", "y"}}, wantErr: gcx.ErrTooManyCells},
		{name: "blank row", fields: []string{"a"}, rows: [][]string{{""}}, wantErr: gcx.ErrBlankRow},
		{name: "blank row from no cells", fields: []string{"a"}, rows: [][]string{{}}, wantErr: gcx.ErrBlankRow},
		{name: "blank row from CR only", fields: []string{"a"}, rows: [][]string{{"\r"}}, wantErr: gcx.ErrBlankRow},
		{name: "empty cells in two fields", fields: []string{"a", "b"}, rows: [][]string{{"", ""}}, want: "\t\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := gcx.NewEncoder(&buf, gcx.Options{})
			if err := enc.WriteHeader("x", tt.fields, nil); err != nil {
				t.Fatal(err)
			}
			header := buf.Len()
			var err error
			for _, row := range tt.rows {
				if err = enc.WriteRow(row...); err != nil {
					break
				}
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("WriteRow error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			if got := buf.String()[header:]; got != tt.want {
				t.Fatalf("rows = %q, want %q", got, tt.want)
			}
			// The guarded and escaped rows read back as written, CR removed.
			secs, err := gcx.UnmarshalSections(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			for i, row := range tt.rows {
				for j := range tt.fields {
					want := ""
					if j < len(row) {
						want = strings.ReplaceAll(row[j], "\r", "")
					}
					if got := secs[0].Rows[i][j]; got != want {
						t.Errorf("row %d cell %d = %q, want %q", i, j, got, want)
					}
				}
			}
		})
	}
}

func TestLineLimit(t *testing.T) {
	const max = 32
	opts := gcx.Options{MaxLineBytes: max}
	header := "GCX1 tool=x fields=a,b\n"
	// A row line of exactly max bytes with its LF is fine; one more byte
	// is not.
	fits := []string{strings.Repeat("a", max-3), "b"} // cells + TAB + LF = max
	long := []string{strings.Repeat("a", max-2), "b"}

	var buf bytes.Buffer
	enc := gcx.NewEncoder(&buf, opts)
	if err := enc.WriteHeader("x", []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.WriteRow(fits...); err != nil {
		t.Fatalf("row of %d bytes: %v", max, err)
	}
	if n := buf.Len() - len(header); n != max {
		t.Fatalf("row line is %d bytes, want %d", n, max)
	}
	before := buf.Len()
	if err := enc.WriteRow(long...); !errors.Is(err, gcx.ErrLineTooLong) {
		t.Fatalf("row of %d bytes: error %v, want ErrLineTooLong", max+1, err)
	}
	if buf.Len() != before {
		t.Errorf("a refused row wrote %d bytes", buf.Len()-before)
	}

	fitsLine := strings.Join(fits, "\t") + "\n"
	longLine := strings.Join(long, "\t") + "\n"
	tests := []struct {
		name    string
		payload string
		want    *gcx.SyntaxError
	}{
		{name: "exactly max", payload: header + fitsLine},
		{name: "exactly max without final LF", payload: header + strings.TrimSuffix(fitsLine, "\n")},
		{name: "max plus one", payload: header + longLine, want: &gcx.SyntaxError{Line: 2, Column: 1, Err: gcx.ErrLineTooLong}},
		{name: "max plus one without final LF", payload: header + strings.TrimSuffix(longLine, "\n") + "c", want: &gcx.SyntaxError{Line: 2, Column: 1, Err: gcx.ErrLineTooLong}},
		{name: "long header", payload: "GCX1 tool=x fields=" + strings.Repeat("f", max) + "\n", want: &gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrLineTooLong}},
	}
	for _, tt := range tests {
		for _, stream := range []bool{false, true} {
			name := tt.name
			if stream {
				name += " streamed one byte at a time"
			}
			t.Run(name, func(t *testing.T) {
				var r io.Reader = strings.NewReader(tt.payload)
				if stream {
					r = iotest.OneByteReader(r)
				}
				d := gcx.NewDecoder(r, opts)
				_, err := d.ReadSection()
				if tt.want == nil {
					if err != nil {
						t.Fatalf("ReadSection: %v", err)
					}
					return
				}
				var se *gcx.SyntaxError
				if !errors.As(err, &se) {
					t.Fatalf("error %v is not a *SyntaxError", err)
				}
				if diff := cmp.Diff(*tt.want, *se, cmpopts.EquateErrors()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestWriteComment(t *testing.T) {
	var buf bytes.Buffer
	enc := gcx.NewEncoder(&buf, gcx.Options{})
	if err := enc.WriteComment("early"); !errors.Is(err, gcx.ErrNoHeader) {
		t.Fatalf("comment before header: %v, want ErrNoHeader", err)
	}
	buf.Reset()
	enc = gcx.NewEncoder(&buf, gcx.Options{})
	if err := enc.WriteHeader("x", []string{"a"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := enc.WriteComment("one\r\ntwo\nthree\rfour"); err != nil {
		t.Fatal(err)
	}
	if err := enc.WriteRow("1"); err != nil {
		t.Fatal(err)
	}
	want := "GCX1 tool=x fields=a\n# one two threefour\n1\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}

func TestEncoderOrder(t *testing.T) {
	var buf bytes.Buffer
	enc := gcx.NewEncoder(&buf, gcx.Options{})
	if err := enc.WriteRow("a"); !errors.Is(err, gcx.ErrNoHeader) {
		t.Fatalf("row before header: %v, want ErrNoHeader", err)
	}
	// The error sticks.
	if err := enc.WriteHeader("x", []string{"a"}, nil); !errors.Is(err, gcx.ErrNoHeader) {
		t.Errorf("after an error: %v, want the first error", err)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %q", buf.String())
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    gcx.SyntaxError
	}{
		{name: "empty", payload: "", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrNoHeader}},
		{name: "not gcx", payload: "not-gcx\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrNoHeader}},
		{name: "lower case", payload: "gcx1 tool=x fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrNoHeader}},
		{name: "comment first", payload: "# c\nGCX1 tool=x fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrNoHeader}},
		{name: "GCX2", payload: "GCX2 tool=x fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrVersion}},
		{name: "GCX1-stream", payload: "GCX1-stream tool=x fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrVersion}},
		{name: "GCX2 row ends a section", payload: "GCX1 tool=a fields=x\n1\nGCX2 tool=b fields=y\n", want: gcx.SyntaxError{Line: 3, Column: 1, Err: gcx.ErrVersion}},
		{name: "GCX1-stream row ends a section", payload: "GCX1 tool=a fields=x\n1\n# c\nGCX1-stream tool=b fields=y\n", want: gcx.SyntaxError{Line: 4, Column: 1, Err: gcx.ErrVersion}},
		{name: "token without equals", payload: "GCX1 tool=x fields=a bad\n", want: gcx.SyntaxError{Line: 1, Column: 22, Err: gcx.ErrMalformedHeader}},
		{name: "empty key", payload: "GCX1 =v tool=x fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 6, Err: gcx.ErrMalformedHeader}},
		{name: "runs of spaces", payload: "GCX1  tool=x   fields=a  bad  \n", want: gcx.SyntaxError{Line: 1, Column: 26, Err: gcx.ErrMalformedHeader}},
		{name: "missing tool", payload: "GCX1 fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrMissingTool}},
		{name: "empty tool", payload: "GCX1 tool= fields=a\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrMissingTool}},
		{name: "missing fields", payload: "GCX1 tool=x\n", want: gcx.SyntaxError{Line: 1, Column: 1, Err: gcx.ErrMissingFields}},
		{name: "repeated empty field", payload: "GCX1 tool=x fields=a,,\n", want: gcx.SyntaxError{Line: 1, Column: 13, Err: gcx.ErrBadField}},
		{name: "repeated field", payload: "GCX1 tool=x fields=a,a\n", want: gcx.SyntaxError{Line: 1, Column: 13, Err: gcx.ErrBadField}},
		{name: "duplicate meta", payload: "GCX1 tool=x fields=a k=1 k=2\n", want: gcx.SyntaxError{Line: 1, Column: 26, Err: gcx.ErrDuplicateKey}},
		{name: "duplicate tool", payload: "GCX1 tool=x fields=a tool=y\n", want: gcx.SyntaxError{Line: 1, Column: 22, Err: gcx.ErrDuplicateKey}},
		{name: "too many cells", payload: "GCX1 tool=x fields=a,b\n# c\n\n1\t2\t3\n", want: gcx.SyntaxError{Line: 4, Column: 5, Err: gcx.ErrTooManyCells}},
		{name: "bare tag", payload: "GCX1 tool=a fields=x\n1\nGCX1\n", want: gcx.SyntaxError{Line: 3, Column: 1, Err: gcx.ErrMissingTool}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gcx.UnmarshalSections([]byte(tt.payload))
			var se *gcx.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
			}
			if diff := cmp.Diff(tt.want, *se, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, tt.want.Err) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.want.Err)
			}
		})
	}
}

func TestDecoderStreaming(t *testing.T) {
	payload := "GCX1 tool=a fields=x,y rows=2\n1\t2\n# note\n\n3\nGCX1 tool=b fields=z\r\nq\r\nGCX1 tool=c fields=w\n"
	d := gcx.NewDecoder(iotest.HalfReader(strings.NewReader(payload)), gcx.Options{})
	// NextRow before NextSection reads the first header itself.
	row, err := d.NextRow()
	if err != nil || !cmp.Equal(row, []string{"1", "2"}) {
		t.Fatalf("first NextRow = %q, %v", row, err)
	}
	// NextSection skips the rest of section a.
	s, err := d.NextSection()
	if err != nil || s.Tool != "b" || s.Rows != nil {
		t.Fatalf("NextSection = %+v, %v; want header of b", s, err)
	}
	s, err = d.ReadSection()
	want := gcx.Section{Tool: "c", Fields: []string{"w"}, Meta: map[string]string{}, Rows: [][]string{}}
	if err != nil || !cmp.Equal(s, want) {
		t.Fatalf("ReadSection = %+v, %v; want %+v", s, err, want)
	}
	if _, err := d.NextRow(); err != io.EOF {
		t.Errorf("NextRow at the end = %v, want io.EOF", err)
	}
	if _, err := d.NextSection(); err != io.EOF {
		t.Errorf("NextSection at the end = %v, want io.EOF", err)
	}
}

func TestDecoderReadError(t *testing.T) {
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("GCX1 tool=a fields=x\n1\n2"), iotest.ErrReader(boom))
	d := gcx.NewDecoder(r, gcx.Options{})
	s, err := d.ReadSection()
	if err != boom {
		t.Fatalf("ReadSection error = %v, want the read error unchanged", err)
	}
	// The complete line before the failure was read; the partial one was
	// not taken for data.
	if want := [][]string{{"1"}}; !cmp.Equal(s.Rows, want) {
		t.Errorf("rows = %q, want %q", s.Rows, want)
	}
	if _, err := d.NextSection(); err != boom {
		t.Errorf("after a read error: %v, want it again", err)
	}
	if _, err := gcx.NewDecoder(iotest.ErrReader(boom), gcx.Options{}).Decode(); err != boom {
		t.Errorf("Decode error = %v, want the read error unchanged", err)
	}
}

func TestDecoderStaysFailed(t *testing.T) {
	d := gcx.NewDecoder(strings.NewReader("GCX1 tool=a fields=x\n1\t2\nGCX1 tool=b fields=y\n"), gcx.Options{})
	if _, err := d.ReadSection(); !errors.Is(err, gcx.ErrTooManyCells) {
		t.Fatalf("ReadSection = %v, want ErrTooManyCells", err)
	}
	if _, err := d.NextSection(); !errors.Is(err, gcx.ErrTooManyCells) {
		t.Errorf("NextSection after an error = %v, want the same error", err)
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct {
		name, cell, want string
	}{
		{"backslash", `a\\b`, `a\b`},
		{"tab", `a\tb`, "a\tb"},
		{"newline", `a\nb`, "a\nb"},
		{"unknown escape", `\q\#`, "q#"},
		{"trailing backslash", `ab\`, `ab\`},
		{"escaped r is r", `\r`, "r"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secs, err := gcx.UnmarshalSections([]byte("GCX1 tool=x fields=a,b\n" + tt.cell + "\tz\n"))
			if err != nil {
				t.Fatal(err)
			}
			if got := secs[0].Rows[0][0]; got != tt.want {
				t.Errorf("cell = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeaderUnescape(t *testing.T) {
	secs, err := gcx.UnmarshalSections([]byte("GCX1 rows=1 tool=a\\tb fields=x\\\\y,z k\\n=v\\=w\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []gcx.Section{{Tool: "a\tb", Fields: []string{`x\y`, "z"}, Meta: map[string]string{"rows": "1", "k\n": "v=w"}, Rows: [][]string{}}}
	if diff := cmp.Diff(want, secs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestEscapeEveryPosition puts each byte that needs escaping or a marker
// at every position of a long cell, across the eight-byte words the
// scanner reads.
func TestEscapeEveryPosition(t *testing.T) {
	for _, special := range []string{"\\", "\t", "\n", "\r", "\x0d", "\x01", "\x1b", "\x7f", "é", "\u0085", "\u2028", "\u202e", "\ufeff", "⟦", "\u2027"} {
		for pos := range 24 {
			cell := strings.Repeat("a", pos) + special + strings.Repeat("b", 23-pos)
			enc, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a", "b"}, Rows: [][]string{{"z", cell}}})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.NewReplacer("\\", `\\`, "\t", `\t`, "\n", `\n`, "\r", "", "\x01", "⟦U+0001⟧", "\x1b", "⟦U+001B⟧",
				"\x7f", "⟦U+007F⟧", "\u0085", "⟦U+0085⟧", "\u2028", "⟦U+2028⟧", "\u202e", "⟦U+202E⟧", "\ufeff", "⟦U+FEFF⟧", "⟦", "⟦U+27E6⟧").Replace(cell)
			if got := strings.TrimSuffix(strings.SplitN(string(enc), "\n", 2)[1], "\n"); got != "z\t"+want {
				t.Fatalf("special %q at %d: row %q, want %q", special, pos, got, "z\t"+want)
			}
			secs, err := gcx.UnmarshalSections(enc)
			if err != nil || secs[0].Rows[0][1] != strings.ReplaceAll(cell, "\r", "") {
				t.Fatalf("special %q at %d: decoded %q, %v", special, pos, secs[0].Rows[0][1], err)
			}
		}
	}
}

// TestDecodeEmptyFieldNames pins the decision to read the empty field names
// other GCX1 producers write: gcx-go's EncodeAny writes {"":"-x"} as
// "fields=" with one row, and {"":1,"a":2} as "fields=,a".
func TestDecodeEmptyFieldNames(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		want    []gcx.Section
		wantErr error
	}{
		{name: "single empty name", payload: "GCX1 tool=x fields=\n-x\n",
			want: []gcx.Section{{Tool: "x", Fields: []string{""}, Rows: [][]string{{"-x"}}}}},
		{name: "empty name first", payload: "GCX1 tool=x fields=,a\n1\t2\n",
			want: []gcx.Section{{Tool: "x", Fields: []string{"", "a"}, Rows: [][]string{{"1", "2"}}}}},
		{name: "empty name last", payload: "GCX1 tool=x fields=a, rows=1\n1\t2\n",
			want: []gcx.Section{{Tool: "x", Fields: []string{"a", ""}, Meta: map[string]string{"rows": "1"}, Rows: [][]string{{"1", "2"}}}}},
		{name: "two empty names", payload: "GCX1 tool=x fields=,\n1\t2\n", wantErr: gcx.ErrBadField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcx.UnmarshalSections([]byte(tt.payload))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
	// The encoder stays strict: it never writes an empty name (§3.2).
	if _, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{""}, Rows: [][]string{{"-x"}}}); !errors.Is(err, gcx.ErrBadField) {
		t.Errorf("MarshalSections with an empty field name: error = %v, want %v", err, gcx.ErrBadField)
	}
}
