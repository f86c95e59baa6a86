package graphresponse_test

import (
	"fmt"

	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleUnmarshal() {
	r, err := graphresponse.Unmarshal([]byte(`{"format_version":"5.0.1","query_type":"traversal",
		"nodes":[{"type":"User","id":"9007199254740993","score":2.0,"name":"Zoë"}],"edges":[]}`))
	if err != nil {
		panic(err)
	}
	score, _ := r.Nodes[0].Prop("score")
	fmt.Println(r.Nodes[0].ID, score.Kind())
	fmt.Println(string(graphresponse.Marshal(r)))

	_, err = graphresponse.Unmarshal([]byte(`{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"x"}],"edges":[]}`))
	fmt.Println(err)
	// Output:
	// 9007199254740993 float
	// {"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"9007199254740993","name":"Zoë","score":2.0}],"edges":[]}
	// graphresponse: line 1, column 81: /nodes/0/id: invalid id: "x" is not a decimal int64
}
