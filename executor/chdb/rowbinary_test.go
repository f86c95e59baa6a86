package chdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/executor"
)

// This test sits in package chdb because the RowBinary codec is internal to the engine.

func TestRowBinaryRoundTrip(t *testing.T) {
	dt := time.Date(2026, 7, 1, 12, 34, 56, 789_000_000, time.UTC)
	tests := []struct {
		typ  string
		in   any
		want any
	}{
		{"Int8", int64(-5), int64(-5)},
		{"Int16", int64(-300), int64(-300)},
		{"Int32", int64(-70000), int64(-70000)},
		{"Int64", int64(-1 << 60), int64(-1 << 60)},
		{"UInt8", int64(200), int64(200)},
		{"UInt64", uint64(1<<64 - 1), uint64(1<<64 - 1)},
		{"UInt64", uint64(1 << 63), uint64(1 << 63)},
		{"UInt64", uint64(1<<63 - 1), int64(1<<63 - 1)},
		{"Float32", 1.5, 1.5},
		{"Float64", -0.1, -0.1},
		{"Bool", true, true},
		{"String", "a\x00b\n🎉", "a\x00b\n🎉"},
		{"FixedString(4)", "ab", "ab\x00\x00"},
		{"LowCardinality(String)", "lc", "lc"},
		{"LowCardinality(Nullable(String))", nil, nil},
		{"Nullable(Int64)", nil, nil},
		{"Nullable(Int64)", int64(3), int64(3)},
		{"Date", executor.Date{Year: 2026, Month: 7, Day: 1}, executor.Date{Year: 2026, Month: 7, Day: 1}},
		{"Date32", executor.Date{Year: 1900, Month: 1, Day: 2}, executor.Date{Year: 1900, Month: 1, Day: 2}},
		{"DateTime", dt, dt.Truncate(time.Second)},
		{"DateTime('UTC')", dt, dt.Truncate(time.Second)},
		{"DateTime64(3, 'UTC')", dt, dt},
		{"DateTime64(0, 'UTC')", dt, dt.Truncate(time.Second)},
		{"DateTime64(6)", time.Date(1960, 1, 1, 0, 0, 0, 500_000_000, time.UTC), time.Date(1960, 1, 1, 0, 0, 0, 500_000_000, time.UTC)},
		{"Array(Nullable(String))", []any{"a", nil}, []any{"a", nil}},
		{"Array(Array(Int64))", []any{[]any{int64(1)}, []any{}}, []any{[]any{int64(1)}, []any{}}},
		{"Enum8('a' = 1, 'b\\'c' = -2)", "b'c", "b'c"},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			ct, err := parseType(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			buf, err := appendValue(nil, ct, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			d := &decoder{buf: buf}
			got, err := d.value(ct)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if d.more() {
				t.Errorf("%d bytes left over", len(buf)-d.off)
			}
		})
	}
}

func TestParseTypeTuple(t *testing.T) {
	ct, err := parseType("Tuple(a Int64, b Nullable(String), DateTime64(3, 'UTC'))")
	if err != nil {
		t.Fatal(err)
	}
	if ct.kind != kTuple || len(ct.fields) != 3 || ct.fields[1].kind != kNullable || ct.fields[2].prec != 3 {
		t.Errorf("parsed %+v", ct)
	}
}

func TestParseTypeErrors(t *testing.T) {
	for _, typ := range []string{"Map(String, Int64)", "Decimal(10, 2)", "Array(", "Int64 extra", "DateTime64(x)"} {
		if _, err := parseType(typ); !errors.Is(err, errType) {
			t.Errorf("parseType(%q) err = %v, want errType", typ, err)
		}
	}
}

func TestDecoderHeaderAndTruncation(t *testing.T) {
	var buf []byte
	buf = binary.AppendUvarint(buf, 2)
	for _, s := range []string{"n", "s", "Int64", "String"} {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = binary.LittleEndian.AppendUint64(buf, 7)
	buf = append(buf, 2, 'h', 'i')
	d, err := newDecoder(buf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]executor.Column{{Name: "n", Type: "Int64"}, {Name: "s", Type: "String"}}, d.cols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	row, err := d.row()
	if err != nil || !cmp.Equal([]any{int64(7), "hi"}, row) {
		t.Errorf("row = %v, %v", row, err)
	}
	short, err := newDecoder(buf[:len(buf)-1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := short.row(); !errors.Is(err, errShort) {
		t.Errorf("truncated row err = %v, want errShort", err)
	}
	if d, err := newDecoder(nil); err != nil || d.more() {
		t.Errorf("empty result: %v, more %v", err, d.more())
	}
}

// chunk is a RowBinaryWithNamesAndTypes document of an (Int64, String) header whose names and
// types are given, and one row (7, "hi").
func chunk(names, types []string) []byte {
	buf := binary.AppendUvarint(nil, uint64(len(names)))
	for _, s := range append(slices.Clone(names), types...) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	buf = binary.LittleEndian.AppendUint64(buf, 7)
	return append(buf, 2, 'h', 'i')
}

// TestDecoderLaterChunks: a chunk after the first must repeat its header; its rows then
// decode with the first chunk's types, and any other header is an error naming the column.
func TestDecoderLaterChunks(t *testing.T) {
	names, types := []string{"n", "s"}, []string{"Int64", "String"}
	for _, tc := range []struct {
		name         string
		names, types []string
		wantErr      string
	}{
		{"same", names, types, ""},
		{"renamed", []string{"n", "t"}, types, `column 1 is "t", want "s"`},
		{"retyped", names, []string{"Int64", "Nullable(String)"}, `column 1 is "Nullable(String)", want "String"`},
		{"fewer", names[:1], types[:1], "header of 1 columns, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := newDecoder(chunk(names, types))
			if err != nil {
				t.Fatal(err)
			}
			d.buf, d.off = chunk(tc.names, tc.types), 0
			err = d.header()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("header() = %v, want an error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if row, err := d.row(); err != nil || !cmp.Equal([]any{int64(7), "hi"}, row) {
				t.Errorf("row = %v, %v", row, err)
			}
		})
	}
}

// BenchmarkLaterChunkHeader reads the header of a stream's later chunk (a result of 12
// columns, the width of a wide node query).
func BenchmarkLaterChunkHeader(b *testing.B) {
	var names, types []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("column_%d", i))
		types = append(types, []string{"Int64", "String", "Nullable(String)", "DateTime64(6, 'UTC')"}[i%4])
	}
	buf := chunk(names, types)
	d, err := newDecoder(buf)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		d.buf, d.off = buf, 0
		if err := d.header(); err != nil {
			b.Fatal(err)
		}
	}
}
