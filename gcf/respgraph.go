package gcf

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
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
	edgeIx    map[edgeSetKey]struct{}
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
	idKey     []uint64
	counts    []int32
}

type fastEdge struct {
	src, tgt int32
	typ      string
}

type edgeSetKey struct {
	src, tgt int32
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
// scan instead of a map.
const linearNodes = 32

// seen reports whether node i repeats an earlier (type, id), recording it.
func (s *respScratch) seen(r *graphresponse.Response, i int) bool {
	nd := &r.Nodes[i]
	if len(r.Nodes) <= linearNodes {
		return s.lookup(r, nd.Type, nd.ID) < int32(i)
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
	if n > linearNodes {
		if s.index == nil {
			s.index = make(map[NodeRef]int32, n)
		} else {
			clear(s.index)
		}
	}
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
		s.names = strconv.AppendInt(s.names, nd.ID, 10)
		s.nameAt[i] = int32(len(s.names))
	}
	// Edges: resolve, deduplicate, count omissions.
	if s.edgeIx == nil {
		s.edgeIx = make(map[edgeSetKey]struct{}, len(r.Edges))
	} else {
		clear(s.edgeIx)
	}
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
		k := edgeSetKey{fi, ti, typ}
		if _, dup := s.edgeIx[k]; dup {
			continue
		}
		s.edgeIx[k] = struct{}{}
		s.edges = append(s.edges, fastEdge{fi, ti, typ})
	}
	s.distances(r, opts.Graph)
	// Emission order and ids.
	s.sortOrder(n)
	s.ids = growInt32(s.ids, n)
	for pos, i := range s.order {
		s.ids[i] = int32(pos)
	}
	// Edges are unique by (source, target, type): the order is total.
	slices.SortFunc(s.edges, func(a, b fastEdge) int {
		if c := cmp.Compare(s.ids[a.src], s.ids[b.src]); c != 0 {
			return c
		}
		if c := cmp.Compare(s.ids[a.tgt], s.ids[b.tgt]); c != 0 {
			return c
		}
		return strings.Compare(a.typ, b.typ)
	})
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
		dst = strconv.AppendInt(dst, int64(pos), 10)
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
		var err error
		if b, err = appendDigestValue(b, m.Value); err != nil {
			s.tmp = b
			return atPath(err, m.Key)
		}
		b = append(b, '\n')
	}
	s.tmp = b
	sum := sha256.Sum256(b)
	hex.Encode(s.digest[i][:], sum[:4])
	return nil
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
	// Sort keys: the rank of the node's type among the distinct types, then
	// the first eight bytes of the id text (zero-padded, so a prefix sorts
	// first), then the whole id text.
	s.typeList = s.typeList[:0]
	for i := range r.Nodes {
		if !slices.Contains(s.typeList, r.Nodes[i].Type) {
			s.typeList = append(s.typeList, r.Nodes[i].Type)
		}
		if len(s.typeList) > 16 {
			break
		}
	}
	keyed := len(s.typeList) <= 16
	if keyed {
		slices.Sort(s.typeList)
		if cap(s.idKey) < n {
			s.idKey = make([]uint64, n)
		}
		s.idKey = s.idKey[:n]
		for i := range r.Nodes {
			t := r.Nodes[i].Type
			rank[i] = int32(slices.Index(s.typeList, t))
			var k uint64
			id := s.name(int32(i))[len(t)+1:]
			for j := range 8 {
				k <<= 8
				if j < len(id) {
					k |= uint64(id[j])
				}
			}
			s.idKey[i] = k
		}
	}
	for i := range byName {
		byName[i] = int32(i)
	}
	slices.SortFunc(byName, func(a, b int32) int {
		ta, tb := r.Nodes[a].Type, r.Nodes[b].Type
		if keyed {
			if c := cmp.Compare(rank[a], rank[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(s.idKey[a], s.idKey[b]); c != 0 {
				return c
			}
		} else if ta != tb {
			return strings.Compare(ta, tb)
		}
		return bytes.Compare(s.name(a)[len(ta)+1:], s.name(b)[len(tb)+1:])
	})
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
		b = strconv.AppendInt(b, int64(s.dist[i]), 10)
		b = append(b, '\n')
	}
	edges := append(s.rootEdges[:0], s.edges...)
	slices.SortFunc(edges, func(x, y fastEdge) int {
		if c := cmp.Compare(rank[x.src], rank[y.src]); c != 0 {
			return c
		}
		if c := cmp.Compare(rank[x.tgt], rank[y.tgt]); c != 0 {
			return c
		}
		return strings.Compare(x.typ, y.typ)
	})
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
	return sha256.Sum256(b)
}
