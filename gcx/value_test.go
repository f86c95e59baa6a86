package gcx_test

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

type named string

func TestFormatCell(t *testing.T) {
	tests := []struct {
		name    string
		v       any
		want    string
		wantErr error
	}{
		{name: "string with CR", v: "a\r\nb\r", want: "a\nb"},
		{name: "named string", v: named("x\ry"), want: "xy"},
		{name: "uint8", v: uint8(200), want: "200"},
		{name: "float 1e6", v: 1e6, want: "1000000"},
		{name: "float 2.5e-7", v: 2.5e-7, want: "2.5e-7"},
		{name: "float 1e-6", v: 1e-6, want: "0.000001"},
		{name: "float 123456789.125", v: 123456789.125, want: "123456789.125"},
		{name: "float -1e21", v: -1e21, want: "-1e+21"},
		{name: "float 1e100", v: 1e100, want: "1e+100"},
		{name: "NaN", v: math.NaN(), want: ""},
		{name: "+Inf", v: math.Inf(1), want: ""},
		{name: "float32 1e-7", v: float32(1e-7), want: "1e-7"},
		{name: "number 1e3", v: json.Number("1e3"), want: "1000"},
		{name: "number -0", v: json.Number("-0"), want: "0"},
		{name: "number -0.0e5", v: json.Number("-0.0e5"), want: "0"},
		{name: "number 1E+2", v: json.Number("1E+2"), want: "100"},
		{name: "number 0.0000001", v: json.Number("0.0000001"), want: "1e-7"},
		{name: "number 0.000001", v: json.Number("0.000001"), want: "0.000001"},
		{name: "number big integer", v: json.Number("-123456789012345678901234567890"), want: "-123456789012345678901234567890"},
		{name: "number 1e21", v: json.Number("1e21"), want: "1e+21"},
		{name: "number 1e20", v: json.Number("1e20"), want: "100000000000000000000"},
		{name: "number -1.50", v: json.Number("-1.50"), want: "-1.5"},
		{name: "number 12.34e-1", v: json.Number("12.34e-1"), want: "1.234"},
		{name: "number 1.5e300", v: json.Number("1.5e300"), want: "1.5e+300"},
		{name: "number 0.00123e-3", v: json.Number("0.00123e-3"), want: "0.00000123"},
		{name: "number exact digits", v: json.Number("0.1000000000000000055511151231257827"), want: "0.1000000000000000055511151231257827"},
		{name: "number 100e-2", v: json.Number("100e-2"), want: "1"},
		{name: "number 123e-7", v: json.Number("123e-7"), want: "0.0000123"},
		{name: "number 123e-10", v: json.Number("123e-10"), want: "1.23e-8"},
		{name: "number 01", v: json.Number("01"), wantErr: gcx.ErrUnsupportedValue},
		{name: "number 1.", v: json.Number("1."), wantErr: gcx.ErrUnsupportedValue},
		{name: "number .5", v: json.Number(".5"), wantErr: gcx.ErrUnsupportedValue},
		{name: "number 1e", v: json.Number("1e"), wantErr: gcx.ErrUnsupportedValue},
		{name: "number 1e+-2", v: json.Number("1e+-2"), wantErr: gcx.ErrUnsupportedValue},
		{name: "number --1", v: json.Number("--1"), wantErr: gcx.ErrUnsupportedValue},
		{name: "number empty", v: json.Number(""), wantErr: gcx.ErrUnsupportedValue},
		{name: "number huge exponent", v: json.Number("1e99999999999"), wantErr: gcx.ErrUnsupportedValue},
		{name: "time", v: time.Date(2026, 5, 8, 16, 47, 5, 123000000, time.FixedZone("CEST", 7200)), want: "2026-05-08T14:47:05.123Z"},
		{name: "struct", v: struct {
			B string `json:"b"`
			A int    `json:"a"`
		}{"<x>", 1}, want: `{"b":"<x>","a":1}`},
		{name: "nested map", v: map[string]any{"z": []any{1, "a\rb"}, "a": nil}, want: `{"a":null,"z":[1,"a\rb"]}`},
		{name: "func", v: func() {}, wantErr: gcx.ErrUnsupportedValue},
		{name: "chan", v: make(chan int), wantErr: gcx.ErrUnsupportedValue},
		{name: "map with NaN", v: map[string]float64{"a": math.NaN()}, wantErr: gcx.ErrUnsupportedValue},
		{name: "value null", v: graphresponse.Null(), want: ""},
		{name: "value NaN", v: graphresponse.Float(math.NaN()), want: ""},
		{name: "value -0", v: graphresponse.Float(math.Copysign(0, -1)), want: "0"},
		{name: "value string", v: graphresponse.String("a\rb"), want: "ab"},
		{name: "value uint", v: graphresponse.Uint(math.MaxUint64), want: "18446744073709551615"},
		{name: "value object", v: graphresponse.Object(
			graphresponse.Member{Key: "z", Value: graphresponse.Float(2)},
			graphresponse.Member{Key: "a", Value: graphresponse.Array(graphresponse.Float(math.NaN()), graphresponse.String("<\r>"))}),
			want: `{"a":[null,"<\r>"],"z":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcx.FormatCell(tt.v)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("FormatCell error = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("FormatCell = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEncodeValue(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		v       any
		want    string
		wantErr error
	}{
		{name: "struct", tool: "x", v: struct{ B, A string }{"b", "a"}, want: "GCX1 tool=x fields=A,B\na\tb\n"},
		{name: "unsafe key switches to value form", tool: "x", v: map[string]int{"a b": 1}, want: "GCX1 tool=x fields=value\n{\"a b\":1}\n"},
		{name: "unsafe key in array", tool: "x", v: []map[string]int{{"a,b": 1}}, want: "GCX1 tool=x fields=value rows=1\n{\"a,b\":1}\n"},
		{name: "array of empty objects", tool: "x", v: []map[string]int{{}, {}}, want: "GCX1 tool=x fields=value rows=2\n{}\n{}\n"},
		{name: "one key with empty value", tool: "x", v: []map[string]string{{"a": "x"}, {"a": ""}}, want: "GCX1 tool=x fields=#,a rows=2\n1\tx\n2\t\n"},
		{name: "ordinal key would repeat", tool: "x", v: map[string]any{"#": nil}, want: "GCX1 tool=x fields=value\n{\"#\":null}\n"},
		{name: "empty string", tool: "x", v: "", want: "GCX1 tool=x fields=#,value\n1\t\n"},
		{name: "CR only string", tool: "x", v: "\r", want: "GCX1 tool=x fields=#,value\n1\t\n"},
		{name: "hash string guarded", tool: "x", v: "#1", want: "GCX1 tool=x fields=value\n\\#1\n"},
		{name: "raw message keeps literals", tool: "x", v: json.RawMessage(`{"a":1.50,"b":[1e3]}`), want: "GCX1 tool=x fields=a,b\n1.50\t[1e3]\n"},
		{name: "unsafe tool", tool: "a b", v: 1, wantErr: gcx.ErrUnsafeName},
		{name: "func", tool: "x", v: func() {}, wantErr: gcx.ErrUnsupportedValue},
		{name: "NaN", tool: "x", v: math.NaN(), wantErr: gcx.ErrUnsupportedValue},
		{name: "invalid raw message", tool: "x", v: json.RawMessage(`{`), wantErr: gcx.ErrUnsupportedValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := gcx.MarshalValue(tt.tool, tt.v)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("MarshalValue error = %v, want %v", err, tt.wantErr)
			}
			if string(got) != tt.want {
				t.Fatalf("MarshalValue = %q, want %q", got, tt.want)
			}
			if err == nil {
				if _, err := gcx.UnmarshalSections(got); err != nil {
					t.Errorf("output does not decode: %v", err)
				}
			}
		})
	}
}
