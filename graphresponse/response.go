package graphresponse

import (
	"bytes"
	"cmp"
	"slices"
)

// Query types that change how a response is built and encoded.
const (
	QueryTraversal   = "traversal"
	QueryAggregation = "aggregation"
	QueryPathFinding = "path_finding"
	QueryNeighbors   = "neighbors"
)

// Response is one query result: the GraphResponse of docs/formats.md, "The raw JSON response".
//
// Optional sections use nil to mean absent and a non-nil (possibly empty)
// slice to mean present: Rows == nil has no rows section at all, while
// Rows == []Row{} is an aggregation that matched nothing. Decoders, encoders
// and the builder keep that difference; test for nil, not for length, when
// it matters.
type Response struct {
	FormatVersion string
	QueryType     string
	Nodes         []Node
	Edges         []Edge
	Columns       []Column      // aggregation only; nil when absent
	GroupColumns  []GroupColumn // aggregation only; nil when absent
	Rows          []Row         // aggregation only; nil when absent
	Pagination    *Pagination   // nil when absent

	// Repaired counts the strings [Build] found not valid UTF-8 in the engine's rows and
	// repaired, each run of bad bytes replaced by U+FFFD (docs/formats.md, "Text that is
	// not UTF-8"). It is metadata for the faces (added to altered_values): no encoder
	// writes it, decoders leave it 0 and [Response.Equal] ignores it.
	Repaired int
}

// Node is one entity instance. Props holds its properties; the raw JSON
// encoder writes them sorted by key, whatever their order here. Keys are
// unique and never "type" or "id".
type Node struct {
	Type  string
	ID    int64
	Props []Member
}

// Prop returns the value of the property named key.
func (n *Node) Prop(key string) (Value, bool) {
	for _, m := range n.Props {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// OptInt is an optional integer: Valid reports presence, so an absent value
// differs from 0.
type OptInt struct {
	Value int64
	Valid bool
}

// Some returns a present [OptInt].
func Some(v int64) OptInt { return OptInt{Value: v, Valid: true} }

// Edge is one relationship between two nodes.
type Edge struct {
	From   string // entity type of the source
	FromID int64
	To     string // entity type of the target
	ToID   int64
	Type   string // relationship type
	Depth  OptInt // hop count of a variable-length traversal
	PathID OptInt // path_finding: which path, 0-based
	Step   OptInt // path_finding: hop index inside the path, 0-based
}

// Column is a metric column of an aggregation.
type Column struct {
	Name     string // row key
	Function string // count, sum, avg, min, max or collect
	Target   string // node alias
	Property string // "" when absent
}

// GroupColumn is a grouping column of an aggregation.
type GroupColumn struct {
	Name     string // row key
	Kind     string // node or property
	Node     string // node alias
	Property string // "" when absent
	Entity   string // "" when absent
}

// Group column kinds.
const (
	GroupKindNode     = "node"
	GroupKindProperty = "property"
)

// Row is one aggregation bucket, keyed by group-column and column names. A
// node bucket is an object value {type, id (string), properties}; a bucket
// that could not be resolved is null. A metric whose result is missing is
// left out of the row.
type Row []Member

// Get returns the cell named key.
func (r Row) Get(key string) (Value, bool) {
	for _, m := range r {
		if m.Key == key {
			return m.Value, true
		}
	}
	return Value{}, false
}

// Pagination describes the window a response covers.
type Pagination struct {
	HasMore    bool    // more matching rows exist
	Truncated  bool    // this window omits rows
	NextCursor *string // nil when absent
}

// NodeBucket returns the row cell of a node bucket: an object with type, id as
// a decimal string and properties.
func NodeBucket(typ string, id string, props []Member) Value {
	if props == nil {
		props = []Member{}
	}
	return Object(
		Member{Key: "type", Value: String(typ)},
		Member{Key: "id", Value: String(id)},
		Member{Key: "properties", Value: Object(props...)},
	)
}

// SortedMembers returns ms sorted by key in byte order, reusing ms when it is
// already sorted and copying it otherwise, so the caller's slice is never
// modified.
func SortedMembers(ms []Member) []Member {
	less := func(a, b Member) int { return cmp.Compare(a.Key, b.Key) }
	if slices.IsSortedFunc(ms, less) {
		return ms
	}
	out := slices.Clone(ms)
	slices.SortStableFunc(out, less)
	return out
}

// Equal reports whether r and o are the same response: the same raw JSON
// encoding, so presence of optional sections and edge fields, integer versus
// float and every value count, while the order of properties, row cells and
// bucket properties does not.
func (r *Response) Equal(o *Response) bool {
	if r == nil || o == nil {
		return r == o
	}
	return bytes.Equal(AppendJSON(nil, r), AppendJSON(nil, o))
}
