// Command gengraph writes the raw JSON of graphgen.Graph(42, nodes, edges),
// the response of goon's BenchmarkEncode/<nodes>_<edges>, for the Rust side
// of bench/goon-rust/run.sh:
//
//	go run ./bench/goon-rust/gengraph 500 800 > graph_500_800.json
package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/graphgen"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gengraph NODES EDGES")
		os.Exit(2)
	}
	n, err1 := strconv.Atoi(os.Args[1])
	m, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "gengraph: NODES and EDGES are integers")
		os.Exit(2)
	}
	if _, err := os.Stdout.Write(graphresponse.Marshal(graphgen.Graph(42, n, m))); err != nil {
		fmt.Fprintln(os.Stderr, "gengraph:", err)
		os.Exit(1)
	}
}
