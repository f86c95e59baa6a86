package goon

import (
	"errors"
	"strconv"
)

// ErrVersion is returned by the encoder when [Options.Version] is empty or not
// a semantic version.
var ErrVersion = errors.New("goon: Options.Version must be a semantic version")

// Sentinel errors of the decoder, found inside [SyntaxError].
var (
	ErrHeader     = errors.New("goon: malformed @header")
	ErrSection    = errors.New("goon: unexpected section")
	ErrGroup      = errors.New("goon: malformed group header")
	ErrLine       = errors.New("goon: malformed line")
	ErrCount      = errors.New("goon: group count does not match its lines")
	ErrQuote      = errors.New("goon: malformed quoted value")
	ErrInvalidID  = errors.New("goon: invalid id")
	ErrTruncated  = errors.New("goon: missing final newline")
	ErrInvalidUTF = errors.New("goon: invalid UTF-8")
)

// SyntaxError reports malformed GOON text. Line and Column are 1-based;
// Column counts bytes. Err is one of the package's sentinels.
type SyntaxError struct {
	Line, Column int
	Err          error
}

// Error returns "goon: line L, column C: message".
func (e *SyntaxError) Error() string {
	msg := e.Err.Error()
	if len(msg) > 6 && msg[:6] == "goon: " {
		msg = msg[6:]
	}
	return "goon: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + msg
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }
