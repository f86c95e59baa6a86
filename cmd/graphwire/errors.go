package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/graphwire/graphwire/admission"
	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/executor/clickhouse"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
	"github.com/graphwire/graphwire/pipeline"
)

// Exit codes, by class of failure. They are the same whether a query runs locally or on a
// server (--server), and README.md documents them; scripts rely on them, so a number never
// changes meaning.
const (
	exitOK          = 0
	exitFailure     = 1   // anything not classified below: I/O, an input file that does not parse, a bug
	exitUsage       = 2   // the command line is wrong: unknown command or flag, bad flag value, missing argument
	exitInvalid     = 3   // the query, a request value or loaded data was rejected as invalid
	exitAuth        = 4   // not authenticated: the token is missing, invalid or expired
	exitPermission  = 5   // authenticated, but the caller may not do this (scope violation, admin-only)
	exitNotFound    = 6   // there is nothing there: no graph in the data directory or database, no such file
	exitUnavailable = 7   // the engine or server cannot answer now: unreachable, locked, busy, over a limit, graph incomplete
	exitTimeout     = 8   // the deadline (--timeout, or the engine's limit) passed first
	exitNoSource    = 9   // index: the tree holds no file of a supported language
	exitRekeyNeeded = 10  // rekey --check: the edge tables use an earlier key order (not a failure)
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it)
)

// usageError is a mistake in the command line. run prints it with a pointer to --help and
// exits with exitUsage.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// argError classifies an error met while reading a command's arguments: a file that cannot be
// read keeps its own class (a missing one is "not found", exit 6), anything else is a usage
// error.
func argError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return err
	}
	return &usageError{err}
}

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// reportedError is the exit code of a command that printed its own error (serve, which logs).
type reportedError int

func (e reportedError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// classError gives an error a class (one of the exit codes) and the message the user acts on,
// keeping the original for errors.Is.
type classError struct {
	code int
	msg  string
	err  error
}

func (e *classError) Error() string { return e.msg }
func (e *classError) Unwrap() error { return e.err }

// exitCode is the one place errors become exit codes. It matches with errors.Is and errors.As
// only; a gRPC status from a server maps onto the same classes as the local error that caused
// it.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var (
		re0 reportedError
		ue  *usageError
		de  *clickhouse.DSNError
		ce  *classError
		ke  *compiler.Error
		re  *pipeline.RequestError
		ve  *load.ValidationError
		be  *admission.BusyError
	)
	switch {
	case errors.As(err, &re0):
		return int(re0)
	case errors.As(err, &ue), errors.As(err, &de): // a --clickhouse DSN that names no server
		return exitUsage
	case errors.As(err, &ce):
		return ce.code
	case errors.As(err, &ke):
		switch ke.Kind() {
		case compiler.KindInvalidQuery:
			return exitInvalid
		case compiler.KindPermissionDenied:
			return exitPermission
		case compiler.KindResourceExhausted:
			return exitUnavailable
		}
		return exitFailure
	case errors.As(err, &re), errors.As(err, &ve), errors.Is(err, load.ErrShadowed), errors.Is(err, executor.ErrInvalidQuery):
		return exitInvalid
	case errors.Is(err, auth.ErrInvalidToken), errors.Is(err, pipeline.ErrUnauthenticated):
		return exitAuth
	case errors.Is(err, loadstate.ErrNoGraph), errors.Is(err, fs.ErrNotExist):
		return exitNotFound
	case errors.Is(err, executor.ErrTimeout), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return exitTimeout
	case errors.Is(err, executor.ErrCanceled), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.Is(err, executor.ErrUnavailable), errors.Is(err, executor.ErrResourceExhausted),
		errors.Is(err, loadstate.ErrIncomplete), errors.As(err, &be):
		return exitUnavailable
	}
	if st, ok := status.FromError(err); ok {
		return statusExitCode(st.Code())
	}
	return exitFailure
}

// statusExitCode maps a server's gRPC status code onto the local classes.
func statusExitCode(c codes.Code) int {
	switch c {
	case codes.OK:
		return exitOK
	case codes.InvalidArgument, codes.OutOfRange:
		return exitInvalid
	case codes.Unauthenticated:
		return exitAuth
	case codes.PermissionDenied:
		return exitPermission
	case codes.NotFound:
		return exitNotFound
	case codes.Unavailable, codes.ResourceExhausted, codes.FailedPrecondition, codes.Aborted:
		return exitUnavailable
	case codes.DeadlineExceeded:
		return exitTimeout
	case codes.Canceled:
		return exitInterrupted
	}
	return exitFailure
}

// report prints err for the command name ("graphwire query") on w: one line per problem.
// Compiler errors, local or from a server, read "KIND REASON POINTER: message", so a script
// can match the reason code and the JSON pointer whichever way the query ran.
func report(w io.Writer, name string, err error) {
	var (
		rep reportedError
		ke  *compiler.Error
		ve  *load.ValidationError
	)
	switch {
	case errors.As(err, &rep):
		// already printed by the command
	case errors.As(err, &ke):
		p := ke.Path
		if p == "" {
			p = "/"
		}
		msg := ke.Message
		if msg == "" {
			msg = ke.Error()
		}
		fmt.Fprintf(w, "%s: %s %s %s: %s\n", name, ke.Kind(), ke.Reason(), p, oneLine(errors.New(msg)))
		if errors.Is(ke, compiler.ErrNoScopes) {
			// A local caller is named by flags, not by a token.
			fmt.Fprintf(w, "%s: hint: name the caller: --scope PATH (repeatable, e.g. --scope 1/10/) or --admin\n", name)
		}
	case errors.As(err, &ve):
		unknownType := false
		for _, is := range ve.Issues {
			fmt.Fprintf(w, "%s: %s\n", name, oneLine(is))
			unknownType = unknownType || errors.Is(is, load.ErrUnknownType)
		}
		if unknownType {
			// The type comes from --type or the file name (edges.csv reads as type "edges").
			fmt.Fprintf(w, "%s: hint: name the type with --type T, or name the file after it: an entity (Definition, its table gl_definition or definition) or a relationship (CALLS), e.g. --type CALLS or CALLS.csv (docs/loading.md)\n", name)
		}
		// Only load takes --skip-invalid; index, which loads what it extracted, must not suggest it.
		switch {
		case name != "graphwire load":
			fmt.Fprintf(w, "%s: refused: %d invalid rows, nothing written\n", name, ve.Count)
		case ve.FileLevel():
			fmt.Fprintf(w, "%s: refused: %d file-level problems, nothing written (--skip-invalid skips invalid rows, not these)\n", name, ve.Count)
		default:
			fmt.Fprintf(w, "%s: refused: %d invalid rows, nothing written (--skip-invalid loads the valid ones)\n", name, ve.Count)
		}
	default:
		if st, ok := status.FromError(err); ok && st.Code() != codes.OK {
			fmt.Fprintf(w, "%s: %s\n", name, statusLine(st))
			return
		}
		fmt.Fprintf(w, "%s: %s\n", name, oneLine(err))
	}
}

// statusLine renders a server's status like the local error behind it: "KIND REASON POINTER:
// message" when the status carries an ErrorInfo (a compiler or request error), else "code:
// message" with the gRPC code in snake case ("unavailable: …").
func statusLine(st *status.Status) string {
	msg := oneLine(errors.New(st.Message()))
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetReason() == "" {
			continue
		}
		ptr := info.GetMetadata()["pointer"]
		if ptr == "" {
			ptr = "/"
		}
		// The server's message is the compiler's "POINTER: message"; the pointer is printed
		// once, in its own place.
		msg = strings.TrimPrefix(msg, ptr+": ")
		return fmt.Sprintf("%s %s %s: %s", statusKind(st.Code()), info.GetReason(), ptr, msg)
	}
	return statusKind(st.Code()) + ": " + msg
}

// statusKind names a gRPC code as the compiler names its error kinds (invalid_query,
// permission_denied), and the others in snake case.
func statusKind(c codes.Code) string {
	switch c {
	case codes.InvalidArgument:
		return string(compiler.KindInvalidQuery)
	case codes.PermissionDenied:
		return string(compiler.KindPermissionDenied)
	}
	var b strings.Builder
	for i, r := range c.String() {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// oneLine flattens an error message to a single line.
func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
