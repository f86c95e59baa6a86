package tokens

import (
	"strings"
	"testing"
)

// TestCountInPieces: a text over 1 MiB counted in pieces has the count of the whole, for
// text with words, numbers, punctuation, upper case, runs of spaces and non-ASCII letters; a
// text without a place to cut is counted whole.
func TestCountInPieces(t *testing.T) {
	var b strings.Builder
	words := []string{"lorem", "Ipsum", "dolor's", "sit", "amet,", "42", "x1y2", "  spaced", "naïve", "日本語", "{\"k\":", "\"v\\n\"}", "ÉCOLE", "can't"}
	for i := 0; b.Len() < 3<<20+12345; i++ {
		b.WriteString(words[i%len(words)])
		if i%7 == 0 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	texts := map[string]string{
		"words":           b.String(),
		"no place to cut": strings.Repeat("abc,", 1<<19),
	}
	c := New()
	for _, enc := range []string{O200k, CL100k} {
		cd, err := c.codec(enc)
		if err != nil {
			t.Fatal(err)
		}
		for name, text := range texts {
			if cut(text) == len(text) && name == "words" {
				t.Fatalf("%s: no place to cut; the test proves nothing", name)
			}
			want, err := cd.Count(text)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Count(enc, text)
			if err != nil || got != want {
				t.Errorf("%s %s: Count = %d, %v; the whole text has %d", enc, name, got, err, want)
			}
		}
	}
}
