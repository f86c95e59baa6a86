package grpcsvc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/redact"
)

func TestStatusFromError(t *testing.T) {
	driver := errors.New("code: 241, message: Memory limit (for query) exceeded: secret detail")
	tests := []struct {
		name    string
		err     error
		code    codes.Code
		message string // "" = do not check
	}{
		{"nil", nil, codes.OK, ""},
		{"compiler invalid", &compiler.Error{Path: "/nodes/0/entity", Err: compiler.ErrUnknownEntity, Message: `unknown entity "X"`}, codes.InvalidArgument, `/nodes/0/entity: unknown entity "X"`},
		{"compiler scope", &compiler.Error{Path: "/nodes/0/filters/traversal_path", Err: compiler.ErrScopeViolation, Message: "outside your scopes"}, codes.PermissionDenied, "/nodes/0/filters/traversal_path: outside your scopes"},
		{"compiler no scopes", &compiler.Error{Err: compiler.ErrNoScopes, Message: "the caller has no traversal_path scope"}, codes.PermissionDenied, "the caller has no traversal_path scope"},
		{"compiler internal", &compiler.Error{Err: compiler.ErrSecurityCheckFailed, Message: "unscoped scan of gl_note"}, codes.Internal, "internal error"},
		{"unknown format", &formatter.UnknownFormatError{Name: "yaml", Known: []string{"goon"}, LLM: true}, codes.InvalidArgument, ""},
		{"unrepresentable", fmt.Errorf("%w: gcf-graph has no aggregations", formatter.ErrUnrepresentable), codes.InvalidArgument, ""},
		{"bad token", fmt.Errorf("%w: expired", auth.ErrInvalidToken), codes.Unauthenticated, "invalid or missing token"},
		{"engine rejected value", &executor.Error{Kind: executor.ErrInvalidQuery, Code: 27, Err: driver, Op: "run query"}, codes.InvalidArgument, "the engine rejected a query value"},
		{"timeout", &executor.Error{Kind: executor.ErrTimeout, Code: 159, Err: driver, Op: "run query"}, codes.DeadlineExceeded, "query deadline exceeded"},
		{"context deadline", fmt.Errorf("execute query: %w", context.DeadlineExceeded), codes.DeadlineExceeded, ""},
		{"os deadline", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), codes.DeadlineExceeded, ""},
		{"memory", &executor.Error{Kind: executor.ErrResourceExhausted, Code: 241, Err: driver, Op: "run query"}, codes.ResourceExhausted, "query exceeded a resource limit"},
		{"unavailable", &executor.Error{Kind: executor.ErrUnavailable, Err: driver, Op: "connect"}, codes.Unavailable, "query engine unavailable"},
		{"canceled", fmt.Errorf("x: %w", context.Canceled), codes.Canceled, ""},
		{"redaction authority late", fmt.Errorf("redact: %w", &redact.Error{Type: "Issue", Reason: redact.ReasonTimeout, Err: context.DeadlineExceeded}),
			codes.Unavailable, "redaction authority unavailable: no rows were sent; retry later"},
		{"redaction answer malformed", &redact.Error{Type: "Issue", Reason: redact.ReasonMalformed, Err: errors.New("allowed[0] was not asked about")},
			codes.Unavailable, "redaction authority unavailable: no rows were sent; retry later"},
		{"anything else", &executor.Error{Kind: executor.ErrInternal, Err: driver, Op: "run query"}, codes.Internal, "internal error"},
		{"plain error", errors.New("secret detail"), codes.Internal, "internal error"},
		{"status passes through", status.Error(codes.NotFound, "x"), codes.NotFound, "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := status.Convert(statusFromError(tt.err))
			if st.Code() != tt.code {
				t.Fatalf("code %s, want %s (%v)", st.Code(), tt.code, st.Message())
			}
			if tt.message != "" && st.Message() != tt.message {
				t.Errorf("message %q, want %q", st.Message(), tt.message)
			}
			if tt.err != nil && tt.code == codes.Internal && st.Message() != "internal error" {
				t.Errorf("internal error leaks detail: %q", st.Message())
			}
		})
	}
}
