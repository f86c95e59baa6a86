package redact

import (
	"errors"
	"fmt"
)

// Reasons an authority call fails, as [Error.Reason] reports them and the
// failures metric labels them.
const (
	ReasonUnavailable = "unavailable" // not reached, or a status other than 200
	ReasonTimeout     = "timeout"     // no answer within Options.Timeout
	ReasonMalformed   = "malformed"   // an answer that is not the protocol's document
)

// ErrUnavailable is wrapped by every [*Error]: the authority could not
// decide, so the request fails closed.
var ErrUnavailable = errors.New("redact: authority unavailable")

// Error is a failed authority call: the entity type asked about, why it
// failed ([ReasonUnavailable], [ReasonTimeout] or [ReasonMalformed]) and
// the underlying error. Its message never quotes ids or the authority's
// body.
type Error struct {
	Type   string
	Reason string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("redact: check %s with the authority: %s: %v", e.Type, e.Reason, e.Err)
}

// Unwrap returns ErrUnavailable and the underlying error.
func (e *Error) Unwrap() []error { return []error{ErrUnavailable, e.Err} }
