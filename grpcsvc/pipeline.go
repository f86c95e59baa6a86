package grpcsvc

import (
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// Executor runs one compiled statement. executor.Executor implementations
// satisfy it.
type Executor = executor.Runner

// result is a built response with what the metadata reports.
type result struct {
	resp     *graphresponse.Response
	executed executor.Executed
}
