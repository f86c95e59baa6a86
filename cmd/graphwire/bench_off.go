//go:build !scorecard

package main

import (
	"context"
	"fmt"
	"io"
)

// runBench stands in for graphwire bench in the binary users get: the scorecard draws its
// chart with gonum/plot, which only the scorecard build carries (bench.go, build tag
// scorecard).
func runBench(_ context.Context, _ []string, _ io.Reader, _, stderr io.Writer) int {
	fmt.Fprintln(stderr, "graphwire bench: this binary is built without the format scorecard; "+
		"run make bench, or go run -tags scorecard ./cmd/graphwire bench [flags]")
	return exitUsage
}
