package gcf

import (
	"regexp"
	"slices"
	"testing"
	"unicode/utf8"
)

// refSplitter is a reference cell splitter written straight from the grammar
// (§2.3 quoted strings, §2.4 quoted field names inside `{…}`, §2.7.9 "cells
// are split on | outside quotes") as regular expressions, independent of the
// hand-written scanner in splitOutsideQuotes:
//
//	quoted = " ( [^"\\] | \\ any )* "
//	field  = blanks quoted? [^,}sep]*
//	cell   = blanks ( quoted | ^{ field ( , field )* }? )? [^sep]*
//
// (with sep = `,` the marker's field list stops at its first comma).
//
// A cell whose first non-blank byte is `"` without a closing quote on the
// line is unterminated.
type refSplitter struct {
	sep    byte
	cell   *regexp.Regexp
	quoted *regexp.Regexp
}

func newRefSplitter(sep byte) *refSplitter {
	q := `"(?:[^"\\]|\\(?s:.))*"`
	not := regexp.QuoteMeta(string(sep))
	field := `[ \t]*(?:` + q + `)?[^,}` + not + `]*`
	fields := field + `(?:,` + field + `)*`
	if sep == ',' {
		// In a comma-split context the delimiter ends the cell first, so a
		// marker keeps at most one field (only a quoted one can hold a comma).
		fields = field
	}
	cell := `^[ \t]*(?:` + q + `|\^\{` + fields + `\}?)?[^` + not + `]*`
	return &refSplitter{sep: sep, cell: regexp.MustCompile(cell), quoted: regexp.MustCompile(`^` + q)}
}

// split returns the cells and their offsets, or ok=false with the offset of
// an unterminated quote.
func (r *refSplitter) split(s string) (parts []string, offs []int, errOff int, ok bool) {
	pos := 0
	for {
		j := pos
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] == '"' && !r.quoted.MatchString(s[j:]) {
			return nil, nil, j, false
		}
		end := pos + len(r.cell.FindString(s[pos:]))
		parts = append(parts, s[pos:end])
		offs = append(offs, pos)
		if end == len(s) {
			return parts, offs, 0, true
		}
		// The cell pattern stops only at sep or at the end of the line.
		pos = end + 1
	}
}

// splitSeeds are rows worth keeping in the fuzz corpus: quoted cells,
// markers with quoted names holding either delimiter, unterminated quotes
// inside and outside markers, escapes and blanks.
var splitSeeds = []string{
	``,
	`a|b|c`,
	`1|^{"x|y",b,c}`,
	`1|^{ "a,b" , "c|d" ,e}|x`,
	`"a|b"|c`,
	`"a\"|b"|c`,
	`"unterminated|x`,
	`^{"unterminated|x`,
	`^{a|b}`,
	`^{"x"y|z}`,
	`^{a}|"b|c"`,
	`^{"\\"|x"}|y`,
	` ^{"p|q"} | r `,
	`x^{"a|b"}|c`,
	`^|^{}|~|-`,
	`"é|ü"|^{"ö|ä"}`,
}

func TestSplitOutsideQuotesMatchesReference(t *testing.T) {
	tests := []struct {
		name string
		in   string
		sep  byte
		want []string
	}{
		{"plain", "a|b|c", '|', []string{"a", "b", "c"}},
		{"quoted name with pipe", `1|^{"x|y",b,c}`, '|', []string{"1", `^{"x|y",b,c}`}},
		{"quoted names reused", `1|^{ "a,b" , "c|d" ,e}|x`, '|', []string{"1", `^{ "a,b" , "c|d" ,e}`, "x"}},
		{"bare pipe in marker splits", `^{a|b}`, '|', []string{"^{a", "b}"}},
		{"quote mid-token is literal", `x^{"a|b"}|c`, '|', []string{`x^{"a`, `b"}`, "c"}},
		{"unterminated name is literal", `^{"ab|c`, '|', []string{`^{"ab`, "c"}},
		{"comma items", `^{"a,b"},c`, ',', []string{`^{"a,b"}`, "c"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err, _ := splitOutsideQuotes(tt.in, tt.sep, nil, nil)
			if err != nil {
				t.Fatalf("splitOutsideQuotes(%q): %v", tt.in, err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("splitOutsideQuotes(%q) = %q, want %q", tt.in, got, tt.want)
			}
			ref, _, _, ok := newRefSplitter(tt.sep).split(tt.in)
			if !ok || !slices.Equal(ref, tt.want) {
				t.Errorf("reference split(%q) = %q (ok=%v), want %q", tt.in, ref, ok, tt.want)
			}
		})
	}
}

func FuzzSplitOutsideQuotes(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add(s, true)
		f.Add(s, false)
	}
	refs := map[byte]*refSplitter{'|': newRefSplitter('|'), ',': newRefSplitter(',')}
	f.Fuzz(func(t *testing.T, s string, pipe bool) {
		// Rows reach the splitter as one valid UTF-8 line (§2.1).
		if !utf8.ValidString(s) || slices.Contains([]byte(s), '\n') {
			return
		}
		sep := byte(',')
		if pipe {
			sep = '|'
		}
		parts, offs, err, eoff := splitOutsideQuotes(s, sep, nil, nil)
		rparts, roffs, reoff, ok := refs[sep].split(s)
		if (err == nil) != ok {
			t.Fatalf("split(%q, %q): err=%v, reference ok=%v", s, sep, err, ok)
		}
		if err != nil {
			if err != ErrUnterminatedQuote || eoff != reoff {
				t.Fatalf("split(%q, %q): error %v at %d, reference unterminated at %d", s, sep, err, eoff, reoff)
			}
			return
		}
		if !slices.Equal(parts, rparts) || !slices.Equal(offs, roffs) {
			t.Fatalf("split(%q, %q) = %q %v, reference %q %v", s, sep, parts, offs, rparts, roffs)
		}
	})
}
