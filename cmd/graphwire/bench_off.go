//go:build !scorecard

package main

import (
	"slices"

	"github.com/spf13/cobra"
)

// newBenchCmd stands in for graphwire bench in the binary users get: the scorecard draws its
// chart with gonum/plot, which only the scorecard build carries (bench.go, build tag
// scorecard). It takes any flags, so that the advice below is what a bench command line gets.
func newBenchCmd(streams) *cobra.Command {
	return &cobra.Command{
		Use:                "bench [flags]",
		Short:              "measure every output format (scorecard build only: make bench)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if slices.Contains(args, "--help") || slices.Contains(args, "-h") {
				return cmd.Help()
			}
			return usageErrorf("this binary is built without the format scorecard; " +
				"run make bench, or go run -tags scorecard ./cmd/graphwire bench [flags]")
		},
	}
}
