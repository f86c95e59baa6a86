// Package diagram draws the nodes and edges of a [graphresponse.Response] as a Graphviz DOT
// digraph or a Mermaid flowchart, for graphwire query --format dot|mermaid.
//
// Each node is a box labelled with its type and id and then one line per property, in the
// order the response holds them (the raw JSON's, sorted by key); each edge is an arrow
// labelled with its relationship type. Aggregation rows are not drawn. The output depends only
// on the response, so the same response gives the same bytes.
//
//	User 1 {username: "alice"} -AUTHORED-> MergeRequest 81
//
// becomes, in DOT,
//
//	digraph graphwire {
//		"User:1" [label="User 1\nusername: alice"];
//		"MergeRequest:81" [label="MergeRequest 81"];
//		"User:1" -> "MergeRequest:81" [label="AUTHORED"];
//	}
//
// and in Mermaid
//
//	flowchart LR
//	  n0["User 1<br/>username: alice"]
//	  n1["MergeRequest 81"]
//	  n0 -->|"AUTHORED"| n1
//
// # Escaping
//
// Text from the graph never ends a quoted string or starts markup. In DOT, '"' and '\' are
// escaped with a backslash, and control characters (and U+2028, U+2029) appear as a visible
// \uXXXX. In Mermaid, every character other than letters, digits, the space and plain
// punctuation is written as a numeric entity (#34; for '"', #60; for '<', #35; for '#'), which
// Mermaid turns back into the character; control characters appear as \uXXXX. Long values are
// cut to [MaxValueRunes] runes and end with "…".
package diagram
