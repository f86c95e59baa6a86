// Package markdown renders GraphResponses as GitHub-flavoured Markdown, for
// people reading results at a terminal or pasting them into documents
// (issues, wikis, reviews). It is graphwire's "markdown" format; the
// tables follow the GFM tables extension (https://github.github.com/gfm/#tables-extension-).
//
// The package encodes only: Markdown is a view for people, not a wire
// format, so there is no decoder. Use json, gcf, toon or xml when the
// answer must be read back.
//
// # Layout
//
// A document is a title naming the query type, one summary line (counts,
// has_more, truncated, next_cursor), then one section per entity type with
// a table of its nodes (id first, then every property key of that type in
// byte order), one section per relationship type with a table of its edges
// (source → target, plus depth, path and step when any edge has them), the
// paths of a path-finding answer as chains, and aggregation rows as a
// table:
//
//	# Graph response (traversal)
//
//	2 nodes · 1 edge · has_more: false · truncated: false
//
//	## Nodes: User (1)
//
//	| id | username |
//	| --- | --- |
//	| 1 | alice |
//	...
//	## Edges: MEMBER_OF (1)
//
//	| source | target |
//	| --- | --- |
//	| User:1 | Group:3 |
//
// A path reads User:1 -MEMBER_OF-> Group:3 -CONTAINS-> Project:7; a hop
// that does not continue from the previous target is set apart by " · ".
//
// # Order
//
// The output is canonical: entity and relationship types in byte order,
// nodes by id, edges by (source type, source id, target type, target id,
// depth, path, step), paths by path id and step, with the rendered row as
// the final tie-break. Shuffling the nodes or edges of a response does not
// change a byte. Aggregation rows keep their order, which the query chose.
//
// # Escaping
//
// No value can break a table, start a heading, a list, a quote or a code
// block, or inject HTML. Inside every value, type name and key: backslash,
// |, `, *, <, >, [, ], ~ and & are backslash-escaped, as is an _ that is
// not between two letters or digits; a leading #, -, +, = and the . or )
// after leading digits are escaped; a line break becomes <br>. The code
// points no graphwire text format writes raw (C0 and C1 controls, DEL,
// U+2028, U+2029, bidirectional controls, U+FEFF; see internal/textsafe),
// CR and TAB included, are written as visible ⟦U+XXXX⟧ markers, and a
// literal ⟦ as ⟦U+27E6⟧. [Encoder.Altered] counts the values written with
// a marker.
//
// Values are written as their JSON text without quotes: strings as they
// are, numbers, true, false and null bare, arrays and objects as compact
// JSON, a node bucket of an aggregation as Type:id with its properties
// in key order, as in Group:3 (full_path: acme/web, name: Web). A missing
// property or cell is an empty cell, as is an empty string: the rendering
// is lossy by design.
package markdown
