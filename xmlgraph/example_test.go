package xmlgraph_test

import (
	"fmt"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/xmlgraph"
)

func ExampleMarshal() {
	cursor := "eyJrIjoxfQ"
	r := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{
				{Key: "username", Value: graphresponse.String("alice <admin>")},
				{Key: "score", Value: graphresponse.Float(2)},
				{Key: "bio", Value: graphresponse.String("")},
				{Key: "manager", Value: graphresponse.Null()},
			}},
		},
		Edges:      []graphresponse.Edge{{From: "User", FromID: 1, To: "Group", ToID: 3, Type: "MEMBER_OF", Depth: graphresponse.Some(1)}},
		Pagination: &graphresponse.Pagination{HasMore: true, NextCursor: &cursor},
	}
	b, err := xmlgraph.Marshal(r, xmlgraph.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// <?xml version="1.0" encoding="UTF-8"?>
	// <graph_response xmlns="urn:graphwire:graph_response:1" format_version="5.0.1" query_type="traversal">
	//   <nodes>
	//     <node type="User" id="1">
	//       <property key="bio" type="string"/>
	//       <property key="manager" type="null"/>
	//       <property key="score" type="float">2.0</property>
	//       <property key="username" type="string">alice &lt;admin&gt;</property>
	//     </node>
	//   </nodes>
	//   <edges>
	//     <edge from="User" from_id="1" to="Group" to_id="3" type="MEMBER_OF" depth="1"/>
	//   </edges>
	//   <pagination has_more="true" truncated="false" next_cursor="eyJrIjoxfQ"/>
	// </graph_response>
}

func ExampleUnmarshal() {
	doc := `<graph_response xmlns="urn:graphwire:graph_response:1" format_version="5.0.1" query_type="neighbors">
  <nodes><node type="Project" id="7"><property key="stars" type="int">42</property></node></nodes>
  <edges/>
</graph_response>`
	r, err := xmlgraph.Unmarshal([]byte(doc), xmlgraph.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(graphresponse.Marshal(r)))
	_, err = xmlgraph.Unmarshal([]byte(`<graph_response xmlns="urn:graphwire:graph_response:1" format_version="5.0.1" query_type="x">
  <nodes><node type="Project" id="seven"/></nodes><edges/></graph_response>`), xmlgraph.Options{})
	fmt.Println(err)
	// Output:
	// {"format_version":"5.0.1","query_type":"neighbors","nodes":[{"type":"Project","id":"7","stars":42}],"edges":[]}
	// xmlgraph: line 2, column 10: invalid attribute: <node> id="seven" is not an int64
}
