package gcf

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// This file is the direct gcf-graph writer used by Encoder.Encode: it
// produces exactly the bytes of ToGraph followed by EncodeGraph, without
// building the intermediate Graph, and keeps its working memory in the
// Encoder so that repeated encodes allocate next to nothing.

// respScratch is reusable state of the gcf-graph writer.
type respScratch struct {
	index     map[NodeRef]int32
	names     []byte  // node names "Type:ID", concatenated
	nameAt    []int32 // end offset of each name in names
	digest    [][8]byte
	score     []float64
	dist      []int32
	order     []int32
	ids       []int32
	indeg     []int32
	adjAt     []int32 // CSR adjacency offsets
	adj       []int32
	fill      []int32
	queue     []int32
	edges     []fastEdge
	ends      []int32 // per response edge: from and to node index, -1 when absent
	perm      []int32
	tmp       []byte
	cat       []byte
	rootEdges []fastEdge
	typeList  []string
	nameKeys  []nameKey
	sha       hash.Hash // reused: cheaper than a sha256.Sum256 per digest
	sum       [sha256.Size]byte
	// Node index for graphs above linearNodes with at most maxTableTypes
	// node types: open addressing over (type position, id), so a lookup
	// hashes two integers instead of a string. Others use index.
	useTable  bool
	fewTypes  bool     // types and tix are set: at most maxTableTypes types
	types     []string // distinct node types in first-seen order
	tix       []int32  // per node: position of its type in types
	slots     []int32  // node index + 1 per slot, 0 when empty
	slotShift uint8
	edgeTypes []string // distinct edge types in byte order, when packed
	edgeKeys  []uint64
	packed    bool // edges carry tr and sorted through edgeKeys
	counts    []int32
}

// nameKey is the pack-root sort key of one node (see packRoot).
type nameKey struct {
	hi, lo uint64
	i      int32
}

type fastEdge struct {
	src, tgt int32
	tr       int32 // rank of typ in edgeTypes, when packed
	typ      string
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func (s *respScratch) name(i int32) []byte {
	start := int32(0)
	if i > 0 {
		start = s.nameAt[i-1]
	}
	return s.names[start:s.nameAt[i]]
}

// linearNodes is the node count up to which nodes are looked up by a linear
// scan instead of a hash index.
const linearNodes = 32

// maxTableTypes is the most distinct node types the open-addressing node
// index takes; types are found by a linear scan.
const maxTableTypes = 16

// initIndex prepares the node index of r's nodes for seen and lookup.
func (s *respScratch) initIndex(r *graphresponse.Response) {
	n := len(r.Nodes)
	s.fewTypes = true
	s.types = s.types[:0]
	s.tix = growInt32(s.tix, n)
	for i := range r.Nodes {
		t := slices.Index(s.types, r.Nodes[i].Type)
		if t < 0 {
			if len(s.types) == maxTableTypes {
				s.fewTypes = false
				break
			}
			t = len(s.types)
			s.types = append(s.types, r.Nodes[i].Type)
		}
		s.tix[i] = int32(t)
	}
	if n <= linearNodes {
		return
	}
	if s.useTable = s.fewTypes; s.useTable {
		// At most half full.
		b := bits.Len(uint(2*n - 1))
		s.slotShift = uint8(64 - b)
		s.slots = growInt32(s.slots, 1<<b)
		clear(s.slots)
		return
	}
	if s.index == nil {
		s.index = make(map[NodeRef]int32, n)
	} else {
		clear(s.index)
	}
}

// slot returns the home slot of (type position t, id) in s.slots.
func (s *respScratch) slot(t int32, id int64) int {
	return int((uint64(id) ^ uint64(t)<<56) * 0x9E3779B97F4A7C15 >> s.slotShift)
}

// seen reports whether node i repeats an earlier (type, id), recording it.
func (s *respScratch) seen(r *graphresponse.Response, i int) bool {
	nd := &r.Nodes[i]
	if len(r.Nodes) <= linearNodes {
		return s.lookup(r, nd.Type, nd.ID) < int32(i)
	}
	if s.useTable {
		t, mask := s.tix[i], len(s.slots)-1
		for h := s.slot(t, nd.ID); ; h = (h + 1) & mask {
			j := s.slots[h] - 1
			if j < 0 {
				s.slots[h] = int32(i) + 1
				return false
			}
			if r.Nodes[j].ID == nd.ID && s.tix[j] == t {
				return true
			}
		}
	}
	ref := NodeRef{nd.Type, nd.ID}
	if _, dup := s.index[ref]; dup {
		return true
	}
	s.index[ref] = int32(i)
	return false
}

// lookup returns the index of the first node (type, id), or -1.
func (s *respScratch) lookup(r *graphresponse.Response, typ string, id int64) int32 {
	if len(r.Nodes) <= linearNodes {
		for i := range r.Nodes {
			if r.Nodes[i].ID == id && r.Nodes[i].Type == typ {
				return int32(i)
			}
		}
		return -1
	}
	if s.useTable {
		t := int32(slices.Index(s.types, typ))
		if t < 0 {
			return -1
		}
		mask := len(s.slots) - 1
		for h := s.slot(t, id); ; h = (h + 1) & mask {
			j := s.slots[h] - 1
			if j < 0 {
				return -1
			}
			if r.Nodes[j].ID == id && s.tix[j] == t {
				return j
			}
		}
	}
	if i, ok := s.index[NodeRef{typ, id}]; ok {
		return i
	}
	return -1
}

// appendResponseGraph writes the full gcf-graph payload of r.
func appendResponseGraph(dst []byte, r *graphresponse.Response, opts Options, s *respScratch) ([]byte, error) {
	if r.QueryType == graphresponse.QueryAggregation {
		return dst, &EncodeError{Path: "/query_type", Err: ErrUnsupportedQuery, Detail: "aggregation responses have no topology; use gcf"}
	}
	if opts.Tool != "" && !isToken(opts.Tool) {
		return dst, &EncodeError{Path: "/tool", Err: ErrInvalidToken, Detail: "tool must be printable non-space ASCII"}
	}
	qt := r.QueryType
	if qt != "" && !isToken(qt) {
		return dst, unrepresentable("/query_type", "query type must be printable non-space ASCII")
	}
	n := len(r.Nodes)
	s.initIndex(r)
	s.names = s.names[:0]
	s.nameAt = growInt32(s.nameAt, n)
	if cap(s.digest) < n {
		s.digest = make([][8]byte, n)
		s.score = make([]float64, n)
	}
	s.digest, s.score = s.digest[:n], s.score[:n]
	for i := range r.Nodes {
		nd := &r.Nodes[i]
		if !isBareKey(nd.Type) || isKnownKind(nd.Type) {
			return dst, unrepresentable("/nodes/"+strconv.Itoa(i)+"/type", "node type "+strconv.Quote(nd.Type)+" is not usable as a graph kind")
		}
		ref := NodeRef{nd.Type, nd.ID}
		if s.seen(r, i) {
			return dst, unrepresentable("/nodes/"+strconv.Itoa(i), "two nodes share type "+nd.Type+" and id "+strconv.FormatInt(nd.ID, 10))
		}
		if err := s.nodeDigest(i, nd.Props); err != nil {
			return dst, atPath(err, "nodes/"+strconv.Itoa(i))
		}
		s.score[i] = 1
		if sc, ok := opts.Graph.Scores[ref]; ok {
			if !isFinite(sc) {
				return dst, &EncodeError{Path: "/nodes/" + strconv.Itoa(i), Err: ErrNonFinite, Detail: "score is not finite"}
			}
			s.score[i] = Quantize(sc)
		}
		s.names = append(s.names, nd.Type...)
		s.names = append(s.names, ':')
		s.names = appendInt(s.names, nd.ID)
		s.nameAt[i] = int32(len(s.names))
	}
	// Edges: resolve and count omissions. Duplicates are dropped after
	// sorting, where they are adjacent.
	s.edges = s.edges[:0]
	s.ends = growInt32(s.ends, 2*len(r.Edges))
	omitted := 0
	for i := range r.Edges {
		e := &r.Edges[i]
		fi, ti := s.lookup(r, e.From, e.FromID), s.lookup(r, e.To, e.ToID)
		s.ends[2*i], s.ends[2*i+1] = fi, ti
		if fi < 0 || ti < 0 {
			omitted++
			continue
		}
		typ := e.Type
		if typ == "" {
			typ = "_"
		}
		if !isToken(typ) {
			return dst, unrepresentable("/edges/"+strconv.Itoa(i)+"/type", "edge type must be printable non-space ASCII")
		}
		s.edges = append(s.edges, fastEdge{src: fi, tgt: ti, typ: typ})
	}
	s.distances(r, opts.Graph)
	// Emission order and ids.
	s.sortOrder(n)
	s.ids = growInt32(s.ids, n)
	for pos, i := range s.order {
		s.ids[i] = int32(pos)
	}
	// The order is total on (source, target, type), so equal edges are
	// identical and sit next to each other; Compact keeps one of each.
	if s.packed = s.sortEdgesPacked(n); !s.packed {
		slices.SortFunc(s.edges, func(a, b fastEdge) int {
			if c := cmp.Compare(s.ids[a.src], s.ids[b.src]); c != 0 {
				return c
			}
			if c := cmp.Compare(s.ids[a.tgt], s.ids[b.tgt]); c != 0 {
				return c
			}
			return strings.Compare(a.typ, b.typ)
		})
		s.edges = slices.Compact(s.edges)
	}
	root := s.packRoot(r, qt)

	dst = append(dst, "GCF profile=graph"...)
	if opts.Tool != "" {
		dst = appendHeaderStr(dst, "tool", opts.Tool)
	}
	dst = appendHeaderInt(dst, "symbols", n)
	if len(s.edges) > 0 {
		dst = appendHeaderInt(dst, "edges", len(s.edges))
	}
	dst = append(dst, " pack_root="...)
	dst = append(dst, "sha256:"...)
	dst = hex.AppendEncode(dst, root[:])
	if qt != "" {
		dst = appendHeaderStr(dst, "query_type", qt)
	}
	if p := r.Pagination; p != nil {
		if p.HasMore {
			dst = append(dst, " has_more=true"...)
		}
		if p.NextCursor != nil {
			if !isToken(*p.NextCursor) {
				return dst, unrepresentable("/pagination/next_cursor", "cursor does not fit the header grammar")
			}
			dst = appendHeaderStr(dst, "next_cursor", *p.NextCursor)
		}
	}
	if omitted > 0 {
		dst = appendHeaderInt(dst, "omitted_edges", omitted)
	}
	dst = append(dst, '\n')
	cur := int32(-1)
	for pos, i := range s.order {
		if d := s.dist[i]; d != cur {
			cur = d
			dst = append(dst, "## "...)
			dst = appendGroupName(dst, int(d))
			dst = append(dst, '\n')
		}
		dst = append(dst, '@')
		dst = appendInt(dst, int64(pos))
		dst = append(dst, ' ')
		dst = append(dst, r.Nodes[i].Type...)
		dst = append(dst, ' ')
		dst = append(dst, s.name(i)...)
		dst = append(dst, ' ')
		dst = appendScore(dst, s.score[i])
		dst = append(dst, ' ')
		dst = append(dst, qt...)
		dst = append(dst, '.')
		dst = append(dst, s.digest[i][:]...)
		dst = append(dst, '\n')
	}
	if len(s.edges) > 0 {
		dst = append(dst, "## edges ["...)
		dst = strconv.AppendInt(dst, int64(len(s.edges)), 10)
		dst = append(dst, "]\n"...)
		for _, e := range s.edges {
			dst = appendEdgeLine(dst, int(s.ids[e.tgt]), int(s.ids[e.src]), e.typ, "")
		}
	}
	return dst, nil
}

// Packed edge sort keys: source rank, target rank and type rank in one
// uint64, so that integer order is (source, target, type) order.
const (
	packSrcShift = 40
	packTgtShift = 16
	packNodeMask = 1<<24 - 1
	packTypeMask = 1<<16 - 1
	maxEdgeTypes = 64 // distinct types found by linear scan
)

// sortEdgesPacked sorts and deduplicates s.edges by (source id, target id,
// type) through packed integer keys, setting each edge's tr. It reports
// false, changing nothing, when the graph is too large or has too many edge
// types for the keys.
func (s *respScratch) sortEdgesPacked(n int) bool {
	if n > packNodeMask {
		return false
	}
	s.edgeTypes = s.edgeTypes[:0]
	for i := range s.edges {
		if !slices.Contains(s.edgeTypes, s.edges[i].typ) {
			if len(s.edgeTypes) == maxEdgeTypes {
				return false
			}
			s.edgeTypes = append(s.edgeTypes, s.edges[i].typ)
		}
	}
	// Byte order of the types, as strings.Compare orders them.
	slices.Sort(s.edgeTypes)
	keys := s.edgeKeys[:0]
	for i := range s.edges {
		e := &s.edges[i]
		tr := slices.Index(s.edgeTypes, e.typ)
		keys = append(keys, uint64(s.ids[e.src])<<packSrcShift|uint64(s.ids[e.tgt])<<packTgtShift|uint64(tr))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	s.edges = s.edges[:len(keys)]
	for i, k := range keys {
		tr := int32(k & packTypeMask)
		s.edges[i] = fastEdge{src: s.order[k>>packSrcShift], tgt: s.order[k>>packTgtShift&packNodeMask], tr: tr, typ: s.edgeTypes[tr]}
	}
	s.edgeKeys = keys
	return true
}

// sortOrder sets s.order to the emission order: distance ascending, score
// descending, input order for ties. Distances are small, so a stable counting
// sort by distance does most of the work; groups are sorted by score only
// when their scores differ.
func (s *respScratch) sortOrder(n int) {
	s.order = growInt32(s.order, n)
	maxDist := int32(0)
	for _, d := range s.dist[:n] {
		maxDist = max(maxDist, d)
	}
	if int(maxDist) > n {
		for i := range s.order {
			s.order[i] = int32(i)
		}
		slices.SortFunc(s.order, func(a, b int32) int {
			if c := cmp.Compare(s.dist[a], s.dist[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(s.score[b], s.score[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		return
	}
	start := growInt32(s.counts, int(maxDist)+2)
	clear(start)
	for _, d := range s.dist[:n] {
		start[d+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	for i := range n {
		d := s.dist[i]
		s.order[start[d]] = int32(i)
		start[d]++
	}
	// start[d] is now the end of group d.
	lo := int32(0)
	for d := int32(0); d <= maxDist; d++ {
		hi := start[d]
		group := s.order[lo:hi]
		for j := 1; j < len(group); j++ {
			if s.score[group[j]] != s.score[group[0]] {
				slices.SortStableFunc(group, func(a, b int32) int { return cmp.Compare(s.score[b], s.score[a]) })
				break
			}
		}
		lo = hi
	}
	s.counts = start
}

// nodeDigest computes the property digest of node i (§3.3.3).
func (s *respScratch) nodeDigest(i int, props []graphresponse.Member) error {
	// Sort a permutation rather than the 56-byte members themselves.
	perm := s.perm[:0]
	for j := range props {
		perm = append(perm, int32(j))
	}
	for j := 1; j < len(perm); j++ {
		for k := j; k > 0 && props[perm[k]].Key < props[perm[k-1]].Key; k-- {
			perm[k], perm[k-1] = perm[k-1], perm[k]
		}
		if j > 64 {
			slices.SortStableFunc(perm, func(a, b int32) int { return strings.Compare(props[a].Key, props[b].Key) })
			break
		}
	}
	s.perm = perm
	b := s.tmp[:0]
	for _, pi := range perm {
		m := &props[pi]
		b = append(b, m.Key...)
		b = append(b, '\t')
		// The common scalars inline; appendDigestValue does the rest.
		switch v := &m.Value; v.Kind() {
		case graphresponse.KindString:
			b = appendQuoted(b, v.Str())
		case graphresponse.KindInt:
			b = appendInt(b, v.Int())
		default:
			var err error
			if b, err = appendDigestValue(b, *v); err != nil {
				s.tmp = b
				return atPath(err, m.Key)
			}
		}
		b = append(b, '\n')
	}
	s.tmp = b
	sum := s.sha256(b)
	hex.Encode(s.digest[i][:], sum[:4])
	return nil
}

// sha256 returns the SHA-256 digest of b, valid until the next call.
func (s *respScratch) sha256(b []byte) []byte {
	if s.sha == nil {
		s.sha = sha256.New()
	}
	s.sha.Reset()
	s.sha.Write(b)
	return s.sha.Sum(s.sum[:0])
}

// distances runs the multi-source breadth-first search of §3.3.4.
func (s *respScratch) distances(r *graphresponse.Response, opts GraphOptions) {
	n := len(r.Nodes)
	s.dist = growInt32(s.dist, n)
	s.indeg = growInt32(s.indeg, n)
	s.adjAt = growInt32(s.adjAt, n+1)
	s.fill = growInt32(s.fill, n)
	for i := range n {
		s.dist[i], s.indeg[i], s.fill[i] = -1, 0, 0
	}
	clear(s.adjAt)
	// Undirected adjacency in CSR form over edges between returned nodes.
	for i := range r.Edges {
		a, b := s.ends[2*i], s.ends[2*i+1]
		if a < 0 || b < 0 || a == b {
			continue
		}
		s.indeg[b]++
		s.adjAt[a+1]++
		s.adjAt[b+1]++
	}
	for i := 1; i <= n; i++ {
		s.adjAt[i] += s.adjAt[i-1]
	}
	s.adj = growInt32(s.adj, int(s.adjAt[n]))
	for i := range r.Edges {
		a, b := s.ends[2*i], s.ends[2*i+1]
		if a < 0 || b < 0 || a == b {
			continue
		}
		s.adj[s.adjAt[a]+s.fill[a]] = b
		s.fill[a]++
		s.adj[s.adjAt[b]+s.fill[b]] = a
		s.fill[b]++
	}
	q := s.queue[:0]
	anchor := func(i int32) {
		if s.dist[i] < 0 {
			s.dist[i] = 0
			q = append(q, i)
		}
	}
	if n == 0 {
		return
	}
	for _, ref := range opts.Anchors {
		if i := s.lookup(r, ref.Type, ref.ID); i >= 0 {
			anchor(i)
		}
	}
	if len(q) == 0 {
		switch r.QueryType {
		case graphresponse.QueryNeighbors:
			anchor(0)
		case graphresponse.QueryPathFinding:
			for i := range r.Edges {
				e := &r.Edges[i]
				if e.Step.Valid && e.Step.Value == 0 {
					if a := s.ends[2*i]; a >= 0 {
						anchor(a)
					}
				}
			}
		default:
			for i := range n {
				if s.indeg[i] == 0 {
					anchor(int32(i))
				}
			}
		}
	}
	next := int32(0)
	for {
		for head := 0; head < len(q); head++ {
			u := q[head]
			for _, v := range s.adj[s.adjAt[u]:s.adjAt[u+1]] {
				if s.dist[v] < 0 {
					s.dist[v] = s.dist[u] + 1
					q = append(q, v)
				}
			}
		}
		for int(next) < n && s.dist[next] >= 0 {
			next++
		}
		if int(next) == n {
			break
		}
		q = q[:0]
		anchor(next)
	}
	s.queue = q
}

// packRoot computes the gcf-pack-root-v1 digest of the topology. Records
// sort in byte order; because a symbol record starts "S\tkind\tname\t" and
// names are unique within a kind and free of TABs, that order is the order of
// (kind, name), and edge records follow (source rank, target rank, type).
// Sorting node ranks and integer pairs avoids comparing whole records.
func (s *respScratch) packRoot(r *graphresponse.Response, qt string) [32]byte {
	n := len(r.Nodes)
	rank := growInt32(s.fill, n) // fill is free again after distances
	byName := growInt32(s.queue, n)
	// Order by (type, id text). With few types, compare packed keys.
	if s.fewTypes {
		// Keys carried in the sorted slice itself: the type's rank and the
		// first 7 bytes of the id text in hi, the next 8 in lo, zero-padded
		// so that a prefix sorts first; only ids sharing 15 bytes compare
		// their texts.
		s.typeList = append(s.typeList[:0], s.types...)
		slices.Sort(s.typeList)
		var typeRank [maxTableTypes]uint64
		for t, name := range s.types {
			typeRank[t] = uint64(slices.Index(s.typeList, name))
		}
		keys := s.nameKeys[:0]
		for i := range r.Nodes {
			t := r.Nodes[i].Type
			id := s.name(int32(i))[len(t)+1:]
			hi := typeRank[s.tix[i]]
			for j := range 7 {
				hi <<= 8
				if j < len(id) {
					hi |= uint64(id[j])
				}
			}
			var lo uint64
			for j := 7; j < 15; j++ {
				lo <<= 8
				if j < len(id) {
					lo |= uint64(id[j])
				}
			}
			keys = append(keys, nameKey{hi, lo, int32(i)})
		}
		slices.SortFunc(keys, func(a, b nameKey) int {
			if a.hi != b.hi {
				return cmp.Compare(a.hi, b.hi)
			}
			if a.lo != b.lo {
				return cmp.Compare(a.lo, b.lo)
			}
			ta, tb := r.Nodes[a.i].Type, r.Nodes[b.i].Type
			return bytes.Compare(s.name(a.i)[len(ta)+1:], s.name(b.i)[len(tb)+1:])
		})
		for pos, k := range keys {
			byName[pos] = k.i
		}
		s.nameKeys = keys
	} else {
		for i := range byName {
			byName[i] = int32(i)
		}
		slices.SortFunc(byName, func(a, b int32) int {
			ta, tb := r.Nodes[a].Type, r.Nodes[b].Type
			if ta != tb {
				return strings.Compare(ta, tb)
			}
			return bytes.Compare(s.name(a)[len(ta)+1:], s.name(b)[len(tb)+1:])
		})
	}
	for pos, i := range byName {
		rank[i] = int32(pos)
	}
	b := s.cat[:0]
	for _, i := range byName {
		b = append(b, "S\t"...)
		b = append(b, r.Nodes[i].Type...)
		b = append(b, '\t')
		b = append(b, s.name(i)...)
		b = append(b, '\t')
		b = appendFloat(b, s.score[i])
		b = append(b, '\t')
		b = append(b, qt...)
		b = append(b, '.')
		b = append(b, s.digest[i][:]...)
		b = append(b, '\t')
		b = appendInt(b, int64(s.dist[i]))
		b = append(b, '\n')
	}
	edges := append(s.rootEdges[:0], s.edges...)
	if s.packed {
		keys := s.edgeKeys[:0]
		for _, e := range edges {
			keys = append(keys, uint64(rank[e.src])<<packSrcShift|uint64(rank[e.tgt])<<packTgtShift|uint64(e.tr))
		}
		slices.Sort(keys)
		for i, k := range keys {
			tr := int32(k & packTypeMask)
			edges[i] = fastEdge{src: byName[k>>packSrcShift], tgt: byName[k>>packTgtShift&packNodeMask], tr: tr, typ: s.edgeTypes[tr]}
		}
		s.edgeKeys = keys
	} else {
		slices.SortFunc(edges, func(x, y fastEdge) int {
			if c := cmp.Compare(rank[x.src], rank[y.src]); c != 0 {
				return c
			}
			if c := cmp.Compare(rank[x.tgt], rank[y.tgt]); c != 0 {
				return c
			}
			return strings.Compare(x.typ, y.typ)
		})
	}
	for _, e := range edges {
		b = append(b, "E\t"...)
		b = append(b, r.Nodes[e.src].Type...)
		b = append(b, '\t')
		b = append(b, s.name(e.src)...)
		b = append(b, '\t')
		b = append(b, r.Nodes[e.tgt].Type...)
		b = append(b, '\t')
		b = append(b, s.name(e.tgt)...)
		b = append(b, '\t')
		b = append(b, e.typ...)
		b = append(b, '\n')
	}
	s.cat, s.fill, s.queue, s.rootEdges = b, rank, byName, edges
	return [32]byte(s.sha256(b))
}
