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
	"unicode/utf8"

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
	x, err := normalizeValue(v)
	if err != nil {
		return Section{}, err
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
		case float64:
			var buf [32]byte // the longest float text fits: one allocation, the string
			return string(appendJSONFloat(buf[:0], y, 64)), nil
		case float32:
			var buf [32]byte
			return string(appendJSONFloat(buf[:0], float64(y), 32)), nil
		case int:
			return strconv.Itoa(y), nil
		case int64:
			return strconv.FormatInt(y, 10), nil
		case int32:
			return strconv.FormatInt(int64(y), 10), nil
		case uint64:
			return strconv.FormatUint(y, 10), nil
		case uint32:
			return strconv.FormatUint(uint64(y), 10), nil
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
		cells := make([]string, len(items))
		for i, it := range items {
			c, err := cell(it)
			if err != nil {
				return err
			}
			cells[i] = c
			s.Rows[i] = cells[i : i+1 : i+1]
		}
		if withRows {
			s.Meta = map[string]string{"rows": strconv.Itoa(len(items))}
		}
		return nil
	}
	tableForm := func(objs []map[string]any, keys []string, withRows bool) error {
		s.Fields = keys
		s.Rows = make([][]string, len(objs))
		// One backing array for every row: the section is written and
		// dropped, so the rows need not be separately collectable.
		cells := make([]string, len(objs)*len(keys))
		for i, o := range objs {
			row := cells[i*len(keys) : (i+1)*len(keys) : (i+1)*len(keys)]
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
	var items []any // the elements of an array root, for the ordinal guard
	isArr := false
	switch y := x.(type) {
	case map[string]any:
		keys := sortedKeys(y)
		if len(keys) > 0 && allFieldSafe(keys) {
			err = tableForm([]map[string]any{y}, keys, false)
		} else {
			err = valueForm([]any{y}, false)
		}
	case map[string]string:
		o := make(map[string]any, len(y))
		for k, e := range y {
			o[k] = e
		}
		keys := sortedKeys(o)
		if len(keys) > 0 && allFieldSafe(keys) {
			err = tableForm([]map[string]any{o}, keys, false)
		} else {
			err = valueForm([]any{y}, false)
		}
	case []any, []string, []map[string]any:
		items, isArr = arrayItems(y), true
		objs, keys := objectUnion(items)
		if objs != nil {
			err = tableForm(objs, keys, true)
		} else {
			err = valueForm(items, true)
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
			if !isArr {
				items = []any{x}
			}
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

// normalizeValue gives v the shape spec §9.1 defines: the result of
// marshalling with encoding/json and decoding again with UseNumber. Values
// made only of the JSON-shaped types plainValue accepts already have that
// shape up to number spelling, which the cells reproduce (appendJSONFloat),
// so they skip the round trip; a json.RawMessage is decoded once. Anything
// else, and every value the round trip would reject, takes the round trip,
// so errors are unchanged.
func normalizeValue(v any) (any, error) {
	if plainValue(v, 0) {
		return v, nil
	}
	raw, isRaw := v.(json.RawMessage)
	if !isRaw || !json.Valid(raw) {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("%v: %w", err, ErrUnsupportedValue)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("%v: %w", err, ErrUnsupportedValue)
	}
	return x, nil
}

// maxPlainDepth bounds plainValue's recursion well below the depth at which
// encoding/json starts looking for cycles; deeper values take the round
// trip, which reports a cycle as an error.
const maxPlainDepth = 500

// plainValue reports whether v is built only of nil, bool, valid UTF-8
// strings, finite float64/float32, int, int32, int64, uint32, uint64,
// non-nil map[string]any, map[string]string, []any, []string and
// []map[string]any, with valid UTF-8 keys: the values whose encoding/json
// round trip changes nothing but number spelling. A nil map or slice
// becomes null in the round trip, so it is not plain.
func plainValue(v any, depth int) bool {
	if depth > maxPlainDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int, int32, int64, uint32, uint64:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case float32:
		return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0)
	case map[string]any:
		if x == nil {
			return false
		}
		for k, e := range x {
			if !utf8.ValidString(k) || !plainValue(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]string:
		if x == nil {
			return false
		}
		for k, e := range x {
			if !utf8.ValidString(k) || !utf8.ValidString(e) {
				return false
			}
		}
		return true
	case []any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !plainValue(e, depth+1) {
				return false
			}
		}
		return true
	case []string:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !utf8.ValidString(e) {
				return false
			}
		}
		return true
	case []map[string]any:
		if x == nil {
			return false
		}
		for _, e := range x {
			if !plainValue(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// arrayItems returns the elements of a plain array as []any.
func arrayItems(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	}
	return nil
}

// appendJSONFloat appends f as encoding/json writes a float of the given
// bit size, which is the literal the §9.1 round trip keeps: shortest
// round-trip digits, exponent form below 1e-6 and from 1e21 on, with a
// two-digit negative exponent shortened (1e-07 → 1e-7).
func appendJSONFloat(dst []byte, f float64, bits int) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	dst = strconv.AppendFloat(dst, f, format, -1, bits)
	if format == 'e' {
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
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
