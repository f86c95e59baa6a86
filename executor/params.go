package executor

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/compiler"
)

// ErrParam is wrapped by errors about a parameter that cannot be turned into text.
var ErrParam = errors.New("executor: bad parameter")

// ParamText returns the canonical text of p (docs/clickhouse.md, "Parameter text"): the form both engines
// bind to {name:Type}. ClickHouse reads a parameter value as escaped text, so strings have
// backslash, TAB, LF, CR, NUL, BS and FF escaped; quotes need no escaping at the top level.
// Array elements use ClickHouse's quoted form ('it\'s').
func ParamText(p compiler.Param) (string, error) {
	b, err := appendParam(nil, p.Type, p.Value, false)
	if err != nil {
		return "", fmt.Errorf("%w: %s (%s): %v", ErrParam, p.Name, p.Type, err)
	}
	return string(b), nil
}

// ParamTexts returns the canonical text of every parameter, keyed by name.
func ParamTexts(params []compiler.Param) (map[string]string, error) {
	m := make(map[string]string, len(params))
	for _, p := range params {
		t, err := ParamText(p)
		if err != nil {
			return nil, err
		}
		m[p.Name] = t
	}
	return m, nil
}

// appendParam appends the text of v as type typ. nested is true inside an Array, where strings
// and dates are quoted and NULL is spelled NULL.
func appendParam(dst []byte, typ string, v any, nested bool) ([]byte, error) {
	typ = strings.TrimSpace(typ)
	if inner, ok := unwrap(typ, "LowCardinality"); ok {
		return appendParam(dst, inner, v, nested)
	}
	if inner, ok := unwrap(typ, "Nullable"); ok {
		if isNil(v) {
			if nested {
				return append(dst, "NULL"...), nil
			}
			return append(dst, `\N`...), nil
		}
		return appendParam(dst, inner, v, nested)
	}
	if isNil(v) {
		return nil, fmt.Errorf("NULL for non-Nullable type")
	}
	if inner, ok := unwrap(typ, "Array"); ok {
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return nil, fmt.Errorf("want a slice, got %T", v)
		}
		dst = append(dst, '[')
		for i := range rv.Len() {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendParam(dst, inner, rv.Index(i).Interface(), true); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	}
	if inner, ok := unwrap(typ, "Tuple"); ok {
		// A tuple's elements are written as inside an array, whatever the nesting: quoted
		// strings, NULL spelled NULL. Element types are unnamed and separated by top-level
		// commas (Tuple(String, Array(Int64))).
		vals, ok := v.([]any)
		types := splitTopLevel(inner)
		if !ok || len(vals) != len(types) {
			return nil, fmt.Errorf("want a []any of %d elements, got %T", len(types), v)
		}
		dst = append(dst, '(')
		for i, et := range types {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendParam(dst, et, vals[i], true); err != nil {
				return nil, err
			}
		}
		return append(dst, ')'), nil
	}
	base, _, _ := strings.Cut(typ, "(")
	switch base {
	case "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64":
		switch n := v.(type) {
		case int, int8, int16, int32, int64:
			return strconv.AppendInt(dst, reflect.ValueOf(n).Int(), 10), nil
		case uint, uint8, uint16, uint32, uint64:
			return strconv.AppendUint(dst, reflect.ValueOf(n).Uint(), 10), nil
		}
	case "Float32", "Float64":
		switch f := v.(type) {
		case float64:
			return appendFloat(dst, f)
		case float32:
			return appendFloat(dst, float64(f))
		case int64:
			return strconv.AppendInt(dst, f, 10), nil
		case int:
			return strconv.AppendInt(dst, int64(f), 10), nil
		}
	case "Bool":
		if b, ok := v.(bool); ok {
			return strconv.AppendBool(dst, b), nil
		}
	case "String", "FixedString", "Enum8", "Enum16", "UUID":
		if s, ok := v.(string); ok {
			if nested {
				return appendQuoted(dst, s), nil
			}
			return appendEscaped(dst, s), nil
		}
	case "Date", "Date32":
		var d Date
		switch t := v.(type) {
		case Date:
			d = t
		case time.Time:
			d = DateOf(t.UTC())
		default:
			return nil, fmt.Errorf("want executor.Date or time.Time, got %T", v)
		}
		return appendMaybeQuoted(dst, d.String(), nested), nil
	case "DateTime", "DateTime64":
		t, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("want time.Time, got %T", v)
		}
		prec := 0
		if base == "DateTime64" {
			prec = dateTime64Precision(typ)
		}
		layout := "2006-01-02 15:04:05"
		if prec > 0 {
			layout += "." + strings.Repeat("0", prec)
		}
		return appendMaybeQuoted(dst, t.UTC().Format(layout), nested), nil
	default:
		return nil, fmt.Errorf("unsupported parameter type")
	}
	return nil, fmt.Errorf("value of Go type %T does not fit", v)
}

// SettingText returns v as a ClickHouse literal for a SETTINGS clause or a SET statement:
// integers in decimal, bools as 0 or 1, strings single-quoted.
func SettingText(v any) (string, error) {
	switch x := v.(type) {
	case int, int8, int16, int32, int64:
		return strconv.FormatInt(reflect.ValueOf(x).Int(), 10), nil
	case uint, uint8, uint16, uint32, uint64:
		return strconv.FormatUint(reflect.ValueOf(x).Uint(), 10), nil
	case bool:
		if x {
			return "1", nil
		}
		return "0", nil
	case string:
		return string(appendQuoted(nil, x)), nil
	case float64:
		b, err := appendFloat(nil, x)
		return string(b), err
	}
	return "", fmt.Errorf("%w: setting value of Go type %T", ErrParam, v)
}

func appendFloat(dst []byte, f float64) ([]byte, error) {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...), nil
	case math.IsInf(f, 1):
		return append(dst, "inf"...), nil
	case math.IsInf(f, -1):
		return append(dst, "-inf"...), nil
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64), nil
}

func appendMaybeQuoted(dst []byte, s string, quoted bool) []byte {
	if quoted {
		dst = append(dst, '\'')
		dst = append(dst, s...)
		return append(dst, '\'')
	}
	return append(dst, s...)
}

// appendEscaped appends s in ClickHouse's escaped text form.
func appendEscaped(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case 0:
			dst = append(dst, '\\', '0')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendQuoted appends s as a single-quoted ClickHouse string literal.
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, '\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\', '\'':
			dst = append(dst, '\\', c)
		case '\t':
			dst = append(dst, '\\', 't')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case 0:
			dst = append(dst, '\\', '0')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			if c < 0x20 || c == 0x7f {
				dst = append(dst, '\\', 'x', hex[c>>4], hex[c&0xf])
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '\'')
}

// splitTopLevel splits a type list at the commas outside parentheses.
func splitTopLevel(list string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// unwrap returns T for wrapper(T).
func unwrap(typ, wrapper string) (string, bool) {
	if !strings.HasPrefix(typ, wrapper+"(") || !strings.HasSuffix(typ, ")") {
		return "", false
	}
	return typ[len(wrapper)+1 : len(typ)-1], true
}

// dateTime64Precision returns P of DateTime64(P[, tz]), 3 when absent (ClickHouse's default).
func dateTime64Precision(typ string) int {
	inner, ok := unwrap(typ, "DateTime64")
	if !ok {
		return 3
	}
	p, _, _ := strings.Cut(inner, ",")
	n, err := strconv.Atoi(strings.TrimSpace(p))
	if err != nil || n < 0 || n > 9 {
		return 3
	}
	return n
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return rv.IsNil() && rv.Kind() == reflect.Pointer
	}
	return false
}
