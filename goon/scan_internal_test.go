package goon

import (
	"math/rand/v2"
	"testing"

	"github.com/graphwire/graphwire/internal/textsafe"
)

// TestScanMatchesDefinitions checks the one-pass classes of scan against
// the functions they stand for: isBare, appendQuoted copying its input, and
// textsafe.AppendMarked leaving it alone. Every byte value appears alone
// and in seeded strings.
func TestScanMatchesDefinitions(t *testing.T) {
	var inputs []string
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	inputs = append(inputs, "", "true", "false", "null", "True", "nul", "a\"b", `a\b`, "x\x7fy", "é", "\u2028")
	r := rand.New(rand.NewPCG(18, 3))
	alphabet := []byte("az09_-:./@+ \"\\\x00\x1f\x7f\x80\xc2\xe2\xff!~")
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	plain := 0
	for _, s := range inputs {
		c := scan(s)
		keyword := s == "true" || s == "false" || s == "null"
		if got, want := c&bare != 0 && !keyword, isBare(s); got != want {
			t.Fatalf("scan(%q) bare = %v, isBare = %v", s, got, want)
		}
		if q, changed := appendQuoted(nil, s); c&plainQuoted != 0 && (string(q) != `"`+s+`"` || changed) {
			t.Fatalf("scan(%q) plainQuoted = %v, appendQuoted gives %q, %v", s, c&plainQuoted != 0, q, changed)
		}
		if m, changed := textsafe.AppendMarked(nil, s, nil); c&plainIdent != 0 && (string(m) != s || changed) {
			t.Fatalf("scan(%q) plainIdent, but AppendMarked gives %q, %v", s, m, changed)
		}
		if c&plainQuoted != 0 {
			plain++
		}
	}
	if plain < len(inputs)/100 {
		t.Fatalf("only %d of %d inputs are plainQuoted", plain, len(inputs))
	}
}
