package compiler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/graphwire/graphwire/graphresponse"
)

// EdgeSet is one cached edge set ([Compiler.EdgeSet]), compact and indexed by either end.
//
// The kinds of both ends are those of its pair, so an edge is stored as its two ids and the
// index of its traversal_path in a table of the set's distinct paths: 8 + 8 + 4 bytes, plus 4
// for the index by the target end ([EdgeBytes] in all). The edges are kept sorted by source
// id (then target id and path), and a permutation lists them by target id (then source id),
// so the edges of one node, at either end, are found by a binary search: the Go side of a
// cached question costs what it reaches, not the sets' size. An EdgeSet is never modified
// after it is built, and is safe for concurrent use.
type EdgeSet struct {
	pair  EdgePair
	x, y  []int64  // by x, then y, then path
	tp    []int32  // index into paths, parallel to x and y
	byY   []int32  // positions of x/y sorted by y, then x, then path
	paths []string // distinct traversal paths
}

// EdgeBytes is what one edge of an [EdgeSet] takes: two ids, a path index and a position in
// the index by target. The paths themselves are counted once per set ([EdgeSet.Bytes]).
const EdgeBytes = int64(8 + 8 + 4 + 4)

// edgeSetBytes is what a set takes beyond its edges and paths: the struct and its slice
// headers.
const edgeSetBytes = int64(unsafe.Sizeof(EdgeSet{}))

// maxSetEdges bounds the edges of one set: positions are int32.
const maxSetEdges = math.MaxInt32

// NewEdgeSet returns the set of pair holding edges, whose ends must be of the pair's kinds.
func NewEdgeSet(pair EdgePair, edges []PathEdge) (*EdgeSet, error) {
	d := &EdgeSetDecoder{pair: pair, paths: map[string]int32{}}
	for i, e := range edges {
		if e.X.Kind != pair.From || e.Y.Kind != pair.To {
			return nil, fmt.Errorf("edge set %s: edge %d from %s to %s", pair, i, e.X.Kind, e.Y.Kind)
		}
		if err := d.add(e.X.ID, e.Y.ID, e.TP); err != nil {
			return nil, err
		}
	}
	return d.Set(), nil
}

// Pair is the set's pair.
func (s *EdgeSet) Pair() EdgePair { return s.pair }

// Len is the number of edges in the set (0 for a nil set).
func (s *EdgeSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.x)
}

// Bytes is the memory the set takes: its edges at capacity, its paths (as allocated) and
// their headers, and the struct.
func (s *EdgeSet) Bytes() int64 {
	if s == nil {
		return 0
	}
	n := edgeSetBytes + allocBytes(8*int64(cap(s.x))) + allocBytes(8*int64(cap(s.y))) +
		allocBytes(4*int64(cap(s.tp))) + allocBytes(4*int64(cap(s.byY)))
	n += allocBytes(int64(cap(s.paths)) * int64(unsafe.Sizeof("")))
	for _, p := range s.paths {
		n += pathBytes(p)
	}
	return n
}

// pathBytes is what the text of path p takes on the heap: its length rounded up to the
// allocator's 16-byte step for small objects. Counting the length alone let a set of many
// distinct short paths take 4–12% more than it counted (100,000 edges with a path of 14
// bytes each: 4%, TestEdgeSetBytesCoverItsHeap), and so a caller more than its share.
func pathBytes(p string) int64 {
	return (int64(len(p)) + 15) &^ 15
}

// allocBytes is what an array of n bytes takes on the heap: above 32 KiB the allocator
// gives whole 8 KiB pages (up to 8 KiB more per array: the five arrays of a set of 100,000
// edges took 13 KB more than their lengths).
func allocBytes(n int64) int64 {
	if n <= 32<<10 {
		return n
	}
	return (n + 8<<10 - 1) &^ (8<<10 - 1)
}

// Edge returns the edge at position i (0 ≤ i < Len) in the order by source id.
func (s *EdgeSet) Edge(i int) PathEdge {
	return PathEdge{X: graphresponse.NodeRef{Kind: s.pair.From, ID: s.x[i]}, Y: graphresponse.NodeRef{Kind: s.pair.To, ID: s.y[i]}, TP: s.paths[s.tp[i]]}
}

// xRange returns the positions [lo, hi) of the edges whose source id is in [a, b].
func (s *EdgeSet) xRange(a, b int64) (int, int) {
	lo, _ := slices.BinarySearch(s.x, a)
	hi := lo
	if b == math.MaxInt64 {
		hi = len(s.x)
	} else {
		hi, _ = slices.BinarySearch(s.x[lo:], b+1)
		hi += lo
	}
	return lo, hi
}

// yRange returns the range [lo, hi) of byY whose edges' target id is in [a, b].
func (s *EdgeSet) yRange(a, b int64) (int, int) {
	at := func(v int64) int {
		i, _ := slices.BinarySearchFunc(s.byY, v, func(p int32, v int64) int { return cmp.Compare(s.y[p], v) })
		return i
	}
	lo := at(a)
	hi := len(s.byY)
	if b != math.MaxInt64 {
		hi = at(b + 1)
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// idSel selects node ids: those of ids (ascending, no repeats) within [lo, hi], or, when all,
// every id in [lo, hi].
type idSel struct {
	ids    []int64
	all    bool
	lo, hi int64
}

// noIDs selects no id.
func noIDs() idSel { return idSel{lo: 1, hi: 0} }

// oneID selects id alone.
func oneID(id int64) idSel { return idSel{ids: []int64{id}, lo: id, hi: id} }

// idsOf selects the ids of m.
func idsOf(m map[int64]bool) idSel {
	ids := make([]int64, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return idSel{ids: ids, lo: math.MinInt64, hi: math.MaxInt64}
}

// namedIDs selects the ids node n names: its node_ids within its id_range, its id_range, or
// every id when it names none.
func namedIDs(n *nodeSel) idSel {
	s := idSel{lo: math.MinInt64, hi: math.MaxInt64, all: !n.hasIDs}
	if n.idRange != nil {
		s.lo, s.hi = n.idRange[0], n.idRange[1]
	}
	if n.hasIDs {
		s.ids = slices.Clone(n.nodeIDs)
		slices.Sort(s.ids)
		s.ids = slices.Compact(s.ids)
	}
	return s
}

// each calls f with the position (in the order by source id) of every edge whose source
// (fromX) or target (!fromX) id sel selects, in no particular order; it stops when f returns
// false. Only the selected edges are visited, found by binary search, except when a range
// of target ids selects more than a quarter of the set: then the set is read in order.
func (s *EdgeSet) each(fromX bool, sel idSel, f func(i int) bool) {
	if s.Len() == 0 || sel.lo > sel.hi {
		return
	}
	visit := func(a, b int64) bool {
		if fromX {
			lo, hi := s.xRange(a, b)
			for i := lo; i < hi; i++ {
				if !f(i) {
					return false
				}
			}
			return true
		}
		lo, hi := s.yRange(a, b)
		if 4*(hi-lo) > len(s.byY) {
			// Most of the set: in the order by source, a sequential read, is about twice as
			// fast as through the permutation.
			for i, y := range s.y {
				if y >= a && y <= b && !f(i) {
					return false
				}
			}
			return true
		}
		for _, p := range s.byY[lo:hi] {
			if !f(int(p)) {
				return false
			}
		}
		return true
	}
	if sel.all {
		visit(sel.lo, sel.hi)
		return
	}
	for _, id := range sel.ids {
		if id >= sel.lo && id <= sel.hi && !visit(id, id) {
			return
		}
	}
}

// EdgeSetDecoder reads the rows of an [Compiler.EdgeSet] statement one at a time into an
// [EdgeSet]; the traversal paths are interned in the set's table.
type EdgeSetDecoder struct {
	pair  EdgePair
	ix    []int
	n     int
	x, y  []int64
	tp    []int32
	paths map[string]int32
}

// NewEdgeSetDecoder returns a decoder of the rows, with columns cols, of pair's set.
func NewEdgeSetDecoder(pair EdgePair, cols []string) (*EdgeSetDecoder, error) {
	ix, err := columnsOf(cols, EdgeSetCols...)
	if err != nil {
		return nil, err
	}
	return &EdgeSetDecoder{pair: pair, ix: ix, paths: map[string]int32{}}, nil
}

// Len is the number of edges read so far.
func (d *EdgeSetDecoder) Len() int { return len(d.x) }

// Add reads the next row.
func (d *EdgeSetDecoder) Add(row []any) error {
	d.n++
	x, ok1 := row[d.ix[0]].(int64)
	xk, ok2 := row[d.ix[1]].(string)
	y, ok3 := row[d.ix[2]].(int64)
	yk, ok4 := row[d.ix[3]].(string)
	tp, ok5 := row[d.ix[5]].(string)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return fmt.Errorf("edge set %s row %d: want strings and integer ids, got %v", d.pair, d.n-1, row)
	}
	if xk != d.pair.From || yk != d.pair.To {
		return fmt.Errorf("edge set %s row %d: an edge from %s to %s", d.pair, d.n-1, xk, yk)
	}
	return d.add(x, y, tp)
}

func (d *EdgeSetDecoder) add(x, y int64, tp string) error {
	if len(d.x) >= maxSetEdges {
		return fmt.Errorf("edge set %s: more than %d edges", d.pair, maxSetEdges)
	}
	i, ok := d.paths[tp]
	if !ok {
		i = int32(len(d.paths))
		d.paths[strings.Clone(tp)] = i
	}
	d.x, d.y, d.tp = append(d.x, x), append(d.y, y), append(d.tp, i)
	return nil
}

// Set returns the set of the rows read, sorted and indexed; the decoder is then empty.
func (d *EdgeSetDecoder) Set() *EdgeSet {
	s := &EdgeSet{pair: d.pair, paths: make([]string, len(d.paths))}
	for p, i := range d.paths {
		s.paths[i] = p
	}
	n := len(d.x)
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	// Ties are broken by the path's text, so that the order does not depend on the rows'.
	slices.SortFunc(perm, func(a, b int32) int {
		if c := cmp.Compare(d.x[a], d.x[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(d.y[a], d.y[b]); c != 0 {
			return c
		}
		return strings.Compare(s.paths[d.tp[a]], s.paths[d.tp[b]])
	})
	s.x, s.y, s.tp = make([]int64, n), make([]int64, n), make([]int32, n)
	for i, p := range perm {
		s.x[i], s.y[i], s.tp[i] = d.x[p], d.y[p], d.tp[p]
	}
	// By target: the positions in source order, stably sorted by target id, are sorted by
	// (y, x, path).
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return cmp.Compare(s.y[a], s.y[b]) })
	s.byY = perm
	d.x, d.y, d.tp, d.paths, d.n = nil, nil, nil, map[string]int32{}, 0
	return s
}
