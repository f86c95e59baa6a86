package compiler

import (
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/graphresponse"
)

// indexed builds the EdgeSet of each pair of sets.
func indexed(tb testing.TB, sets map[EdgePair][]PathEdge) map[EdgePair]*EdgeSet {
	tb.Helper()
	out := make(map[EdgePair]*EdgeSet, len(sets))
	for p, edges := range sets {
		s, err := NewEdgeSet(p, edges)
		if err != nil {
			tb.Fatal(err)
		}
		out[p] = s
	}
	return out
}

// TestEdgeSetIndex: the edges each visits by either end are exactly those a scan of the set
// keeps, for single ids, lists of ids, ranges and every id, on sets with nodes without edges,
// self loops, an edge stored under two paths, ids at the int64 extremes, and an empty set.
func TestEdgeSetIndex(t *testing.T) {
	pair := EdgePair{"CONTAINS", "Group", "Group"}
	e := func(x, y int64, tp string) PathEdge {
		return PathEdge{X: graphresponse.NodeRef{Kind: "Group", ID: x}, Y: graphresponse.NodeRef{Kind: "Group", ID: y}, TP: tp}
	}
	const lo, hi = math.MinInt64, math.MaxInt64
	edges := []PathEdge{
		e(5, 6, "1/"), e(5, 5, "1/"), // a self loop
		e(7, 8, "1/"), e(7, 8, "1/2/"), // one edge under two paths
		e(lo, hi, "1/"), e(hi, lo, "1/"), e(hi, hi, "9/"), e(lo, lo, "9/"), e(lo, 0, "1/"), e(0, hi, "1/"),
		e(-3, 5, "1/"), e(6, 5, "1/"), e(5, 6, "3/"),
	}
	tests := []struct {
		name  string
		edges []PathEdge
	}{{"edges", edges}, {"reversed", reversed(edges)}, {"empty", nil}}
	sels := []struct {
		name string
		sel  idSel
		in   func(int64) bool
	}{
		{"no edges", oneID(42), func(id int64) bool { return id == 42 }},
		{"self loop", oneID(5), func(id int64) bool { return id == 5 }},
		{"min", oneID(lo), func(id int64) bool { return id == lo }},
		{"max", oneID(hi), func(id int64) bool { return id == hi }},
		{"list", idsOf(map[int64]bool{lo: true, 7: true, 42: true, hi: true}), func(id int64) bool { return id == lo || id == 7 || id == 42 || id == hi }},
		{"range", idSel{all: true, lo: -3, hi: 6}, func(id int64) bool { return id >= -3 && id <= 6 }},
		{"narrow range", idSel{all: true, lo: 7, hi: 8}, func(id int64) bool { return id >= 7 && id <= 8 }},
		{"range to max", idSel{all: true, lo: 6, hi: hi}, func(id int64) bool { return id >= 6 }},
		{"all", idSel{all: true, lo: lo, hi: hi}, func(int64) bool { return true }},
		{"list in range", idSel{ids: []int64{lo, 5, 7, hi}, lo: 5, hi: 7}, func(id int64) bool { return id == 5 || id == 7 }},
		{"none", noIDs(), func(int64) bool { return false }},
	}
	for _, tt := range tests {
		s, err := NewEdgeSet(pair, tt.edges)
		if err != nil {
			t.Fatal(err)
		}
		if s.Len() != len(tt.edges) {
			t.Fatalf("%s: %d edges, want %d", tt.name, s.Len(), len(tt.edges))
		}
		for _, sl := range sels {
			for _, fromX := range []bool{true, false} {
				var got, want []PathEdge
				s.each(fromX, sl.sel, func(i int) bool {
					got = append(got, s.Edge(i))
					return true
				})
				for _, e := range tt.edges {
					if end := e.Y.ID; (fromX && sl.in(e.X.ID)) || (!fromX && sl.in(end)) {
						want = append(want, e)
					}
				}
				key := func(e PathEdge) []int64 {
					if fromX {
						return []int64{e.X.ID, e.Y.ID}
					}
					return []int64{e.Y.ID, e.X.ID}
				}
				cmpEdge := func(a, b PathEdge) int {
					if c := slices.Compare(key(a), key(b)); c != 0 {
						return c
					}
					return strings.Compare(a.TP, b.TP)
				}
				slices.SortFunc(got, cmpEdge)
				slices.SortFunc(want, cmpEdge)
				if !slices.Equal(got, want) {
					t.Errorf("%s, %s, from x %v:\ngot  %v\nwant %v", tt.name, sl.name, fromX, got, want)
				}
			}
		}
	}
}

// TestEdgeSetRejects: a set refuses an edge whose ends are not of its pair's kinds, and its
// decoder a row of other kinds or types.
func TestEdgeSetRejects(t *testing.T) {
	pair := EdgePair{"MEMBER_OF", "User", "Group"}
	if _, err := NewEdgeSet(pair, []PathEdge{{X: graphresponse.NodeRef{Kind: "Group", ID: 1}, Y: graphresponse.NodeRef{Kind: "Group", ID: 2}}}); err == nil {
		t.Error("an edge Group→Group in a User→Group set was kept")
	}
	d, err := NewEdgeSetDecoder(pair, EdgeSetCols)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range [][]any{
		{int64(1), "Group", int64(2), "Group", "MEMBER_OF", "1/"},
		{int64(1), "User", "2", "Group", "MEMBER_OF", "1/"},
		{int64(1), "User", int64(2), "Group", "MEMBER_OF", nil},
	} {
		if err := d.Add(row); err == nil {
			t.Errorf("row %v was read", row)
		}
	}
	if err := d.Add([]any{int64(1), "User", int64(2), "Group", "MEMBER_OF", "1/"}); err != nil {
		t.Fatal(err)
	}
	if s := d.Set(); s.Len() != 1 || s.Edge(0) != (PathEdge{X: graphresponse.NodeRef{Kind: "User", ID: 1}, Y: graphresponse.NodeRef{Kind: "Group", ID: 2}, TP: "1/"}) {
		t.Errorf("set %v, want the one edge read", s)
	}
}

// BenchmarkEdgeSetBytes: the memory an edge set of n edges holds once built, per edge, as
// allocated (live heap after a collection) and as accounted (EdgeSet.Bytes), with 1,000
// distinct paths.
//
//	go test ./compiler -run '^$' -bench BenchmarkEdgeSetBytes -benchmem
func BenchmarkEdgeSetBytes(b *testing.B) {
	const n = 1_000_000
	paths := make([]string, 1000)
	for i := range paths {
		paths[i] = "1/" + strconv.Itoa(i) + "/"
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i * 7 % n), "User", int64(i), "Group", "MEMBER_OF", paths[i%len(paths)]}
	}
	pair := EdgePair{"MEMBER_OF", "User", "Group"}
	var held, accounted float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d, err := NewEdgeSetDecoder(pair, EdgeSetCols)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rows {
			if err := d.Add(r); err != nil {
				b.Fatal(err)
			}
		}
		s := d.Set()
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
		accounted = float64(s.Bytes()) / n
		runtime.KeepAlive(s)
	}
	b.ReportMetric(held, "held-B/edge")
	b.ReportMetric(accounted, "accounted-B/edge")
}

func reversed(edges []PathEdge) []PathEdge {
	out := slices.Clone(edges)
	slices.Reverse(out)
	return out
}
