package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"time"
)

// Member is one key/value pair of an [Object].
type Member struct {
	Key   string
	Value any
}

// Object is a JSON object with ordered keys. The decoder returns objects as
// Object, and the encoder writes an Object's members in order.
type Object []Member

// Get returns the value of the first member named key.
func (o Object) Get(key string) (any, bool) {
	for i := range o {
		if o[i].Key == key {
			return o[i].Value, true
		}
	}
	return nil, false
}

// index returns the position of key, starting the search at hint (the
// position where the key usually is) and wrapping around.
func (o Object) index(key string, hint int) int {
	n := len(o)
	if hint >= 0 && hint < n && o[hint].Key == key {
		return hint
	}
	for i := range n {
		if o[i].Key == key {
			return i
		}
	}
	return -1
}

// normalize turns an encoder input into the JSON value model (Object, []any,
// string, canonical json.Number, bool, nil). Values already in the model are
// returned as they are, without copying; a composite is copied only when
// something inside it changes.
func normalize(v any) (any, error) {
	n, changed, err := normalizeDepth(v, 0)
	if err != nil {
		return nil, err
	}
	if !changed {
		return v, nil
	}
	return n, nil
}

const maxDepth = 10000

// normalizeDepth returns the normalised value and whether it differs from v.
// When it does not, the caller keeps its own interface value, which avoids
// boxing slices again.
func normalizeDepth(v any, depth int) (any, bool, error) {
	if depth > maxDepth {
		return nil, false, fmt.Errorf("toon: %w: nesting deeper than %d", ErrUnsupportedType, maxDepth)
	}
	switch x := v.(type) {
	case nil, string, bool:
		return v, false, nil
	case json.Number:
		s, err := CanonicalNumber(string(x))
		if err != nil {
			return nil, false, fmt.Errorf("toon: %w: json.Number %q is not a JSON number", ErrUnsupportedType, string(x))
		}
		if s == string(x) {
			return v, false, nil
		}
		return json.Number(s), true, nil
	case Object:
		o, changed, err := normalizeObject(x, depth)
		if err != nil || !changed {
			return v, false, err
		}
		return o, true, nil
	case []any:
		if x == nil {
			return []any{}, true, nil
		}
		var out []any
		var prev Object // the last object element, its keys checked
		for i, e := range x {
			var n any
			var changed bool
			var err error
			if o, ok := e.(Object); ok && o != nil && depth+1 <= maxDepth {
				// Rows of a table repeat the keys of the row before: then
				// those keys are known to be distinct.
				if depth+2 <= maxDepth && unchangedRow(o, prev) {
					n = e // nothing to check or change
				} else {
					var no Object
					no, changed, err = normalizeObjectChecked(o, depth+1, !sameKeys(o, prev))
					if changed {
						n = no
					}
					prev = o
				}
			} else {
				n, changed, err = normalizeDepth(e, depth+1)
			}
			if err != nil {
				return nil, false, err
			}
			if changed && out == nil {
				out = make([]any, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = n
			}
		}
		if out != nil {
			return out, true, nil
		}
		return v, false, nil
	}
	n, err := convert(v, depth)
	return n, true, err
}

// convert normalises a Go value outside the model.
func convert(v any, depth int) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(Object, len(keys))
		for i, k := range keys {
			n, err := normalize1(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = Member{k, n}
		}
		return out, nil
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int8:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int16:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case uint8:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case uint16:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case uint32:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case uintptr:
		return json.Number(strconv.FormatUint(uint64(x), 10)), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, nil
		}
		return json.Number(formatFloat(x)), nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, nil
		}
		return json.Number(formatFloat32(x)), nil
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out, nil
	case []Object:
		out := make([]any, len(x))
		for i, o := range x {
			n, err := normalize1(o, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case time.Time:
		b, err := x.MarshalText()
		if err != nil {
			return nil, fmt.Errorf("toon: %w: %v", ErrUnsupportedType, err)
		}
		return string(b), nil
	}
	return viaJSON(v)
}

// normalize1 is normalize at a given depth.
func normalize1(v any, depth int) (any, error) {
	n, changed, err := normalizeDepth(v, depth)
	if err != nil || !changed {
		return v, err
	}
	return n, nil
}

func normalizeObject(o Object, depth int) (Object, bool, error) {
	return normalizeObjectChecked(o, depth, true)
}

// normalizeObjectChecked is normalizeObject that checks for duplicate keys
// only when check is set.
func normalizeObjectChecked(o Object, depth int, check bool) (Object, bool, error) {
	if o == nil {
		return Object{}, true, nil
	}
	if check {
		if err := checkDuplicateKeys(o); err != nil {
			return nil, false, err
		}
	}
	var out Object
	fast := depth+1 <= maxDepth
	for i := range o {
		if fast && unchangedPrimitive(o[i].Value) {
			if out != nil {
				out[i] = o[i]
			}
			continue
		}
		n, changed, err := normalizeDepth(o[i].Value, depth+1)
		if err != nil {
			return nil, false, err
		}
		if changed && out == nil {
			out = make(Object, len(o))
			copy(out, o[:i])
		}
		if out != nil {
			out[i] = Member{o[i].Key, n}
		}
	}
	if out != nil {
		return out, true, nil
	}
	return o, false, nil
}

// unchangedRow reports whether o has the keys of prev, in order, and only
// primitives that normalisation keeps as they are.
func unchangedRow(o, prev Object) bool {
	if len(o) != len(prev) {
		return false
	}
	for i := range o {
		if o[i].Key != prev[i].Key || !unchangedPrimitive(o[i].Value) {
			return false
		}
	}
	return true
}

// unchangedPrimitive is a fast check for the common primitives that
// normalisation keeps as they are; false means "not known".
func unchangedPrimitive(v any) bool {
	switch x := v.(type) {
	case nil, string, bool:
		return true
	case json.Number:
		return canonicalPlain(string(x))
	}
	return false
}

// canonicalPlain is a fast check that a literal without exponent is in the
// canonical form of [CanonicalNumber]; false means "not known". It accepts 0,
// integers without a leading zero, and decimals without trailing fractional
// zeros whose integer part is non-zero with at most 21 digits, or zero with
// at most five leading fractional zeros.
func canonicalPlain(s string) bool {
	if s == "0" {
		return true
	}
	i := 0
	if len(s) > 1 && s[0] == '-' {
		i = 1
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intLen := i - start
	switch {
	case intLen == 0:
		return false
	case intLen > 1 && s[start] == '0':
		return false
	}
	if i == len(s) {
		return s[start] != '0' // -0 becomes 0
	}
	if s[i] != '.' {
		return false
	}
	i++
	fs := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i != len(s) || i == fs || s[i-1] == '0' {
		return false
	}
	if s[start] != '0' {
		return intLen <= 21
	}
	zeros := 0
	for fs+zeros < len(s) && s[fs+zeros] == '0' {
		zeros++
	}
	return zeros <= 5
}

// sameKeys reports whether o and p have the same keys in the same order.
func sameKeys(o, p Object) bool {
	if len(o) != len(p) {
		return false
	}
	for i := range o {
		if o[i].Key != p[i].Key {
			return false
		}
	}
	return true
}

func checkDuplicateKeys(o Object) error {
	if len(o) <= 12 {
		for i := 1; i < len(o); i++ {
			for j := 0; j < i; j++ {
				if o[i].Key == o[j].Key {
					return dupKeyError(o[i].Key)
				}
			}
		}
		return nil
	}
	seen := make(map[string]struct{}, len(o))
	for i := range o {
		if _, ok := seen[o[i].Key]; ok {
			return dupKeyError(o[i].Key)
		}
		seen[o[i].Key] = struct{}{}
	}
	return nil
}

func dupKeyError(k string) error {
	return fmt.Errorf("toon: %w: object has the key %q twice (%w)", ErrUnsupportedType, k, ErrDuplicateKey)
}

// viaJSON normalises any other Go value through encoding/json and the
// order-preserving ParseJSON.
func viaJSON(v any) (any, error) {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("toon: %w: %T: %v", ErrUnsupportedType, v, err)
	}
	out, err := ParseJSON(bytes.TrimRight(buf.Bytes(), "\n"))
	if err != nil {
		return nil, fmt.Errorf("toon: %w: %T: %v", ErrUnsupportedType, v, err)
	}
	return out, nil
}

// Equal reports JSON-model equality: objects with the same keys in the same
// order, arrays element by element, numbers by canonical text, strings by
// bytes. Go values outside the model are normalised as the encoder does
// first; a value that cannot be normalised equals nothing.
func Equal(a, b any) bool { return equalValues(a, b, true) }

// EqualUnordered is [Equal] that ignores the key order of objects, which the
// TOON spec allows tabular rows to change.
func EqualUnordered(a, b any) bool { return equalValues(a, b, false) }

func equalValues(a, b any, ordered bool) bool {
	na, err := normalize(a)
	if err != nil {
		return false
	}
	nb, err := normalize(b)
	if err != nil {
		return false
	}
	return equalModel(na, nb, ordered)
}

func equalModel(a, b any, ordered bool) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalModel(x[i], y[i], ordered) {
				return false
			}
		}
		return true
	case Object:
		y, ok := b.(Object)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if ordered {
				if x[i].Key != y[i].Key || !equalModel(x[i].Value, y[i].Value, ordered) {
					return false
				}
				continue
			}
			j := y.index(x[i].Key, i)
			if j < 0 || !equalModel(x[i].Value, y[j].Value, ordered) {
				return false
			}
		}
		return true
	}
	return false
}

// isPrimitive reports whether a model value is a JSON primitive.
func isPrimitive(v any) bool {
	switch v.(type) {
	case Object, []any:
		return false
	}
	return true
}
