package toon

// This file keeps ParseJSON's reader as it was before it moved onto
// internal/jsonread, as the oracle of FuzzReaderMigration. It goes once the
// migration is merged.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// oldParseJSON is ParseJSON as it was before internal/jsonread; it reads one JSON document into the value model, keeping key order:
// objects become [Object], arrays []any, numbers json.Number in canonical
// form (§2.3), plus string, bool and nil. Duplicate keys, invalid UTF-8 and
// trailing data are errors; errors are [*SyntaxError] wrapping
// [ErrInvalidJSON] (or [ErrDuplicateKey] for a repeated key).
func oldParseJSON(data []byte) (any, error) {
	p := oldJSONParser{data: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos != len(p.data) {
		return nil, p.fail(ErrInvalidJSON, "unexpected data after the document")
	}
	return v, nil
}

type oldJSONParser struct {
	data []byte
	pos  int
}

func (p *oldJSONParser) fail(sentinel error, msg string) error {
	pos := min(p.pos, len(p.data))
	line := 1 + bytes.Count(p.data[:pos], []byte{'\n'})
	col := pos - bytes.LastIndexByte(p.data[:pos], '\n')
	return &SyntaxError{Line: line, Column: col, Err: sentinel, Msg: msg}
}

func (p *oldJSONParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *oldJSONParser) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, p.fail(ErrInvalidJSON, "nesting too deep")
	}
	if p.pos >= len(p.data) {
		return nil, p.fail(ErrInvalidJSON, "unexpected end of input")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.str()
	case c == '-' || isDigit(c):
		return p.number()
	case c == 't':
		return p.literal("true", true)
	case c == 'f':
		return p.literal("false", false)
	case c == 'n':
		return p.literal("null", nil)
	default:
		return nil, p.fail(ErrInvalidJSON, "unexpected character "+strconv.QuoteRune(rune(c)))
	}
}

func (p *oldJSONParser) literal(word string, v any) (any, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		return nil, p.fail(ErrInvalidJSON, "invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *oldJSONParser) object(depth int) (any, error) {
	p.pos++ // {
	obj := Object{}
	var seen map[string]struct{}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail(ErrInvalidJSON, "want a string key")
		}
		keyPos := p.pos
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		key := k.(string)
		if len(obj) < 16 {
			for i := range obj {
				if obj[i].Key == key {
					p.pos = keyPos
					return nil, p.fail(ErrDuplicateKey, "duplicate key "+strconv.Quote(key))
				}
			}
		} else {
			if seen == nil {
				seen = make(map[string]struct{}, 32)
				for i := range obj {
					seen[obj[i].Key] = struct{}{}
				}
			}
			if _, dup := seen[key]; dup {
				p.pos = keyPos
				return nil, p.fail(ErrDuplicateKey, "duplicate key "+strconv.Quote(key))
			}
		}
		if seen != nil {
			seen[key] = struct{}{}
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail(ErrInvalidJSON, "want ':'")
		}
		p.pos++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj = append(obj, Member{key, v})
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.fail(ErrInvalidJSON, "unexpected end of input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail(ErrInvalidJSON, "want ',' or '}'")
		}
	}
}

func (p *oldJSONParser) array(depth int) (any, error) {
	p.pos++ // [
	arr := []any{}
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		arr = append(arr, v)
		p.ws()
		if p.pos >= len(p.data) {
			return nil, p.fail(ErrInvalidJSON, "unexpected end of input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail(ErrInvalidJSON, "want ',' or ']'")
		}
	}
}

func (p *oldJSONParser) number() (any, error) {
	start := p.pos
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if isDigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			p.pos++
			continue
		}
		break
	}
	lit := string(p.data[start:p.pos])
	s, err := CanonicalNumber(lit)
	if err != nil {
		p.pos = start
		return nil, p.fail(ErrInvalidJSON, "invalid number "+strconv.Quote(lit))
	}
	return json.Number(s), nil
}

func (p *oldJSONParser) str() (any, error) {
	start := p.pos
	p.pos++ // opening quote
	// Fast path: no escapes.
	i := p.pos
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			s := p.data[p.pos:i]
			if !utf8.Valid(s) {
				break
			}
			p.pos = i + 1
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		i++
	}
	var buf []byte
	for {
		if p.pos >= len(p.data) {
			p.pos = start
			return nil, p.fail(ErrInvalidJSON, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(buf), nil
		case c < 0x20:
			return nil, p.fail(ErrInvalidJSON, "control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return nil, p.fail(ErrInvalidJSON, "unterminated escape")
			}
			e := p.data[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return nil, p.fail(ErrInvalidJSON, "invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						var ok2 bool
						r2, ok2 = p.hex4()
						if !ok2 {
							return nil, p.fail(ErrInvalidJSON, "invalid \\u escape")
						}
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							buf = utf8.AppendRune(buf, d)
							continue
						}
						p.pos = save
					}
					buf = utf8.AppendRune(buf, utf8.RuneError)
					continue
				}
				buf = utf8.AppendRune(buf, r)
			default:
				p.pos -= 2
				return nil, p.fail(ErrInvalidJSON, "invalid escape")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size <= 1 {
				return nil, p.fail(ErrInvalidJSON, "invalid UTF-8 in string")
			}
			buf = append(buf, p.data[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

func (p *oldJSONParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}
