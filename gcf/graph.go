package gcf

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Symbol is one graph-profile node.
type Symbol struct {
	ID         int     // decoded id (ignored on encode)
	Kind       string  // long form or abbreviation in; long form out
	Name       string  // qualified name
	Score      float64 // written with two decimals
	Provenance string
	Distance   int    // hop distance; selects the group
	Group      string // decoded custom group name
}

// Edge is one graph-profile edge, Source → Target.
type Edge struct {
	Source, Target         string // qualified names
	SourceKind, TargetKind string // optional; disambiguate equal names
	Type, Status           string
	SourceID, TargetID     int // decoded ids
}

// Ref is a decoded session reference line.
type Ref struct {
	ID       int
	Distance int
}

// Graph is a graph-profile payload.
type Graph struct {
	Tool               string
	Budget, Tokens     int
	PackRoot           string
	Session, Unchanged bool    // decoded header flags
	Extra              []Field // extension header keys, in order
	Symbols            []Symbol
	Refs               []Ref // decoded session references
	Edges              []Edge
}

// SymbolKey is a symbol identity on the delta wire.
type SymbolKey struct {
	Kind, Name string
}

// GraphDelta is a graph delta payload (§2.10.2).
type GraphDelta struct {
	Tool, BaseRoot, NewRoot  string
	Removed                  []SymbolKey
	Added                    []Symbol
	RemovedEdges, AddedEdges []Edge
	DeltaTokens, FullTokens  int
	Extra                    []Field
}

var kindTable = [...][2]string{
	{"fn", "function"}, {"type", "type"}, {"method", "method"}, {"iface", "interface"},
	{"var", "var"}, {"const", "const"}, {"resource", "resource"}, {"table", "table"},
	{"selector", "selector"}, {"field", "field"}, {"route", "route_handler"}, {"class", "class"},
	{"ext", "external"}, {"file", "file"}, {"pkg", "package"}, {"svc", "service"},
}

// KindAbbrev returns the wire abbreviation of a kind: long forms map to their
// abbreviation, anything else is returned unchanged.
func KindAbbrev(kind string) string {
	// Only these long forms differ from their abbreviation in kindTable; a
	// switch avoids comparing against every entry on the decode hot path.
	switch kind {
	case "function":
		return "fn"
	case "interface":
		return "iface"
	case "route_handler":
		return "route"
	case "external":
		return "ext"
	case "package":
		return "pkg"
	case "service":
		return "svc"
	}
	return kind
}

// KindExpand returns the long form of a wire kind: known abbreviations
// (case-sensitive) expand, anything else is returned unchanged.
func KindExpand(kind string) string {
	// Only these abbreviations differ from their long form in kindTable
	// (TestKindExpandMatchesTable); a switch avoids comparing against every
	// entry on the decode hot path.
	switch kind {
	case "fn":
		return "function"
	case "iface":
		return "interface"
	case "route":
		return "route_handler"
	case "ext":
		return "external"
	case "pkg":
		return "package"
	case "svc":
		return "service"
	}
	return kind
}

// isKnownKind reports whether s is an abbreviation or a long form of
// kindTable.
func isKnownKind(s string) bool {
	switch s {
	case "fn", "function", "type", "method", "iface", "interface", "var", "const",
		"resource", "table", "selector", "field", "route", "route_handler", "class",
		"ext", "external", "file", "pkg", "package", "svc", "service":
		return true
	}
	return false
}

// isToken reports whether s is 1+ printable non-space ASCII characters.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7E {
			return false
		}
	}
	return true
}

// GroupName returns the section name of a distance.
func GroupName(distance int) string {
	switch distance {
	case 0:
		return "targets"
	case 1:
		return "related"
	case 2:
		return "extended"
	}
	return "distance_" + strconv.Itoa(distance)
}

func appendGroupName(dst []byte, distance int) []byte {
	switch distance {
	case 0:
		return append(dst, "targets"...)
	case 1:
		return append(dst, "related"...)
	case 2:
		return append(dst, "extended"...)
	}
	dst = append(dst, "distance_"...)
	return strconv.AppendInt(dst, int64(distance), 10)
}

type identity struct{ kind, name string }

// graphPlan is a validated, sorted graph ready for emission.
type graphPlan struct {
	order []int // symbol indices in emission order
	ids   []int // id per symbol index
	kinds []string
	edges []planEdge
}

type planEdge struct {
	src, tgt int // symbol indices
	typ      string
	status   string
	pos      int // position in the plan's input order, the sort's last tie-break
}

func validateSymbol(s *Symbol) (string, error) {
	kind := KindAbbrev(s.Kind)
	if !isBareKey(kind) {
		return "", encErr(ErrInvalidKind, "kind "+strconv.Quote(s.Kind)+" is not a bare key")
	}
	if !isToken(s.Name) {
		return "", atPath(encErr(ErrInvalidToken, "name must be printable non-space ASCII"), "name")
	}
	if !isToken(s.Provenance) {
		return "", atPath(encErr(ErrInvalidToken, "provenance must be printable non-space ASCII"), "provenance")
	}
	if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
		return "", atPath(encErr(ErrNonFinite, "score is not finite"), "score")
	}
	if s.Distance < 0 {
		return "", atPath(encErr(ErrInvalidToken, "negative distance"), "distance")
	}
	return kind, nil
}

// endpointIndex resolves edge endpoints (§2.6.5 step 2). It hashes each
// name once: byName holds the newest entry per name, and the entries of
// one name are chained through next, so an identity lookup walks the
// (almost always one-long) chain comparing kinds.
type endpointIndex struct {
	byName  map[string]int32
	entries []endpointEntry
}

type endpointEntry struct {
	kind string
	i    int
	next int32 // previous entry with the same name, -1 when none
}

func newEndpointIndex(n int) *endpointIndex {
	return &endpointIndex{byName: make(map[string]int32, n), entries: make([]endpointEntry, 0, n)}
}

// add records symbol i as (kind, name); false when that identity is known.
func (x *endpointIndex) add(kind, name string, i int) bool {
	head, ok := x.byName[name]
	if !ok {
		head = -1
	}
	for j := head; j >= 0; j = x.entries[j].next {
		if x.entries[j].kind == kind {
			return false
		}
	}
	x.byName[name] = int32(len(x.entries))
	x.entries = append(x.entries, endpointEntry{kind: kind, i: i, next: head})
	return true
}

func (x *endpointIndex) resolve(kind, name string) (int, error) {
	head, ok := x.byName[name]
	if kind != "" {
		if ok {
			abbrev := KindAbbrev(kind)
			for j := head; j >= 0; j = x.entries[j].next {
				if x.entries[j].kind == abbrev {
					return x.entries[j].i, nil
				}
			}
		}
		return -1, encErr(ErrDanglingEdge, "endpoint "+kind+" "+name+" is not a symbol")
	}
	if !ok {
		return -1, encErr(ErrDanglingEdge, "endpoint "+name+" is not a symbol")
	}
	if x.entries[head].next >= 0 {
		return -1, encErr(ErrAmbiguousEndpoint, "endpoint "+name+" names several symbols")
	}
	return x.entries[head].i, nil
}

// planGraph validates g and computes the emission order (§2.6.5).
func planGraph(g *Graph) (*graphPlan, *endpointIndex, error) {
	p := &graphPlan{kinds: make([]string, len(g.Symbols)), edges: make([]planEdge, 0, len(g.Edges))}
	idx := newEndpointIndex(len(g.Symbols))
	for i := range g.Symbols {
		s := &g.Symbols[i]
		kind, err := validateSymbol(s)
		if err != nil {
			return nil, nil, atPath(atIndex(err, i), "symbols")
		}
		p.kinds[i] = kind
		if !idx.add(kind, s.Name, i) {
			return nil, nil, &EncodeError{Path: "/symbols/" + strconv.Itoa(i), Err: ErrDuplicateSymbol, Detail: kind + " " + s.Name + " appears twice"}
		}
	}
	p.order = make([]int, len(g.Symbols))
	for i := range p.order {
		p.order[i] = i
	}
	// A full tie-break on the index makes the unstable sort stable.
	slices.SortFunc(p.order, func(a, b int) int {
		sa, sb := &g.Symbols[a], &g.Symbols[b]
		if c := cmp.Compare(sa.Distance, sb.Distance); c != 0 {
			return c
		}
		if c := cmp.Compare(sb.Score, sa.Score); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	p.ids = make([]int, len(g.Symbols))
	for pos, i := range p.order {
		p.ids[i] = pos
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		pe, err := planEdgeOf(e, idx)
		if err != nil {
			return nil, nil, &EncodeError{Path: "/edges/" + strconv.Itoa(i), Err: errSentinel(err), Detail: errDetail(err)}
		}
		pe.pos = len(p.edges)
		p.edges = append(p.edges, pe)
	}
	return p, idx, nil
}

func errSentinel(err error) error {
	if ee, ok := err.(*EncodeError); ok {
		return ee.Err
	}
	return err
}

func errDetail(err error) string {
	if ee, ok := err.(*EncodeError); ok {
		return ee.Detail
	}
	return ""
}

func planEdgeOf(e *Edge, idx *endpointIndex) (planEdge, error) {
	src, err := idx.resolve(e.SourceKind, e.Source)
	if err != nil {
		return planEdge{}, err
	}
	tgt, err := idx.resolve(e.TargetKind, e.Target)
	if err != nil {
		return planEdge{}, err
	}
	if !isToken(e.Type) {
		return planEdge{}, encErr(ErrInvalidToken, "edge type must be printable non-space ASCII")
	}
	status := e.Status
	switch status {
	case "", "unchanged":
		status = ""
	case "added", "removed":
	default:
		return planEdge{}, encErr(ErrInvalidToken, "edge status "+strconv.Quote(e.Status))
	}
	return planEdge{src: src, tgt: tgt, typ: e.Type, status: status}, nil
}

// sortEdges orders edges by source id, target id, type, then plan order
// (pos), which keeps equal edges as a stable sort would.
func sortEdges(edges []planEdge, ids []int) {
	slices.SortFunc(edges, func(a, b planEdge) int {
		if c := cmp.Compare(ids[a.src], ids[b.src]); c != 0 {
			return c
		}
		if c := cmp.Compare(ids[a.tgt], ids[b.tgt]); c != 0 {
			return c
		}
		if c := strings.Compare(a.typ, b.typ); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
}

func appendHeaderInt(dst []byte, key string, v int) []byte {
	dst = append(dst, ' ')
	dst = append(dst, key...)
	dst = append(dst, '=')
	return appendInt(dst, int64(v))
}

func appendHeaderStr(dst []byte, key, v string) []byte {
	dst = append(dst, ' ')
	dst = append(dst, key...)
	dst = append(dst, '=')
	return append(dst, v...)
}

func validExtra(extra []Field) error {
	for i, f := range extra {
		if !isBareKey(f.Key) || !isToken(f.Value) {
			return &EncodeError{Path: "/extra/" + strconv.Itoa(i), Err: ErrInvalidToken, Detail: "header field " + strconv.Quote(f.Key)}
		}
	}
	return nil
}

func appendExtra(dst []byte, extra []Field) []byte {
	for _, f := range extra {
		dst = appendHeaderStr(dst, f.Key, f.Value)
	}
	return dst
}

func appendNodeLine(dst []byte, id int, kind string, s *Symbol) []byte {
	dst = append(dst, '@')
	dst = strconv.AppendInt(dst, int64(id), 10)
	dst = append(dst, ' ')
	dst = append(dst, kind...)
	dst = append(dst, ' ')
	dst = append(dst, s.Name...)
	dst = append(dst, ' ')
	dst = appendScore(dst, s.Score)
	dst = append(dst, ' ')
	return append(dst, s.Provenance...)
}

// appendGraph writes a full graph payload; with a session, a session payload.
func appendGraph(dst []byte, g *Graph, sess *Session) ([]byte, error) {
	if g.Tool != "" && !isToken(g.Tool) {
		return dst, &EncodeError{Path: "/tool", Err: ErrInvalidToken, Detail: "tool must be printable non-space ASCII"}
	}
	if g.PackRoot != "" && !isToken(g.PackRoot) {
		return dst, &EncodeError{Path: "/pack_root", Err: ErrInvalidToken}
	}
	if err := validExtra(g.Extra); err != nil {
		return dst, err
	}
	p, _, err := planGraph(g)
	if err != nil {
		return dst, err
	}
	var refs []bool
	if sess != nil {
		refs, err = sess.assign(g, p)
		if err != nil {
			return dst, err
		}
	}
	sortEdges(p.edges, p.ids)
	dst = append(dst, "GCF profile=graph"...)
	if g.Tool != "" {
		dst = appendHeaderStr(dst, "tool", g.Tool)
	}
	if g.Budget > 0 {
		dst = appendHeaderInt(dst, "budget", g.Budget)
	}
	if g.Tokens > 0 {
		dst = appendHeaderInt(dst, "tokens", g.Tokens)
	}
	dst = appendHeaderInt(dst, "symbols", len(g.Symbols))
	if len(p.edges) > 0 {
		dst = appendHeaderInt(dst, "edges", len(p.edges))
	}
	if sess != nil {
		dst = append(dst, " session=true"...)
	}
	if g.PackRoot != "" {
		dst = appendHeaderStr(dst, "pack_root", g.PackRoot)
	}
	dst = appendExtra(dst, g.Extra)
	dst = append(dst, '\n')
	cur := -1
	for _, i := range p.order {
		s := &g.Symbols[i]
		if s.Distance != cur {
			cur = s.Distance
			dst = append(dst, "## "...)
			dst = appendGroupName(dst, cur)
			dst = append(dst, '\n')
		}
		if refs != nil && refs[i] {
			dst = append(dst, '@')
			dst = strconv.AppendInt(dst, int64(p.ids[i]), 10)
			dst = append(dst, "  # previously transmitted\n"...)
			continue
		}
		dst = appendNodeLine(dst, p.ids[i], p.kinds[i], s)
		dst = append(dst, '\n')
	}
	if len(p.edges) > 0 {
		dst = append(dst, "## edges ["...)
		dst = strconv.AppendInt(dst, int64(len(p.edges)), 10)
		dst = append(dst, "]\n"...)
		for _, e := range p.edges {
			dst = appendEdgeLine(dst, p.ids[e.tgt], p.ids[e.src], e.typ, e.status)
		}
	}
	return dst, nil
}

func appendEdgeLine(dst []byte, tgt, src int, typ, status string) []byte {
	dst = append(dst, '@')
	dst = appendInt(dst, int64(tgt))
	dst = append(dst, "<@"...)
	dst = appendInt(dst, int64(src))
	dst = append(dst, ' ')
	dst = append(dst, typ...)
	if status != "" {
		dst = append(dst, ' ')
		dst = append(dst, status...)
	}
	return append(dst, '\n')
}

// appendUnchanged writes a header-only unchanged payload.
func appendUnchanged(dst []byte, g *Graph) ([]byte, error) {
	if g.PackRoot == "" || !isToken(g.PackRoot) {
		return dst, &EncodeError{Path: "/pack_root", Err: ErrInvalidToken, Detail: "unchanged payload needs a pack root"}
	}
	if g.Tool != "" && !isToken(g.Tool) {
		return dst, &EncodeError{Path: "/tool", Err: ErrInvalidToken}
	}
	if err := validExtra(g.Extra); err != nil {
		return dst, err
	}
	dst = append(dst, "GCF profile=graph"...)
	if g.Tool != "" {
		dst = appendHeaderStr(dst, "tool", g.Tool)
	}
	dst = append(dst, " unchanged=true"...)
	dst = appendHeaderStr(dst, "pack_root", g.PackRoot)
	dst = appendHeaderInt(dst, "symbols", len(g.Symbols)+len(g.Refs))
	dst = appendExtra(dst, g.Extra)
	return append(dst, '\n'), nil
}

// appendSavings writes " savings=NN%".
func appendSavings(dst []byte, delta, full int) []byte {
	x := 100 * (1 - float64(delta)/float64(full))
	dst = append(dst, " savings="...)
	dst = strconv.AppendFloat(dst, x, 'f', 0, 64)
	return append(dst, '%')
}

// appendDelta writes a graph delta payload.
func appendDelta(dst []byte, d *GraphDelta) ([]byte, error) {
	if d.Tool != "" && !isToken(d.Tool) {
		return dst, &EncodeError{Path: "/tool", Err: ErrInvalidToken}
	}
	if !isToken(d.BaseRoot) || !isToken(d.NewRoot) {
		return dst, &EncodeError{Path: "/base_root", Err: ErrInvalidToken, Detail: "delta needs base and new roots"}
	}
	if err := validExtra(d.Extra); err != nil {
		return dst, err
	}
	dst = append(dst, "GCF profile=graph"...)
	if d.Tool != "" {
		dst = appendHeaderStr(dst, "tool", d.Tool)
	}
	dst = append(dst, " delta=true"...)
	dst = appendHeaderStr(dst, "base_root", d.BaseRoot)
	dst = appendHeaderStr(dst, "new_root", d.NewRoot)
	if d.DeltaTokens > 0 {
		dst = appendHeaderInt(dst, "tokens", d.DeltaTokens)
	}
	if d.FullTokens > 0 {
		dst = appendSavings(dst, d.DeltaTokens, d.FullTokens)
	}
	dst = appendExtra(dst, d.Extra)
	dst = append(dst, '\n')
	if len(d.Removed) > 0 {
		dst = append(dst, "## removed\n"...)
		for i, k := range d.Removed {
			kind := KindAbbrev(k.Kind)
			if !isBareKey(kind) {
				return dst, &EncodeError{Path: "/removed/" + strconv.Itoa(i), Err: ErrInvalidKind}
			}
			if !isToken(k.Name) {
				return dst, &EncodeError{Path: "/removed/" + strconv.Itoa(i), Err: ErrInvalidToken}
			}
			dst = append(dst, kind...)
			dst = append(dst, ' ')
			dst = append(dst, k.Name...)
			dst = append(dst, '\n')
		}
	}
	if len(d.Added) > 0 {
		dst = append(dst, "## added\n"...)
		for i := range d.Added {
			s := &d.Added[i]
			kind, err := validateSymbol(s)
			if err != nil {
				return dst, atIndex(err, i)
			}
			dst = appendNodeLine(dst, i, kind, s)
			dst = append(dst, ' ')
			dst = strconv.AppendInt(dst, int64(s.Distance), 10)
			dst = append(dst, '\n')
		}
	}
	for sec, edges := range [2][]Edge{d.RemovedEdges, d.AddedEdges} {
		if len(edges) == 0 {
			continue
		}
		if sec == 0 {
			dst = append(dst, "## edges_removed\n"...)
		} else {
			dst = append(dst, "## edges_added\n"...)
		}
		for i, e := range edges {
			if !isToken(e.Source) || !isToken(e.Target) || !isToken(e.Type) {
				return dst, &EncodeError{Path: "/edges/" + strconv.Itoa(i), Err: ErrInvalidToken}
			}
			dst = append(dst, e.Source...)
			dst = append(dst, " -> "...)
			dst = append(dst, e.Target...)
			dst = append(dst, ' ')
			dst = append(dst, e.Type...)
			dst = append(dst, '\n')
		}
	}
	return dst, nil
}
