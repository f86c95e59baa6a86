package gcf

import (
	"math"
	"strconv"
	"unicode/utf8"
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
// Duplicate keys are [ErrDuplicateKey]. Errors are [*SyntaxError].
func ParseJSON(data []byte) (any, error) {
	p := jsonParser{data: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return nil, p.errf(ErrSyntax, "trailing data after JSON value")
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	pos  int
}

func (p *jsonParser) errf(s error, detail string) error {
	line, col := 1, 1
	for _, c := range p.data[:min(p.pos, len(p.data))] {
		if c == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Column: col, Err: s, Detail: "json: " + detail}
}

func (p *jsonParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

const maxJSONDepth = 10000

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.errf(ErrLimit, "nesting too deep")
	}
	if p.pos >= len(p.data) {
		return nil, p.errf(ErrSyntax, "unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		p.pos++
		o := &Object{}
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return o, nil
		}
		for {
			p.ws()
			if p.pos >= len(p.data) || p.data[p.pos] != '"' {
				return nil, p.errf(ErrSyntax, "expected object key")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			if o.Has(k) {
				return nil, p.errf(ErrDuplicateKey, "duplicate key "+strconv.Quote(k))
			}
			p.ws()
			if p.pos >= len(p.data) || p.data[p.pos] != ':' {
				return nil, p.errf(ErrSyntax, "expected ':'")
			}
			p.pos++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.add(k, v)
			p.ws()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				p.pos++
				return o, nil
			}
			return nil, p.errf(ErrSyntax, "expected ',' or '}'")
		}
	case c == '[':
		p.pos++
		a := []any{}
		p.ws()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return a, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.ws()
			if p.pos < len(p.data) && p.data[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				p.pos++
				return a, nil
			}
			return nil, p.errf(ErrSyntax, "expected ',' or ']'")
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true", true)
	case c == 'f':
		return p.lit("false", false)
	case c == 'n':
		return p.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.pos
		for p.pos < len(p.data) && isNumByte(p.data[p.pos]) {
			p.pos++
		}
		tok := string(p.data[start:p.pos])
		v, ok, err := parseNumber(tok)
		if !ok {
			p.pos = start
			return nil, p.errf(ErrSyntax, "invalid number "+strconv.Quote(tok))
		}
		if err != nil {
			p.pos = start
			return nil, p.errf(err, "number "+tok+" outside the int64/double domain")
		}
		return v, nil
	}
	return nil, p.errf(ErrSyntax, "unexpected character")
}

func isNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (p *jsonParser) lit(word string, v any) (any, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf(ErrSyntax, "invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *jsonParser) str() (string, error) {
	// p.data[p.pos] == '"'
	end := -1
	for i := p.pos + 1; i < len(p.data); i++ {
		c := p.data[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '"' {
			end = i
			break
		}
		if c < 0x20 {
			p.pos = i
			return "", p.errf(ErrSyntax, "control character in string")
		}
	}
	if end < 0 {
		return "", p.errf(ErrUnterminatedQuote, "unterminated string")
	}
	raw := p.data[p.pos+1 : end]
	s, serr, _ := unquoteBody(string(raw))
	if serr != nil {
		return "", p.errf(serr, "bad string")
	}
	if !utf8.ValidString(s) {
		return "", p.errf(ErrInvalidUTF8, "invalid UTF-8 in string")
	}
	p.pos = end + 1
	return s, nil
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
