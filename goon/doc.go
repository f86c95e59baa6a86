// Package goon encodes GraphResponses as GOON (Graph Object Output Notation),
// the line-oriented text format for language models that is byte-compatible
// with GitLab Orbit's GOON 4.0.1 encoder. "spec §N" in this package names a
// section of goon.md, the GOON format specification the codec was written
// against (kept with graphwire's shared specifications, outside this
// module); docs/formats.md describes graphwire's behaviour for users: text
// safety, what reads back, and where it departs from the format.
//
// A document is a header block followed by nodes grouped by type, edges
// grouped by relationship (or, for path finding, one line per path) and, for
// aggregations, one line per bucket:
//
//	@header
//	query_type:traversal
//	goon_version:4.0.1
//	nodes:2
//	edges:1
//	@nodes
//	Group(1):
//	100 full_path=acme/platform
//	User(1):
//	2 name="Bob \"the Builder\"" username=bob
//	@edges
//	MEMBER_OF(1):
//	User:2 --> Group:100 depth=1
//
// GOON is lossy on purpose: long strings are truncated (with a key_len
// breadcrumb), null and empty properties vanish, duplicate edges collapse and
// path ids and steps are not printed. The encoder is a pure function of the
// response and [Options.Version]: the same input gives the same bytes. The one
// deliberate divergence from the reference is datetime handling (spec §3.8):
// only canonical ClickHouse datetimes are rewritten, and every other string
// that contains a space or a non-ASCII character is quoted.
//
// # Text safety
//
// GOON has five escapes inside quotes (\\ \" \n \r \t) and drops every
// other C0 control and DEL (spec §3.7); identifiers (types, keys,
// descriptors, the cursor) are written verbatim. Neither may put a line
// separator, terminal control, bidirectional control or BOM into the
// output, so the encoder writes the C1 controls (NEL included), U+2028,
// U+2029, the bidirectional controls U+061C, U+200E, U+200F, U+202A–U+202E
// and U+2066–U+2069, and U+FEFF as a visible marker ⟦U+XXXX⟧ inside
// quotes, and every such code point and every control (LF included) as a
// marker in an identifier. A literal ⟦ is written ⟦U+27E6⟧, so the
// substitution is reversible, and the [Decoder] restores it:
//
//	name="a\u2028b"      →  name="a⟦U+2028⟧b"
//	key "k\nforged"      →  k⟦U+000A⟧forged=…
//
// This departs from the reference, which copies those code points raw
// (GOON 4.1.0). [Encoder.Altered] counts the strings that were dropped from
// or marked, so a caller can report that values were changed.
//
// The [Decoder] reads GOON back into a response as far as GOON carries it;
// its documentation lists what is lost.
package goon
