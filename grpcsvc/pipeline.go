package grpcsvc

import "github.com/graphwire/graphwire/executor"

// Executor runs one compiled statement. executor.Executor implementations
// satisfy it.
type Executor = executor.Runner
