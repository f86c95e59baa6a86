// Package textsafe names the code points graphwire's LLM text formats
// (goon, gcf, gcx, toon) never write raw, and the visible, reversible marker
// that stands for one of them where a format has no escape of its own.
//
// A consumer that splits text into lines with Python's str.splitlines or a
// JavaScript line-terminator class breaks lines on VT, FF, FS, GS, RS, NEL
// (U+0085), U+2028 and U+2029, not only on LF; a terminal acts on ESC and
// other controls; bidirectional controls reorder what a reader sees. A value
// holding one of these could forge rows or section headers, or reach a
// terminal, so the formats escape or substitute every [Forbidden] code point
// (docs/formats.md lists what each format does).
//
// # The marker
//
// Where a format has no escape for a code point, it writes the marker
// ⟦U+XXXX⟧ instead: U+27E6, "U+", four to six upper-case hex digits, U+27E7.
// A literal ⟦ in the text is written as ⟦U+27E6⟧, so every ⟦ in marked
// text opens a marker and [Restore] gives back the original exactly:
//
//	"a\u2028b"  →  a⟦U+2028⟧b
//	"⟦x"        →  ⟦U+27E6⟧x
//
// The package is pure functions; everything in it is safe for concurrent use.
package textsafe

import (
	"strings"
	"unicode/utf8"
)

// Open and Close delimit a marker.
const (
	Open  = '⟦' // U+27E6 MATHEMATICAL LEFT WHITE SQUARE BRACKET
	Close = '⟧' // U+27E7 MATHEMATICAL RIGHT WHITE SQUARE BRACKET
)

// Forbidden reports whether r must never appear raw in LLM-format output
// (inside a value; a format still writes its own LF line breaks and, in
// gcx, its TAB cell separators):
//
//   - every C0 control U+0000–U+001F, TAB, CR and LF included;
//   - DEL U+007F, which terminals and some splitters treat as a control;
//   - every C1 control U+0080–U+009F, NEL U+0085 included;
//   - the line and paragraph separators U+2028 and U+2029;
//   - the bidirectional controls U+202A–U+202E and U+2066–U+2069, and the
//     implicit marks U+061C, U+200E and U+200F, which reorder text as well;
//   - the byte-order mark U+FEFF.
//
// Other invisible format characters (U+200B, U+2060, …) cannot break lines
// or reorder text and stay as they are.
func Forbidden(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r < 0x61c:
		return false
	}
	switch r {
	case 0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e,
		0x2066, 0x2067, 0x2068, 0x2069, 0xfeff:
		return true
	}
	return false
}

// MayStart reports whether the byte b can begin the UTF-8 form of a
// Forbidden code point or of [Open]. Scanners use it to decode only the
// runes that can matter.
func MayStart(b byte) bool {
	return b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xd8 || b == 0xe2 || b == 0xef
}

// openUTF8 is the UTF-8 form of Open.
const openUTF8 = string(Open)

// Index returns the byte offset of the first code point of s that
// keep does not accept and that is Forbidden or Open, or -1. A nil keep
// accepts nothing.
func Index(s string, keep func(rune) bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if MayStart(c) && (keep == nil || !keep(rune(c))) {
				return i
			}
			i++
			continue
		}
		if !MayStart(c) {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (Forbidden(r) || r == Open) && (keep == nil || !keep(r)) {
			return i
		}
		i += n
	}
	return -1
}

// Needs reports whether [AppendMarked] would change s, that is whether s
// holds a Forbidden code point or Open.
func Needs(s string) bool { return Index(s, nil) >= 0 }

// AppendMarker appends the marker of r: ⟦U+XXXX⟧, with at least four
// upper-case hex digits.
func AppendMarker(dst []byte, r rune) []byte {
	const hex = "0123456789ABCDEF"
	dst = append(dst, openUTF8...)
	dst = append(dst, 'U', '+')
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	for i := digits - 1; i >= 0; i-- {
		dst = append(dst, hex[r>>(4*i)&15])
	}
	return utf8.AppendRune(dst, Close)
}

// AppendMarked appends s with every Forbidden code point and every Open
// replaced by its marker, except the code points keep accepts (a format
// passes the ones it escapes itself; nil keeps none). It reports whether
// anything was replaced.
func AppendMarked(dst []byte, s string, keep func(rune) bool) ([]byte, bool) {
	i := Index(s, keep)
	if i < 0 {
		return append(dst, s...), false
	}
	dst = append(dst, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (Forbidden(r) || r == Open) && (keep == nil || !keep(r)) {
			dst = AppendMarker(dst, r)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst, true
}

// Mark returns s with its markers applied (see [AppendMarked] with a nil
// keep), and whether anything was replaced.
func Mark(s string) (string, bool) {
	if !Needs(s) {
		return s, false
	}
	b, _ := AppendMarked(make([]byte, 0, len(s)+16), s, nil)
	return string(b), true
}

// Restore replaces every well-formed marker in s by its code point. Text
// that only looks like the start of a marker (⟦ not followed by U+, hex
// digits and ⟧, or a value above U+10FFFF or in the surrogate range) is
// kept as it is, so Restore never fails.
func Restore(s string) string {
	i := strings.Index(s, openUTF8)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		r, n := parseMarker(s)
		if n == 0 {
			b.WriteString(openUTF8)
			s = s[len(openUTF8):]
		} else {
			b.WriteRune(r)
			s = s[n:]
		}
		i = strings.Index(s, openUTF8)
	}
	b.WriteString(s)
	return b.String()
}

// parseMarker reads a marker at the start of s and returns its code point
// and length, or a length of 0 when s does not start with one.
func parseMarker(s string) (rune, int) {
	i := len(openUTF8)
	if len(s) < i+2 || s[i] != 'U' || s[i+1] != '+' {
		return 0, 0
	}
	i += 2
	start := i
	var r rune
	for ; i < len(s) && i-start <= 6; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return finishMarker(s, i, i-start, r)
		}
	}
	return finishMarker(s, i, i-start, r)
}

// finishMarker checks the digit count, the value and the closing bracket
// of a marker whose digits end at offset i.
func finishMarker(s string, i, digits int, r rune) (rune, int) {
	if digits < 4 || digits > 6 || r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff {
		return 0, 0
	}
	if !strings.HasPrefix(s[i:], string(Close)) {
		return 0, 0
	}
	return r, i + len(string(Close))
}
