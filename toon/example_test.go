package toon_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/toon"
)

func ExampleMarshal() {
	v := toon.Object{
		{Key: "project", Value: "graphwire"},
		{Key: "tags", Value: []any{"go", "llm", "graph"}},
		{Key: "users", Value: []any{
			toon.Object{{Key: "id", Value: 1}, {Key: "name", Value: "Ada"}, {Key: "role", Value: "admin"}},
			toon.Object{{Key: "id", Value: 2}, {Key: "name", Value: "Bob"}, {Key: "role", Value: "dev: ops"}},
		}},
	}
	out, err := toon.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// project: graphwire
	// tags[3]: go,llm,graph
	// users[2]{id,name,role}:
	//   1,Ada,admin
	//   2,Bob,"dev: ops"
}

func ExampleUnmarshal() {
	v, err := toon.Unmarshal([]byte("servers[2:]{host,port}:\n  alpha: a.example.com,8080\n  beta: b.example.com,9090"))
	if err != nil {
		panic(err)
	}
	servers, _ := v.(toon.Object).Get("servers")
	beta, _ := servers.(toon.Object).Get("beta")
	port, _ := beta.(toon.Object).Get("port")
	fmt.Println(port)
	// Output: 9090
}

func ExampleUnmarshal_error() {
	_, err := toon.Unmarshal([]byte("items[3]: a,b"))
	var se *toon.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Line, errors.Is(err, toon.ErrLengthMismatch))
	}
	// Output: 1 true
}

// JSON to TOON and back, keeping key order.
func ExampleParseJSON() {
	v, err := toon.ParseJSON([]byte(`{"b":1.50,"a":[{"x":1,"y":"two"},{"x":3,"y":"four"}]}`))
	if err != nil {
		panic(err)
	}
	text, _ := toon.Marshal(v)
	fmt.Println(string(text))
	back, _ := toon.Unmarshal(text)
	js, _ := toon.AppendJSON(nil, back)
	fmt.Println(string(js))
	// Output:
	// b: 1.5
	// a[2]{x,y}:
	//   1,two
	//   3,four
	// {"b":1.5,"a":[{"x":1,"y":"two"},{"x":3,"y":"four"}]}
}

func ExampleNewEncoder() {
	enc := toon.NewEncoder(os.Stdout, toon.Options{Delimiter: toon.Pipe})
	_ = enc.Encode(map[string]any{"notes": []string{"a,b", "c|d"}})
	fmt.Println()
	// Output: notes[2|]: a,b|"c|d"
}

func ExampleCanonicalNumber() {
	for _, lit := range []string{"1.5000", "-0", "1E+6", "1e21", "0.0000001", "9007199254740993"} {
		s, _ := toon.CanonicalNumber(lit)
		fmt.Println(s)
	}
	// Output:
	// 1.5
	// 0
	// 1000000
	// 1e+21
	// 1e-7
	// 9007199254740993
}

func ExampleMarshalResponse() {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 5252563, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("jordan_ng")}}},
			{Type: "MergeRequest", ID: 482927048, Props: []graphresponse.Member{{Key: "iid", Value: graphresponse.Int(18)}}},
		},
		Edges: []graphresponse.Edge{{From: "User", FromID: 5252563, To: "MergeRequest", ToID: 482927048, Type: "AUTHORED"}},
	}
	out, err := toon.MarshalResponse(r, toon.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// query_type: traversal
	// nodes:
	//   MergeRequest[1]{id,iid}:
	//     "482927048",18
	//   User[1]{id,username}:
	//     "5252563",jordan_ng
	// edges:
	//   AUTHORED:
	//     User:
	//       MergeRequest[1]{from_id,to_id}:
	//         "5252563","482927048"
}
