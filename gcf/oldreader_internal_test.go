package gcf

// This file keeps ParseJSON's reader as it was before it moved onto
// internal/jsonread, as the oracle of FuzzReaderMigration. It goes once the
// migration is merged.

import (
	"strconv"
	"unicode/utf8"
)

// oldParseJSON is ParseJSON as it was before internal/jsonread; it parses one JSON document into the generic value model: nil,
// bool, int64 (integer literals, exactly; [ErrOutOfRange] beyond int64),
// float64 (other numbers), string, []any and [*Object] (key order kept).
// Duplicate keys are [ErrDuplicateKey]. Errors are [*SyntaxError].
func oldParseJSON(data []byte) (any, error) {
	p := oldJSONParser{data: data}
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

type oldJSONParser struct {
	data []byte
	pos  int
}

func (p *oldJSONParser) errf(s error, detail string) error {
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

const oldMaxJSONDepth = 10000

func (p *oldJSONParser) value(depth int) (any, error) {
	if depth > oldMaxJSONDepth {
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
		for p.pos < len(p.data) && oldIsNumByte(p.data[p.pos]) {
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

func oldIsNumByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (p *oldJSONParser) lit(word string, v any) (any, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.errf(ErrSyntax, "invalid literal")
	}
	p.pos += len(word)
	return v, nil
}

func (p *oldJSONParser) str() (string, error) {
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
