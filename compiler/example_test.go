package compiler_test

import (
	"fmt"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

func Example() {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		panic(err)
	}
	c, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		panic(err)
	}
	caller := &compiler.Caller{Subject: "1", Scopes: []compiler.Scope{{Path: "100/", Level: 30}}}
	q, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"name":"api"},"columns":["name"]}]}`), caller)
	if err != nil {
		panic(err)
	}
	fmt.Println(q.SQL)
	for _, p := range q.Params {
		fmt.Println(p.Name, p.Type, p.Value)
	}
	// Output:
	// SELECT t.id AS n0_id, t.name AS n0_name
	// FROM gl_project AS t FINAL
	// PREWHERE startsWith(t.traversal_path, {p0:String})
	// WHERE t._deleted = false AND t.name = {p1:String}
	// ORDER BY t.id ASC
	// LIMIT 31
	// SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, query_plan_optimize_lazy_materialization = 0
	// p0 String 100/
	// p1 String api
}

func ExampleError() {
	ont, _ := ontology.Load(ontologyfiles.Files())
	c, _ := compiler.New(ont, compiler.Options{})
	_, err := c.Compile([]byte(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":{"contains":"ab"}}}]}`), &compiler.Caller{Admin: true})
	if e, ok := err.(*compiler.Error); ok {
		fmt.Println(e.Kind(), e.Reason(), e.Path)
	}
	// Output:
	// invalid_query PATTERN_TOO_SHORT /nodes/0/filters/title/contains
}
