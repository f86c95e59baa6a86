package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"
)

// Error kinds. Every error an executor returns matches exactly one of them with errors.Is.
var (
	// ErrInvalidQuery: the engine rejected a value of the query (a parameter it could not parse
	// or convert). The request, not the engine, is at fault.
	ErrInvalidQuery = errors.New("executor: invalid query")
	// ErrTimeout: the statement ran past max_execution_time or the context deadline.
	ErrTimeout = errors.New("executor: timeout")
	// ErrResourceExhausted: a memory, read or concurrency limit stopped the statement.
	ErrResourceExhausted = errors.New("executor: resource exhausted")
	// ErrUnavailable: the engine cannot be reached or loaded, or the schema is missing.
	ErrUnavailable = errors.New("executor: unavailable")
	// ErrCanceled: the caller's context was canceled.
	ErrCanceled = errors.New("executor: canceled")
	// ErrInternal: anything else (SQL the engine does not accept, an unknown type, a bug).
	ErrInternal = errors.New("executor: internal error")
)

// Error is an engine failure sorted into a kind. errors.Is(err, kind) reports the kind, and
// Unwrap exposes the original error (a driver exception, ctx.Err(), a network error).
type Error struct {
	Kind error  // one of the Err* kinds
	Code int    // ClickHouse exception code, 0 when the failure did not come from the engine
	Err  error  // the original error
	Op   string // what was being done, e.g. "run query"
	// Ended, when not nil, is closed once the engine has let go of the statement: an
	// executor that answers a caller at its deadline without waiting for the engine (the
	// embedded one, see chdb's Run) sets it, and the statement outlives the error until then.
	// Use [Ended] to read it through wrapping.
	Ended <-chan struct{}
}

func (e *Error) Error() string {
	if e.Code != 0 {
		return fmt.Sprintf("%s: %v (code %d): %v", e.Op, e.Kind, e.Code, e.Err)
	}
	return fmt.Sprintf("%s: %v: %v", e.Op, e.Kind, e.Err)
}

// Ended returns the channel that closes once the engine has let go of the statement that
// failed with err, or nil when it already has (or err is not an [*Error]).
func Ended(err error) <-chan struct{} {
	var e *Error
	if errors.As(err, &e) {
		return e.Ended
	}
	return nil
}

// Unwrap returns the original error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// KindForCode returns the error kind of a ClickHouse exception code (docs/clickhouse.md, "Error
// kinds").
func KindForCode(code int) error {
	switch code {
	case 159, 160, 209: // TIMEOUT_EXCEEDED, TOO_SLOW, SOCKET_TIMEOUT
		return ErrTimeout
	case 394: // QUERY_WAS_CANCELLED
		return ErrCanceled
	case 241, // MEMORY_LIMIT_EXCEEDED
		158, 307, 396, 191, // TOO_MANY_ROWS, TOO_MANY_BYTES, TOO_MANY_ROWS_OR_BYTES, SET_SIZE_LIMIT_EXCEEDED
		202: // TOO_MANY_SIMULTANEOUS_QUERIES
		return ErrResourceExhausted
	case 6, 26, 27, 38, 41, 69, 70, 72, 321, 457:
		// CANNOT_PARSE_TEXT, CANNOT_PARSE_QUOTED_STRING, CANNOT_PARSE_INPUT_ASSERTION_FAILED,
		// CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE,
		// CANNOT_PARSE_NUMBER, VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE, BAD_QUERY_PARAMETER
		return ErrInvalidQuery
	case 60, 81, // UNKNOWN_TABLE, UNKNOWN_DATABASE
		210, 516, 497, // NETWORK_ERROR, AUTHENTICATION_FAILED, ACCESS_DENIED
		279: // ALL_CONNECTION_TRIES_FAILED: a shard of a cluster does not answer
		return ErrUnavailable
	default:
		return ErrInternal
	}
}

// FromCode returns an [*Error] for a ClickHouse exception.
func FromCode(op string, code int, err error) error {
	return &Error{Kind: KindForCode(code), Code: code, Err: err, Op: op}
}

// New returns an [*Error] of the given kind.
func New(op string, kind, err error) error {
	return &Error{Kind: kind, Err: err, Op: op}
}

// FromContext classifies a context error (or an I/O deadline): canceled or timeout. It returns
// nil when err is neither.
func FromContext(op string, err error) error {
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Kind: ErrCanceled, Err: err, Op: op}
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return &Error{Kind: ErrTimeout, Err: err, Op: op}
	}
	return nil
}

var codeRE = regexp.MustCompile(`^\s*Code:\s*(\d+)\.`)

// ParseCode extracts the exception code from ClickHouse's text form "Code: 62. DB::Exception: …".
func ParseCode(msg string) (int, bool) {
	m := codeRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// DeadlineSeconds is the max_execution_time, in seconds, for a statement with left before its
// context's deadline: left rounded up to the millisecond, at least one millisecond (a
// deadline already passed still gives the engine a limit, never 0, which means none).
func DeadlineSeconds(left time.Duration) float64 {
	ms := max((left+time.Millisecond-1)/time.Millisecond, 1)
	return float64(ms) / 1000
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ValidIdent reports whether s is a plain SQL identifier (a database, table or column name
// that needs no quoting): a letter or underscore, then letters, digits and underscores. The
// executors check every name they splice into SQL with it.
func ValidIdent(s string) bool { return identRE.MatchString(s) }
