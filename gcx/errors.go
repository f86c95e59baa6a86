package gcx

import (
	"errors"
	"strconv"
	"strings"
)

// Sentinel errors. Decoding errors arrive inside a [*SyntaxError]; encoding
// errors are wrapped with what was being written. Test them with [errors.Is].
var (
	// ErrNoHeader: the payload is empty or its first line is not a header.
	ErrNoHeader = errors.New("gcx: missing header")
	// ErrVersion: a header line whose magic token is not exactly "GCX1".
	ErrVersion = errors.New("gcx: unsupported version")
	// ErrMalformedHeader: a header token without "=" or with an empty key.
	ErrMalformedHeader = errors.New("gcx: malformed header token")
	// ErrMissingTool: the header has no tool= key, or an empty one.
	ErrMissingTool = errors.New("gcx: header missing tool")
	// ErrMissingFields: the header has no fields= key.
	ErrMissingFields = errors.New("gcx: header missing fields")
	// ErrBadField: an empty or repeated field name, or no field at all, on
	// encode; a repeated field name on decode (decoders accept an empty
	// name, which other GCX1 producers write).
	ErrBadField = errors.New("gcx: bad field list")
	// ErrDuplicateKey: a header key that appears twice.
	ErrDuplicateKey = errors.New("gcx: duplicate header key")
	// ErrTooManyCells: a row with more cells than the section has fields.
	ErrTooManyCells = errors.New("gcx: too many cells")
	// ErrLineTooLong: a line longer than Options.MaxLineBytes, LF included.
	ErrLineTooLong = errors.New("gcx: line too long")
	// ErrSchema: a section that breaks the layout of an envelope (spec §10)
	// or of the graph mapping (spec §12.2).
	ErrSchema = errors.New("gcx: schema violation")

	// ErrUnsafeName: a tool, field name or meta item that cannot be written
	// into a header without changing its meaning (spec §3.2).
	ErrUnsafeName = errors.New("gcx: unsafe name")
	// ErrReservedKey: a meta key named "tool" or "fields".
	ErrReservedKey = errors.New("gcx: reserved meta key")
	// ErrBlankRow: a one-field row whose cell escapes to nothing; a decoder
	// would skip the blank line.
	ErrBlankRow = errors.New("gcx: blank row")
	// ErrUnsupportedValue: a Go value that has no JSON form (func, chan,
	// NaN float) or an invalid json.Number.
	ErrUnsupportedValue = errors.New("gcx: unsupported value")
	// ErrInvalidResponse: a GraphResponse the mapping cannot express, such
	// as a group column of unknown kind or a malformed node bucket.
	ErrInvalidResponse = errors.New("gcx: invalid response")
)

// SyntaxError is a decoding error with its position. Line is the 1-based
// physical line, counting comments and blank lines; Column is the 1-based
// byte column of the offending token (1 for errors about the whole line).
// Err is one of the package sentinels, or for graph-level checks an error
// wrapping [ErrSchema]; [SyntaxError.Unwrap] exposes it.
type SyntaxError struct {
	Line, Column int
	Err          error
}

// Error returns "gcx: line L, column C: reason".
func (e *SyntaxError) Error() string {
	msg := "<nil>"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "gcx: ")
	}
	return "gcx: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + msg
}

// Unwrap returns Err.
func (e *SyntaxError) Unwrap() error { return e.Err }
