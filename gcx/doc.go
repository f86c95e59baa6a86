// Package gcx reads and writes GCX1, the tab-separated sectioned text
// format of graphwire's "gcx" output, and maps GraphResponses onto it. GCX1
// is the published Gortex compact wire format; "spec §N" in this package
// names a section of gcx.md, the specification the codec was written
// against (kept with graphwire's shared specifications, outside this
// module). docs/formats.md describes graphwire's behaviour for users: text
// safety, what reads back, and where it departs from the format.
//
// # The format
//
// A payload is a run of sections. Each section is one header line naming a
// tool, its fields and sorted key=value meta, followed by one line per row
// whose cells are separated by TAB:
//
//	GCX1 tool=graph.nodes fields=id,name query_type=traversal rows=2 type=User
//	5252563	Jordan NG
//	64248	stanhu
//
// Cells escape backslash, TAB and LF as \\, \t and \n; CR is dropped. A
// first cell starting with "#" or "GCX" gets a guarding backslash, so it
// is never read as a comment or a header. Header names must be free of
// spaces, control bytes and backslashes; the encoder refuses any section
// that would not read back as written ([ErrUnsafeName], [ErrReservedKey],
// [ErrBlankRow], [ErrLineTooLong]).
//
// # Text safety
//
// GCX1 has no escape for other control characters, so graphwire writes
// every other C0 control, DEL, the C1 controls (NEL included), U+2028,
// U+2029, the bidirectional controls and U+FEFF as a visible marker
// ⟦U+XXXX⟧, and a literal ⟦ as ⟦U+27E6⟧ (package internal/textsafe). The
// decoder turns markers in cells back into their code points, so a
// consumer that splits lines on U+2028 or NEL, or a terminal, never sees
// a forged row, header or escape sequence:
//
//	"a\u2028GCX1 tool=x"  →  a⟦U+2028⟧GCX1 tool=x
//
// Header names may not hold those code points at all: the graph mapping
// moves such a type name or key into a cell. [Encoder.Altered] counts the
// cells written with a marker or without a CR.
//
// # GraphResponses
//
// [Marshal], [Encoder.Encode], [Unmarshal] and [Decoder.Decode] follow the
// codec shape shared by goon, gcf and toon. A response becomes one
// graph.nodes section per node type, graph.edges sections per
// (type, from, to), graph.paths, graph.columns and graph.rows (spec §11).
// Decoding gives back an equivalent response, [Canon] of the original:
// values come back as strings, since GCX1 has no types (spec §13.2).
//
// # Sections and other JSON
//
// [MarshalSections], [UnmarshalSections], [Encoder.EncodeSection],
// [Encoder.WriteHeader], [Encoder.WriteRow] and the [Decoder] methods
// NextSection, NextRow and ReadSection work on plain [Section] values.
// [MarshalValue] and [Encoder.EncodeValue] write any JSON value with the
// generic fallback of spec §9, and [AppendJSON] turns sections back into
// JSON. [ToolDefinitionsSection], [ToolRequestSection], [ErrorSection] and
// [ResolveRepo] implement the envelope sections of spec §10.
//
// The decoder reads an empty field name ("fields=" is one field named "",
// as gcx-go writes for the JSON key ""), which the encoder never writes; a
// repeated name is still [ErrBadField].
//
// Decoding errors are [*SyntaxError] values carrying the line and column
// and wrapping one of the Err sentinels; read errors pass through
// unchanged. Nothing in the package keeps global state; Encoder and
// Decoder are not safe for concurrent use, everything else is.
package gcx
