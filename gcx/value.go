package gcx

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/graphwire/graphwire/graphresponse"
)

// FormatCell returns the cell text of a Go value (spec §11.2): "" for nil,
// strings without CR, true/false, integers in decimal, floats and
// json.Number as canonical numbers (no exponent in [1e-6, 1e21), never -0
// or 1e+06), NaN and ±Inf as "", []byte as padded base64, time.Time as
// RFC 3339 in UTC, a [graphresponse.Value] by the same rules, and anything
// else as compact JSON with sorted keys and no HTML escaping. It fails with
// [ErrUnsupportedValue] for values without a JSON form and for an invalid
// json.Number. The result never contains CR.
func FormatCell(v any) (string, error) {
	b, err := appendAnyCell(nil, v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

func appendAnyCell(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return dst, nil
	case string:
		return appendNoCR(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case uintptr:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case float64:
		return appendFloat(dst, x, 64), nil
	case float32:
		return appendFloat(dst, float64(x), 32), nil
	case json.Number:
		return appendNumberLiteral(dst, string(x))
	case []byte:
		return base64.StdEncoding.AppendEncode(dst, x), nil
	case time.Time:
		return x.UTC().AppendFormat(dst, time.RFC3339Nano), nil
	case graphresponse.Value:
		return appendValueCell(dst, x), nil
	}
	// Named basic types get the rules of their kind; maps, slices and
	// structs become compact JSON through encoding/json. This is the
	// escape hatch for caller values, never the graph model.
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
		return dst, fmt.Errorf("%T: %w", v, ErrUnsupportedValue)
	case reflect.String:
		return appendNoCR(dst, rv.String()), nil
	case reflect.Bool:
		return strconv.AppendBool(dst, rv.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, rv.Int(), 10), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, rv.Uint(), 10), nil
	case reflect.Float32:
		return appendFloat(dst, rv.Float(), 32), nil
	case reflect.Float64:
		return appendFloat(dst, rv.Float(), 64), nil
	}
	b, err := compactJSON(v, false)
	if err != nil {
		return dst, fmt.Errorf("%T: %v: %w", v, err, ErrUnsupportedValue)
	}
	return append(dst, b...), nil
}

// compactJSON marshals v with encoding/json: map keys sorted, HTML escaping
// as asked, no trailing newline.
func compactJSON(v any, escapeHTML bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// appendNoCR appends s without its CR bytes.
func appendNoCR(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '\r')
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		s = s[i+1:]
	}
}

// cellText returns s without CR, allocating only when s holds one.
func cellText(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	return string(appendNoCR(nil, s))
}

// appendFloat appends the canonical number text of f (spec §11.2); this
// and appendNumberLiteral are the only places that format numbers. NaN and
// ±Inf give nothing.
func appendFloat(dst []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst
	}
	if f == 0 {
		return append(dst, '0')
	}
	if abs := math.Abs(f); abs >= 1e-6 && abs < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', -1, bits)
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, bits)
	// Strip leading zeros of the exponent: 1e-07 → 1e-7.
	e := bytes.IndexByte(dst[start:], 'e') + start
	digits := e + 2
	j := digits
	for j < len(dst)-1 && dst[j] == '0' {
		j++
	}
	return append(dst[:digits], dst[j:]...)
}

// appendNumberLiteral appends the canonical text of a JSON number literal,
// computed from its decimal digits without going through float64.
func appendNumberLiteral(dst []byte, lit string) ([]byte, error) {
	bad := func() ([]byte, error) {
		return dst, fmt.Errorf("json.Number %q: %w", lit, ErrUnsupportedValue)
	}
	s := lit
	neg := false
	if s != "" && s[0] == '-' {
		neg, s = true, s[1:]
	}
	// Integer part: 0 or [1-9][0-9]*.
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	if i == 0 || (s[0] == '0' && i > 1) {
		return bad()
	}
	intPart, frac := s[:i], ""
	s = s[i:]
	if s != "" && s[0] == '.' {
		j := 1
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == 1 {
			return bad()
		}
		frac, s = s[1:j], s[j:]
	}
	exp := 0
	plain := len(s) == 0 && len(frac) == 0 && !strings.ContainsAny(lit, ".eE")
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return bad()
		}
		s = s[1:]
		sign := ""
		if s != "" && (s[0] == '+' || s[0] == '-') {
			sign, s = s[:1], s[1:]
		}
		if s == "" || strings.TrimLeft(s, "0123456789") != "" {
			return bad()
		}
		// Exponents beyond ±10⁹ have no float64 meaning; refusing them
		// keeps the arithmetic below in int range.
		e, err := strconv.Atoi(sign + s)
		if err != nil || e > 1e9 || e < -1e9 {
			return bad()
		}
		exp = e
	}
	if plain {
		if intPart == "0" {
			return append(dst, '0'), nil
		}
		if neg {
			dst = append(dst, '-')
		}
		return append(dst, intPart...), nil
	}
	// value = 0.D × 10^point, D without leading or trailing zeros.
	digits := strings.TrimLeft(intPart+frac, "0")
	point := len(intPart) + exp - (len(intPart) + len(frac) - len(digits))
	digits = strings.TrimRight(digits, "0")
	if digits == "" {
		return append(dst, '0'), nil
	}
	if neg {
		dst = append(dst, '-')
	}
	n := len(digits)
	switch {
	case point > 21 || point < -5:
		dst = append(dst, digits[0])
		if n > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if point-1 >= 0 {
			dst = append(dst, '+')
		}
		return strconv.AppendInt(dst, int64(point-1), 10), nil
	case point <= 0:
		dst = append(dst, '0', '.')
		for range -point {
			dst = append(dst, '0')
		}
		return append(dst, digits...), nil
	case point >= n:
		dst = append(dst, digits...)
		for range point - n {
			dst = append(dst, '0')
		}
		return dst, nil
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...), nil
	}
}

// appendValueCell appends the cell text of a graph value.
func appendValueCell(dst []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindNull:
		return dst
	case graphresponse.KindString:
		return appendNoCR(dst, v.Str())
	case graphresponse.KindFloat:
		return appendFloat(dst, v.Float(), 64) // NaN and ±Inf: empty
	case graphresponse.KindArray, graphresponse.KindObject:
		return appendValueJSON(dst, v)
	}
	return appendScalarJSON(dst, v)
}

// appendScalarJSON appends a bool or number value; anything else is null.
func appendScalarJSON(dst []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindBool:
		return strconv.AppendBool(dst, v.Bool())
	case graphresponse.KindInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case graphresponse.KindUint:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case graphresponse.KindFloat:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return append(dst, "null"...)
		}
		return appendFloat(dst, f, 64)
	}
	return append(dst, "null"...)
}

// appendValueJSON appends the compact JSON of a nested graph value: object
// members sorted by key (stable, so repeated keys keep their order),
// canonical numbers, no HTML escaping.
func appendValueJSON(dst []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindString:
		return graphresponse.AppendQuotedJSON(dst, v.Str())
	case graphresponse.KindArray:
		dst = append(dst, '[')
		for i, e := range v.Elems() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValueJSON(dst, e)
		}
		return append(dst, ']')
	case graphresponse.KindObject:
		ms := v.Members()
		if !slices.IsSortedFunc(ms, compareKeys) {
			ms = slices.Clone(ms)
			slices.SortStableFunc(ms, compareKeys)
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = graphresponse.AppendQuotedJSON(dst, m.Key)
			dst = append(dst, ':')
			dst = appendValueJSON(dst, m.Value)
		}
		return append(dst, '}')
	}
	return appendScalarJSON(dst, v)
}

func compareKeys(a, b graphresponse.Member) int { return cmp.Compare(a.Key, b.Key) }

// valueSection builds the generic-fallback section of v (spec §9).
func valueSection(tool string, v any, escapeHTML bool) (Section, error) {
	if tool == "" || !headerSafe(tool) {
		return Section{}, fmt.Errorf("tool %q: %w", tool, ErrUnsafeName)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return Section{}, fmt.Errorf("%v: %w", err, ErrUnsupportedValue)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return Section{}, fmt.Errorf("%v: %w", err, ErrUnsupportedValue)
	}
	cell := func(v any) (string, error) {
		switch y := v.(type) {
		case nil:
			return "", nil
		case string:
			return y, nil
		case json.Number:
			return string(y), nil
		case bool:
			return strconv.FormatBool(y), nil
		}
		b, err := compactJSON(v, escapeHTML)
		if err != nil {
			return "", fmt.Errorf("%v: %w", err, ErrUnsupportedValue)
		}
		return string(b), nil
	}
	s := Section{Tool: tool}
	valueForm := func(items []any, withRows bool) error {
		s.Fields = []string{"value"}
		s.Rows = make([][]string, len(items))
		for i, it := range items {
			c, err := cell(it)
			if err != nil {
				return err
			}
			s.Rows[i] = []string{c}
		}
		if withRows {
			s.Meta = map[string]string{"rows": strconv.Itoa(len(items))}
		}
		return nil
	}
	tableForm := func(objs []map[string]any, keys []string, withRows bool) error {
		s.Fields = keys
		s.Rows = make([][]string, len(objs))
		for i, o := range objs {
			row := make([]string, len(keys))
			for j, k := range keys {
				c, err := cell(o[k])
				if err != nil {
					return err
				}
				row[j] = c
			}
			s.Rows[i] = row
		}
		if withRows {
			s.Meta = map[string]string{"rows": strconv.Itoa(len(objs))}
		}
		return nil
	}
	switch y := x.(type) {
	case map[string]any:
		keys := sortedKeys(y)
		if len(keys) > 0 && allFieldSafe(keys) {
			err = tableForm([]map[string]any{y}, keys, false)
		} else {
			err = valueForm([]any{y}, false)
		}
	case []any:
		objs, keys := objectUnion(y)
		if objs != nil {
			err = tableForm(objs, keys, true)
		} else {
			err = valueForm(y, true)
		}
	default:
		err = valueForm([]any{y}, false)
	}
	if err != nil {
		return Section{}, err
	}
	if len(s.Fields) == 1 && hasBlankCell(s.Rows) {
		if s.Fields[0] == "#" {
			// The ordinal field would repeat the only field; the
			// value form never has an empty cell for an object.
			items := make([]any, 0, len(s.Rows))
			if arr, ok := x.([]any); ok {
				items = append(items, arr...)
			} else {
				items = append(items, x)
			}
			_, isArr := x.([]any)
			if err := valueForm(items, isArr); err != nil {
				return Section{}, err
			}
		}
		if hasBlankCell(s.Rows) {
			addOrdinal(&s)
		}
	}
	return s, nil
}

// objectUnion returns the elements of arr as objects with the sorted union
// of their keys, or nil when arr is empty, holds a non-object, or the union
// is empty or has an unsafe key.
func objectUnion(arr []any) ([]map[string]any, []string) {
	if len(arr) == 0 {
		return nil, nil
	}
	objs := make([]map[string]any, len(arr))
	seen := map[string]bool{}
	var keys []string
	for i, e := range arr {
		o, ok := e.(map[string]any)
		if !ok {
			return nil, nil
		}
		objs[i] = o
		for k := range o {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 || !allFieldSafe(keys) {
		return nil, nil
	}
	slices.Sort(keys)
	return objs, keys
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func allFieldSafe(keys []string) bool {
	for _, k := range keys {
		if !fieldSafe(k) {
			return false
		}
	}
	return true
}

// hasBlankCell reports whether a one-field section has a row whose cell
// escapes to nothing.
func hasBlankCell(rows [][]string) bool {
	for _, r := range rows {
		if len(r) == 0 || cellText(r[0]) == "" {
			return true
		}
	}
	return false
}

// addOrdinal puts a first field "#" holding the row ordinals 1, 2, …
// (spec §9.3, §11.7), so no row of a one-field section is blank.
func addOrdinal(s *Section) {
	s.Fields = append([]string{"#"}, s.Fields...)
	for i, r := range s.Rows {
		s.Rows[i] = append([]string{strconv.Itoa(i + 1)}, r...)
	}
}
