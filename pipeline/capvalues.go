package pipeline

import (
	"strconv"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
)

// DefaultMaxValueBytes is the longest string value an answer in an LLM format carries whole
// when [Options.MaxValueBytes] is 0.
const DefaultMaxValueBytes = 64 << 10

// capMarker is what follows a string value cut to the limit: the bytes left out and the
// value's length, both in bytes of UTF-8. The same in every format (docs/formats.md).
func capMarker(dropped, total int) string {
	return "…[truncated " + strconv.Itoa(dropped) + " of " + strconv.Itoa(total) + " bytes]"
}

// capString cuts s to at most limit bytes, at a code point boundary, and appends the marker;
// ok reports whether s was longer than limit.
func capString(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + capMarker(len(s)-cut, len(s)), true
}

// capValues cuts every string value of resp longer than limit (node properties and the cells
// of aggregation rows, at any depth) in place and returns how many it cut. A limit of zero
// or less cuts nothing.
func capValues(resp *graphresponse.Response, limit int) int {
	if limit <= 0 {
		return 0
	}
	n := 0
	for i := range resp.Nodes {
		n += capMembers(resp.Nodes[i].Props, limit)
	}
	for _, row := range resp.Rows {
		n += capMembers(row, limit)
	}
	return n
}

func capMembers(ms []graphresponse.Member, limit int) int {
	n := 0
	for i := range ms {
		var c int
		ms[i].Value, c = capValue(ms[i].Value, limit)
		n += c
	}
	return n
}

// capValue returns v with its long strings cut, and how many were.
func capValue(v graphresponse.Value, limit int) (graphresponse.Value, int) {
	return graphresponse.MapStrings(v, false, func(s string) (string, bool) { return capString(s, limit) })
}
