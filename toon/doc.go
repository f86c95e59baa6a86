// Package toon is graphwire's TOON v4.0 codec (Token-Oriented Object
// Notation, the published toon-spec 4.0) and the TOON rendering of
// GraphResponses. "spec §N" in this package names a section of toon.md, the
// specification the codec was written against (kept with graphwire's shared
// specifications, outside this module); docs/formats.md describes
// graphwire's behaviour for users: text safety, what reads back, and where
// it departs from the format.
//
// # Value model
//
// TOON carries the JSON data model. The decoder returns
//
//	object       → [Object] (ordered []Member{Key, Value})
//	array        → []any
//	string       → string
//	number       → json.Number holding the canonical text (see [CanonicalNumber])
//	true / false → bool
//	null         → nil
//
// The encoder accepts those values and also Go integers, float32/float64
// (NaN and ±Inf become null), map[string]any (keys sorted by byte order),
// []string, time.Time (RFC 3339) and anything else encoding/json can
// marshal (read back with the order-preserving [ParseJSON], so struct fields
// keep declaration order). Values that cannot be represented fail with
// [ErrUnsupportedType].
//
// # Encoding
//
// [Marshal], [MarshalOptions] and [Encoder.Encode] write one document with
// no trailing newline. Arrays take the first form that fits: empty (key: []),
// inline primitives (key[N]: a,b), a table of uniform objects with nested
// field groups (key[N]{id,customer{name,country}}:), or list items.
// Objects of two or more uniform objects are written as keyed tables
// (key[N:]{f1,f2}: with "entry: c1,c2" rows). [Options.Delimiter] picks
// comma, TAB or pipe; [Options.IndentSize] the spaces per level (default 2).
//
// Beyond the escapes of spec §2.4, a string holding DEL, a C1 control,
// U+2028, U+2029, a bidirectional control (U+061C, U+200E, U+200F,
// U+202A–U+202E, U+2066–U+2069) or U+FEFF is quoted and the code point is
// written as \uXXXX, so no value puts a line separator, terminal control or
// bidirectional control into the output; every TOON decoder reads it back
// (key: "a\u2028b").
//
// # Decoding
//
// [Unmarshal], [UnmarshalOptions] and [Decoder.Decode] read one document.
// Strict mode (the default) enforces declared lengths and widths,
// indentation, blank lines inside arrays, duplicate keys, header syntax and
// UTF-8; [Options.Lenient] relaxes them as the spec allows (depth rounded
// down, last write wins, malformed headers read as literal keys). Full-line
// comments starting with '#' are dropped in both modes. Every decoding
// error is a [*SyntaxError] with the 1-based line and column and one of the
// Err* sentinels, testable with errors.Is.
//
// # JSON conversion
//
// A JSON → TOON converter is ParseJSON followed by Marshal; TOON → JSON is
// Unmarshal followed by [AppendJSON] (compact) or [AppendJSONIndent], which
// keep key order and write canonical numbers. [Equal] compares values in
// the JSON sense (ordered keys, numbers by canonical text) and
// [EqualUnordered] ignores object key order.
//
// # GraphResponse rendering
//
// [MarshalResponse] and [Encoder.EncodeResponse] render a
// graphresponse.Response in the layout of spec §7 (output format "toon",
// layout version in config/TOON_OUTPUT_FORMAT_VERSION): one table per node
// type, edges nested by relationship type → source type → target type,
// tables for paths, column descriptors and aggregation rows. The layout is
// built as a plain value by [ShapeResponse] and encoded by this package's own
// encoder, so the output is valid TOON by construction and decodes back to
// that value.
//
// [UnmarshalResponse] and [Decoder.DecodeResponse] read a rendering back
// into a graphresponse.Response (graphwire format --from toon): they decode
// the document, then invert the §7.3 shape, failing with an error wrapping
// [ErrInvalidResponse] that points at the offending member (for example
// /nodes/User/2/id) when the document is TOON but not that shape. The
// rendering is a fixed point: rendering a decoded rendering gives the same
// bytes. It does not carry everything, though: format_version, node and
// edge order, integral floats (they come back as integers), null and empty
// properties, the types of nested and _props values (they come back as
// strings), an all-false pagination and undeclared row keys are lost; the
// UnmarshalResponse documentation lists each case.
package toon
