// Command graphwire is the graphwire CLI: it formats and converts
// GraphResponses, seeds and queries the embedded ClickHouse graph, and runs
// the gRPC query service. Run "graphwire help" for the commands.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
