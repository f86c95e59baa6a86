package markdown_test

import (
	"fmt"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/markdown"
)

func ExampleMarshal() {
	s := graphresponse.String
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryPathFinding,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "username", Value: s("alice | admin")}}},
			{Type: "Group", ID: 3, Props: []graphresponse.Member{{Key: "name", Value: s("# core")}}},
			{Type: "Project", ID: 7},
		},
		Edges: []graphresponse.Edge{
			{From: "Group", FromID: 3, To: "Project", ToID: 7, Type: "CONTAINS", PathID: graphresponse.Some(0), Step: graphresponse.Some(1)},
			{From: "User", FromID: 1, To: "Group", ToID: 3, Type: "MEMBER_OF", PathID: graphresponse.Some(0), Step: graphresponse.Some(0)},
		},
	}
	b, err := markdown.Marshal(r, markdown.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// # Graph response (path_finding)
	//
	// 3 nodes · 2 edges
	//
	// ## Nodes: Group (1)
	//
	// | id | name |
	// | --- | --- |
	// | 3 | \# core |
	//
	// ## Nodes: Project (1)
	//
	// | id |
	// | --- |
	// | 7 |
	//
	// ## Nodes: User (1)
	//
	// | id | username |
	// | --- | --- |
	// | 1 | alice \| admin |
	//
	// ## Edges: CONTAINS (1)
	//
	// | source | target | path | step |
	// | --- | --- | --- | --- |
	// | Group:3 | Project:7 | 0 | 1 |
	//
	// ## Edges: MEMBER_OF (1)
	//
	// | source | target | path | step |
	// | --- | --- | --- | --- |
	// | User:1 | Group:3 | 0 | 0 |
	//
	// ## Paths (1)
	//
	// - path 0: User:1 -MEMBER_OF-> Group:3 -CONTAINS-> Project:7
}
