// Package graphresponse is the model every graphwire layer shares: one query
// result (a GraphResponse), its raw JSON encoding, and its decoder.
// docs/formats.md ("The raw JSON response") describes the model, the JSON
// rules and what each query type fills in.
//
// A response holds nodes, edges and, for aggregations, columns, group
// columns and rows, plus pagination:
//
//	{"format_version":"5.0.1","query_type":"traversal",
//	 "nodes":[{"type":"User","id":"1","username":"alice"}],
//	 "edges":[{"from":"User","from_id":"1","to":"Group","to_id":"100","type":"MEMBER_OF"}]}
//
// Ids are int64 in Go and decimal strings in JSON, so 2^53+1 survives any
// client. [Value] keeps integer apart from float (an avg of 2.0 stays a
// float) and absent apart from empty. [Marshal] is deterministic and compact:
// fixed keys in declaration order, properties sorted by key, no HTML
// escaping, floats always recognisable as floats. [Unmarshal] is strict:
// unknown keys, duplicate keys and malformed ids are [*SyntaxError] values
// naming the JSON Pointer, line and column.
//
// The package depends on the standard library only.
package graphresponse
