package graphresponse

import (
	"errors"
	"strconv"
)

// Sentinel errors inside [SyntaxError].
var (
	ErrSyntax       = errors.New("malformed JSON")
	ErrUnknownKey   = errors.New("unknown key")
	ErrMissingKey   = errors.New("missing required key")
	ErrDuplicateKey = errors.New("duplicate key")
	ErrType         = errors.New("wrong JSON type")
	ErrInvalidID    = errors.New("invalid id")
	ErrInvalidValue = errors.New("invalid value")
	ErrTooDeep      = errors.New("nesting too deep")
)

// SyntaxError is a raw JSON decoding error. Pointer is the RFC 6901 JSON
// Pointer of the offending value ("" for the document), Line and Column the
// 1-based position of its first byte (the column counts bytes), Err one of
// the sentinels above and Detail a human explanation.
type SyntaxError struct {
	Pointer      string
	Line, Column int
	Err          error
	Detail       string
}

// Error returns "graphresponse: line L, column C: /pointer: sentinel: detail".
func (e *SyntaxError) Error() string {
	s := "graphresponse: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": "
	if e.Pointer != "" {
		s += e.Pointer + ": "
	}
	s += e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }
