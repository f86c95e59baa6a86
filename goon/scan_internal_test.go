package goon

import (
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// TestScanMatchesDefinitions checks the one-pass classes of scan against
// the functions they stand for, isBare and appendQuoted copying its input,
// and the identifier fast path printableASCII against textsafe.AppendMarked
// leaving its input alone. Every byte value appears alone and in seeded
// strings.
func TestScanMatchesDefinitions(t *testing.T) {
	var inputs []string
	for c := range 256 {
		inputs = append(inputs, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	inputs = append(inputs, "", "true", "false", "null", "True", "nul", "a\"b", `a\b`, "x\x7fy", "é", "\u2028")
	r := rand.New(rand.NewPCG(18, 3))
	alphabet := []byte("az09_-:./@+ \"\\\x00\x1f\x7f\x80\xc2\xe2\xff!~")
	for range 20000 {
		b := make([]byte, r.IntN(40))
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
		if m, changed := textsafe.AppendMarked(nil, s, nil); printableASCII(s) && (string(m) != s || changed) {
			t.Fatalf("printableASCII(%q), but AppendMarked gives %q, %v", s, m, changed)
		}
		if c&plainQuoted != 0 {
			plain++
		}
	}
	if plain < len(inputs)/100 {
		t.Fatalf("only %d of %d inputs are plainQuoted", plain, len(inputs))
	}
}

// TestSortedEdgesByKey checks the rank-key edge sort against its
// definition, a stable sort by edgeCompare then deduplication, on seeded
// edge lists: names equal in content but not in storage, names that share
// prefixes, present and absent depths, repeated edges, and (for the
// fallback) path ids, ids the key cannot hold, or more distinct names than
// the key sort ranks.
func TestSortedEdgesByKey(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 4))
	for round := range 400 {
		nNames := 1 + r.IntN(12)
		if round%50 == 0 {
			nNames = maxEdgeNames + 20
		}
		names := make([]string, nNames)
		for i := range names {
			names[i] = []string{"", "A", "AB", "ABC", "B", "IN_PROJECT", "IN_PROJECTS", "IN_GROUP"}[i%8] + strings.Repeat("x", i/8)
		}
		resp := &graphresponse.Response{}
		for range r.IntN(300) {
			// strings.Clone gives equal names separate storage.
			name := func() string { return strings.Clone(names[r.IntN(len(names))]) }
			id := func() int64 {
				switch {
				case round%11 == 0 && r.IntN(20) == 0:
					return []int64{-1, maxKeyedID, math.MaxInt64, math.MinInt64}[r.IntN(4)] // fallback
				case r.IntN(2) == 0:
					return maxKeyedID - 1 - int64(r.IntN(3))
				}
				return int64(r.IntN(5))
			}
			ed := graphresponse.Edge{Type: name(), From: name(), FromID: id(), To: name(), ToID: id()}
			if r.IntN(3) == 0 {
				ed.Depth = graphresponse.OptInt{Valid: true, Value: []int64{-1, 0, 1, math.MinInt64, math.MaxInt64}[r.IntN(5)]}
			}
			if round%7 == 0 && r.IntN(10) == 0 {
				ed.PathID = graphresponse.OptInt{Valid: true, Value: 1}
			}
			resp.Edges = append(resp.Edges, ed)
		}
		var want []*graphresponse.Edge
		refs := make([]*graphresponse.Edge, len(resp.Edges))
		for i := range resp.Edges {
			refs[i] = &resp.Edges[i]
		}
		slices.SortStableFunc(refs, edgeCompare)
		for _, ed := range refs {
			if len(want) > 0 && sameEdge(want[len(want)-1], ed) {
				continue
			}
			want = append(want, ed)
		}
		e := NewEncoder(io.Discard, Options{})
		got := slices.Clone(e.sortedEdges(resp))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: sortedEdges differs from its definition", round)
		}
	}
}

// appendStringDefinition is appendString written as §3.7 reads, the way it
// was before the single-pass classes: truncate by building the string,
// then the datetime, bare and quoted decisions in turn.
func appendStringDefinition(b []byte, key, s string) ([]byte, int, bool) {
	if s == "" {
		return b, 0, false
	}
	orig := 0
	if lim := limit(key); utf8.RuneCountInString(s) > lim {
		orig = utf8.RuneCountInString(s)
		cut := 0
		for range lim - 3 {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
		}
		s = s[:cut] + "..."
	}
	if isClickHouseDateTime(s) {
		b = append(b, s[:10]...)
		b = append(b, 'T')
		return append(b, s[11:]...), orig, false
	}
	if isBare(s) {
		return append(b, s...), orig, false
	}
	b, changed := appendQuoted(b, s)
	return b, orig, changed
}

// TestAppendStringMatchesDefinition compares appendString with
// appendStringDefinition on seeded strings around the truncation limits,
// made of bare, quoted, escaped, multi-byte, marked and invalid bytes, and
// on datetimes and keywords.
func TestAppendStringMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 5))
	pieces := []string{"a", "Z", "9", "_", ".", " ", "\"", "\\", "\n", "\x01", "\x7f", "é", "\u2028", "⟦", "\xff", "\xe2\x80", "日本"}
	inputs := []string{"true", "null", "2024-01-02 03:04:05", "2024-01-02 03:04:05.123", "2024-02-30 03:04:05"}
	for range 3000 {
		var sb strings.Builder
		n := []int{r.IntN(30), 190 + r.IntN(30), 990 + r.IntN(30)}[r.IntN(3)]
		uniform := r.IntN(3) == 0 // long runs of one class reach the word loop
		p := pieces[r.IntN(len(pieces))]
		for range n {
			if !uniform {
				p = pieces[r.IntN(len(pieces))]
			}
			sb.WriteString(p)
		}
		inputs = append(inputs, sb.String())
	}
	for _, s := range inputs {
		for _, key := range []string{"name", "state"} {
			got, gotLen, gotChanged := appendString([]byte("x="), key, s)
			want, wantLen, wantChanged := appendStringDefinition([]byte("x="), key, s)
			if string(got) != string(want) || gotLen != wantLen || gotChanged != wantChanged {
				t.Fatalf("appendString(%q, %q) = %q, %d, %v; want %q, %d, %v", key, s, got, gotLen, gotChanged, want, wantLen, wantChanged)
			}
		}
	}
}

// TestLiftNodesFirstOccurrence checks liftNodes against its definition,
// the first occurrence of each (type, id) in row and column order, on
// enough distinct nodes to pass from the scan to the map, twice with one
// encoder (the scratch space is reused).
func TestLiftNodesFirstOccurrence(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 6))
	resp := &graphresponse.Response{QueryType: graphresponse.QueryAggregation,
		GroupColumns: []graphresponse.GroupColumn{{Name: "a", Kind: graphresponse.GroupKindNode}, {Name: "p", Kind: graphresponse.GroupKindProperty}, {Name: "b", Kind: graphresponse.GroupKindNode}}}
	type key struct {
		typ string
		id  int64
	}
	var want []key
	seen := map[key]bool{}
	for i := range 300 {
		row := graphresponse.Row{{Key: "p", Value: graphresponse.String("x")}}
		for _, col := range []string{"a", "b"} {
			k := key{[]string{"User", "Project"}[r.IntN(2)], int64(r.IntN(80))}
			row = append(row, graphresponse.Member{Key: col, Value: graphresponse.Object(
				graphresponse.Member{Key: "type", Value: graphresponse.String(k.typ)},
				graphresponse.Member{Key: "id", Value: graphresponse.String(strconv.FormatInt(k.id, 10))},
				graphresponse.Member{Key: "properties", Value: graphresponse.Object(graphresponse.Member{Key: "n", Value: graphresponse.String(strconv.Itoa(i))})})})
			if !seen[k] {
				seen[k] = true
				want = append(want, k)
			}
		}
		resp.Rows = append(resp.Rows, row)
	}
	e := NewEncoder(io.Discard, Options{Version: "1.0.0"})
	for round := range 2 {
		var got []key
		for _, n := range e.liftNodes(resp) {
			got = append(got, key{n.Type, n.ID})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: liftNodes gives %d nodes %v, want %d %v", round, len(got), got, len(want), want)
		}
		if err := e.Encode(resp); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRunePrefix compares runePrefix with the utf8 package on seeded
// strings of ASCII runs, multi-byte and invalid bytes: the whole count,
// and the offset after a prefix of each length up to one past the end.
func TestRunePrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 7))
	// Two-byte sequences are decoded inline: valid ones at both ends of
	// the lead range, a lead without its continuation byte, overlong C0/C1.
	pieces := []string{"abcdefgh", "a", "é", "日", "\xff", "\xe2\x80", "\U0001F600", "12345678901",
		"\u0080", "\u07ff", "\xc3", "\xc0\x80", "\xc1\xbf", "\xdf"}
	for range 5000 {
		var sb strings.Builder
		for range r.IntN(40) {
			sb.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := sb.String()
		n := utf8.RuneCountInString(s)
		if off, got := runePrefix(s, len(s)); got != n || off != len(s) {
			t.Fatalf("runePrefix(%q, len) = %d, %d, want %d, %d", s, off, got, len(s), n)
		}
		k := r.IntN(n + 2)
		want := 0
		for range min(k, n) {
			_, size := utf8.DecodeRuneInString(s[want:])
			want += size
		}
		if off, got := runePrefix(s, k); off != want || got != min(k, n) {
			t.Fatalf("runePrefix(%q, %d) = %d, %d, want %d, %d", s, k, off, got, want, min(k, n))
		}
	}
}
