package xmlgraph

// Namespace is the XML namespace of the document element and of every
// element below it.
const Namespace = "urn:graphwire:graph_response:1"

// Options tunes the encoder and decoder. It has no fields yet: the zero
// value is the only layout, documented in the package comment. Options is
// passed by value and safe to share.
type Options struct{}
