package gcf

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestParseScore checks the two-decimal fast path against strconv.ParseFloat
// bit for bit, on edge cases and 200,000 seeded tokens of every length.
func TestParseScore(t *testing.T) {
	tokens := []string{"0.00", "-0.00", "1.00", "0.01", "0.10", "0.29", "0.57", "1.15", "9.99", "-3.33",
		"9999999999999.99", "-9999999999999.99", "99999999999999.99", "12345678901234567890.12", "4503599627370.49"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte('-')
		}
		n := 1 + rng.IntN(18)
		for i := range n {
			d := rng.IntN(10)
			if i == 0 && n > 1 && d == 0 {
				d = 1
			}
			b.WriteByte(byte('0' + d))
		}
		b.WriteByte('.')
		b.WriteByte(byte('0' + rng.IntN(10)))
		b.WriteByte(byte('0' + rng.IntN(10)))
		tokens = append(tokens, b.String())
	}
	for _, tok := range tokens {
		if !isScoreToken(tok) {
			t.Fatalf("%q is not a score token", tok)
		}
		want, _ := strconv.ParseFloat(tok, 64)
		if got := parseScore(tok); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("parseScore(%q) = %v (%#x), ParseFloat = %v (%#x)", tok, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

func TestIdentSet(t *testing.T) {
	s := newIdentSet(0)
	steps := []struct {
		kind, name string
		want       bool
	}{
		{"fn", "a", true}, {"type", "a", true}, {"fn", "b", true}, {"fn", "a", false},
		{"type", "a", false}, {"var", "a", true}, {"var", "a", false}, {"fn", "b", false}, {"type", "b", true},
	}
	for i, st := range steps {
		if got := s.add(st.kind, st.name); got != st.want {
			t.Errorf("step %d: add(%q, %q) = %v, want %v", i, st.kind, st.name, got, st.want)
		}
	}
	// Many entries, so the table grows several times from a small hint.
	big := newIdentSet(1)
	for i := range 3000 {
		if !big.add(strconv.Itoa(i%3), strconv.Itoa(i/3)) {
			t.Fatalf("entry %d reported as a duplicate", i)
		}
	}
	for i := range 3000 {
		if big.add(strconv.Itoa(i%3), strconv.Itoa(i/3)) {
			t.Fatalf("entry %d not found again", i)
		}
	}
}

// TestKindExpandMatchesTable checks the switch in KindExpand and KindAbbrev
// against kindTable, the one list of kinds.
func TestKindExpandMatchesTable(t *testing.T) {
	for _, k := range kindTable {
		if got := KindExpand(k[0]); got != k[1] {
			t.Errorf("KindExpand(%q) = %q, want %q", k[0], got, k[1])
		}
		if got := KindAbbrev(k[1]); got != k[0] {
			t.Errorf("KindAbbrev(%q) = %q, want %q", k[1], got, k[0])
		}
	}
	for _, s := range []string{"", "unknown", "Fn", "function", "interface"} {
		if got := KindExpand(s); got != s {
			t.Errorf("KindExpand(%q) = %q, want it unchanged", s, got)
		}
	}
}
