package gcx_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// TestTraps walks the data-losing traps of spec §8 (T1–T15) and checks the
// guard graphwire applies to each.
func TestTraps(t *testing.T) {
	roundTrip := func(t *testing.T, s gcx.Section) {
		t.Helper()
		enc, err := gcx.MarshalSections(s)
		if err != nil {
			t.Fatalf("MarshalSections: %v", err)
		}
		got, err := gcx.UnmarshalSections(enc)
		if err != nil || len(got) != 1 || len(got[0].Rows) != len(s.Rows) {
			t.Fatalf("decoded %+v, %v from %q", got, err, enc)
		}
		for i, row := range s.Rows {
			for j, c := range row {
				if got[0].Rows[i][j] != strings.ReplaceAll(c, "\r", "") {
					t.Errorf("row %d cell %d = %q, want %q", i, j, got[0].Rows[i][j], c)
				}
			}
		}
	}
	wantErr := func(t *testing.T, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("error = %v, want %v", err, want)
		}
	}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"T1 leading hash", func(t *testing.T) {
			roundTrip(t, gcx.Section{Tool: "x", Fields: []string{"a", "b"}, Rows: [][]string{{"#1", "x"}, {"# 2", "y"}}})
		}},
		{"T2 leading GCX", func(t *testing.T) {
			roundTrip(t, gcx.Section{Tool: "x", Fields: []string{"a", "b"}, Rows: [][]string{{"GCX1 tool=y fields=z", "x"}, {"GCX9", "y"}}})
		}},
		{"T3 blank one-field row", func(t *testing.T) {
			_, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a"}, Rows: [][]string{{""}}})
			wantErr(t, err, gcx.ErrBlankRow)
			b, err := gcx.MarshalValue("x", []any{"a", nil})
			if err != nil || string(b) != "GCX1 tool=x fields=#,value rows=2\n1\ta\n2\t\n" {
				t.Errorf("generic fallback = %q, %v", b, err)
			}
		}},
		{"T4 space in header", func(t *testing.T) {
			_, err := gcx.MarshalSections(gcx.Section{Tool: "x y", Fields: []string{"a"}})
			wantErr(t, err, gcx.ErrUnsafeName)
			_, err = gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a"}, Meta: map[string]string{"k": "a b"}})
			wantErr(t, err, gcx.ErrUnsafeName)
		}},
		{"T5 comma or backslash in a field", func(t *testing.T) {
			_, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a,b"}})
			wantErr(t, err, gcx.ErrUnsafeName)
			_, err = gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{`a\b`}})
			wantErr(t, err, gcx.ErrUnsafeName)
			r := &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{{Key: "x,y", Value: graphresponse.String("v")}}}}}
			b, err := gcx.Marshal(r, gcx.Options{})
			if err != nil || !strings.Contains(string(b), "fields=id,_props ") || !strings.Contains(string(b), `{"x,y":"v"}`) {
				t.Errorf("unsafe property key: %q, %v", b, err)
			}
		}},
		{"T6 reserved meta key", func(t *testing.T) {
			_, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a"}, Meta: map[string]string{"fields": "b"}})
			wantErr(t, err, gcx.ErrReservedKey)
		}},
		{"T7 equals in a meta key", func(t *testing.T) {
			_, err := gcx.MarshalSections(gcx.Section{Tool: "x", Fields: []string{"a"}, Meta: map[string]string{"a=b": "c"}})
			wantErr(t, err, gcx.ErrUnsafeName)
		}},
		{"T8 float formatting", func(t *testing.T) {
			for v, want := range map[float64]string{1e6: "1000000", math.Copysign(0, -1): "0", 2.5000005e6: "2500000.5"} {
				if got, _ := gcx.FormatCell(v); got != want {
					t.Errorf("FormatCell(%v) = %q, want %q", v, got, want)
				}
			}
		}},
		{"T9 lists and maps", func(t *testing.T) {
			if got, _ := gcx.FormatCell(map[string][]int{"a": {1}}); got != `{"a":[1]}` {
				t.Errorf("FormatCell(map) = %q", got)
			}
		}},
		{"T10 HTML escaping off", func(t *testing.T) {
			b, _ := gcx.MarshalValue("x", map[string]any{"a": map[string]string{"h": "<&>"}})
			if !bytes.Contains(b, []byte(`{"h":"<&>"}`)) {
				t.Errorf("nested HTML escaped: %q", b)
			}
		}},
		{"T11 CR in a value", func(t *testing.T) {
			r := &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{{Key: "a", Value: graphresponse.String("x\r\ny")}}}}}
			b, err := gcx.Marshal(r, gcx.Options{})
			if err != nil {
				t.Fatal(err)
			}
			back, err := gcx.Unmarshal(b, gcx.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := back.Nodes[0].Prop("a"); v.Str() != "x\ny" {
				t.Errorf("decoded %q, want CR removed as Canon states", v.Str())
			}
			if diff := responseDiff(back, gcx.Canon(r)); diff != "" {
				t.Error(diff)
			}
		}},
		{"T12 null and empty collide", func(t *testing.T) {
			r := &graphresponse.Response{QueryType: "traversal", Nodes: []graphresponse.Node{{Type: "T", ID: 1, Props: []graphresponse.Member{
				{Key: "a", Value: graphresponse.Null()}, {Key: "b", Value: graphresponse.String("")}, {Key: "c", Value: graphresponse.Int(3)}}}}}
			c := gcx.Canon(r)
			if len(c.Nodes[0].Props) != 1 || c.Nodes[0].Props[0].Value.Kind() != graphresponse.KindString {
				t.Errorf("Canon props = %#v, want only c as a string", c.Nodes[0].Props)
			}
		}},
		{"T13 line over the limit", func(t *testing.T) {
			var buf bytes.Buffer
			err := gcx.NewEncoder(&buf, gcx.Options{MaxLineBytes: 16}).EncodeSection(gcx.Section{Tool: "x", Fields: []string{"a"}, Rows: [][]string{{strings.Repeat("y", 16)}}})
			wantErr(t, err, gcx.ErrLineTooLong)
		}},
		{"T14 no volatile meta", func(t *testing.T) {
			b, err := gcx.Marshal(bigResponse(), gcx.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"ms=", "elapsed", "format_version"} {
				if bytes.Contains(b, []byte(key)) {
					t.Errorf("payload holds %q", key)
				}
			}
		}},
		{"T15 map order", func(t *testing.T) {
			s := gcx.Section{Tool: "x", Fields: []string{"a"}, Meta: map[string]string{"z": "1", "y": "2", "x": "3", "w": "4", "v": "5"}}
			first, _ := gcx.MarshalSections(s)
			for range 20 {
				if again, _ := gcx.MarshalSections(s); !bytes.Equal(again, first) {
					t.Fatalf("bytes changed between runs: %q vs %q", again, first)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}
