package editdist

import (
	"strings"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"format", "format", 0},
		{"fromat", "format", 2}, {"formt", "format", 1}, {"kitten", "sitting", 3}, {"scope", "scopes", 1},
	} {
		if got := Levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Levenshtein(tt.b, tt.a); got != tt.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestOSA(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"from", "from", 0}, {"form", "from", 1}, {"ca", "abc", 3},
		{"kitten", "sitting", 3}, {"émile", "emile", 1}, {strings.Repeat("a", 65), strings.Repeat("a", 65), 99},
	} {
		if got := OSA(tt.a, tt.b); got != tt.want {
			t.Errorf("OSA(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := OSA(tt.b, tt.a); got != tt.want {
			t.Errorf("OSA(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}
