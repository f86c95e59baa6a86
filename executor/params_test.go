package executor_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

func TestParamText(t *testing.T) {
	ts := time.Date(2026, 5, 8, 22, 55, 58, 467_450_000, time.FixedZone("CEST", 2*3600))
	tests := []struct {
		name    string
		typ     string
		value   any
		want    string
		wantErr error
	}{
		{"int64", "Int64", int64(-42), "-42", nil},
		{"int", "Int64", 7, "7", nil},
		{"uint64 max", "UInt64", uint64(math.MaxUint64), "18446744073709551615", nil},
		{"float shortest", "Float64", 0.1, "0.1", nil},
		{"float exponent", "Float64", 1e300, "1e+300", nil},
		{"bool", "Bool", true, "true", nil},
		{"string escapes", "String", "a\\b\tc\nd\re\x00f\bg\fh'i\"j", `a\\b\tc\nd\re\0f\bg\fh'i"j`, nil},
		{"string N", "String", `\N`, `\\N`, nil},
		{"low cardinality", "LowCardinality(String)", "x\ty", `x\ty`, nil},
		{"nullable null", "Nullable(String)", nil, `\N`, nil},
		{"nullable value", "Nullable(Int64)", int64(3), "3", nil},
		{"nullable typed nil pointer", "Nullable(Int64)", (*int64)(nil), `\N`, nil},
		{"date", "Date32", executor.Date{Year: 2026, Month: 7, Day: 1}, "2026-07-01", nil},
		{"date from time", "Date", time.Date(2026, 7, 1, 23, 0, 0, 0, time.UTC), "2026-07-01", nil},
		{"datetime64 in UTC", "DateTime64(6, 'UTC')", ts, "2026-05-08 20:55:58.467450", nil},
		{"datetime64 precision 0", "DateTime64(0, 'UTC')", ts, "2026-05-08 20:55:58", nil},
		{"datetime", "DateTime", ts, "2026-05-08 20:55:58", nil},
		{"array of strings", "Array(String)", []string{"a'b", `c\d`, "e\nf", "\x01"}, `['a\'b','c\\d','e\nf','\x01']`, nil},
		{"array of ints", "Array(Int64)", []int64{1, -2}, "[1,-2]", nil},
		{"array of nullable", "Array(Nullable(Int64))", []any{int64(1), nil}, "[1,NULL]", nil},
		{"array of dates", "Array(Date32)", []executor.Date{{Year: 2026, Month: 1, Day: 2}}, "['2026-01-02']", nil},
		{"empty array", "Array(String)", []string{}, "[]", nil},
		{"tuple", "Tuple(String, Int64)", []any{"a'b", int64(3)}, `('a\'b',3)`, nil},
		{"array of tuples", "Array(Tuple(String, String))", []any{[]any{"HAS_NOTE", "Note"}, []any{"IN_PROJECT", "Project"}}, `[('HAS_NOTE','Note'),('IN_PROJECT','Project')]`, nil},
		{"tuple of an array", "Tuple(Array(Int64), Nullable(String))", []any{[]int64{1, 2}, nil}, "([1,2],NULL)", nil},
		{"tuple too short", "Tuple(String, String)", []any{"a"}, "", executor.ErrParam},
		{"tuple not a slice", "Tuple(String, String)", "a", "", executor.ErrParam},
		{"null for non-nullable", "String", nil, "", executor.ErrParam},
		{"wrong Go type", "Int64", "12", "", executor.ErrParam},
		{"unsupported type", "Map(String, String)", map[string]string{}, "", executor.ErrParam},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := executor.ParamText(compiler.Param{Name: "p0", Type: tt.typ, Value: tt.value})
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParamText = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSettingText(t *testing.T) {
	tests := []struct {
		value any
		want  string
	}{
		{int64(30), "30"},
		{uint64(4294967296), "4294967296"},
		{true, "1"},
		{"throw", "'throw'"},
		{"it's", `'it\'s'`},
	}
	for _, tt := range tests {
		got, err := executor.SettingText(tt.value)
		if err != nil || got != tt.want {
			t.Errorf("SettingText(%v) = %q, %v; want %q", tt.value, got, err, tt.want)
		}
	}
	if _, err := executor.SettingText([]int{1}); !errors.Is(err, executor.ErrParam) {
		t.Errorf("SettingText([]int) err = %v, want ErrParam", err)
	}
}

func TestKindForCode(t *testing.T) {
	tests := []struct {
		code int
		want error
	}{
		{159, executor.ErrTimeout},
		{160, executor.ErrTimeout},
		{394, executor.ErrCanceled},
		{241, executor.ErrResourceExhausted},
		{158, executor.ErrResourceExhausted},
		{202, executor.ErrResourceExhausted},
		{6, executor.ErrInvalidQuery},
		{457, executor.ErrInvalidQuery},
		{60, executor.ErrUnavailable},
		{516, executor.ErrUnavailable},
		{62, executor.ErrInternal},
		{164, executor.ErrInternal},
		{99999, executor.ErrInternal},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			err := executor.FromCode("run query", tt.code, errors.New("engine said no"))
			if !errors.Is(err, tt.want) {
				t.Errorf("code %d: %v, want kind %v", tt.code, err, tt.want)
			}
			var ee *executor.Error
			if !errors.As(err, &ee) || ee.Code != tt.code {
				t.Errorf("code %d: %#v", tt.code, err)
			}
		})
	}
}

func TestParseCode(t *testing.T) {
	tests := []struct {
		msg    string
		want   int
		wantOK bool
	}{
		{"Code: 62. DB::Exception: Syntax error", 62, true},
		{"  Code: 241. DB::Exception: Memory limit", 241, true},
		{"no code here", 0, false},
	}
	for _, tt := range tests {
		got, ok := executor.ParseCode(tt.msg)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("ParseCode(%q) = %d, %v; want %d, %v", tt.msg, got, ok, tt.want, tt.wantOK)
		}
	}
}

func TestFromContext(t *testing.T) {
	tests := []struct {
		err  error
		want error
	}{
		{context.Canceled, executor.ErrCanceled},
		{fmt.Errorf("read: %w", context.DeadlineExceeded), executor.ErrTimeout},
		{os.ErrDeadlineExceeded, executor.ErrTimeout},
		{errors.New("other"), nil},
	}
	for _, tt := range tests {
		got := executor.FromContext("run", tt.err)
		if tt.want == nil {
			if got != nil {
				t.Errorf("FromContext(%v) = %v, want nil", tt.err, got)
			}
			continue
		}
		if !errors.Is(got, tt.want) || !errors.Is(got, tt.err) {
			t.Errorf("FromContext(%v) = %v, want kind %v wrapping the original", tt.err, got, tt.want)
		}
	}
}
