package gcf

import (
	"hash/maphash"
	"math/bits"
	"strconv"
	"strings"
)

// isScoreToken reports whether s matches -?[0-9]+\.[0-9]{2}.
func isScoreToken(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start || i >= len(s) || s[i] != '.' {
		return false
	}
	return len(s)-i == 3 && isDigit(s[i+1]) && isDigit(s[i+2])
}

// parseScore converts a token [isScoreToken] accepted. A score has two
// decimals, so for up to 13 integer digits it is n/100 with n exact in a
// float64, and one correctly rounded division gives the same bits as
// strconv.ParseFloat, which rounds the decimal value n/100 correctly too.
func parseScore(s string) float64 {
	neg := s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	if len(digits) > 16 { // 13 integer digits, '.', 2 decimals
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	var n int64
	for i := 0; i < len(digits); i++ {
		if c := digits[i]; c != '.' {
			n = n*10 + int64(c-'0')
		}
	}
	f := float64(n) / 100
	if neg {
		f = -f
	}
	return f
}

// identSet finds a (kind, name) identity declared twice in one payload:
// an open-addressing table of entry numbers, hashed by name. The table
// holds no pointers, so the collector neither scans it nor pays write
// barriers for it, and each identity costs one hash.
type identSet struct {
	seed  maphash.Seed
	slots []int32  // entry+1, 0 = empty; len is a power of two
	names []string // per entry
	kinds []string // per entry: the kind abbreviation
}

func newIdentSet(n int) *identSet {
	return &identSet{seed: maphash.MakeSeed(), slots: make([]int32, tableSize(n)), names: make([]string, 0, n), kinds: make([]string, 0, n)}
}

// tableSize is the slot count of an open-addressing table for n entries:
// a power of two, at least 8, at most half full.
func tableSize(n int) int {
	size := 8
	for size < 2*n {
		size *= 2
	}
	return size
}

// add records (kind, name) and reports whether it was new.
func (s *identSet) add(kind, name string) bool {
	if 2*(len(s.names)+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := maphash.String(s.seed, name) & mask; ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			s.slots[i] = int32(len(s.names)) + 1
			s.names = append(s.names, name)
			s.kinds = append(s.kinds, kind)
			return true
		}
		if s.names[e-1] == name && s.kinds[e-1] == kind {
			return false
		}
	}
}

// grow doubles the table and re-inserts every entry.
func (s *identSet) grow() {
	s.slots = make([]int32, 2*len(s.slots))
	mask := uint64(len(s.slots) - 1)
	for e, name := range s.names {
		i := maphash.String(s.seed, name) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = int32(e) + 1
	}
}

// parseGroupHeader parses "## name[ [count][{fields}]]" and returns the
// name and the declared count (-2 when none, -1 for ?).
func parseGroupHeader(ln line, lim Limits) (string, int, error) {
	rest := ln.text[3:]
	name, after, _ := strings.Cut(rest, " ")
	if !isBareKey(name) {
		return "", 0, ln.err(3, ErrSyntax, "bad section name")
	}
	count := -2
	if after != "" {
		if !strings.HasPrefix(after, "[") {
			return "", 0, ln.err(0, ErrSyntax, "unexpected text after section name")
		}
		d := genDecoder{lim: lim}
		b, err := d.parseBracket(ln, after, len(name)+4)
		if err != nil {
			return "", 0, err
		}
		if b.keyed || b.inline {
			return "", 0, ln.err(0, ErrSyntax, "bad graph section bracket")
		}
		count = b.count
	}
	return name, count, nil
}

func groupDistance(name string) (int, bool) {
	switch name {
	case "targets":
		return 0, true
	case "related":
		return 1, true
	case "extended":
		return 2, true
	}
	if n, ok := strings.CutPrefix(name, "distance_"); ok && isCountValue(n) {
		d, err := strconv.Atoi(n)
		return d, err == nil
	}
	return 0, false
}

func headerInt(h *Header, key string) (int, bool) {
	v, ok := h.Get(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// graphCapacity sizes a graph's symbol and edge slices from the header's
// counts. They are only hints, capped by the lines present; the decoders
// check them at the end.
func graphCapacity(h *Header, lines int) (nSyms, nEdges int) {
	nSyms, nEdges = lines, lines
	if n, ok := headerInt(h, "symbols"); ok && n >= 0 && n < nSyms {
		nSyms = n
	}
	if n, ok := headerInt(h, "edges"); ok && n >= 0 && n < nEdges {
		nEdges = n
	}
	return nSyms, nEdges
}

// graphFromHeader returns a graph holding what a graph payload's header
// says: the keys [Graph] has fields for in them, the counts and delta keys
// dropped, any other key kept in Extra. Both graph decoders start from it.
func graphFromHeader(h *Header) *Graph {
	g := &Graph{}
	for _, f := range h.Fields {
		switch f.Key {
		case "tool":
			g.Tool = f.Value
		case "budget":
			g.Budget, _ = strconv.Atoi(f.Value)
		case "tokens":
			g.Tokens, _ = strconv.Atoi(f.Value)
		case "pack_root":
			g.PackRoot = f.Value
		case "session":
			g.Session = f.Value == "true"
		case "unchanged":
			g.Unchanged = f.Value == "true"
		case "symbols", "edges", "delta", "base_root", "new_root", "savings":
		default:
			g.Extra = append(g.Extra, f)
		}
	}
	return g
}

// decodeGraph decodes a graph-profile body that is not a delta.
func decodeGraph(h *Header, lines []line, lim Limits) (*Graph, error) {
	g := graphFromHeader(h)
	g.Symbols, g.Edges = []Symbol{}, []Edge{}
	lines, trailer, err := takeTrailer(lines)
	if err != nil {
		return nil, err
	}
	if g.Unchanged {
		if len(lines) > 0 {
			return nil, lines[0].err(0, ErrSyntax, "unchanged payload with a body")
		}
		return g, nil
	}
	const (
		secNone = iota
		secGroup
		secEdges
	)
	sec := secNone
	distance := 0
	group := ""
	sectionCount, sectionSeen := -2, 0
	var sectionLine line
	edgesSeen := false
	nSyms, nEdges := graphCapacity(h, len(lines))
	g.Symbols = make([]Symbol, 0, nSyms)
	g.Edges = make([]Edge, 0, nEdges)
	byID := newIDIndex(len(lines)) // id -> symbol index, or -1 for a reference
	ids := newIdentSet(nSyms)      // identities declared in this payload
	nodeLines := 0
	closeSection := func() error {
		if sectionCount >= 0 && sectionSeen != sectionCount {
			return sectionLine.err(0, ErrCountMismatch, "section declares "+strconv.Itoa(sectionCount)+" lines, has "+strconv.Itoa(sectionSeen))
		}
		return nil
	}
	for _, ln := range lines {
		if strings.HasPrefix(ln.text, "##") && !ln.raw {
			if err := closeSection(); err != nil {
				return nil, err
			}
			if !strings.HasPrefix(ln.text, "## ") {
				return nil, ln.err(0, ErrSyntax, "malformed section header")
			}
			name, count, err := parseGroupHeader(ln, lim)
			if err != nil {
				return nil, err
			}
			sectionCount, sectionSeen, sectionLine = count, 0, ln
			switch name {
			case "edges":
				if edgesSeen {
					return nil, ln.err(0, ErrSyntax, "second edges section")
				}
				edgesSeen = true
				sec = secEdges
			case "removed", "added", "edges_removed", "edges_added":
				return nil, ln.err(0, ErrMalformedDelta, "delta section in a non-delta payload")
			default:
				if d, ok := groupDistance(name); ok {
					distance, group = d, ""
				} else {
					group = name
				}
				sec = secGroup
			}
			continue
		}
		switch sec {
		case secNone:
			return nil, ln.err(0, ErrInvalidNodeLine, "line outside any section")
		case secEdges:
			if ln.raw {
				return nil, ln.err(0, ErrInvalidEdgeSyntax, "indented edge line")
			}
			e, err := parseEdgeLine(ln, byID, g)
			if err != nil {
				return nil, err
			}
			g.Edges = append(g.Edges, e)
			sectionSeen++
			if len(g.Edges) > lim.MaxElements {
				return nil, ln.err(0, ErrLimit, "too many edges")
			}
			continue
		}
		if ln.raw || !strings.HasPrefix(ln.text, "@") {
			return nil, ln.err(0, ErrInvalidNodeLine, "expected a node line")
		}
		sectionSeen++
		if nodeLines >= lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many symbols")
		}
		idTok, rest, _ := strings.Cut(ln.text, " ")
		digits := idTok[1:]
		if !isDigitsOnly(digits) || digits == "" || len(digits) > 9 {
			return nil, ln.err(0, ErrInvalidSymbolID, "bad symbol id "+strconv.Quote(idTok))
		}
		id, _ := strconv.Atoi(digits)
		if _, dup := byID.get(id); dup {
			return nil, ln.err(0, ErrInvalidSymbolID, "symbol id "+idTok+" used twice")
		}
		if !g.Session && id != nodeLines {
			return nil, ln.err(0, ErrInvalidSymbolID, "symbol id "+idTok+" out of sequence")
		}
		if rest == " # previously transmitted" {
			if !g.Session {
				return nil, ln.err(0, ErrInvalidNodeLine, "reference line outside a session payload")
			}
			byID.set(id, -1)
			g.Refs = append(g.Refs, Ref{ID: id, Distance: distance})
			nodeLines++
			continue
		}
		var fa [5]string
		f, n := splitSpaces(ln.text, fa[:])
		if n != 5 {
			return nil, ln.err(0, ErrInvalidNodeLine, "node line needs five fields")
		}
		for _, x := range f {
			if x == "" {
				return nil, ln.err(0, ErrInvalidNodeLine, "empty node field")
			}
		}
		if !isScoreToken(f[3]) {
			return nil, ln.err(len(f[0])+len(f[1])+len(f[2])+3, ErrInvalidScore, "bad score "+strconv.Quote(f[3]))
		}
		score := parseScore(f[3])
		if !ids.add(KindAbbrev(f[1]), f[2]) {
			return nil, ln.err(0, ErrInvalidNodeLine, "symbol "+f[2]+" declared twice")
		}
		byID.set(id, len(g.Symbols))
		g.Symbols = append(g.Symbols, Symbol{ID: id, Kind: KindExpand(f[1]), Name: f[2], Score: score, Provenance: f[4], Distance: distance, Group: group})
		nodeLines++
	}
	if err := closeSection(); err != nil {
		return nil, err
	}
	if trailer != nil {
		for _, k := range [2]string{"symbols", "edges"} {
			v, ok := trailer.get(k)
			if !ok || !isCountValue(v) {
				continue
			}
			want := nodeLines
			if k == "edges" {
				want = len(g.Edges)
			}
			if v != strconv.Itoa(want) {
				return nil, trailer.ln.err(0, ErrCountMismatch, "trailer "+k+"="+v+" but payload has "+strconv.Itoa(want))
			}
		}
	}
	if n, ok := headerInt(h, "symbols"); ok && n != nodeLines {
		return nil, synErr(1, 1, ErrCountMismatch, "header symbols="+strconv.Itoa(n)+" but payload has "+strconv.Itoa(nodeLines))
	}
	if n, ok := headerInt(h, "edges"); ok && n != len(g.Edges) {
		return nil, synErr(1, 1, ErrCountMismatch, "header edges="+strconv.Itoa(n)+" but payload has "+strconv.Itoa(len(g.Edges)))
	}
	return g, nil
}

func parseEdgeLine(ln line, byID *idIndex, g *Graph) (Edge, error) {
	var fa [3]string
	f, n := splitSpaces(ln.text, fa[:])
	if !strings.Contains(f[0], "<") {
		return Edge{}, ln.err(0, ErrInvalidEdgeSyntax, "edge line without <")
	}
	if n < 2 || n > 3 {
		return Edge{}, ln.err(0, ErrInvalidEdgeSyntax, "edge line needs a type and an optional status")
	}
	for _, x := range f {
		if x == "" {
			return Edge{}, ln.err(0, ErrInvalidEdgeSyntax, "empty edge field")
		}
	}
	t, s, _ := strings.Cut(f[0], "<")
	tid, ok1 := atID(t)
	sid, ok2 := atID(s)
	if !ok1 || !ok2 {
		return Edge{}, ln.err(0, ErrInvalidEdgeSyntax, "edge ids must be @digits<@digits")
	}
	ti, okT := byID.get(tid)
	si, okS := byID.get(sid)
	if !okT || !okS {
		return Edge{}, ln.err(0, ErrUnknownEdgeReference, "edge refers to an undeclared id")
	}
	e := Edge{Type: f[1], SourceID: sid, TargetID: tid}
	if len(f) == 3 {
		e.Status = f[2]
	}
	if si >= 0 {
		e.Source, e.SourceKind = g.Symbols[si].Name, g.Symbols[si].Kind
	}
	if ti >= 0 {
		e.Target, e.TargetKind = g.Symbols[ti].Name, g.Symbols[ti].Kind
	}
	return e, nil
}

func atID(s string) (int, bool) {
	if len(s) < 2 || s[0] != '@' || !isDigitsOnly(s[1:]) || len(s) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(s[1:])
	return n, err == nil
}

// decodeGraphDelta decodes a graph delta payload (§2.10.2).
func decodeGraphDelta(h *Header, lines []line, lim Limits) (*GraphDelta, error) {
	d := &GraphDelta{}
	var haveBase, haveNew bool
	for _, f := range h.Fields {
		switch f.Key {
		case "tool":
			d.Tool = f.Value
		case "base_root":
			d.BaseRoot, haveBase = f.Value, true
		case "new_root":
			d.NewRoot, haveNew = f.Value, true
		case "tokens":
			d.DeltaTokens, _ = strconv.Atoi(f.Value)
		case "delta", "savings", "budget", "symbols", "edges", "session", "pack_root", "unchanged":
		default:
			d.Extra = append(d.Extra, f)
		}
	}
	if !haveBase || !haveNew {
		return nil, synErr(1, 1, ErrMalformedDelta, "delta payload needs base_root and new_root")
	}
	lines, _, err := takeTrailer(lines)
	if err != nil {
		return nil, err
	}
	sec := ""
	seen := map[string]bool{}
	for _, ln := range lines {
		if ln.raw {
			return nil, ln.err(0, ErrMalformedDelta, "indented delta line")
		}
		if strings.HasPrefix(ln.text, "##") {
			name, ok := strings.CutPrefix(ln.text, "## ")
			switch {
			case !ok:
				return nil, ln.err(0, ErrMalformedDelta, "malformed section header")
			case name != "removed" && name != "added" && name != "edges_removed" && name != "edges_added":
				return nil, ln.err(3, ErrMalformedDelta, "unknown delta section "+strconv.Quote(name))
			case seen[name]:
				return nil, ln.err(3, ErrMalformedDelta, "repeated delta section "+name)
			}
			seen[name] = true
			sec = name
			continue
		}
		f := strings.Split(ln.text, " ")
		for _, x := range f {
			if x == "" {
				return nil, ln.err(0, ErrMalformedDelta, "empty field")
			}
		}
		if len(d.Removed)+len(d.Added)+len(d.RemovedEdges)+len(d.AddedEdges) >= lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many delta lines")
		}
		switch sec {
		case "":
			return nil, ln.err(0, ErrMalformedDelta, "line outside any delta section")
		case "removed":
			if len(f) != 2 {
				return nil, ln.err(0, ErrMalformedDelta, "removed line needs kind and name")
			}
			d.Removed = append(d.Removed, SymbolKey{Kind: KindExpand(f[0]), Name: f[1]})
		case "added":
			if len(f) != 6 {
				return nil, ln.err(0, ErrMalformedDelta, "added line needs six fields")
			}
			id, ok := atID(f[0])
			if !ok || id != len(d.Added) {
				return nil, ln.err(0, ErrInvalidSymbolID, "bad added id "+strconv.Quote(f[0]))
			}
			if !isScoreToken(f[3]) {
				return nil, ln.err(0, ErrInvalidScore, "bad score "+strconv.Quote(f[3]))
			}
			if !isCountValue(f[5]) {
				return nil, ln.err(0, ErrMalformedDelta, "bad distance "+strconv.Quote(f[5]))
			}
			score, _ := strconv.ParseFloat(f[3], 64)
			dist, err := strconv.Atoi(f[5])
			if err != nil {
				return nil, ln.err(0, ErrMalformedDelta, "bad distance")
			}
			d.Added = append(d.Added, Symbol{ID: id, Kind: KindExpand(f[1]), Name: f[2], Score: score, Provenance: f[4], Distance: dist})
		default:
			if len(f) != 4 || f[1] != "->" {
				return nil, ln.err(0, ErrMalformedDelta, "edge line must be source -> target type")
			}
			e := Edge{Source: f[0], Target: f[2], Type: f[3]}
			if sec == "edges_removed" {
				d.RemovedEdges = append(d.RemovedEdges, e)
			} else {
				d.AddedEdges = append(d.AddedEdges, e)
			}
		}
	}
	return d, nil
}

// splitSpaces splits s at every space, as strings.Split(s, " ") does, into
// the backing array of dst without allocating. It returns the fields that
// fit and n, the number of fields s has (which may exceed len(dst)).
func splitSpaces(s string, dst []string) ([]string, int) {
	var cuts [8]int
	n := spaceCuts(s, cuts[:min(len(dst), len(cuts))])
	start := 0
	for k := range min(n, len(dst), len(cuts)) {
		end := len(s)
		if k < n-1 {
			end = cuts[k]
		}
		dst[k] = s[start:end]
		start = end + 1
	}
	for k := len(cuts); k < min(n, len(dst)); k++ { // fields beyond cuts
		end := strings.IndexByte(s[start:], ' ')
		if end < 0 {
			end = len(s) - start
		}
		dst[k] = s[start : start+end]
		start += end + 1
	}
	return dst[:min(n, len(dst))], n
}

// spaceCuts stores the offsets of the first len(cuts) spaces of s in cuts
// and returns the number of fields s has, one more than its spaces. It
// writes only integers, so callers keep fields in locals the collector's
// write barrier never sees.
func spaceCuts(s string, cuts []int) int {
	const (
		ones   = 0x0101010101010101
		lows   = 0x7F7F7F7F7F7F7F7F
		spaces = ' ' * ones
	)
	n := 0
	// Eight bytes at a time: a byte of x is zero exactly where s has a
	// space, and z gets the high bit of each such byte (computed without
	// carries between bytes, so it has no false positives).
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		x := (uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56) ^ spaces
		z := ^((x&lows + lows) | x | lows)
		for z != 0 {
			if n < len(cuts) {
				cuts[n] = i + bits.TrailingZeros64(z)>>3
			}
			n++
			z &= z - 1
		}
	}
	for ; i < len(s); i++ {
		if s[i] == ' ' {
			if n < len(cuts) {
				cuts[n] = i
			}
			n++
		}
	}
	return n + 1
}

// idIndex maps the symbol ids of one payload to symbol indexes (-1 for a
// session reference). Ids below the number of lines, which covers every
// non-session payload (ids count up from 0), live in a slice; larger
// session ids fall back to a map.
type idIndex struct {
	dense  []int32 // index+2 (a reference, -1, is 1); 0 = unset
	sparse map[int]int
}

func newIDIndex(n int) *idIndex { return &idIndex{dense: make([]int32, n)} }

func (x *idIndex) get(id int) (int, bool) {
	if id < len(x.dense) {
		v := x.dense[id]
		return int(v) - 2, v != 0
	}
	v, ok := x.sparse[id]
	return v, ok
}

func (x *idIndex) set(id, i int) {
	if id < len(x.dense) {
		x.dense[id] = int32(i) + 2
		return
	}
	if x.sparse == nil {
		x.sparse = map[int]int{}
	}
	x.sparse[id] = i
}
