package gcf

// Versions and media type.
const (
	// SpecVersion is the GCF specification version implemented.
	SpecVersion = "3.5.3"
	// MappingVersion is the version of the GraphResponse mappings `gcf` and
	// `gcf-graph` (spec §3), reported as the formatter version.
	MappingVersion = "1.0.0"
	// MediaType is the media type of both formats.
	MediaType = "application/vnd.gcf+text"
)

// Profile selects the GraphResponse mapping used by [Marshal], [Encoder.Encode]
// and [Unmarshal].
type Profile uint8

const (
	// ProfileGeneric (the zero value) is the lossless `gcf` format (§3.2).
	ProfileGeneric Profile = iota
	// ProfileGraph is the topology-only `gcf-graph` format (§3.3).
	ProfileGraph
)

// Options configures encoders and decoders. The zero value is the spec's
// defaults: generic profile, no tool, positional trailer counts, default
// limits.
type Options struct {
	// Profile selects the GraphResponse mapping; see [Profile].
	Profile Profile
	// Tool is written as the header key tool=; omitted when empty.
	Tool string
	// LabeledTrailerCounts writes graph stream trailer counts as
	// label:count (§2.8).
	LabeledTrailerCounts bool
	// Limits bounds decoding and encoding; zero fields take the defaults.
	Limits Limits
	// Graph configures the gcf-graph mapping.
	Graph GraphOptions
}

// Limits bounds what decoders and encoders accept (§2.13). Zero fields take
// the defaults; values below the spec minimum are raised to it. Exceeding a
// limit is [ErrLimit].
type Limits struct {
	MaxDepth          int // nesting depth; minimum 32, default 64
	MaxElements       int // elements per container and declared count; minimum 10,000, default 1,048,576
	MaxLineLength     int // bytes per line; minimum 65,536, default 1,048,576
	MaxFields         int // fields per declaration; minimum 1,000, default 4,096
	MaxInputSize      int // bytes of input; default 64 MiB
	MaxSessionSymbols int // identities remembered per session; default 100,000
}

func pick(v, minimum, def int) int {
	if v == 0 {
		return def
	}
	return max(v, minimum)
}

// withDefaults returns l with zero fields replaced by defaults and small ones
// raised to the minimum.
func (l Limits) withDefaults() Limits {
	return Limits{
		MaxDepth:          pick(l.MaxDepth, 32, 64),
		MaxElements:       pick(l.MaxElements, 10000, 1<<20),
		MaxLineLength:     pick(l.MaxLineLength, 65536, 1<<20),
		MaxFields:         pick(l.MaxFields, 1000, 4096),
		MaxInputSize:      pick(l.MaxInputSize, 1, 64<<20),
		MaxSessionSymbols: pick(l.MaxSessionSymbols, 1, 100000),
	}
}

// NodeRef names one GraphResponse node by type and id.
type NodeRef struct {
	Type string
	ID   int64
}

// GraphOptions configures the gcf-graph mapping (§3.3).
type GraphOptions struct {
	// Anchors are the distance-0 nodes; when none of them is in the
	// response, anchors are chosen by query type (§3.3.4).
	Anchors []NodeRef
	// Scores are per-node relevances; a node without one scores 1.
	Scores map[NodeRef]float64
}
