package compiler

// This file keeps the DSL reader as it was before it moved onto
// internal/jsonread, as the oracle of FuzzReaderMigration. It goes once the
// migration is merged.

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// oldDecode is stage 1 as it was before it moved onto internal/jsonread: it reads exactly one JSON object into a generic tree of
// map[string]any, []any, string, json.Number, bool and nil. It rejects duplicate keys at
// any depth, nesting deeper than 32, invalid UTF-8 and trailing data. The standard library
// decoder keeps the last of duplicate keys silently, so decoding uses its own small reader.
func oldDecode(data []byte) (map[string]any, error) {
	if len(data) > MaxQueryBytes {
		return nil, newErr("", ErrLimitExceeded, "the query is larger than "+strconv.Itoa(MaxQueryBytes)+" bytes")
	}
	if !utf8.Valid(data) {
		return nil, newErr("", ErrParse, "the query is not valid UTF-8")
	}
	d := &oldJSONReader{data: data}
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return nil, newErr("", ErrParse, "the query must be a JSON object")
	}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, newErr("", ErrParse, "unexpected data after the query object")
	}
	return v.(map[string]any), nil
}

// oldJSONReader is a strict RFC 8259 reader over a byte slice.
type oldJSONReader struct {
	data  []byte
	pos   int
	stack []any // JSON Pointer tokens of the value being read, rendered only on error
}

func (d *oldJSONReader) at() string { return ptr(d.stack...) }

// fail reports malformed JSON at the current position: its line and column (both from 1;
// the column counts characters) and why, "expected …" naming what the grammar allows there.
func (d *oldJSONReader) fail(expected string) error {
	line, col := 1, 1
	for _, r := range string(d.data[:d.pos]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	got := "end of input"
	if d.pos < len(d.data) {
		r, _ := utf8.DecodeRune(d.data[d.pos:])
		got = strconv.QuoteRune(r)
	}
	return newErr("", ErrParse, "malformed JSON at line "+strconv.Itoa(line)+", column "+strconv.Itoa(col)+": unexpected "+got+", expected "+expected)
}

func (d *oldJSONReader) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *oldJSONReader) value(depth int) (any, error) {
	d.space()
	if d.pos >= len(d.data) {
		return nil, d.fail("a value")
	}
	switch c := d.data[d.pos]; {
	case c == '{' || c == '[':
		if depth+1 > maxDepth {
			return nil, newErr(d.at(), ErrParse, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
		}
		d.pos++
		if c == '{' {
			return d.object(depth + 1)
		}
		return d.array(depth + 1)
	case c == '"':
		return d.string()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	default:
		return d.number()
	}
}

func (d *oldJSONReader) literal(word string) error {
	if !bytes.HasPrefix(d.data[d.pos:], []byte(word)) {
		return d.fail("a value")
	}
	d.pos += len(word)
	return nil
}

func (d *oldJSONReader) object(depth int) (any, error) {
	obj := map[string]any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return obj, nil
	}
	for {
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.fail("a quoted key")
		}
		k, err := d.string()
		if err != nil {
			return nil, err
		}
		d.stack = append(d.stack, k)
		if _, dup := obj[k]; dup {
			return nil, newErr(d.at(), ErrParse, "duplicate key "+strconv.Quote(k))
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.fail("':' after the key")
		}
		d.pos++
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.stack = d.stack[:len(d.stack)-1]
		obj[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.fail("',' or '}'")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return obj, nil
		default:
			return nil, d.fail("',' or '}'")
		}
	}
}

func (d *oldJSONReader) array(depth int) (any, error) {
	arr := []any{}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return arr, nil
	}
	for {
		d.stack = append(d.stack, len(arr))
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.stack = d.stack[:len(d.stack)-1]
		arr = append(arr, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.fail("',' or ']'")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return arr, nil
		default:
			return nil, d.fail("',' or ']'")
		}
	}
}

func (d *oldJSONReader) number() (any, error) {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.pos < len(d.data) && d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return nil, d.fail("a value")
	}
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, d.fail("a digit after '.'")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, d.fail("a digit in the exponent")
		}
	}
	return json.Number(d.data[start:d.pos]), nil
}

func (d *oldJSONReader) string() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	// Fast path: no escapes.
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		if c == '"' {
			s := string(d.data[start:d.pos])
			d.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		d.pos++
	}
	buf := append([]byte(nil), d.data[start:d.pos]...)
	for d.pos < len(d.data) {
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.fail("an escape such as \\n or \\u001f, not a raw control character")
		case c != '\\':
			buf = append(buf, c)
			d.pos++
			continue
		}
		d.pos++
		if d.pos >= len(d.data) {
			return "", d.fail("an escape character")
		}
		e := d.data[d.pos]
		d.pos++
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
			r, ok := d.hex4()
			if !ok {
				return "", d.fail("four hex digits after \\u")
			}
			if utf16.IsSurrogate(r) {
				r2 := unicode.ReplacementChar
				if d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					if lo, ok := d.hex4(); ok {
						if dec := utf16.DecodeRune(r, lo); dec != unicode.ReplacementChar {
							r2 = dec
						} else {
							d.pos = save
						}
					} else {
						return "", d.fail("four hex digits after \\u")
					}
				}
				r = r2
			}
			buf = utf8.AppendRune(buf, r)
		default:
			d.pos--
			return "", d.fail("one of \" \\ / b f n r t u after \\")
		}
	}
	return "", d.fail("'\"' to end the string")
}

func (d *oldJSONReader) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	d.pos += 4
	return r, true
}
