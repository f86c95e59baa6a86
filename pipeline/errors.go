package pipeline

import (
	"errors"
	"fmt"
)

// ErrUnauthenticated is returned for a request without a verified caller.
var ErrUnauthenticated = errors.New("pipeline: missing caller")

// RequestError is a request field the pipeline itself rejects (the query
// DSL's own errors are *compiler.Error). Field names the request field
// ("cursor", "max_tokens"), Reason is a stable code.
type RequestError struct {
	Field   string
	Reason  string
	Message string
}

func (e *RequestError) Error() string { return e.Field + ": " + e.Message }

// BudgetError reports that not even one row of the answer fits in the
// token budget: Needed is the tokens of the answer cut to its first row
// (or of the whole answer when it cannot be cut).
type BudgetError struct {
	MaxTokens int
	Needed    int
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("max_tokens %d is too small: the smallest answer (one row) needs %d tokens", e.MaxTokens, e.Needed)
}
