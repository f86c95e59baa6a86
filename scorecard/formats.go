package scorecard

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"slices"
	"strconv"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/toon"
)

// Format names of the scorecard columns, in report order. JSONCompact is
// the baseline every saving is measured against.
const (
	JSONCompact = "json"
	JSONPretty  = "json-pretty"
)

// Round-trip verdicts, best first. A format's verdict for a case is the
// best level its output reaches.
const (
	// RoundTripLossless: Parse(Format(x)) equals x. For a GraphResponse,
	// equality is graphresponse.Marshal after sorting nodes by (type, id)
	// and edges by their JSON, with format_version ignored and an all-false
	// pagination treated as absent; for generic JSON, equal JSON values
	// (same keys and values; key order and number spelling ignored).
	RoundTripLossless = "lossless"
	// RoundTripCanonical: gcx only; Parse(Format(r)) equals gcx.Canon(r),
	// the documented canonical form (every value read back as its text).
	RoundTripCanonical = "canonical"
	// RoundTripTopology: gcf-graph only; the node (type, id) set and the
	// deduplicated (from, to, type) set of edges between returned nodes
	// survive (spec gcf.md §3.3.5, §3.3.8).
	RoundTripTopology = "topology"
	// RoundTripStable: lossy, but a fixed point:
	// Format(Parse(Format(x))) == Format(x).
	RoundTripStable = "stable"
	// RoundTripLossy: the output parses, but none of the above holds.
	RoundTripLossy = "lossy"
	// RoundTripFail: the output does not parse back.
	RoundTripFail = "FAIL"
	// RoundTripNone: the format has no reader (markdown, a view for
	// people); its size is shown but never counted as a saving.
	RoundTripNone = "no reader"
)

// Format is one scorecard column: how to encode and decode a
// GraphResponse and, when the format can carry any JSON, a generic value.
type Format struct {
	Name string
	// Baseline describes the encoding in the report.
	Baseline string
	// Graph, when set, encodes a GraphResponse; Parse decodes it back, and
	// is nil for a format that has no reader.
	Graph func(r *graphresponse.Response) ([]byte, error)
	Parse func(data []byte) (*graphresponse.Response, error)
	// Value, when set, encodes a generic JSON document; ParseValue decodes
	// it and returns a JSON rendering comparable with [canonicalJSON], or
	// nil when the format cannot say (gcx: sections of strings).
	Value      func(tool string, doc []byte) ([]byte, error)
	ParseValue func(data []byte) ([]byte, error)
	// ReValue re-encodes decoded output, for the fixed-point check.
	ReValue func(data []byte) ([]byte, error)
	// Binary: the output is bytes (gcb1), measured in bytes only; it has
	// no tokens and never wins.
	Binary bool
}

// Formats returns the scorecard formats, in column order: compact JSON,
// pretty JSON, then the registered text formats goon, gcf, gcf-graph, gcx,
// toon, xml and markdown of reg, and the binary gcb1. Markdown has no
// reader: its Parse is nil.
func Formats(reg *formatter.Registry) ([]Format, error) {
	lookup := func(name string) (formatter.Formatter, formatter.Parser, error) {
		f, err := reg.Lookup(name)
		if err != nil {
			return nil, nil, err
		}
		p, ok := f.(formatter.Parser)
		if !ok && name != formatter.Markdown {
			return nil, nil, errors.New("scorecard: format " + name + " cannot parse")
		}
		return f, p, nil
	}
	graph := func(f formatter.Formatter) func(*graphresponse.Response) ([]byte, error) {
		return func(r *graphresponse.Response) ([]byte, error) {
			out, err := formatter.Stamp(f, r)
			return out.Bytes, err
		}
	}
	var out []Format
	jf, jp, err := lookup(formatter.JSON)
	if err != nil {
		return nil, err
	}
	out = append(out,
		Format{
			Name: JSONCompact, Baseline: "compact JSON: GraphResponses as served raw (graphresponse.Marshal); generic documents as encoding/json.Marshal of the UseNumber-decoded value (keys sorted, `<>&` escaped, the upstream GCX baseline)",
			Graph: graph(jf), Parse: jp.Parse,
			Value:      func(_ string, doc []byte) ([]byte, error) { return compactJSON(doc) },
			ParseValue: func(data []byte) ([]byte, error) { return canonicalJSON(data) },
			ReValue:    compactJSON,
		},
		Format{
			Name: JSONPretty, Baseline: "pretty JSON: the compact bytes re-indented by encoding/json.Indent with two spaces, no prefix",
			Graph: func(r *graphresponse.Response) ([]byte, error) {
				return indent(graphresponse.Marshal(r))
			},
			Parse: graphresponse.Unmarshal,
			Value: func(_ string, doc []byte) ([]byte, error) {
				c, err := compactJSON(doc)
				if err != nil {
					return nil, err
				}
				return indent(c)
			},
			ParseValue: func(data []byte) ([]byte, error) { return canonicalJSON(data) },
			ReValue: func(data []byte) ([]byte, error) {
				c, err := compactJSON(data)
				if err != nil {
					return nil, err
				}
				return indent(c)
			},
		},
	)
	for _, name := range []string{formatter.GOON, formatter.GCF, formatter.GCFGraph, formatter.GCX, formatter.TOON, formatter.XML, formatter.Markdown, formatter.GCB1} {
		f, p, err := lookup(name)
		if err != nil {
			return nil, err
		}
		ft := Format{Name: name, Baseline: name + " " + f.Version() + " (formatter.Default)", Graph: graph(f), Binary: formatter.IsBinary(f)}
		if p != nil {
			ft.Parse = p.Parse
		}
		switch name {
		case formatter.GCF:
			ft.Value = func(_ string, doc []byte) ([]byte, error) {
				v, err := gcf.ParseJSON(doc)
				if err != nil {
					return nil, err
				}
				return gcf.MarshalValue(v, gcf.Options{})
			}
			ft.ParseValue = func(data []byte) ([]byte, error) {
				v, err := gcf.UnmarshalValue(data, gcf.Options{})
				if err != nil {
					return nil, err
				}
				j, err := gcf.AppendJSON(nil, v)
				if err != nil {
					return nil, err
				}
				return canonicalJSON(j)
			}
			ft.ReValue = func(data []byte) ([]byte, error) {
				v, err := gcf.UnmarshalValue(data, gcf.Options{})
				if err != nil {
					return nil, err
				}
				return gcf.MarshalValue(v, gcf.Options{})
			}
		case formatter.GCX:
			ft.Value = func(tool string, doc []byte) ([]byte, error) {
				v, err := decodeNumber(doc)
				if err != nil {
					return nil, err
				}
				return gcx.MarshalValue(tool, v)
			}
			ft.ParseValue = func(data []byte) ([]byte, error) {
				_, err := gcx.UnmarshalSections(data)
				return nil, err
			}
			ft.ReValue = func(data []byte) ([]byte, error) {
				secs, err := gcx.UnmarshalSections(data)
				if err != nil {
					return nil, err
				}
				return gcx.MarshalSections(secs...)
			}
		case formatter.TOON:
			ft.Value = func(_ string, doc []byte) ([]byte, error) { return toon.FromJSON(doc, toon.Options{}) }
			ft.ParseValue = func(data []byte) ([]byte, error) {
				j, err := toon.ToJSON(data, toon.Options{}, "")
				if err != nil {
					return nil, err
				}
				return canonicalJSON(j)
			}
			ft.ReValue = func(data []byte) ([]byte, error) {
				v, err := toon.UnmarshalOptions(data, toon.Options{})
				if err != nil {
					return nil, err
				}
				return toon.MarshalOptions(v, toon.Options{})
			}
		}
		out = append(out, ft)
	}
	return out, nil
}

func decodeNumber(doc []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// compactJSON is the upstream GCX baseline: the UseNumber-decoded value
// through json.Marshal (sorted keys, HTML escaping).
func compactJSON(doc []byte) ([]byte, error) {
	v, err := decodeNumber(doc)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// canonicalJSON is the JSON value of doc with numbers compared by value:
// decoded into float64-free form (UseNumber, then each number normalised
// through strconv) and re-marshalled with sorted keys.
func canonicalJSON(doc []byte) ([]byte, error) {
	v, err := decodeNumber(doc)
	if err != nil {
		return nil, err
	}
	return json.Marshal(normNumbers(v))
}

func normNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
			return json.Number(strconv.FormatInt(i, 10))
		}
		if f, err := x.Float64(); err == nil {
			return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
		}
		return x
	case []any:
		for i := range x {
			x[i] = normNumbers(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = normNumbers(x[k])
		}
		return x
	}
	return v
}

func indent(compact []byte) ([]byte, error) {
	var b bytes.Buffer
	if err := json.Indent(&b, compact, "", "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Counted reports whether a round-trip verdict keeps the content: lossless
// or canonical (gcx's documented canonical form). Only counted results enter
// the scorecard's medians and wins; every other verdict (topology, stable,
// lossy, FAIL) is marked † in the report and drawn faded in the chart, so
// that a smaller output that lost content never reads as a saving.
func Counted(roundTrip string) bool {
	return roundTrip == RoundTripLossless || roundTrip == RoundTripCanonical
}

// Grade returns the round-trip verdict of out, the output of format f for
// the GraphResponse r (which need not come from f.Graph: a server's answer
// is graded the same way).
func Grade(f Format, r *graphresponse.Response, out []byte) string {
	return roundTripGraph(f, r, out)
}

// Lossless reports whether back, the decoded output of a format for r,
// carries r exactly under the [RoundTripLossless] rule. The serving
// pipeline's format "auto" grades every candidate answer with it, so the
// formats it may choose are the ones this scorecard calls lossless.
func Lossless(r, back *graphresponse.Response) bool {
	return bytes.Equal(orderFree(back), orderFree(r))
}

// roundTripGraph grades f's output out for r.
func roundTripGraph(f Format, r *graphresponse.Response, out []byte) string {
	if f.Parse == nil {
		return RoundTripNone
	}
	back, err := f.Parse(out)
	if err != nil {
		return RoundTripFail
	}
	if Lossless(r, back) {
		return RoundTripLossless
	}
	switch f.Name {
	case formatter.GCX:
		if bytes.Equal(orderFree(back), orderFree(gcx.Canon(r))) {
			return RoundTripCanonical
		}
	case formatter.GCFGraph:
		if slices.Equal(nodeKeys(back), nodeKeys(r)) && slices.Equal(edgeKeys(back, nil), edgeKeys(r, r)) {
			return RoundTripTopology
		}
	}
	if again, err := f.Graph(back); err == nil && bytes.Equal(again, out) {
		return RoundTripStable
	}
	return RoundTripLossy
}

// roundTripValue grades f's output out for the generic document doc.
func roundTripValue(f Format, doc, out []byte) string {
	back, err := f.ParseValue(out)
	if err != nil {
		return RoundTripFail
	}
	if back != nil {
		want, err := canonicalJSON(doc)
		if err == nil && bytes.Equal(back, want) {
			return RoundTripLossless
		}
	}
	if again, err := f.ReValue(out); err == nil && bytes.Equal(again, out) {
		return RoundTripStable
	}
	return RoundTripLossy
}

// orderFree is the raw JSON of r with nodes sorted by (type, id, JSON),
// edges by JSON, format_version cleared and an all-false pagination
// dropped.
func orderFree(r *graphresponse.Response) []byte {
	c := *r
	c.FormatVersion = ""
	if p := c.Pagination; p != nil && !p.HasMore && !p.Truncated && p.NextCursor == nil {
		c.Pagination = nil
	}
	type keyed[T any] struct {
		v   T
		key []byte
	}
	nodes := make([]keyed[graphresponse.Node], len(r.Nodes))
	for i, n := range r.Nodes {
		nodes[i] = keyed[graphresponse.Node]{n, graphresponse.Marshal(&graphresponse.Response{Nodes: []graphresponse.Node{n}})}
	}
	slices.SortStableFunc(nodes, func(a, b keyed[graphresponse.Node]) int {
		return cmp.Or(cmp.Compare(a.v.Type, b.v.Type), cmp.Compare(a.v.ID, b.v.ID), bytes.Compare(a.key, b.key))
	})
	c.Nodes = make([]graphresponse.Node, len(nodes))
	for i, n := range nodes {
		c.Nodes[i] = n.v
	}
	edges := make([]keyed[graphresponse.Edge], len(r.Edges))
	for i, e := range r.Edges {
		edges[i] = keyed[graphresponse.Edge]{e, graphresponse.Marshal(&graphresponse.Response{Edges: []graphresponse.Edge{e}})}
	}
	slices.SortStableFunc(edges, func(a, b keyed[graphresponse.Edge]) int { return bytes.Compare(a.key, b.key) })
	c.Edges = make([]graphresponse.Edge, len(edges))
	for i, e := range edges {
		c.Edges[i] = e.v
	}
	return graphresponse.Marshal(&c)
}

func nodeKeys(r *graphresponse.Response) []string {
	ks := make([]string, 0, len(r.Nodes))
	for _, n := range r.Nodes {
		ks = append(ks, n.Type+":"+strconv.FormatInt(n.ID, 10))
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}

// edgeKeys returns the deduplicated (from, to, type) keys of r's edges;
// with within set, only of edges whose endpoints are both nodes of within
// (gcf-graph leaves the others out and counts them, spec gcf.md §3.3.5).
func edgeKeys(r, within *graphresponse.Response) []string {
	var nodes []string
	if within != nil {
		nodes = nodeKeys(within)
	}
	ks := make([]string, 0, len(r.Edges))
	for _, e := range r.Edges {
		from, to := e.From+":"+strconv.FormatInt(e.FromID, 10), e.To+":"+strconv.FormatInt(e.ToID, 10)
		if within != nil {
			if _, ok := slices.BinarySearch(nodes, from); !ok {
				continue
			}
			if _, ok := slices.BinarySearch(nodes, to); !ok {
				continue
			}
		}
		ks = append(ks, from+">"+to+" "+e.Type)
	}
	slices.Sort(ks)
	return slices.Compact(ks)
}
