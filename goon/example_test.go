package goon_test

import (
	"fmt"

	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleMarshal() {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 2, Props: []graphresponse.Member{
				{Key: "username", Value: graphresponse.String("bob")},
				{Key: "name", Value: graphresponse.String(`Bob "the Builder"`)},
			}},
			{Type: "Group", ID: 100, Props: []graphresponse.Member{
				{Key: "full_path", Value: graphresponse.String("acme/platform")},
			}},
		},
		Edges: []graphresponse.Edge{
			{From: "User", FromID: 2, To: "Group", ToID: 100, Type: "MEMBER_OF", Depth: graphresponse.Some(1)},
		},
	}
	out, err := goon.Marshal(r, goon.Options{Version: "4.0.1"})
	if err != nil {
		panic(err)
	}
	fmt.Print(string(out))
	// Output:
	// @header
	// query_type:traversal
	// goon_version:4.0.1
	// nodes:2
	// edges:1
	// @nodes
	// Group(1):
	// 100 full_path=acme/platform
	// User(1):
	// 2 name="Bob \"the Builder\"" username=bob
	// @edges
	// MEMBER_OF(1):
	// User:2 --> Group:100 depth=1
}
