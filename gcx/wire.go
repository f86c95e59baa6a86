package gcx

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/internal/textsafe"
)

// headerSafe reports whether s may stand in a header: no control byte, no
// space, no DEL and no backslash (spec §3.2). Other bytes ≥ 0x80 are
// allowed, except those of a C1 control or another code point of
// [textsafe.Forbidden]: headers have no escapes and no markers, so such a
// name moves into a cell (spec §11.3) or is refused.
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf && textsafe.MayStart(c) {
			if r, _ := utf8.DecodeRuneInString(s[i:]); textsafe.Forbidden(r) {
				return false
			}
		}
	}
	return true
}

// fieldSafe reports whether s may be a field name: non-empty, header-safe
// and without a comma.
func fieldSafe(s string) bool {
	return s != "" && headerSafe(s) && strings.IndexByte(s, ',') < 0
}

// checkHeader validates a header against spec §3.2 without writing it;
// keys are the meta keys in sorted order, so the first error reported does
// not depend on map iteration.
func checkHeader(tool string, fields []string, meta map[string]string, keys []string) error {
	if tool == "" || !headerSafe(tool) {
		return fmt.Errorf("tool %q: %w", tool, ErrUnsafeName)
	}
	if len(fields) == 0 {
		return fmt.Errorf("no fields: %w", ErrBadField)
	}
	for i, f := range fields {
		if f == "" {
			return fmt.Errorf("field %d is empty: %w", i, ErrBadField)
		}
		if !fieldSafe(f) {
			return fmt.Errorf("field %q: %w", f, ErrUnsafeName)
		}
		if slices.Contains(fields[:i], f) {
			return fmt.Errorf("field %q repeated: %w", f, ErrBadField)
		}
	}
	for _, k := range keys {
		v := meta[k]
		if k == "tool" || k == "fields" {
			return fmt.Errorf("meta key %q: %w", k, ErrReservedKey)
		}
		if k == "" || !headerSafe(k) || strings.IndexByte(k, '=') >= 0 {
			return fmt.Errorf("meta key %q: %w", k, ErrUnsafeName)
		}
		if !headerSafe(v) {
			return fmt.Errorf("meta %s value %q: %w", k, v, ErrUnsafeName)
		}
	}
	return nil
}

// appendHeader appends the header line of a section, LF included, after
// validating it. Meta pairs come sorted by key in byte order.
func appendHeader(dst []byte, tool string, fields []string, meta map[string]string, maxLine int) ([]byte, error) {
	var keys []string
	if len(meta) > 0 {
		keys = slices.Sorted(maps.Keys(meta))
	}
	if err := checkHeader(tool, fields, meta, keys); err != nil {
		return dst, err
	}
	start := len(dst)
	dst = append(dst, "GCX1 tool="...)
	dst = append(dst, tool...)
	dst = append(dst, " fields="...)
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, f...)
	}
	for _, k := range keys {
		dst = append(dst, ' ')
		dst = append(dst, k...)
		dst = append(dst, '=')
		dst = append(dst, meta[k]...)
	}
	dst = append(dst, '\n')
	if len(dst)-start > maxLine {
		return dst[:start], fmt.Errorf("header of %s: %w", tool, ErrLineTooLong)
	}
	return dst, nil
}

// appendEscaped appends s with the cell escapes of spec §4.2: backslash,
// TAB and LF become two-byte escapes and CR is dropped. Every other code
// point of [textsafe.Forbidden] (C0 controls, DEL, C1 controls, U+2028,
// U+2029, bidirectional controls, U+FEFF), and the marker opener ⟦ itself,
// is written as its ⟦U+XXXX⟧ marker, which the decoder reads back. It
// reports whether the cell text was changed beyond its escapes (a marker
// written or a CR dropped).
func appendEscaped(dst []byte, s string) ([]byte, bool) {
	i := plainPrefix(s)
	if i == len(s) {
		return append(dst, s...), false
	}
	dst = append(dst, s[:i]...)
	start := i
	altered := false
	for i < len(s) {
		c := s[i]
		var esc byte
		switch {
		case c == '\\':
			esc = '\\'
		case c == '\t':
			esc = 't'
		case c == '\n':
			esc = 'n'
		case c == '\r':
			dst = append(dst, s[start:i]...)
			altered = true
			i++
			start = i
			continue
		case c < 0x20 || c == 0x7f:
			dst = append(dst, s[start:i]...)
			dst = textsafe.AppendMarker(dst, rune(c))
			altered = true
			i++
			start = i
			continue
		case c >= utf8.RuneSelf && textsafe.MayStart(c):
			r, n := utf8.DecodeRuneInString(s[i:])
			if textsafe.Forbidden(r) || r == textsafe.Open {
				dst = append(dst, s[start:i]...)
				dst = textsafe.AppendMarker(dst, r)
				altered = true
				start = i + n
			}
			i += n
			continue
		default:
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, '\\', esc)
		i++
		start = i
	}
	return append(dst, s[start:]...), altered
}

// plainPrefix returns the length of the longest prefix of s that needs no
// escaping, or a shorter one that ends at or before the first byte that
// does. It tests eight bytes at a time: a word passes when none of its bytes
// is below 0x20, DEL, a backslash or a byte ≥ 0x80 (the byte loop decides
// on those).
func plainPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if special(load64(s, i)) {
			return i + firstSpecial(s[i:i+8])
		}
	}
	if i == len(s) {
		return i
	}
	if len(s) >= 8 {
		// Test the tail as the last eight bytes, overlapping the words
		// already checked.
		if !special(load64(s, len(s)-8)) {
			return len(s)
		}
	}
	return i + firstSpecial(s[i:])
}

func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// special reports whether a byte of x is below 0x20, DEL, a backslash or
// not ASCII.
func special(x uint64) bool {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	y := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x|(y-ones)&^y|x|(x&^highs+ones))&highs != 0
}

// firstSpecial returns the index of the first byte of s that the byte loop
// of appendEscaped must look at, or len(s).
func firstSpecial(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c < 0x20 || c >= 0x7f {
			return i
		}
	}
	return len(s)
}

// appendRow appends one row line for a section of nfields fields: the
// escaped cells joined by TABs, missing trailing cells empty, then LF. It
// applies the first-cell guard and refuses blank lines and long lines.
func appendRow(dst []byte, cells []string, nfields, maxLine int) ([]byte, int, error) {
	if len(cells) > nfields {
		return dst, 0, fmt.Errorf("row of %d cells for %d fields: %w", len(cells), nfields, ErrTooManyCells)
	}
	start := len(dst)
	altered := 0
	if len(cells) > 0 {
		var changed bool
		if dst, changed = appendEscaped(dst, cells[0]); changed {
			altered++
		}
		if first := dst[start:]; len(first) > 0 && (first[0] == '#' || len(first) >= 3 && first[0] == 'G' && first[1] == 'C' && first[2] == 'X') {
			// First-cell guard (spec §4.1): an unknown escape reads back
			// as the bare byte, so the cell is unchanged, but the line is
			// no longer a comment or a header.
			dst = append(dst, 0)
			copy(dst[start+1:], dst[start:len(dst)-1])
			dst[start] = '\\'
		}
	}
	if nfields == 1 && len(dst) == start {
		return dst, 0, fmt.Errorf("one-field row with an empty cell: %w", ErrBlankRow)
	}
	for i := 1; i < nfields; i++ {
		dst = append(dst, '\t')
		if i < len(cells) {
			var changed bool
			if dst, changed = appendEscaped(dst, cells[i]); changed {
				altered++
			}
		}
	}
	dst = append(dst, '\n')
	if len(dst)-start > maxLine {
		return dst[:start], 0, fmt.Errorf("row of %d bytes: %w", len(dst)-start, ErrLineTooLong)
	}
	return dst, altered, nil
}

// appendComment appends "# text" with CR removed, LF replaced by a space
// and the other code points of [textsafe.Forbidden] written as markers.
func appendComment(dst []byte, text string, maxLine int) ([]byte, error) {
	start := len(dst)
	dst = append(dst, '#', ' ')
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r", ""), "\n", " ")
	dst, _ = textsafe.AppendMarked(dst, text, nil)
	dst = append(dst, '\n')
	if len(dst)-start > maxLine {
		return dst[:start], fmt.Errorf("comment: %w", ErrLineTooLong)
	}
	return dst, nil
}

// appendSection appends a whole section and returns the number of cells
// whose text was changed beyond the escapes (see appendEscaped). On error
// dst is returned truncated to its original length, so nothing partial is
// kept.
func appendSection(dst []byte, s *Section, maxLine int) ([]byte, int, error) {
	start := len(dst)
	dst, err := appendHeader(dst, s.Tool, s.Fields, s.Meta, maxLine)
	if err != nil {
		return dst[:start], 0, fmt.Errorf("section %s: %w", s.Tool, err)
	}
	altered := 0
	for i, row := range s.Rows {
		var n int
		dst, n, err = appendRow(dst, row, len(s.Fields), maxLine)
		if err != nil {
			return dst[:start], 0, fmt.Errorf("section %s row %d: %w", s.Tool, i, err)
		}
		altered += n
	}
	return dst, altered, nil
}

// unescape reverses appendEscaped on one cell or header token (spec §4.3):
// \\, \t and \n map back, any other escaped byte stands for itself and a
// final lone backslash stays.
func unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			b = append(b, c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 't':
			b = append(b, '\t')
		case 'n':
			b = append(b, '\n')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
