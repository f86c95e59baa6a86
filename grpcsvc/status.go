package grpcsvc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/pipeline"
	"github.com/graphwire/graphwire/redact"
)

// errorDomain is the ErrorInfo domain of every status detail.
const errorDomain = "graphwire"

// statusFromError is the one place errors become gRPC status. Client-facing
// messages are safe: compiler errors carry their JSON Pointer and message,
// executor kinds get a short fixed message, and anything else is Internal
// with a generic message (the full error goes to the log).
func statusFromError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var ce *compiler.Error
	if errors.As(err, &ce) {
		switch ce.Kind() {
		case compiler.KindInvalidQuery:
			return withDetails(codes.InvalidArgument, ce.Error(), ce.Reason(), ce.Path)
		case compiler.KindPermissionDenied:
			return withDetails(codes.PermissionDenied, ce.Error(), ce.Reason(), ce.Path)
		case compiler.KindResourceExhausted:
			return withDetails(codes.ResourceExhausted, ce.Error(), ce.Reason(), ce.Path)
		default:
			return status.Error(codes.Internal, "internal error")
		}
	}
	var be *admission.BusyError
	if errors.As(err, &be) {
		return busyStatus(be)
	}
	var re *pipeline.RequestError
	if errors.As(err, &re) {
		return withDetails(codes.InvalidArgument, re.Error(), re.Reason, "/"+re.Field)
	}
	var bge *pipeline.BudgetError
	if errors.As(err, &bge) {
		return withDetails(codes.ResourceExhausted, bge.Error(), "TOKEN_BUDGET", "/max_tokens")
	}
	if errors.Is(err, pipeline.ErrUnauthenticated) {
		return status.Error(codes.Unauthenticated, "missing bearer token")
	}
	var ue *formatter.UnknownFormatError
	if errors.As(err, &ue) {
		return withDetails(codes.InvalidArgument, ue.Error(), "UNKNOWN_FORMAT", "/llm_format")
	}
	if errors.Is(err, redact.ErrUnavailable) {
		// Before the deadline case: an authority that answered too late is
		// the authority's failure, not the query's (docs/redaction.md).
		return status.Error(codes.Unavailable, "redaction authority unavailable: no rows were sent; retry later")
	}
	switch {
	case errors.Is(err, formatter.ErrUnrepresentable):
		return withDetails(codes.InvalidArgument, oneLineMsg(err), "UNREPRESENTABLE", "/llm_format")
	case errors.Is(err, auth.ErrInvalidToken):
		return status.Error(codes.Unauthenticated, "invalid or missing token")
	case errors.Is(err, executor.ErrInvalidQuery):
		return status.Error(codes.InvalidArgument, "the engine rejected a query value")
	case errors.Is(err, executor.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "query deadline exceeded")
	case errors.Is(err, executor.ErrResourceExhausted):
		return status.Error(codes.ResourceExhausted, "query exceeded a resource limit")
	case errors.Is(err, executor.ErrUnavailable):
		return status.Error(codes.Unavailable, "query engine unavailable")
	case errors.Is(err, executor.ErrCanceled), errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request canceled")
	}
	return status.Error(codes.Internal, "internal error")
}

// withDetails builds a status with ErrorInfo and BadRequest details.
func withDetails(code codes.Code, msg, reason, pointer string) error {
	st := status.New(code, msg)
	info := &errdetails.ErrorInfo{Reason: reason, Domain: errorDomain, Metadata: map[string]string{"pointer": pointer}}
	br := &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: pointer, Description: msg}}}
	if d, err := st.WithDetails(info, br); err == nil {
		st = d
	}
	return st.Err()
}

// busyStatus is RESOURCE_EXHAUSTED / SERVER_BUSY (docs/service.md, "Admission control") with the bound
// that refused the request and a RetryInfo saying when to try again.
func busyStatus(be *admission.BusyError) error {
	retry := be.RetryAfter.Round(time.Millisecond)
	var msg string
	switch be.Limit {
	case admission.LimitCaller:
		msg = fmt.Sprintf("server busy: you already have %d queries running, the most allowed at once; retry after %s", be.Max, retry)
	case admission.LimitQueue:
		msg = fmt.Sprintf("server busy: too many queries are waiting; retry after %s", retry)
	case limitStreams:
		msg = fmt.Sprintf("server busy: you already have %d answer streams open, the most allowed at once; read or cancel one, or retry after %s", be.Max, retry)
	default:
		msg = fmt.Sprintf("server busy: all %d query slots are in use; retry after %s", be.Max, retry)
	}
	st := status.New(codes.ResourceExhausted, msg)
	info := &errdetails.ErrorInfo{Reason: "SERVER_BUSY", Domain: errorDomain,
		Metadata: map[string]string{"limit": string(be.Limit), "max": strconv.Itoa(be.Max)}}
	if d, err := st.WithDetails(info, &errdetails.RetryInfo{RetryDelay: durationpb.New(be.RetryAfter)}); err == nil {
		st = d
	}
	return st.Err()
}

// malformedRequest is the status of a request message that does not
// decode.
func malformedRequest() error {
	st := status.New(codes.InvalidArgument, "the request message does not decode as this method's protobuf message")
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: "MALFORMED_REQUEST", Domain: errorDomain}); err == nil {
		st = d
	}
	return st.Err()
}

// oneLineMsg is an error's message on one line.
func oneLineMsg(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
