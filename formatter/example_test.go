package formatter_test

import (
	"fmt"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleRegistry_Select() {
	reg := formatter.Default()
	resp := &graphresponse.Response{
		FormatVersion: "5.0.1",
		QueryType:     graphresponse.QueryTraversal,
		Nodes:         []graphresponse.Node{{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("alice")}}}},
		Edges:         []graphresponse.Edge{},
	}
	for _, format := range []formatter.ResponseFormat{formatter.RAW, formatter.LLM} {
		f, err := reg.Select(format, "")
		if err != nil {
			panic(err)
		}
		out, err := formatter.Stamp(f, resp)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s\n%s\n", out.Name, out.Version, out.Bytes)
	}
	// Output:
	// json 5.0.1
	// {"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"alice"}],"edges":[]}
	// goon 4.1.0
	// @header
	// query_type:traversal
	// goon_version:4.1.0
	// nodes:1
	// edges:0
	// @nodes
	// User(1):
	// 1 username=alice
	// @edges
}
