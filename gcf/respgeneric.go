package gcf

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
)

// This file is the direct `gcf` writer used by Encoder.Encode for the common
// response shape: no aggregation sections and only scalar property values.
// It writes exactly the canonical generic encoding of D(r) (§3.2.1–§3.2.2)
// without building the document; anything else, including every error case,
// goes through documentOf and the generic encoder (TestDirectGeneric compares
// the two).

// genScratch is reusable state of the direct writer.
type genScratch struct {
	seen  map[NodeRef]struct{}
	types []string
	keys  []string
	perm  []int32
}

func scalarValue(v graphresponse.Value) bool {
	switch v.Kind() {
	case graphresponse.KindNull, graphresponse.KindBool, graphresponse.KindInt:
		return true
	case graphresponse.KindFloat:
		return isFinite(v.Float())
	case graphresponse.KindString:
		return utf8.ValidString(v.Str())
	}
	return false
}

func appendScalarValue(dst []byte, v graphresponse.Value) []byte {
	switch v.Kind() {
	case graphresponse.KindNull:
		return append(dst, '-')
	case graphresponse.KindBool:
		return strconv.AppendBool(dst, v.Bool())
	case graphresponse.KindInt:
		return strconv.AppendInt(dst, v.Int(), 10)
	case graphresponse.KindFloat:
		return appendFloat(dst, v.Float())
	}
	return appendString(dst, v.Str())
}

// directGenericOK reports whether r fits the direct writer.
func directGenericOK(r *graphresponse.Response) bool {
	if r.Columns != nil || r.GroupColumns != nil || r.Rows != nil || !utf8.ValidString(r.QueryType) {
		return false
	}
	if p := r.Pagination; p != nil && p.NextCursor != nil && !utf8.ValidString(*p.NextCursor) {
		return false
	}
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Type == "" || isReserved(n.Type) || !utf8.ValidString(n.Type) {
			return false
		}
		for _, m := range n.Props {
			if m.Key == "id" || strings.Contains(m.Key, ">") || !utf8.ValidString(m.Key) || !scalarValue(m.Value) {
				return false
			}
		}
	}
	for i := range r.Edges {
		e := &r.Edges[i]
		if !utf8.ValidString(e.From) || !utf8.ValidString(e.To) || !utf8.ValidString(e.Type) {
			return false
		}
	}
	return true
}

// appendResponseGeneric writes the body of D(r) after the header line. ok is
// false when r needs the general path.
func appendResponseGeneric(dst []byte, r *graphresponse.Response, s *genScratch) ([]byte, bool) {
	if !directGenericOK(r) {
		return dst, false
	}
	// Node types in byte order; duplicates (type, id) go the general way,
	// which reports them.
	s.types = s.types[:0]
	for i := range r.Nodes {
		if !slices.Contains(s.types, r.Nodes[i].Type) {
			s.types = append(s.types, r.Nodes[i].Type)
		}
	}
	slices.Sort(s.types)
	if s.hasDuplicateNodes(r) {
		return dst, false
	}
	dst = append(dst, "query_type="...)
	dst = appendString(dst, r.QueryType)
	dst = append(dst, "\nmapping_version="...)
	dst = append(dst, MappingVersion...)
	dst = append(dst, '\n')
	if p := r.Pagination; p != nil {
		dst = append(dst, "## pagination\n  has_more="...)
		dst = strconv.AppendBool(dst, p.HasMore)
		dst = append(dst, "\n  truncated="...)
		dst = strconv.AppendBool(dst, p.Truncated)
		dst = append(dst, '\n')
		if p.NextCursor != nil {
			dst = append(dst, "  next_cursor="...)
			dst = appendString(dst, *p.NextCursor)
			dst = append(dst, '\n')
		}
	}
	for _, t := range s.types {
		dst = s.nodeTable(dst, r, t)
	}
	dst = appendEdgeTable(dst, r, false)
	dst = appendEdgeTable(dst, r, true)
	return dst, true
}

func (s *genScratch) hasDuplicateNodes(r *graphresponse.Response) bool {
	if len(r.Nodes) <= 64 {
		for i := range r.Nodes {
			for j := range i {
				if r.Nodes[i].ID == r.Nodes[j].ID && r.Nodes[i].Type == r.Nodes[j].Type {
					return true
				}
			}
		}
		return false
	}
	if s.seen == nil {
		s.seen = make(map[NodeRef]struct{}, len(r.Nodes))
	} else {
		clear(s.seen)
	}
	for i := range r.Nodes {
		ref := NodeRef{r.Nodes[i].Type, r.Nodes[i].ID}
		if _, ok := s.seen[ref]; ok {
			return true
		}
		s.seen[ref] = struct{}{}
	}
	return false
}

// sortedProps returns the permutation sorting props by key.
func (s *genScratch) sortedProps(props []graphresponse.Member) []int32 {
	perm := s.perm[:0]
	for j := range props {
		perm = append(perm, int32(j))
	}
	slices.SortFunc(perm, func(a, b int32) int { return strings.Compare(props[a].Key, props[b].Key) })
	s.perm = perm
	return perm
}

// nodeTable writes "## Type [n]{id,…}" and one row per node of type t.
func (s *genScratch) nodeTable(dst []byte, r *graphresponse.Response, t string) []byte {
	// Column union: the first node's sorted keys, then keys first seen later.
	s.keys = s.keys[:0]
	count := 0
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Type != t {
			continue
		}
		count++
		for _, j := range s.sortedProps(n.Props) {
			if k := n.Props[j].Key; !slices.Contains(s.keys, k) {
				s.keys = append(s.keys, k)
			}
		}
	}
	dst = append(dst, "## "...)
	dst = appendKey(dst, t)
	dst = append(dst, " ["...)
	dst = strconv.AppendInt(dst, int64(count), 10)
	dst = append(dst, "]{id"...)
	for _, k := range s.keys {
		dst = append(dst, ',')
		dst = appendKey(dst, k)
	}
	dst = append(dst, "}\n"...)
	for i := range r.Nodes {
		n := &r.Nodes[i]
		if n.Type != t {
			continue
		}
		dst = strconv.AppendInt(dst, n.ID, 10)
		for _, k := range s.keys {
			dst = append(dst, '|')
			v, ok := n.Prop(k)
			if !ok {
				dst = append(dst, '~')
				continue
			}
			dst = appendScalarValue(dst, v)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// Edge table columns, in the member order of §3.2.1.
const (
	colPathID = iota
	colFrom
	colFromID
	colTo
	colToID
	colType
	colDepth
	colStep
	numEdgeCols
)

var edgeColNames = [numEdgeCols]string{"path_id", "from", "from_id", "to", "to_id", "type", "depth", "step"}

// edgeKeys returns the keys of edge e's object in order.
func edgeKeys(e *graphresponse.Edge, dst []int) []int {
	dst = dst[:0]
	if e.PathID.Valid {
		dst = append(dst, colPathID)
		if e.Step.Valid {
			dst = append(dst, colStep)
		}
	}
	dst = append(dst, colFrom, colFromID, colTo, colToID, colType)
	if e.Depth.Valid {
		dst = append(dst, colDepth)
	}
	if !e.PathID.Valid && e.Step.Valid {
		dst = append(dst, colStep)
	}
	return dst
}

// appendEdgeTable writes the edges (paths false) or paths table.
func appendEdgeTable(dst []byte, r *graphresponse.Response, paths bool) []byte {
	var union, keys [numEdgeCols]int
	nu, count := 0, 0
	for i := range r.Edges {
		e := &r.Edges[i]
		if e.PathID.Valid != paths {
			continue
		}
		count++
		for _, k := range edgeKeys(e, keys[:0]) {
			if !slices.Contains(union[:nu], k) {
				union[nu] = k
				nu++
			}
		}
	}
	if count == 0 {
		return dst
	}
	if paths {
		dst = append(dst, "## paths ["...)
	} else {
		dst = append(dst, "## edges ["...)
	}
	dst = strconv.AppendInt(dst, int64(count), 10)
	dst = append(dst, "]{"...)
	for i, k := range union[:nu] {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, edgeColNames[k]...)
	}
	dst = append(dst, "}\n"...)
	for i := range r.Edges {
		e := &r.Edges[i]
		if e.PathID.Valid != paths {
			continue
		}
		for j, k := range union[:nu] {
			if j > 0 {
				dst = append(dst, '|')
			}
			switch k {
			case colPathID:
				dst = appendOpt(dst, e.PathID)
			case colFrom:
				dst = appendString(dst, e.From)
			case colFromID:
				dst = strconv.AppendInt(dst, e.FromID, 10)
			case colTo:
				dst = appendString(dst, e.To)
			case colToID:
				dst = strconv.AppendInt(dst, e.ToID, 10)
			case colType:
				dst = appendString(dst, e.Type)
			case colDepth:
				dst = appendOpt(dst, e.Depth)
			case colStep:
				dst = appendOpt(dst, e.Step)
			}
		}
		dst = append(dst, '\n')
	}
	return dst
}

func appendOpt(dst []byte, v graphresponse.OptInt) []byte {
	if !v.Valid {
		return append(dst, '~')
	}
	return strconv.AppendInt(dst, v.Value, 10)
}
