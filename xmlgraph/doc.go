// Package xmlgraph reads and writes the XML form of a GraphResponse, for
// XML toolchains (XSLT, XPath, XQuery, schema-aware editors). It is
// graphwire's "xml" format. The document is described by the XML Schema
// config/schemas/graph_response.xsd (namespace
// urn:graphwire:graph_response:1), and docs/formats.md describes it for
// users. The package is named xmlgraph so that it does not shadow
// encoding/xml.
//
// # The document
//
// Element and attribute names are the keys of the raw JSON response. Nodes
// and edges are always written; columns, group columns, rows and
// pagination only when the response has them:
//
//	<?xml version="1.0" encoding="UTF-8"?>
//	<graph_response xmlns="urn:graphwire:graph_response:1" format_version="5.0.1" query_type="traversal">
//	  <nodes>
//	    <node type="User" id="1">
//	      <property key="username" type="string">alice</property>
//	    </node>
//	  </nodes>
//	  <edges>
//	    <edge from="User" from_id="1" to="Group" to_id="3" type="MEMBER_OF" depth="1"/>
//	  </edges>
//	  <pagination has_more="false" truncated="false"/>
//	</graph_response>
//
// Nothing is lost: every value carries its kind in a type attribute (null,
// bool, int, float, string, array, object), so 2 and 2.0 and "2" stay
// apart; an absent property, cell, edge field or cursor has no element or
// attribute, while an empty string is an empty element. Ids are decimal
// int64 text. Node properties are written sorted by key, row cells in the
// raw JSON order; nodes, edges and rows keep the response's order.
//
// # Text
//
// Text and attribute values escape <, & and > (and " in attributes); TAB
// and CR, LF inside attributes, and the code points graphwire's text
// formats never write raw (C1 controls, DEL, U+2028, U+2029, bidirectional
// controls, U+FEFF; internal/textsafe) are written as character references
// (&#x85;). XML 1.0 cannot carry the other C0 controls, U+FFFE or U+FFFF
// even as references, so those are written as the visible marker
// ⟦U+XXXX⟧, and a literal ⟦ as ⟦U+27E6⟧; the decoder restores both, so
// every string round-trips exactly. Invalid UTF-8 is written as U+FFFD, as
// the raw JSON encoder does.
//
// # Decoding
//
// [Unmarshal] and [Decoder.Decode] read one document back into an equal
// [graphresponse.Response] (in the sense of [graphresponse.Response.Equal]).
// They are strict: unknown elements and attributes, elements out of the
// schema's order, a value whose text does not fit its type and content
// after the root are errors. Every error but an I/O error of the
// underlying reader is a [*SyntaxError] with the line and column.
package xmlgraph
