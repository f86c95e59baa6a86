package compiler

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/jsonread"
)

// Decode limits (docs/dsl.md, "Limits").
const (
	// MaxQueryBytes is the default bound of a query's text (Options.MaxQueryBytes).
	MaxQueryBytes = 131072
	maxDepth      = 32
)

// decode is stage 1: it reads exactly one JSON object into a generic tree of
// map[string]any, []any, string, json.Number, bool and nil. It rejects data longer than
// limit bytes (Options.MaxQueryBytes), duplicate keys at any depth (the standard library
// decoder keeps the last of them silently), nesting deeper than 32, invalid UTF-8, lone
// surrogate escapes (\ud800 without its pair; the standard library reads both as U+FFFD) and
// trailing data. The JSON layer is the shared strict reader, internal/jsonread; malformed
// JSON is reported by line and character column with what the grammar allowed there
// (syntaxError).
func decode(data []byte, limit int) (map[string]any, error) {
	if len(data) > limit {
		return nil, newErr("", ErrLimitExceeded, "the query is "+strconv.Itoa(len(data))+" bytes, over the limit of "+strconv.Itoa(limit)+" bytes")
	}
	// Text that is not UTF-8 is refused where it is, never read as U+FFFD: invalid bytes
	// and lone surrogate escapes in a string by the string's pointer (the reader checks
	// both), invalid bytes elsewhere as malformed JSON.
	d := &dslReader{data: data}
	d.r = jsonread.New(data, jsonread.Options{RejectLoneSurrogates: true, Errorf: d.syntaxError})
	d.r.SkipSpace()
	if c, ok := d.r.Peek(); !ok || c != '{' {
		return nil, newErr("", ErrParse, "the query must be a JSON object")
	}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.r.SkipSpace()
	if d.r.Offset() != len(data) {
		return nil, newErr("", ErrParse, "unexpected data after the query object")
	}
	return v.(map[string]any), nil
}

// dslReader builds the DSL's generic tree on the shared reader.
type dslReader struct {
	r    *jsonread.Reader
	data []byte
}

// syntaxError turns a reader fault into the compiler's PARSE_ERROR: a duplicate key
// names its pointer; malformed JSON names the line and column (both from 1; the column
// counts characters) of the offending character and what the grammar allows there.
func (d *dslReader) syntaxError(f jsonread.Fault) error {
	switch f.Kind {
	case jsonread.KindDuplicateKey:
		return newErr(d.r.Pointer(), ErrParse, "duplicate key "+f.Detail)
	case jsonread.KindUTF8:
		return d.notUTF8(d.r.Pointer(), f.Offset)
	case jsonread.KindLoneSurrogate:
		esc := string(d.data[f.Offset:min(f.Offset+6, len(d.data))])
		return newErr(d.r.Pointer(), ErrParse, "lone surrogate escape "+esc+" at "+d.position(f.Offset)+": an escape of U+D800 to U+DFFF must be one half of a pair, as it encodes no character")
	}
	at, expected := f.At, ""
	switch f.Kind {
	case jsonread.KindControl:
		expected = "an escape such as \\n or \\u001f, not a raw control character"
	case jsonread.KindEscapeEnd:
		at, expected = f.At+1, "an escape character"
	case jsonread.KindUnicodeEscape:
		expected = "four hex digits after \\u"
	case jsonread.KindEscape:
		at, expected = f.Offset+1, "one of \" \\ / b f n r t u after \\"
	case jsonread.KindUnterminated:
		expected = "'\"' to end the string"
	default:
		switch f.Want {
		case jsonread.WantKey:
			expected = "a quoted key"
		case jsonread.WantColon:
			expected = "':' after the key"
		case jsonread.WantObjectNext:
			expected = "',' or '}'"
		case jsonread.WantArrayNext:
			expected = "',' or ']'"
		case jsonread.WantFractionDigit:
			expected = "a digit after '.'"
		case jsonread.WantExponentDigit:
			expected = "a digit in the exponent"
		default:
			expected = "a value"
		}
	}
	got := "end of input"
	if at < len(d.data) {
		r, size := utf8.DecodeRune(d.data[at:])
		got = strconv.QuoteRune(r)
		if r == utf8.RuneError && size == 1 {
			return d.notUTF8("", at)
		}
	}
	return newErr("", ErrParse, "malformed JSON at "+d.position(at)+": unexpected "+got+", expected "+expected)
}

// notUTF8 refuses the byte at offset at, which starts no UTF-8 character, at pointer.
func (d *dslReader) notUTF8(pointer string, at int) error {
	return newErr(pointer, ErrParse, fmt.Sprintf("invalid UTF-8 (byte 0x%02x) at %s: the query must be UTF-8 text", d.data[at], d.position(at)))
}

// position renders byte offset at as "line L, column C", both from 1; the column counts
// characters (a byte that is not UTF-8 counts as one).
func (d *dslReader) position(at int) string {
	line, col := 1, 1
	for _, r := range string(d.data[:at]) {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return "line " + strconv.Itoa(line) + ", column " + strconv.Itoa(col)
}

// value reads the value at the reader's offset; depth counts the containers around it.
func (d *dslReader) value(depth int) (any, error) {
	c, ok := d.r.Peek()
	if !ok {
		return nil, d.r.Unexpected(jsonread.WantValue)
	}
	switch c {
	case '{', '[':
		if depth+1 > maxDepth {
			return nil, newErr(d.r.Pointer(), ErrParse, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
		}
		if c == '[' {
			arr := []any{}
			err := d.r.Array(func(int) error {
				v, err := d.value(depth + 1)
				arr = append(arr, v)
				return err
			})
			return arr, err
		}
		obj := map[string]any{}
		err := d.r.Object(func(key string, _ int) error {
			v, err := d.value(depth + 1)
			obj[key] = v
			return err
		})
		return obj, err
	case '"':
		return d.r.String()
	case 't':
		return true, d.r.Literal("true")
	case 'f':
		return false, d.r.Literal("false")
	case 'n':
		return nil, d.r.Literal("null")
	}
	lit, _, err := d.r.Number()
	if err != nil {
		return nil, err
	}
	return json.Number(lit), nil
}

// canonical appends the canonical serialisation of v that the query hash is taken over
// (docs/compiler.md, "Stages"): keys
// sorted by byte order, no whitespace, numbers in source text, minimal string escaping.
func canonical(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case json.Number:
		return append(dst, x...)
	case string:
		return graphresponse.AppendQuotedJSON(dst, x)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canonical(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range sortedKeys(x) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = graphresponse.AppendQuotedJSON(dst, k)
			dst = append(dst, ':')
			dst = canonical(dst, x[k])
		}
		return append(dst, '}')
	}
	return dst
}
