package textsafe_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graphwire/graphwire/internal/textsafe"
)

func TestForbidden(t *testing.T) {
	forbidden := []rune{0, '\t', '\n', '\v', '\f', '\r', 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x7f, 0x80, 0x85, 0x9f,
		0x061c, 0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202e, 0x2066, 0x2069, 0xfeff}
	for _, r := range forbidden {
		if !textsafe.Forbidden(r) {
			t.Errorf("Forbidden(%U) = false", r)
		}
	}
	allowed := []rune{' ', 'a', '~', 0xa0, 0xe9, 0x200b, 0x2027, 0x202f, 0x2065, 0x206a, 0x27e6, 0xfefe, 0x1f389}
	for _, r := range allowed {
		if textsafe.Forbidden(r) {
			t.Errorf("Forbidden(%U) = true", r)
		}
	}
}

func TestMayStartCoversEveryForbiddenRune(t *testing.T) {
	for r := rune(0); r <= 0x10ffff; r++ {
		if !textsafe.Forbidden(r) && r != textsafe.Open {
			continue
		}
		b := utf8.AppendRune(nil, r)
		if !textsafe.MayStart(b[0]) {
			t.Errorf("MayStart(%#x) = false for %U", b[0], r)
		}
	}
}

func TestMarkAndRestore(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "abc é 🎉", "abc é 🎉"},
		{"line separator", "a\u2028b", "a⟦U+2028⟧b"},
		{"escape and nul", "\x1b[31m\x00", "⟦U+001B⟧[31m⟦U+0000⟧"},
		{"nel and bom", "\u0085\ufeff", "⟦U+0085⟧⟦U+FEFF⟧"},
		{"bidi", "\u202eabc\u2066", "⟦U+202E⟧abc⟦U+2066⟧"},
		{"literal opener", "⟦U+2028⟧", "⟦U+27E6⟧U+2028⟧"},
		{"closer alone", "a⟧", "a⟧"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := textsafe.Mark(tt.in)
			if got != tt.want || changed != (tt.in != tt.want) {
				t.Errorf("Mark(%q) = %q, %v; want %q", tt.in, got, changed, tt.want)
			}
			if strings.ContainsFunc(got, textsafe.Forbidden) {
				t.Errorf("Mark(%q) = %q still holds a forbidden code point", tt.in, got)
			}
			if back := textsafe.Restore(got); back != tt.in {
				t.Errorf("Restore(%q) = %q, want %q", got, back, tt.in)
			}
		})
	}
}

func TestAppendMarkedKeep(t *testing.T) {
	keep := func(r rune) bool { return r == '\n' }
	got, changed := textsafe.AppendMarked(nil, "a\nb\u2029", keep)
	if string(got) != "a\nb⟦U+2029⟧" || !changed {
		t.Errorf("got %q, %v", got, changed)
	}
	got, changed = textsafe.AppendMarked(nil, "a\nb", keep)
	if string(got) != "a\nb" || changed {
		t.Errorf("got %q, %v", got, changed)
	}
}

func TestRestoreKeepsMalformedMarkers(t *testing.T) {
	for _, s := range []string{"⟦", "⟦U+", "⟦U+12⟧", "⟦U+1234567⟧", "⟦U+D800⟧", "⟦U+110000⟧", "⟦u+2028⟧", "⟦U+2028", "⟦U+20ab⟧"} {
		if got := textsafe.Restore(s); got != s {
			t.Errorf("Restore(%q) = %q, want it unchanged", s, got)
		}
	}
	if got := textsafe.Restore("x⟦U+1F389⟧⟦U+10FFFF⟧"); got != "x🎉\U0010ffff" {
		t.Errorf("Restore six digits = %q", got)
	}
}

func FuzzMarkRestore(f *testing.F) {
	for _, s := range []string{"", "a\u2028b", "⟦U+0041⟧", "\x00\x7f\u0085\ufeff", "⟦⟦⟧"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		m, _ := textsafe.Mark(s)
		if strings.ContainsFunc(m, textsafe.Forbidden) {
			t.Fatalf("Mark(%q) = %q holds a forbidden code point", s, m)
		}
		if back := textsafe.Restore(m); back != s {
			t.Fatalf("Restore(Mark(%q)) = %q", s, back)
		}
	})
}
