// Package editdist measures how far apart two short names are, for "did you mean" hints (a
// mistyped flag, an unknown schema name).
package editdist

// Levenshtein is the Levenshtein distance of a and b in bytes: the fewest single-byte
// insertions, deletions and substitutions that turn a into b. Names compared with it are
// ASCII, so bytes are characters.
func Levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
