package gcx_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

func ExampleMarshal() {
	r := &graphresponse.Response{
		QueryType: graphresponse.QueryTraversal,
		Nodes: []graphresponse.Node{
			{Type: "User", ID: 5252563, Props: []graphresponse.Member{{Key: "username", Value: graphresponse.String("jordan_ng")}}},
			{Type: "Project", ID: 80212187, Props: []graphresponse.Member{{Key: "name", Value: graphresponse.String("webapp-scaffold")}}},
		},
		Edges: []graphresponse.Edge{{From: "User", FromID: 5252563, To: "Project", ToID: 80212187, Type: "MEMBER_OF"}},
	}
	b, err := gcx.Marshal(r, gcx.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(strings.ReplaceAll(string(b), "\t", "<TAB>"))
	// Output:
	// GCX1 tool=graph.nodes fields=id,name query_type=traversal rows=1 type=Project
	// 80212187<TAB>webapp-scaffold
	// GCX1 tool=graph.nodes fields=id,username rows=1 type=User
	// 5252563<TAB>jordan_ng
	// GCX1 tool=graph.edges fields=from_id,to_id from=User rows=1 to=Project type=MEMBER_OF
	// 5252563<TAB>80212187
}

func ExampleUnmarshal() {
	payload := "GCX1 tool=graph.nodes fields=id,iid query_type=traversal rows=1 type=MergeRequest\n482927048\t18\n"
	r, err := gcx.Unmarshal([]byte(payload), gcx.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	n := r.Nodes[0]
	iid, _ := n.Prop("iid")
	fmt.Println(r.QueryType, n.Type, n.ID, iid.Kind(), iid.Str(), r.Pagination.HasMore)
	// Output:
	// traversal MergeRequest 482927048 string 18 false
}

func ExampleEncoder_WriteRow() {
	enc := gcx.NewEncoder(os.Stdout, gcx.Options{})
	_ = enc.WriteHeader("search_symbols", []string{"id", "name"}, map[string]string{"rows": "2"})
	_ = enc.WriteRow("#1", "main")
	if err := enc.WriteRow("2", "two\nlines"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// GCX1 tool=search_symbols fields=id,name rows=2
	// \#1	main
	// 2	two\nlines
}

func ExampleMarshalValue() {
	b, err := gcx.MarshalValue("find_usages", []map[string]any{
		{"file": "a.go", "line": 10},
		{"file": "b.go", "line": 20, "kind": "call"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(b))
	// Output:
	// GCX1 tool=find_usages fields=file,kind,line rows=2
	// a.go		10
	// b.go	call	20
}

func ExampleDecoder_NextSection() {
	payload := "GCX1 tool=a fields=x\n1\n2\nGCX1 tool=b fields=y,z k=v\n3\t4\n"
	d := gcx.NewDecoder(strings.NewReader(payload), gcx.Options{})
	for {
		s, err := d.NextSection()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Tool, s.Fields, s.Meta)
		for {
			row, err := d.NextRow()
			if err == io.EOF {
				break
			}
			fmt.Println(" ", row)
		}
	}
	// Output:
	// a [x] map[]
	//   [1]
	//   [2]
	// b [y z] map[k:v]
	//   [3 4]
}

func ExampleUnmarshalSections_error() {
	_, err := gcx.UnmarshalSections([]byte("GCX1 tool=x fields=a\n1\t2\n"))
	fmt.Println(err)
	// Output:
	// gcx: line 2, column 3: too many cells
}

func ExampleAppendJSON() {
	secs, err := gcx.UnmarshalSections([]byte("GCX1 tool=x fields=a,b rows=1\n1\t\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(gcx.AppendJSON(nil, secs...)))
	// Output:
	// [{"tool":"x","fields":["a","b"],"meta":{"rows":"1"},"rows":[["1",""]]}]
}
