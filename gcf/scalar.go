package gcf

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graphwire/graphwire/internal/textsafe"
)

// This file holds the scalar grammar of §2.3 and the key grammar of §2.4:
// the one place numbers are formatted and strings quoted.

// isNumberToken reports whether s matches the JSON number grammar with ASCII
// digits only, and whether it is an integer (no fraction, no exponent).
func isNumberToken(s string) (ok, integer bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false, false
	}
	switch {
	case s[i] == '0':
		i++
	case s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	integer = true
	if i < len(s) && s[i] == '.' {
		integer = false
		i++
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		integer = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == start {
			return false, false
		}
	}
	return i == len(s), integer
}

// parseNumber converts a number token: ok is false when s is not a number
// token; err is ErrOutOfRange for integers outside int64 and floats that
// overflow.
func parseNumber(s string) (v any, ok bool, err error) {
	numOK, integer := isNumberToken(s)
	if !numOK {
		return nil, false, nil
	}
	if integer {
		n, perr := strconv.ParseInt(s, 10, 64)
		if perr != nil {
			return nil, true, ErrOutOfRange
		}
		return n, true, nil
	}
	f, perr := strconv.ParseFloat(s, 64)
	if perr != nil && (math.IsInf(f, 0)) {
		return nil, true, ErrOutOfRange
	}
	return f, true, nil
}

// appendFloat appends the canonical form of a finite float64 (§2.3).
func appendFloat(dst []byte, x float64) []byte {
	if x == 0 {
		return append(dst, '0')
	}
	if x == 1 {
		return append(dst, '1')
	}
	a := math.Abs(x)
	if a >= 1e-6 && a < 1<<53 {
		return strconv.AppendFloat(dst, x, 'f', -1, 64)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, x, 'e', -1, 64)
	// Strip leading zeros of the exponent digits: 4e-07 -> 4e-7.
	e := n
	for e < len(dst) && dst[e] != 'e' {
		e++
	}
	d := e + 2 // first exponent digit, after the sign
	z := d
	for z < len(dst)-1 && dst[z] == '0' {
		z++
	}
	if z > d {
		dst = append(dst[:d], dst[z:]...)
	}
	return dst
}

// appendScore appends a graph score with exactly two decimals, half-even on
// the exact binary value, -0.00 written 0.00.
func appendScore(dst []byte, s float64) []byte {
	if s == 1 {
		return append(dst, "1.00"...)
	}
	n := len(dst)
	dst = strconv.AppendFloat(dst, s, 'f', 2, 64)
	if string(dst[n:]) == "-0.00" {
		dst = append(dst[:n], "0.00"...)
	}
	return dst
}

// Quantize returns the score a consumer sees after decoding: s rounded to two
// decimals as written on the wire.
func Quantize(score float64) float64 {
	var b [32]byte
	q, _ := strconv.ParseFloat(string(appendScore(b[:0], score)), 64)
	return q
}

// isBareKey reports whether s matches [A-Za-z_][A-Za-z0-9_]*.
func isBareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

func isSpaceRune(r rune) bool { return unicode.IsSpace(r) || r == 0xFEFF }

// needsQuote reports whether a string value must be written quoted (§2.3).
func needsQuote(s string) bool {
	switch s {
	case "", "-", "~", "^", "true", "false":
		return true
	}
	c0 := s[0]
	if c0 == '#' || c0 == '@' || c0 == '.' {
		return true
	}
	if strings.HasPrefix(s, "^{") && s[len(s)-1] == '}' {
		return true
	}
	if ok, _ := isNumberToken(s); ok || numericLike(s) {
		return true
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if isSpaceRune(first) || isSpaceRune(last) {
		return true
	}
	bracket := false
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c < 0x20, c == 0x7f, c == '"', c == '\\', c == '|', c == ',':
				return true
			case c == '[':
				bracket = true
			case c == ']' && bracket && i+1 < len(s) && s[i+1] == ':':
				return true
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r >= 0x80 && r <= 0x9F || isSpaceRune(r) || textsafe.Forbidden(r) {
			return true
		}
		i += n
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// numericLike reports the numeric-looking prefixes of §2.3.
func numericLike(s string) bool {
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i = 1
		if i < len(s) && s[i] == '.' {
			i++
		}
		return i < len(s) && isDigit(s[i])
	}
	if s[0] == '.' || s[0] == '0' {
		return len(s) > 1 && isDigit(s[1])
	}
	return false
}

// appendQuoted appends s as a GCF quoted string. Besides the escapes of
// §2.3 it writes DEL, the C1 controls and the other code points of
// [textsafe.Forbidden] as \uXXXX (lower-case hex), so no value puts a line
// separator, terminal control or bidirectional control into the output;
// every GCF decoder reads the escape back to the same code point.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := quoteSafePrefix(s); i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if !textsafe.MayStart(c) {
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !textsafe.Forbidden(r) {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
			i += n
			start = i
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// digitPairs holds "00" to "99", for appendInt.
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// appendInt is strconv.AppendInt(dst, v, 10), writing the digits in place
// rather than through a scratch buffer and a copy; the graph writers format
// several integers per node.
func appendInt(dst []byte, v int64) []byte {
	u := uint64(v)
	if v < 0 {
		dst = append(dst, '-')
		u = -u
	}
	if u < 10 {
		return append(dst, byte('0'+u))
	}
	// Digits: floor(log10(u)) + 1, with 1233/4096 ≈ log10(2).
	t := bits.Len64(u) * 1233 >> 12
	n := t + 1
	if u < pow10[t] {
		n--
	}
	l := len(dst)
	dst = append(dst, make([]byte, n)...)
	i := l + n
	for u >= 100 {
		q := u / 100
		r := (u - q*100) * 2
		i -= 2
		dst[i], dst[i+1] = digitPairs[r], digitPairs[r+1]
		u = q
	}
	if u >= 10 {
		dst[i-2], dst[i-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		dst[i-1] = byte('0' + u)
	}
	return dst
}

// pow10 holds 10^t for t <= 19, for appendInt. It is never written.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// quoteSafePrefix returns a length of a prefix of s that appendQuoted copies
// unescaped, scanning eight bytes at a time; the byte loop does the rest. A
// word with a non-ASCII byte ends the prefix.
func quoteSafePrefix(s string) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		// Some byte is below 0x20, '"' or '\\' (exact for existence), or
		// DEL or not ASCII (the byte loop decides on those).
		q, bs := w^('"'*ones), w^('\\'*ones)
		if (w-0x20*ones)&^w&highs != 0 || (q-ones)&^q&highs != 0 || (bs-ones)&^bs&highs != 0 || (w|(w&^highs+ones))&highs != 0 {
			break
		}
	}
	return i
}

// appendString appends a string value, bare or quoted.
func appendString(dst []byte, s string) []byte {
	if needsQuote(s) {
		return appendQuoted(dst, s)
	}
	return append(dst, s...)
}

// appendKey appends a key or field name, bare or quoted.
func appendKey(dst []byte, k string) []byte {
	if isBareKey(k) {
		return append(dst, k...)
	}
	return appendQuoted(dst, k)
}

// appendScalar appends a canonical scalar: nil, bool, int64, float64 or
// string. Other values are an error.
func appendScalar(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, '-'), nil
	case bool:
		if x {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return dst, encErr(ErrNonFinite, "NaN or infinite float")
		}
		return appendFloat(dst, x), nil
	case string:
		if !utf8.ValidString(x) {
			return dst, encErr(ErrInvalidUTF8, "string is not valid UTF-8")
		}
		return appendString(dst, x), nil
	}
	return dst, encErr(ErrUnsupportedType, "not a scalar")
}

func isScalar(v any) bool {
	switch v.(type) {
	case nil, bool, int64, float64, string:
		return true
	}
	return false
}

// unquoteBody decodes the text between the quotes of a quoted string. It
// returns the sentinel and the byte offset of a bad escape.
func unquoteBody(raw string) (string, error, int) {
	simple := true
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c == '\\' || c < 0x20 {
			simple = false
			break
		}
	}
	if simple {
		return raw, nil, 0
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < 0x20 {
			if c == '\t' {
				out = append(out, c)
				continue
			}
			return "", ErrInvalidEscape, i
		}
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 >= len(raw) {
			return "", ErrInvalidEscape, i
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(raw[i+1:])
			if !ok {
				return "", ErrInvalidEscape, i - 1
			}
			i += 4
			if r >= 0xDC00 && r <= 0xDFFF {
				return "", ErrInvalidSurrogate, i - 5
			}
			if r >= 0xD800 && r <= 0xDBFF {
				if i+2 >= len(raw) || raw[i+1] != '\\' || raw[i+2] != 'u' {
					return "", ErrInvalidSurrogate, i - 5
				}
				lo, ok := hex4(raw[i+3:])
				if !ok {
					return "", ErrInvalidEscape, i + 1
				}
				if lo < 0xDC00 || lo > 0xDFFF {
					return "", ErrInvalidSurrogate, i - 5
				}
				i += 6
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", ErrInvalidEscape, i - 1
		}
	}
	return string(out), nil, 0
}

func hex4(b string) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		c := b[i]
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
	return r, true
}

// scanQuoted returns the index just past the closing quote of the quoted
// string starting at s[0] == '"', or -1 when it is unterminated.
func scanQuoted(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// cellKind classifies a decoded scalar token.
type cellKind uint8

const (
	cellValue cellKind = iota
	cellAbsent
	cellMarker       // ^
	cellSchemaMarker // ^{fields}
)

// parseScalar decodes one trimmed scalar token (§2.3 precedence). For
// cellSchemaMarker, fields holds the declared names. off is the byte offset
// of an error within tok.
func parseScalar(tok string) (v any, kind cellKind, fields []string, err error, off int) {
	if tok == "" {
		return "", cellValue, nil, nil, 0
	}
	switch tok[0] {
	case '"':
		end := scanQuoted(tok)
		if end < 0 {
			return nil, 0, nil, ErrUnterminatedQuote, 0
		}
		if end != len(tok) {
			return nil, 0, nil, ErrTrailingCharacters, end
		}
		s, serr, o := unquoteBody(tok[1 : end-1])
		if serr != nil {
			return nil, 0, nil, serr, o + 1
		}
		return s, cellValue, nil, nil, 0
	case '-':
		if len(tok) == 1 {
			return nil, cellValue, nil, nil, 0
		}
	case '~':
		if len(tok) == 1 {
			return nil, cellAbsent, nil, nil, 0
		}
	case '^':
		if len(tok) == 1 {
			return nil, cellMarker, nil, nil, 0
		}
		if tok[1] == '{' && tok[len(tok)-1] == '}' {
			fs, _, ferr := parseFieldList(tok[2:len(tok)-1], false)
			if ferr != nil {
				return nil, 0, nil, ErrInvalidAttachmentMarker, 0
			}
			return nil, cellSchemaMarker, fs, nil, 0
		}
	case 't':
		if tok == "true" {
			return true, cellValue, nil, nil, 0
		}
	case 'f':
		if tok == "false" {
			return false, cellValue, nil, nil, 0
		}
	}
	if c := tok[0]; c == '-' || isDigit(c) {
		n, ok, nerr := parseNumber(tok)
		if ok {
			if nerr != nil {
				return nil, 0, nil, nerr, 0
			}
			return n, cellValue, nil, nil, 0
		}
	}
	return tok, cellValue, nil, nil, 0
}

// parseValueToken decodes a scalar outside row cells: `~` and markers are
// errors there.
func parseValueToken(tok string) (any, error, int) {
	v, kind, _, err, off := parseScalar(tok)
	if err != nil {
		return nil, err, off
	}
	switch kind {
	case cellAbsent:
		return nil, ErrInvalidMissing, 0
	case cellMarker, cellSchemaMarker:
		return nil, ErrInvalidAttachmentMarker, 0
	}
	return v, nil, 0
}

// splitOutsideQuotes splits s on sep outside quoted tokens. A quote opens only
// at the start of a token (after spaces), or at the start of a field name
// inside a `^{…}` marker that begins the token (§2.4: field names may be
// quoted, so `^{"x|y",b}` is one cell). It returns the raw parts with their
// byte offsets, or ErrUnterminatedQuote with the offset of the quote.
//
// A quoted field name that never closes is not an error here: the token is
// then not a marker, and its `"` stays an ordinary byte, as before markers
// were scanned (the token decodes as a string).
func splitOutsideQuotes(s string, sep byte, parts []string, offs []int) ([]string, []int, error, int) {
	start := 0
	i := 0
	atStart := true
	for i < len(s) {
		c := s[i]
		if atStart {
			if c == ' ' || c == '\t' {
				i++
				continue
			}
			atStart = false
			if c == '"' {
				end := scanQuoted(s[i:])
				if end < 0 {
					return parts, offs, ErrUnterminatedQuote, i
				}
				i += end
				continue
			}
			if c == '^' && i+1 < len(s) && s[i+1] == '{' {
				i = skipMarkerFields(s, i+2, sep)
				continue
			}
		}
		if c == sep {
			parts = append(parts, s[start:i])
			offs = append(offs, start)
			i++
			start = i
			atStart = true
			continue
		}
		i++
	}
	parts = append(parts, s[start:])
	offs = append(offs, start)
	return parts, offs, nil, 0
}

// skipMarkerFields scans the field list of a `^{…}` marker from i, just past
// the `{`, and returns the index where ordinary splitting resumes: past the
// closing `}`, or at the first sep outside a quoted name. Only a quote at
// the start of a field name (after `{` or `,` and blanks) opens a quoted
// name; an unterminated one leaves the rest to ordinary splitting.
func skipMarkerFields(s string, i int, sep byte) int {
	fieldStart := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == sep:
			return i
		case c == '}':
			return i + 1
		case fieldStart && (c == ' ' || c == '\t'):
		case fieldStart && c == '"':
			end := scanQuoted(s[i:])
			if end < 0 {
				return i
			}
			i += end
			fieldStart = false
			continue
		case c == ',':
			fieldStart = true
			i++
			continue
		default:
			fieldStart = false
		}
		i++
	}
	return i
}

func trimSpaces(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// leadingBlanks returns the number of leading spaces and TABs of s.
func leadingBlanks(s string) int {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// parseKeyToken decodes a key that is the whole token (bare or quoted).
func parseKeyToken(tok string) (string, error) {
	if tok == "" {
		return "", ErrSyntax
	}
	if tok[0] == '"' {
		end := scanQuoted(tok)
		if end < 0 {
			return "", ErrUnterminatedQuote
		}
		if end != len(tok) {
			return "", ErrTrailingCharacters
		}
		s, err, _ := unquoteBody(tok[1 : end-1])
		return s, err
	}
	if !isBareKey(tok) {
		return "", ErrSyntax
	}
	return tok, nil
}

// leadingKey reads a key at the start of s and returns it with the rest.
func leadingKey(s string) (key, rest string, err error) {
	if s == "" {
		return "", "", ErrSyntax
	}
	if s[0] == '"' {
		end := scanQuoted(s)
		if end < 0 {
			return "", "", ErrUnterminatedQuote
		}
		k, kerr, _ := unquoteBody(s[1 : end-1])
		if kerr != nil {
			return "", "", kerr
		}
		return k, s[end:], nil
	}
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && isDigit(c) {
			i++
			continue
		}
		break
	}
	if i == 0 {
		return "", "", ErrSyntax
	}
	return s[:i], s[i:], nil
}

// parseFieldList parses the inside of {…}. With allowIdent, one field may be
// written @name; ident is its index (-1 when none).
func parseFieldList(s string, allowIdent bool) (fields []string, ident int, err error) {
	ident = -1
	if trimSpaces(s) == "" {
		return nil, -1, ErrSyntax
	}
	n := strings.Count(s, ",") + 1
	parts, _, serr, _ := splitOutsideQuotes(s, ',', make([]string, 0, n), make([]int, 0, n))
	if serr != nil {
		return nil, -1, serr
	}
	fields = make([]string, 0, len(parts))
	for i, p := range parts {
		p = trimSpaces(p)
		if strings.HasPrefix(p, "@") {
			if !allowIdent || ident >= 0 {
				return nil, -1, ErrSyntax
			}
			ident = i
			p = p[1:]
		}
		k, kerr := parseKeyToken(p)
		if kerr != nil {
			return nil, -1, kerr
		}
		for _, f := range fields {
			if f == k {
				return nil, -1, ErrDuplicateFieldName
			}
		}
		fields = append(fields, k)
	}
	return fields, ident, nil
}

// appendFieldList appends {f1,f2,…}; ident ≥ 0 marks the identity field.
func appendFieldList(dst []byte, fields []string, ident int) []byte {
	dst = append(dst, '{')
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		if i == ident {
			dst = append(dst, '@')
		}
		dst = appendKey(dst, f)
	}
	return append(dst, '}')
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
