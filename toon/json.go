package toon

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/jsonread"
)

// ParseJSON reads one JSON document into the value model, keeping key order:
// objects become [Object], arrays []any, numbers json.Number in canonical
// form (§2.3), plus string, bool and nil. Duplicate keys, invalid UTF-8 and
// trailing data are errors; errors are [*SyntaxError] wrapping
// [ErrInvalidJSON] (or [ErrDuplicateKey] for a repeated key). The JSON layer
// is the shared strict reader (internal/jsonread); lone UTF-16 surrogate
// escapes read as U+FFFD.
func ParseJSON(data []byte) (any, error) {
	p := jsonParser{data: data}
	p.r = jsonread.New(data, jsonread.Options{Errorf: p.fault})
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

// jsonParser builds the value model on the shared reader.
type jsonParser struct {
	r    *jsonread.Reader
	data []byte
}

func (p *jsonParser) fail(pos int, sentinel error, msg string) error {
	line, col := jsonread.Position(p.data, pos)
	return &SyntaxError{Line: line, Column: col, Err: sentinel, Msg: msg}
}

// fault words a reader fault as this package always has: positions are
// byte columns, at the offending byte except where noted.
func (p *jsonParser) fault(f jsonread.Fault) error {
	switch f.Kind {
	case jsonread.KindDuplicateKey:
		return p.fail(f.Offset, ErrDuplicateKey, "duplicate key "+f.Detail) // at the key's quote
	case jsonread.KindEnd, jsonread.KindChar:
		// At the end of input only a missing key or ':' is named; a
		// character that cannot start a value keeps the reader's wording.
		switch {
		case f.Want == jsonread.WantKey:
			return p.fail(f.At, ErrInvalidJSON, "want a string key")
		case f.Want == jsonread.WantColon:
			return p.fail(f.At, ErrInvalidJSON, "want ':'")
		case f.Kind == jsonread.KindEnd:
			return p.fail(f.At, ErrInvalidJSON, "unexpected end of input")
		case f.Want == jsonread.WantObjectNext:
			return p.fail(f.At, ErrInvalidJSON, "want ',' or '}'")
		case f.Want == jsonread.WantArrayNext:
			return p.fail(f.At, ErrInvalidJSON, "want ',' or ']'")
		}
	case jsonread.KindLiteral:
		return p.fail(f.At, ErrInvalidJSON, "invalid literal")
	case jsonread.KindUnterminated:
		return p.fail(f.Start, ErrInvalidJSON, "unterminated string")
	case jsonread.KindEscapeEnd:
		return p.fail(f.At, ErrInvalidJSON, "unterminated escape") // at the backslash
	case jsonread.KindControl:
		return p.fail(f.At, ErrInvalidJSON, "control character in string")
	case jsonread.KindUnicodeEscape:
		return p.fail(f.At, ErrInvalidJSON, "invalid \\u escape") // after the "\u"
	case jsonread.KindEscape:
		return p.fail(f.Offset, ErrInvalidJSON, "invalid escape") // at the backslash
	case jsonread.KindUTF8:
		return p.fail(f.At, ErrInvalidJSON, "invalid UTF-8 in string")
	}
	return p.fail(f.Offset, ErrInvalidJSON, f.Detail)
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.fail(p.r.Offset(), ErrInvalidJSON, "nesting too deep")
	}
	c, ok := p.r.Peek()
	if !ok {
		return nil, p.r.Unexpected(jsonread.WantValue)
	}
	switch {
	case c == '{':
		obj := Object{}
		err := p.r.Object(func(key string, _ int) error {
			v, err := p.value(depth + 1)
			obj = append(obj, Member{key, v})
			return err
		})
		return obj, err
	case c == '[':
		arr := []any{}
		err := p.r.Array(func(int) error {
			v, err := p.value(depth + 1)
			arr = append(arr, v)
			return err
		})
		return arr, err
	case c == '"':
		return p.r.String()
	case c == '-' || isDigit(c):
		return p.number()
	case c == 't':
		return true, p.r.Literal("true")
	case c == 'f':
		return false, p.r.Literal("false")
	case c == 'n':
		return nil, p.r.Literal("null")
	}
	return nil, p.r.Unexpected(jsonread.WantValue)
}

// number reads a number and canonicalises it (§2.3). A malformed number is
// reported at its start with the whole run of number characters, as read
// by the grammar's greedy scan.
func (p *jsonParser) number() (any, error) {
	start := p.r.Offset()
	lit, _, ok := p.r.NumberToken()
	if !ok {
		return nil, p.fail(start, ErrInvalidJSON, "invalid number "+strconv.Quote(string(lit)))
	}
	s, err := CanonicalNumber(string(lit))
	if err != nil {
		return nil, p.fail(start, ErrInvalidJSON, "invalid number "+strconv.Quote(string(lit)))
	}
	return json.Number(s), nil
}

// AppendJSON appends the compact JSON text of v: objects in member order,
// numbers in canonical form, strings escaped as JSON (no HTML escaping,
// invalid UTF-8 replaced by U+FFFD), no trailing newline. Go values outside
// the model are normalised as the encoder does.
func AppendJSON(dst []byte, v any) ([]byte, error) {
	n, err := normalize(v)
	if err != nil {
		return dst, err
	}
	return appendJSONValue(dst, n, "", "", 0), nil
}

// AppendJSONIndent is [AppendJSON] with one member or element per line,
// each line starting with prefix and indented by indent per level, like
// json.Indent.
func AppendJSONIndent(dst []byte, v any, prefix, indent string) ([]byte, error) {
	n, err := normalize(v)
	if err != nil {
		return dst, err
	}
	if indent == "" && prefix == "" {
		return appendJSONValue(dst, n, "", "", 0), nil
	}
	return appendJSONValue(dst, n, prefix, indent, 1), nil
}

func newline(dst []byte, prefix, indent string, level int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for range level {
		dst = append(dst, indent...)
	}
	return dst
}

// appendJSONValue writes a model value. level 0 means compact; otherwise it
// is 1 + the nesting level.
func appendJSONValue(dst []byte, v any, prefix, indent string, level int) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case string:
		return graphresponse.AppendQuotedJSON(dst, x)
	case json.Number:
		return append(dst, x...)
	case []any:
		if len(x) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if level > 0 {
				dst = newline(dst, prefix, indent, level)
			}
			dst = appendJSONValue(dst, e, prefix, indent, next(level))
		}
		if level > 0 {
			dst = newline(dst, prefix, indent, level-1)
		}
		return append(dst, ']')
	case Object:
		if len(x) == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, '{')
		for i, m := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			if level > 0 {
				dst = newline(dst, prefix, indent, level)
			}
			dst = graphresponse.AppendQuotedJSON(dst, m.Key)
			dst = append(dst, ':')
			if level > 0 {
				dst = append(dst, ' ')
			}
			dst = appendJSONValue(dst, m.Value, prefix, indent, next(level))
		}
		if level > 0 {
			dst = newline(dst, prefix, indent, level-1)
		}
		return append(dst, '}')
	}
	return fmt.Appendf(dst, "%q", fmt.Sprint(v))
}

func next(level int) int {
	if level == 0 {
		return 0
	}
	return level + 1
}

// FromJSON converts one JSON document to TOON: [ParseJSON] (key order kept,
// numbers canonical) followed by [MarshalOptions].
func FromJSON(data []byte, opts Options) ([]byte, error) {
	v, err := ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return MarshalOptions(v, opts)
}

// ToJSON converts one TOON document to JSON: [UnmarshalOptions] followed by
// [AppendJSONIndent] with the given indent ("" for compact output). Key
// order is kept and numbers are canonical; no trailing newline is added.
func ToJSON(data []byte, opts Options, indent string) ([]byte, error) {
	v, err := UnmarshalOptions(data, opts)
	if err != nil {
		return nil, err
	}
	return AppendJSONIndent(nil, v, "", indent)
}
