// Package gcb1 implements GCB1 (Graph Compact Binary v1), the binary
// transport of knowing (github.com/blackwell-systems/knowing, the `gcb`
// codec of internal/wire), and the mapping of a graphwire GraphResponse
// onto it. It is for services, caches and IPC: bytes, never text for a
// language model.
//
// # Layout
//
// A payload is the whole input; integers are unsigned LEB128 varints,
// strings a varint byte length then the bytes, floats IEEE 754 binary32
// little-endian:
//
//	magic "GCB1", version byte 1
//	header   tool (string), tokens_used, token_budget, symbol count, edge count (varints)
//	symbol   qname (string), kind (u8), score (f32), provenance (u8),
//	         distance (u8), signature (string),
//	         blast_radius, confidence, recency, distance_c (f32 each)
//	edge     source, target (varint symbol indexes), edge type (u8), status (u8)
//
// The enums are knowing's, in its order: kind 1–18 (function, type, method,
// interface, var, const, resource, table, class, selector, field,
// route_handler, external, file, package, service, env_var, process),
// provenance 1–7 (ast_inferred, ast_resolved, lsp_resolved, otel_trace,
// scip_resolved, runtime_observed, structural), edge type 1–38 (calls,
// imports, implements, references, … reads_env, executes_process) and status
// 0–2 (unchanged, added, removed). One node and one CALLS edge to itself:
//
//	47 43 42 31 01                  GCB1, version 1
//	09 "traversal" 00 00 01 01      tool, tokens 0/0, 1 symbol, 1 edge
//	06 "File:7" 0e 0000803f 07 00   qname, kind file, score 1, structural, distance 0
//	00 00000000 … (×4)              empty signature (no properties), components 0
//	00 00 01 00                     edge 0 → 0, calls, unchanged
//
// [MarshalPayload] and [UnmarshalPayload] work on that layout ([Payload]).
// The decoder is strict: truncated input, a wrong magic, a version other
// than 1, a varint that overflows or is not in its shortest form, an enum
// outside its table, an edge index that is not a symbol and bytes after the
// last edge are each a [*SyntaxError] with the byte offset. Decoding what
// knowing's encoder writes for an unknown kind or provenance (0) is
// therefore an error here, where knowing reads it as "unknown_0".
//
// # GraphResponse mapping
//
// [Marshal] writes a response the way gcf-graph maps one ([FromResponse]):
//
//   - tool: the query type; tokens_used and token_budget: 0.
//   - one symbol per node, in response order: qname "Type:ID"; kind file or
//     package for File and Package, a Definition's definition_type when
//     knowing has that kind (Function → function), else external; score 1;
//     provenance structural; distance the hop distance from the anchors
//     by gcf-graph's rule (capped at 255); signature the node's properties
//     as a JSON object with keys sorted (empty when it has none), written
//     as the raw JSON format writes them; components 0.
//   - one edge per edge whose two ends are nodes of the response, in
//     response order, pointing at the first node of that type and id: edge
//     type the lower-cased relationship type when knowing has it (CALLS,
//     CONTAINS, DEPLOYED_BY, EXTENDS, IMPORTS, MEMBER_OF of the ontology),
//     else references; status unchanged.
//
// Aggregations have no topology and are refused ([ErrUnsupportedQuery]).
//
// What does not fit is lost: the relationship type of every edge knowing
// has no name for (it reads back as REFERENCES), the depth, path_id and step
// of edges (so paths cannot be rebuilt), edges with an end outside the
// nodes, pagination (has_more, next_cursor) and the format version.
// [Unmarshal] reads the rest back: the query type, every node with its
// properties (equal as the raw JSON format compares them: NaN and ±Inf
// become null, invalid UTF-8 U+FFFD), and every kept edge. A response whose
// edge types are all knowing's names in upper case, whose edges carry no
// depth, path or step and end at its nodes, and which has no pagination,
// round-trips exactly; TestRoundTrip checks it.
package gcb1
