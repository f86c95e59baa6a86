package main

// Placeholder until the ClickHouse layer lands; that work owns this file.

import (
	"context"
	"fmt"
	"io"
)

func runSQL(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "graphwire sql: not available in this build")
	return exitFailure
}
