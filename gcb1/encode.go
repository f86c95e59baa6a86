package gcb1

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

// Encoder writes GraphResponses as GCB1 payloads to an output stream. It is
// not safe for concurrent use.
type Encoder struct {
	w   io.Writer
	buf []byte
	err error
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	_ = opts
	return &Encoder{w: w}
}

// Encode writes the payload of r in one write. A response GCB1 cannot
// carry is an [*EncodeError] and nothing is written; the first write error
// sticks and every later call returns it.
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	p, err := FromResponse(r)
	if err != nil {
		return err
	}
	if e.buf, err = appendPayload(e.buf[:0], p); err != nil {
		return err
	}
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = err
	}
	return e.err
}

// Marshal returns the GCB1 payload of r.
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type nodeRef struct {
	typ string
	id  int64
}

// FromResponse maps r to a payload as the package comment describes:
// one symbol per node in response order, one edge per edge whose ends are
// both nodes of r, in response order. Aggregations are refused with
// [ErrUnsupportedQuery].
func FromResponse(r *graphresponse.Response) (*Payload, error) {
	if r.QueryType == graphresponse.QueryAggregation {
		return nil, &EncodeError{Path: "/query_type", Err: ErrUnsupportedQuery, Detail: "aggregation responses have no topology; use json, goon, gcf or xml"}
	}
	p := &Payload{Tool: r.QueryType, Symbols: make([]Symbol, len(r.Nodes)), Edges: make([]Edge, 0, len(r.Edges))}
	index := make(map[nodeRef]int, len(r.Nodes))
	var sig []byte
	for i := range r.Nodes {
		nd := &r.Nodes[i]
		ref := nodeRef{nd.Type, nd.ID}
		if _, dup := index[ref]; !dup {
			index[ref] = i // edges end at the first of equal nodes
		}
		sig = sig[:0]
		if len(nd.Props) > 0 {
			sig = graphresponse.AppendValueJSON(sig, graphresponse.Object(graphresponse.SortedMembers(nd.Props)...))
		}
		p.Symbols[i] = Symbol{
			QualifiedName: nd.Type + ":" + strconv.FormatInt(nd.ID, 10),
			Kind:          kindOf(nd),
			Score:         1,
			Provenance:    Structural,
			Signature:     string(sig),
		}
	}
	for i := range r.Edges {
		e := &r.Edges[i]
		fi, ok1 := index[nodeRef{e.From, e.FromID}]
		ti, ok2 := index[nodeRef{e.To, e.ToID}]
		if !ok1 || !ok2 {
			continue // no symbol to point at: the edge is lost
		}
		t, ok := ParseEdgeType(strings.ToLower(e.Type))
		if !ok {
			t = References
		}
		p.Edges = append(p.Edges, Edge{Source: fi, Target: ti, Type: t})
	}
	assignDistances(r, p)
	return p, nil
}

// kindOf returns the knowing kind of a node: file and package for those
// entity types, the definition_type of a Definition when knowing has that
// kind (function, method, class, interface, …), else external (a symbol
// outside the analysed code, which every other entity is to knowing).
func kindOf(nd *graphresponse.Node) Kind {
	switch nd.Type {
	case "File":
		return KindFile
	case "Package":
		return KindPackage
	case "Definition":
		if v, ok := nd.Prop("definition_type"); ok && v.Kind() == graphresponse.KindString {
			if k, ok := ParseKind(strings.ToLower(v.Str())); ok {
				return k
			}
		}
	}
	return KindExternal
}

// assignDistances sets each symbol's hop distance by gcf-graph's rule ([gcf.NodeDistances]:
// symbols are r's nodes in order); distances above 255 are written as 255.
func assignDistances(r *graphresponse.Response, p *Payload) {
	for i, d := range gcf.NodeDistances(r, nil) {
		p.Symbols[i].Distance = uint8(min(d, 255))
	}
}
