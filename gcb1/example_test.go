package gcb1_test

import (
	"fmt"

	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleMarshal() {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("alice")}}},
			{Type: "Group", ID: 3},
		},
		Edges: []graphresponse.Edge{{From: "User", FromID: 1, To: "Group", ToID: 3, Type: "MEMBER_OF", Depth: graphresponse.Some(1)}},
	}
	b, err := gcb1.Marshal(r, gcb1.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d bytes, starting % x\n", len(b), b[:5])
	back, err := gcb1.Unmarshal(b, gcb1.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(graphresponse.Marshal(back)))
	// Output:
	// 106 bytes, starting 47 43 42 31 01
	// {"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"alice"},{"type":"Group","id":"3"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"3","type":"MEMBER_OF"}]}
}
