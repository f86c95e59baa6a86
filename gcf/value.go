package gcf

import (
	"math"
	"strconv"

	"github.com/graphwire/graphwire/internal/jsonread"
)

// Object is an ordered map with unique string keys: the generic profile's
// object. The zero value is an empty object ready to use. An Object is not
// safe for concurrent mutation.
type Object struct {
	keys  []string
	vals  []any
	index map[string]int // built once the object grows past a few keys
}

const objectIndexThreshold = 12

// NewObject returns an empty object with room for n members.
func NewObject(n int) *Object {
	return &Object{keys: make([]string, 0, n), vals: make([]any, 0, n)}
}

// objectSlab hands out objects whose structs, keys and values are carved
// from shared chunks, so a table of r rows costs a few allocations instead
// of 3r. Each object gets its own full-capacity window of the chunks: adding
// a member beyond its size reallocates that object alone, and Delete stays
// inside the window. The zero value is ready to use.
type objectSlab struct {
	objs []Object
	keys []string
	vals []any
}

// next returns an empty object with room for n members; hint is how many
// more objects of about this size are likely to follow.
func (s *objectSlab) next(n, hint int) *Object {
	if n == 0 {
		return NewObject(0)
	}
	// Chunks stay small enough that a forged row count cannot make them
	// much larger than the rows that follow.
	const maxObjects, maxMembers = 1024, 4096
	hint = min(max(hint, 1), maxObjects)
	if len(s.objs) == 0 {
		s.objs = make([]Object, hint)
	}
	o := &s.objs[0]
	s.objs = s.objs[1:]
	if cap(s.keys)-len(s.keys) < n {
		c := n * max(1, min(hint, maxMembers/n))
		s.keys = make([]string, 0, c)
		s.vals = make([]any, 0, c)
	}
	k, v := len(s.keys), len(s.vals)
	o.keys = s.keys[k : k : k+n]
	o.vals = s.vals[v : v : v+n]
	s.keys, s.vals = s.keys[:k+n], s.vals[:v+n]
	return o
}

// Len returns the number of members.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.keys)
}

// Keys returns the keys in order. The slice must not be modified.
func (o *Object) Keys() []string {
	if o == nil {
		return nil
	}
	return o.keys
}

// Values returns the values in key order. The slice must not be modified.
func (o *Object) Values() []any {
	if o == nil {
		return nil
	}
	return o.vals
}

func (o *Object) find(key string) int {
	if o == nil {
		return -1
	}
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	i := o.find(key)
	if i < 0 {
		return nil, false
	}
	return o.vals[i], true
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { return o.find(key) >= 0 }

// Set sets key to v, replacing an existing value in place or appending a new
// member at the end.
func (o *Object) Set(key string, v any) {
	if i := o.find(key); i >= 0 {
		o.vals[i] = v
		return
	}
	o.add(key, v)
}

// add appends a member known to be new.
func (o *Object) add(key string, v any) {
	o.keys = append(o.keys, key)
	o.vals = append(o.vals, v)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > objectIndexThreshold {
		o.index = make(map[string]int, len(o.keys)*2)
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

// Delete removes key, keeping the order of the others.
func (o *Object) Delete(key string) {
	i := o.find(key)
	if i < 0 {
		return
	}
	o.keys = append(o.keys[:i], o.keys[i+1:]...)
	o.vals = append(o.vals[:i], o.vals[i+1:]...)
	if o.index != nil {
		o.index = nil
		if len(o.keys) > objectIndexThreshold {
			o.index = make(map[string]int, len(o.keys)*2)
			for j, k := range o.keys {
				o.index[k] = j
			}
		}
	}
}

// Clone returns a shallow copy of o.
func (o *Object) Clone() *Object {
	c := NewObject(o.Len())
	for i, k := range o.Keys() {
		c.add(k, o.vals[i])
	}
	return c
}

type absent struct{}

// Absent is the [ValueStream] cell meaning "key not present" (`~`).
var Absent absent

// ParseJSON parses one JSON document into the generic value model: nil,
// bool, int64 (integer literals, exactly; [ErrOutOfRange] beyond int64),
// float64 (other numbers), string, []any and [*Object] (key order kept).
// Duplicate keys are [ErrDuplicateKey]. Errors are [*SyntaxError]. The JSON
// layer is the shared strict reader (internal/jsonread); lone UTF-16
// surrogate escapes are [ErrInvalidSurrogate], as in GCF's own strings.
func ParseJSON(data []byte) (any, error) {
	p := jsonParser{data: data}
	p.r = jsonread.New(data, jsonread.Options{RejectLoneSurrogates: true, Errorf: p.fault})
	p.r.SkipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.r.End(); err != nil {
		return nil, err
	}
	return v, nil
}

// jsonParser builds the generic value model on the shared reader.
type jsonParser struct {
	r    *jsonread.Reader
	data []byte
}

func (p *jsonParser) errf(pos int, s error, detail string) error {
	line, col := jsonread.Position(p.data, pos)
	return &SyntaxError{Line: line, Column: col, Err: s, Detail: "json: " + detail}
}

// fault words a reader fault as this package always has: positions are
// byte columns at the offending byte, a duplicate key's just after it.
func (p *jsonParser) fault(f jsonread.Fault) error {
	switch f.Kind {
	case jsonread.KindDuplicateKey:
		return p.errf(f.At, ErrDuplicateKey, "duplicate key "+f.Detail)
	case jsonread.KindTrailing:
		return p.errf(f.At, ErrSyntax, "trailing data after JSON value")
	case jsonread.KindLiteral:
		return p.errf(f.At, ErrSyntax, "invalid literal")
	case jsonread.KindEnd, jsonread.KindChar:
		switch f.Want {
		case jsonread.WantKey:
			return p.errf(f.At, ErrSyntax, "expected object key")
		case jsonread.WantColon:
			return p.errf(f.At, ErrSyntax, "expected ':'")
		case jsonread.WantObjectNext:
			return p.errf(f.At, ErrSyntax, "expected ',' or '}'")
		case jsonread.WantArrayNext:
			return p.errf(f.At, ErrSyntax, "expected ',' or ']'")
		}
		if f.Kind == jsonread.KindEnd {
			return p.errf(f.At, ErrSyntax, "unexpected end of input")
		}
		return p.errf(f.At, ErrSyntax, "unexpected character")
	}
	return p.stringFault(f.Start)
}

// stringFault reports a fault in the string whose opening quote is at
// start, with GCF's precedence (the order its quoted strings are checked
// in): a raw control character or a missing closing quote, then the first
// bad escape, then invalid UTF-8. The shared reader stops at the first
// fault in byte order, so the string is looked at again here.
func (p *jsonParser) stringFault(start int) error {
	end := -1
	for i := start + 1; i < len(p.data) && end < 0; i++ {
		switch c := p.data[i]; {
		case c == '\\':
			i++
		case c == '"':
			end = i
		case c < 0x20:
			return p.errf(i, ErrSyntax, "control character in string")
		}
	}
	if end < 0 {
		return p.errf(start, ErrUnterminatedQuote, "unterminated string")
	}
	if _, serr, _ := unquoteBody(string(p.data[start+1 : end])); serr != nil {
		return p.errf(start, serr, "bad string")
	}
	return p.errf(start, ErrInvalidUTF8, "invalid UTF-8 in string")
}

const maxJSONDepth = 10000

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.errf(p.r.Offset(), ErrLimit, "nesting too deep")
	}
	c, ok := p.r.Peek()
	if !ok {
		return nil, p.r.Unexpected(jsonread.WantValue)
	}
	switch {
	case c == '{':
		o := &Object{}
		err := p.r.Object(func(key string, _ int) error {
			v, err := p.value(depth + 1)
			o.add(key, v)
			return err
		})
		return o, err
	case c == '[':
		a := []any{}
		err := p.r.Array(func(int) error {
			v, err := p.value(depth + 1)
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return p.r.String()
	case c == 't':
		return true, p.r.Literal("true")
	case c == 'f':
		return false, p.r.Literal("false")
	case c == 'n':
		return nil, p.r.Literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, p.r.Unexpected(jsonread.WantValue)
}

// number reads a number in the int64/double domain. A malformed number is
// reported at its start with the whole run of number characters.
func (p *jsonParser) number() (any, error) {
	start := p.r.Offset()
	lit, _, ok := p.r.NumberToken()
	if !ok {
		return nil, p.errf(start, ErrSyntax, "invalid number "+strconv.Quote(string(lit)))
	}
	v, _, err := parseNumber(string(lit))
	if err != nil {
		return nil, p.errf(start, err, "number "+string(lit)+" outside the int64/double domain")
	}
	return v, nil
}

// AppendJSON appends the compact JSON encoding of a generic value (as
// returned by [ParseJSON] or [UnmarshalValue]) to dst, keeping object key
// order. Integers print in decimal, floats with the shortest round-trip digits
// and always recognisable as floats. Unsupported values and non-finite floats
// are errors.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	v, err := normalize(v, 0, Limits{}.withDefaults().MaxDepth*16)
	if err != nil {
		return dst, err
	}
	return appendJSON(dst, v)
}

func appendJSON(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return dst, encErr(ErrNonFinite, "NaN or infinite float")
		}
		n := len(dst)
		dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
		isInt := true
		for _, c := range dst[n:] {
			if c == '.' || c == 'e' || c == 'E' || c == 'n' || c == 'I' {
				isInt = false
				break
			}
		}
		if isInt {
			dst = append(dst, ".0"...)
		}
		return dst, nil
	case string:
		return appendJSONString(dst, x), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSON(dst, e); err != nil {
				return dst, atIndex(err, i)
			}
		}
		return append(dst, ']'), nil
	case *Object:
		dst = append(dst, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, k)
			dst = append(dst, ':')
			if dst, err = appendJSON(dst, x.vals[i]); err != nil {
				return dst, atPath(err, k)
			}
		}
		return append(dst, '}'), nil
	}
	return dst, encErr(ErrUnsupportedType, "unsupported value type")
}

const hexDigits = "0123456789abcdef"

func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
