package gcf_test

import (
	"fmt"
	"os"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleMarshal() {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 1, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("alice")}}},
			{Type: "Project", ID: 7, Props: []graphresponse.Member{{Key: "name", Value: graphresponse.String("webapp")}}},
		},
		Edges: []graphresponse.Edge{{From: "User", FromID: 1, To: "Project", ToID: 7, Type: "MEMBER_OF"}},
	}
	out, err := gcf.Marshal(r, gcf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// GCF profile=generic
	// query_type=traversal
	// mapping_version=1.0.0
	// ## Project [1]{id,name}
	// 7|webapp
	// ## User [1]{id,username}
	// 1|alice
	// ## edges [1]{from,from_id,to,to_id,type}
	// User|1|Project|7|MEMBER_OF
}

func ExampleEncoder_EncodeValue() {
	v, err := gcf.ParseJSON([]byte(`{"name":"top","tags":["a","b|c"],"rows":[{"id":1,"ok":true},{"id":2}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := gcf.NewEncoder(os.Stdout, gcf.Options{}).EncodeValue(v); err != nil {
		fmt.Println(err)
	}
	// Output:
	// GCF profile=generic
	// name=top
	// tags[2]: a,"b|c"
	// ## rows [2]{id,ok}
	// 1|true
	// 2|~
}

func ExampleEncoder_EncodeGraph() {
	g := &gcf.Graph{
		Symbols: []gcf.Symbol{
			{Kind: "function", Name: "pkg.Server", Score: 0.54, Provenance: "lsp", Distance: 1},
			{Kind: "function", Name: "pkg.Auth", Score: 0.78, Provenance: "lsp"},
		},
		Edges: []gcf.Edge{{Source: "pkg.Server", Target: "pkg.Auth", Type: "calls"}},
	}
	if err := gcf.NewEncoder(os.Stdout, gcf.Options{}).EncodeGraph(g); err != nil {
		fmt.Println(err)
	}
	// Output:
	// GCF profile=graph symbols=2 edges=1
	// ## targets
	// @0 fn pkg.Auth 0.78 lsp
	// ## related
	// @1 fn pkg.Server 0.54 lsp
	// ## edges [1]
	// @0<@1 calls
}

func ExamplePackRoot() {
	g := &gcf.Graph{Symbols: []gcf.Symbol{{Kind: "function", Name: "pkg.Main", Score: 1, Provenance: "lsp_resolved"}}}
	root, err := gcf.PackRoot(g)
	fmt.Println(root, err)
	// Output:
	// sha256:da39c1fb07913659a75865cf4afaa971683448625d19ac92c0303e90f678585f <nil>
}

func ExampleUnmarshalValue() {
	v, err := gcf.UnmarshalValue([]byte("GCF profile=generic\n## [2:]{key,cpu}\nweb|23\ndb|41\n"), gcf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := gcf.AppendJSON(nil, v)
	fmt.Println(string(out))
	// Output:
	// {"web":{"cpu":23},"db":{"cpu":41}}
}
