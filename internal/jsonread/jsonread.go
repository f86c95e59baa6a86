// Package jsonread is the strict JSON reader the codecs share: a pull
// reader over a byte slice that the caller drives by the shape it expects,
// so a schema-directed decoder (graphresponse), a generic value reader and
// a DSL reader all walk the document the same way.
//
// It reads RFC 8259 JSON only: no comments, no trailing commas, no leading
// zeros or '+' signs, strings with the JSON escapes and valid UTF-8, and
// rejects duplicate object keys. It tracks the JSON Pointer (RFC 6901) of
// the value being read, rendering it only when an error is built, and
// reports every error with the byte offset where it was found.
//
// What differs between the formats is a parameter, not a copy: the number
// domain (the reader returns the checked literal and whether it has a
// fraction or exponent; the caller converts it), how a lone UTF-16
// surrogate escape reads ([Options.RejectLoneSurrogates]), and the error
// values ([Options.Errorf] maps a [Fault] to the caller's own positioned
// error and sentinels). A Fault says what went wrong ([Kind]), what the
// grammar allowed there ([Want]) and three offsets (the token's start,
// the default position, and where reading stopped), so each caller keeps
// the wording and positions its own tests promise. Nesting limits differ
// too, so callers count depth themselves and report [KindTooDeep] through
// [Reader.Fail].
//
// Inside a string the first fault in byte order is reported: a raw
// control character, a bad escape, invalid UTF-8, or the end of input.
//
//	r := jsonread.New([]byte(`{"a":[1,2.5]}`), jsonread.Options{})
//	err := r.Object(func(key string, keyPos int) error { // key "a"
//		return r.Array(func(i int) error {
//			lit, isFloat, err := r.Number() // "1" false, then "2.5" true
//			…
//		})
//	})
//
// A Reader is not safe for concurrent use.
package jsonread

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind says what went wrong; [Options.Errorf] receives it with the
// default detail text.
type Kind uint8

// The kinds of errors the reader reports.
const (
	KindEnd           Kind = iota + 1 // input ended where a token was due: "unexpected end of input"
	KindChar                          // a byte that cannot start the expected token: "unexpected character 'x'"
	KindTrailing                      // data after the document: "unexpected data after the document"
	KindDuplicateKey                  // a repeated object key; detail is the quoted key, offset its opening quote
	KindType                          // a well-formed value of the wrong JSON type ([Reader.WrongType])
	KindTooDeep                       // nesting beyond the caller's limit (the caller counts depth)
	KindUnterminated                  // a string without its closing quote; offset is the opening quote
	KindControl                       // a raw control character inside a string
	KindEscape                        // an unknown escape; offset is the backslash
	KindUnicodeEscape                 // \u without four hex digits; offset is the backslash
	KindLoneSurrogate                 // a lone surrogate escape under RejectLoneSurrogates; offset is the backslash
	KindUTF8                          // invalid UTF-8 inside a string
	KindNumber                        // a '.' or exponent without digits; offset is the number's start
	KindLiteral                       // a "true", "false" or "null" misspelt; offset is its first byte
	KindEscapeEnd                     // the input ends right after a backslash; offset is the opening quote
)

// Want says what the grammar allowed where a [KindEnd], [KindChar],
// [KindLiteral], [KindNumber] or [KindTrailing] fault was found.
type Want uint8

// What the grammar allowed at a fault.
const (
	WantNone          Want = iota
	WantValue              // the start of a value
	WantKey                // a quoted object key
	WantColon              // ':' after a key
	WantObjectNext         // ',' or '}' after a member
	WantArrayNext          // ',' or ']' after an element
	WantFractionDigit      // a digit after a number's '.'
	WantExponentDigit      // a digit in a number's exponent
	WantEnd                // nothing but whitespace after the document
)

// Fault describes one error for [Options.Errorf].
type Fault struct {
	Kind   Kind
	Want   Want
	Offset int    // the default position: see each [Kind]
	Start  int    // where the token being read began (a string's opening quote, a number's first byte); Offset otherwise
	At     int    // where reading stopped: the offending byte, or len(input) at the end
	Detail string // the default explanation
}

// Error is the error the reader returns when [Options.Errorf] is nil.
type Error struct {
	Kind    Kind
	Offset  int    // byte offset in the input
	Pointer string // JSON Pointer of the value being read
	Detail  string
}

func (e *Error) Error() string {
	return "json: offset " + strconv.Itoa(e.Offset) + ": " + e.Pointer + ": " + e.Detail
}

// Options parameterise a [Reader]. The zero value reads standard JSON with
// lone surrogates read as U+FFFD and returns *[Error] errors.
type Options struct {
	// RejectLoneSurrogates makes a \uD800–\uDFFF escape not followed by
	// its pair a [KindLoneSurrogate] error instead of U+FFFD.
	RejectLoneSurrogates bool
	// Errorf builds the error for a fault. The reader's pointer
	// ([Reader.Pointer]) is that of the value being read. Nil means
	// *[Error] at [Fault.Offset] with [Fault.Detail].
	Errorf func(f Fault) error
}

// Reader reads one JSON document from a byte slice.
type Reader struct {
	data []byte
	pos  int
	path []token
	opts Options
}

// token is one JSON Pointer step: a member key, or an array index when
// isIndex (kept as a number, so arrays cost no string per element).
type token struct {
	key     string
	index   int
	isIndex bool
}

// New returns a reader positioned at the start of data. The reader does
// not copy data; strings it returns are copies.
func New(data []byte, opts Options) *Reader {
	return &Reader{data: data, opts: opts}
}

// Data returns the input.
func (r *Reader) Data() []byte { return r.data }

// Offset returns the byte offset of the next unread byte.
func (r *Reader) Offset() int { return r.pos }

// Fail returns the error for kind at byte offset off with the given detail,
// built by [Options.Errorf]; callers use it for their own checks so that
// every error has one shape. The fault's Start is off and its At the
// current offset.
func (r *Reader) Fail(kind Kind, off int, detail string) error {
	return r.fault(Fault{Kind: kind, Offset: off, Start: off, At: r.pos, Detail: detail})
}

func (r *Reader) fault(f Fault) error {
	if r.opts.Errorf != nil {
		return r.opts.Errorf(f)
	}
	return &Error{Kind: f.Kind, Offset: f.Offset, Pointer: r.Pointer(), Detail: f.Detail}
}

// stringFault is a fault inside the string that opened at start.
func (r *Reader) stringFault(kind Kind, start, off int, detail string) error {
	return r.fault(Fault{Kind: kind, Offset: off, Start: start, At: r.pos, Detail: detail})
}

// Position returns the 1-based line and byte column of offset off in data.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte{'\n'}), off - bytes.LastIndexByte(data[:off], '\n')
}

// Pointer returns the JSON Pointer of the value being read ("" at the top).
func (r *Reader) Pointer() string {
	if len(r.path) == 0 {
		return ""
	}
	var b []byte
	for _, t := range r.path {
		b = append(b, '/')
		if t.isIndex {
			b = strconv.AppendInt(b, int64(t.index), 10)
		} else {
			b = AppendPointerToken(b, t.key)
		}
	}
	return string(b)
}

// AppendPointerToken appends key escaped as one JSON Pointer reference
// token: "~" as "~0" and "/" as "~1" (RFC 6901 §3).
func AppendPointerToken(dst []byte, key string) []byte {
	if !strings.ContainsAny(key, "~/") {
		return append(dst, key...)
	}
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '~':
			dst = append(dst, "~0"...)
		case '/':
			dst = append(dst, "~1"...)
		default:
			dst = append(dst, key[i])
		}
	}
	return dst
}

// PushKey and PushIndex extend the pointer by one step; Pop removes the
// last. [Reader.Object] and [Reader.Array] do this around each member.
func (r *Reader) PushKey(key string) { r.path = append(r.path, token{key: key}) }

// PushIndex extends the pointer by an array index.
func (r *Reader) PushIndex(i int) { r.path = append(r.path, token{index: i, isIndex: true}) }

// Pop removes the last pointer step.
func (r *Reader) Pop() { r.path = r.path[:len(r.path)-1] }

// SkipSpace skips JSON whitespace (space, TAB, LF, CR).
func (r *Reader) SkipSpace() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// Peek returns the next byte without consuming it; ok is false at the end.
func (r *Reader) Peek() (c byte, ok bool) {
	if r.pos < len(r.data) {
		return r.data[r.pos], true
	}
	return 0, false
}

// End checks that only whitespace remains.
func (r *Reader) End() error {
	r.SkipSpace()
	if r.pos != len(r.data) {
		return r.fault(Fault{Kind: KindTrailing, Want: WantEnd, Offset: r.pos, Start: r.pos, At: r.pos, Detail: "unexpected data after the document"})
	}
	return nil
}

// Unexpected returns the error for the byte at the current offset: end of
// input, or a character that cannot come next; want is what the grammar
// allowed there.
func (r *Reader) Unexpected(want Want) error {
	f := Fault{Kind: KindEnd, Want: want, Offset: r.pos, Start: r.pos, At: r.pos, Detail: "unexpected end of input"}
	if r.pos < len(r.data) {
		f.Kind, f.Detail = KindChar, "unexpected character "+strconv.QuoteRune(rune(r.data[r.pos]))
	}
	return r.fault(f)
}

// WrongType reports a value of the wrong JSON type (detail says what was
// wanted), or malformed JSON when no value starts at the current offset.
func (r *Reader) WrongType(detail string) error {
	if r.pos < len(r.data) && strings.IndexByte(`{["tfn-0123456789`, r.data[r.pos]) >= 0 {
		return r.Fail(KindType, r.pos, detail)
	}
	return r.Unexpected(WantValue)
}

// Object reads an object, calling member for each key with the reader
// positioned at the member's value (whitespace skipped) and the key pushed
// on the pointer; member must consume the value. keyPos is the offset of
// the key's opening quote. Duplicate keys are [KindDuplicateKey] errors.
// A value that is not an object is [Reader.WrongType]("want an object").
func (r *Reader) Object(member func(key string, keyPos int) error) error {
	if r.pos >= len(r.data) || r.data[r.pos] != '{' {
		return r.WrongType("want an object")
	}
	r.pos++
	r.SkipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == '}' {
		r.pos++
		return nil
	}
	var keys keySet
	for {
		r.SkipSpace()
		keyPos := r.pos
		if r.pos >= len(r.data) || r.data[r.pos] != '"' {
			return r.Unexpected(WantKey)
		}
		key, err := r.String()
		if err != nil {
			return err
		}
		if keys.add(key) {
			r.PushKey(key)
			e := r.fault(Fault{Kind: KindDuplicateKey, Offset: keyPos, Start: keyPos, At: r.pos, Detail: strconv.Quote(key)})
			r.Pop()
			return e
		}
		r.SkipSpace()
		if r.pos >= len(r.data) || r.data[r.pos] != ':' {
			return r.Unexpected(WantColon)
		}
		r.pos++
		r.SkipSpace()
		r.PushKey(key)
		if err := member(key, keyPos); err != nil {
			return err
		}
		r.Pop()
		r.SkipSpace()
		if r.pos >= len(r.data) {
			return r.Unexpected(WantObjectNext)
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
		case '}':
			r.pos++
			return nil
		default:
			return r.Unexpected(WantObjectNext)
		}
	}
}

// keySet detects repeated keys: a linear scan over the first few, a map
// beyond.
type keySet struct {
	first [8]string
	n     int
	seen  map[string]struct{}
}

// add records key and reports whether it was already present.
func (s *keySet) add(key string) bool {
	if s.seen != nil {
		_, dup := s.seen[key]
		s.seen[key] = struct{}{}
		return dup
	}
	dup := false
	for _, k := range s.first[:s.n] {
		dup = dup || k == key
	}
	if s.n < len(s.first) {
		s.first[s.n] = key
		s.n++
		return dup
	}
	s.seen = make(map[string]struct{}, 16)
	for _, k := range s.first {
		s.seen[k] = struct{}{}
	}
	s.seen[key] = struct{}{}
	return dup
}

// Array reads an array, calling elem for each element with the reader
// positioned at it (whitespace skipped) and its index pushed on the
// pointer; elem must consume the element. A value that is not an array is
// [Reader.WrongType]("want an array").
func (r *Reader) Array(elem func(i int) error) error {
	if r.pos >= len(r.data) || r.data[r.pos] != '[' {
		return r.WrongType("want an array")
	}
	r.pos++
	r.SkipSpace()
	if r.pos < len(r.data) && r.data[r.pos] == ']' {
		r.pos++
		return nil
	}
	for i := 0; ; i++ {
		r.SkipSpace()
		r.PushIndex(i)
		if err := elem(i); err != nil {
			return err
		}
		r.Pop()
		r.SkipSpace()
		if r.pos >= len(r.data) {
			return r.Unexpected(WantArrayNext)
		}
		switch r.data[r.pos] {
		case ',':
			r.pos++
		case ']':
			r.pos++
			return nil
		default:
			return r.Unexpected(WantArrayNext)
		}
	}
}

// Literal consumes word ("true", "false" or "null") or reports a
// [KindLiteral] fault at its first byte, which the caller has checked is
// word's first byte.
func (r *Reader) Literal(word string) error {
	if bytes.HasPrefix(r.data[r.pos:], []byte(word)) {
		r.pos += len(word)
		return nil
	}
	if r.pos >= len(r.data) {
		return r.Unexpected(WantValue)
	}
	return r.fault(Fault{Kind: KindLiteral, Want: WantValue, Offset: r.pos, Start: r.pos, At: r.pos,
		Detail: "unexpected character " + strconv.QuoteRune(rune(r.data[r.pos]))})
}

// String reads a string at the current offset, which must hold '"'.
func (r *Reader) String() (string, error) {
	start := r.pos
	r.pos++ // opening quote
	// Fast path: printable ASCII without escapes.
	i := r.pos
	for i < len(r.data) {
		c := r.data[i]
		if c == '"' {
			s := string(r.data[r.pos:i])
			r.pos = i + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	b := append([]byte(nil), r.data[r.pos:i]...)
	r.pos = i
	for {
		if r.pos >= len(r.data) {
			return "", r.stringFault(KindUnterminated, start, start, "unterminated string")
		}
		c := r.data[r.pos]
		switch {
		case c == '"':
			r.pos++
			return string(b), nil
		case c < 0x20:
			return "", r.stringFault(KindControl, start, r.pos, "control character in string")
		case c == '\\':
			if r.pos+1 >= len(r.data) {
				return "", r.stringFault(KindEscapeEnd, start, start, "unterminated string")
			}
			esc := r.data[r.pos+1]
			r.pos += 2
			switch esc {
			case '"', '\\', '/':
				b = append(b, esc)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				u, ok := r.hex4()
				if !ok {
					return "", r.stringFault(KindUnicodeEscape, start, r.pos-2, "invalid \\u escape")
				}
				if utf16.IsSurrogate(u) {
					first := r.pos - 6
					if r.pos+1 < len(r.data) && r.data[r.pos] == '\\' && r.data[r.pos+1] == 'u' {
						save := r.pos
						r.pos += 2
						u2, ok := r.hex4()
						if !ok {
							return "", r.stringFault(KindUnicodeEscape, start, save, "invalid \\u escape")
						}
						if d := utf16.DecodeRune(u, u2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
						r.pos = save
					}
					if r.opts.RejectLoneSurrogates {
						return "", r.stringFault(KindLoneSurrogate, start, first, "lone surrogate escape")
					}
					u = utf8.RuneError
				}
				b = utf8.AppendRune(b, u)
			default:
				return "", r.stringFault(KindEscape, start, r.pos-2, "invalid escape \\"+string(rune(esc)))
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r.pos++
		default:
			u, size := utf8.DecodeRune(r.data[r.pos:])
			if u == utf8.RuneError && size == 1 {
				return "", r.stringFault(KindUTF8, start, r.pos, "invalid UTF-8")
			}
			b = append(b, r.data[r.pos:r.pos+size]...)
			r.pos += size
		}
	}
}

func (r *Reader) hex4() (rune, bool) {
	if r.pos+4 > len(r.data) {
		return 0, false
	}
	var u rune
	for _, c := range r.data[r.pos : r.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			u = u<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			u = u<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			u = u<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	r.pos += 4
	return u, true
}

// Number reads a number literal at the current offset, checked against
// the JSON grammar, and reports whether it has a fraction or an exponent.
// Converting it (int64, float64, json.Number, …) is the caller's part:
// that is where the formats' number domains differ. lit aliases the input.
func (r *Reader) Number() (lit []byte, isFloat bool, err error) {
	start := r.pos
	end, isFloat, want := scanNumber(r.data, start)
	r.pos = end
	switch want {
	case WantValue:
		return nil, false, r.Unexpected(WantValue)
	case WantFractionDigit:
		return nil, false, r.numberFault(start, want, "digit expected after decimal point")
	case WantExponentDigit:
		return nil, false, r.numberFault(start, want, "digit expected in exponent")
	}
	return r.data[start:end], isFloat, nil
}

// NumberToken reads a number the way a scanner that takes every number
// character (digits, '-', '+', '.', 'e', 'E') into one token would. It
// returns that token, and ok true when the token is exactly one number
// [Reader.Number] accepts; so "01" or "1.5.3" is one malformed token
// rather than a number followed by unexpected data. When ok is false no
// fault is reported and the offset stays at the token's start, so the
// caller words the error with the whole token.
func (r *Reader) NumberToken() (token []byte, isFloat, ok bool) {
	start, end := r.pos, r.pos
	for end < len(r.data) && isNumberByte(r.data[end]) {
		end++
	}
	token = r.data[start:end]
	n, isFloat, want := scanNumber(token, 0)
	if want != WantNone || n != len(token) {
		return token, false, false
	}
	r.pos = end
	return token, isFloat, true
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// scanNumber reads the longest number literal of the JSON grammar that
// starts at d[i], returning where it ends and whether it has a fraction or
// an exponent. want is WantNone for a well-formed literal; otherwise it is
// what the grammar needed at end.
func scanNumber(d []byte, i int) (end int, isFloat bool, want Want) {
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		return i, false, WantValue
	}
	if i < len(d) && d[i] == '.' {
		isFloat = true
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, false, WantFractionDigit
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isFloat = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return i, false, WantExponentDigit
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	return i, isFloat, WantNone
}

func (r *Reader) numberFault(start int, want Want, detail string) error {
	return r.fault(Fault{Kind: KindNumber, Want: want, Offset: start, Start: start, At: r.pos, Detail: detail})
}
