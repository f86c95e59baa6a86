package pipeline

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/redact"
)

// TestErrorKind: the log class of a failure follows the executor kinds,
// and a deadline is a timeout in either of the forms it surfaces as
// (context.DeadlineExceeded, or os.ErrDeadlineExceeded from a connection).
func TestErrorKind(t *testing.T) {
	tests := []struct {
		err  error
		want string
	}{
		{executor.New("run", executor.ErrTimeout, nil), "timeout"},
		{fmt.Errorf("execute: %w", context.DeadlineExceeded), "timeout"},
		{fmt.Errorf("read: %w", os.ErrDeadlineExceeded), "timeout"},
		{executor.New("run", executor.ErrResourceExhausted, nil), "resource_exhausted"},
		{executor.New("run", executor.ErrUnavailable, nil), "unavailable"},
		{context.Canceled, "canceled"},
		{executor.New("run", executor.ErrInvalidQuery, nil), "invalid_query"},
		{fmt.Errorf("something else"), "internal"},
		// An authority that answered too late is redaction's failure, not the query's timeout.
		{fmt.Errorf("redact: %w", &redact.Error{Type: "Project", Reason: redact.ReasonTimeout, Err: context.DeadlineExceeded}), "redaction"},
	}
	for _, tt := range tests {
		if got := errorKind(tt.err); got != tt.want {
			t.Errorf("errorKind(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}
