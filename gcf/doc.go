// Package gcf implements GCF (Graph Compact Format) v3.5.3, a line-oriented
// text encoding for language models, and the two graphwire formats built on
// it: `gcf` (generic profile, lossless) and `gcf-graph` (graph profile,
// topology with sessions, deltas and content roots).
//
// It follows the published GCF specification v3.5.3. "spec §N" in this
// package names a section of gcf.md, the specification the codec was
// written against (kept with graphwire's shared specifications, outside
// this module); docs/formats.md describes graphwire's behaviour for users:
// text safety, what reads back, and where it departs from the format. The
// upstream conformance suite (281 fixtures) is run by TestConformance.
//
// # Generic profile
//
// Any JSON value encodes losslessly. Arrays of objects become a header plus
// `|`-separated rows, maps of objects keyed tables, nested values
// attachments or flattened `>` path columns:
//
//	{"orders": [{"id": 1, "customer": {"name": "Alice"}, "tags": ["a", "b"]}]}
//
// is written
//
//	GCF profile=generic
//	## orders [1]{id,"customer>name",tags}
//	@0 1|Alice|^
//	.tags [2]: a,b
//
// [MarshalValue] and [UnmarshalValue] work on the generic value model (nil,
// bool, int64, float64, string, []any, [*Object]); [ParseJSON] and
// [AppendJSON] bridge it to JSON with key order and exact integers kept.
//
// # Graph profile
//
// A graph is a header, distance groups of positional node lines and an edge
// section with local ids (`@target<@source type`):
//
//	GCF profile=graph symbols=2 edges=1
//	## targets
//	@0 fn pkg.Auth 0.78 lsp
//	## related
//	@1 fn pkg.Server 0.54 lsp
//	## edges [1]
//	@0<@1 calls
//
// [Session] replaces symbols already sent with reference lines, [Delta] and
// [ApplyDelta] exchange changes against a [PackRoot], and [Respond] picks the
// cheapest of unchanged, delta and full payloads.
//
// # GraphResponse mappings
//
// [Marshal] and [Encoder.Encode] render a graphresponse.Response: with the
// zero [Options] as the lossless `gcf` document (one table per node type,
// then edges, paths and aggregation tables), with [ProfileGraph] as the
// `gcf-graph` topology. [Unmarshal] inverts both (the second as topology
// only).
//
// # Text safety
//
// Beyond the escapes of spec §2.3, quoted strings write DEL, the C1
// controls, U+2028, U+2029, the bidirectional controls (U+061C, U+200E,
// U+200F, U+202A–U+202E, U+2066–U+2069) and U+FEFF as \uXXXX, and a string
// holding one is always quoted, so no value puts a line separator, terminal
// control or bidirectional control into the output (spec §2.14 lets them
// through; graphwire does not). Every GCF decoder reads the escapes back:
//
//	name="a\u2028b"
//
// # Errors
//
// Decoders are strict: every error is a [*SyntaxError] whose Err is one of
// the exported sentinels ([ErrCountMismatch], …); encoders return
// [*EncodeError] with a JSON Pointer to the offending input. [Code] returns
// the snake_case code of an error. I/O errors pass through unchanged.
package gcf
