package gcb1

import (
	"io"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// Decoder reads one GCB1 payload from an input stream. It is not safe for
// concurrent use.
type Decoder struct {
	r io.Reader
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader, opts Options) *Decoder {
	_ = opts
	return &Decoder{r: r}
}

// Decode reads all of the input (GCB1 has no terminator: the payload is
// the whole input) and returns the response it encodes, as [Unmarshal].
// Read errors are returned unchanged.
func (d *Decoder) Decode() (*graphresponse.Response, error) {
	data, err := io.ReadAll(d.r)
	if err != nil {
		return nil, err
	}
	return Unmarshal(data, Options{})
}

// Unmarshal decodes a payload strictly ([UnmarshalPayload]) and maps it
// back to a response: the query type from the tool, one node per symbol
// (type and id from the "Type:ID" qualified name, properties from the JSON
// object in the signature), one edge per edge with knowing's edge type in
// upper case (calls → CALLS). A payload that is not in that form, or an
// edge with status added or removed, which a response cannot carry, is
// [ErrMapping]. Every error is a [*SyntaxError] with the byte offset.
func Unmarshal(data []byte, opts Options) (*graphresponse.Response, error) {
	_ = opts
	d := reader{data: data, at: &offsets{}}
	p, err := d.payload()
	if err != nil {
		return nil, err
	}
	return toResponse(p, d.at)
}

// offsets records where the fields the mapping reads start, so that its
// errors point into the input.
type offsets struct {
	tool      int
	qname     []int
	signature []int
	status    []int
}

func toResponse(p *Payload, at *offsets) (*graphresponse.Response, error) {
	fail := func(off int, msg string) error { return &SyntaxError{Offset: off, Err: ErrMapping, Msg: msg} }
	if p.Tool == graphresponse.QueryAggregation {
		return nil, fail(at.tool, "an aggregation has no GCB1 form")
	}
	r := &graphresponse.Response{
		FormatVersion: config.RawVersion(),
		QueryType:     p.Tool,
		Nodes:         make([]graphresponse.Node, len(p.Symbols)),
		Edges:         make([]graphresponse.Edge, len(p.Edges)),
	}
	for i := range p.Symbols {
		s := &p.Symbols[i]
		// The type may hold ':' itself; the id is after the last one.
		j := strings.LastIndexByte(s.QualifiedName, ':')
		typ, id := s.QualifiedName[:max(j, 0)], s.QualifiedName[j+1:]
		n, err := strconv.ParseInt(id, 10, 64)
		if j < 0 || err != nil || strconv.FormatInt(n, 10) != id {
			return nil, fail(at.qname[i], "symbol "+strconv.Itoa(i)+" qname "+strconv.Quote(s.QualifiedName)+" is not Type:ID")
		}
		nd := graphresponse.Node{Type: typ, ID: n}
		if s.Signature != "" {
			v, err := graphresponse.UnmarshalValue([]byte(s.Signature))
			if err != nil || v.Kind() != graphresponse.KindObject {
				return nil, fail(at.signature[i], "symbol "+strconv.Itoa(i)+" signature is not a JSON object of properties")
			}
			for _, m := range v.Members() {
				if _, dup := nd.Prop(m.Key); dup || m.Key == "type" || m.Key == "id" {
					return nil, fail(at.signature[i], "symbol "+strconv.Itoa(i)+" signature repeats a key or names type or id: "+strconv.Quote(m.Key))
				}
				nd.Props = append(nd.Props, m)
			}
		}
		r.Nodes[i] = nd
	}
	for i, e := range p.Edges {
		if e.Status != 0 {
			return nil, fail(at.status[i], "edge "+strconv.Itoa(i)+" status "+e.Status.String()+" has no response form")
		}
		from, to := &r.Nodes[e.Source], &r.Nodes[e.Target]
		r.Edges[i] = graphresponse.Edge{From: from.Type, FromID: from.ID, To: to.Type, ToID: to.ID, Type: strings.ToUpper(e.Type.String())}
	}
	return r, nil
}
