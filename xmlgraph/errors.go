package xmlgraph

import (
	"errors"
	"strconv"
)

// Decoding sentinels. Every decode error but an I/O error is a
// [*SyntaxError] whose Err is one of these; test them with errors.Is.
var (
	// ErrMalformed: the input is not well-formed XML (encoding/xml's
	// message is in SyntaxError.Msg).
	ErrMalformed = errors.New("malformed XML")
	// ErrElement: an element or text that the schema does not allow there,
	// or a missing one.
	ErrElement = errors.New("unexpected content")
	// ErrAttribute: a missing, unknown or duplicate attribute, or one whose
	// value does not fit (an id that is not an int64).
	ErrAttribute = errors.New("invalid attribute")
	// ErrValue: the text of a value does not fit its type.
	ErrValue = errors.New("invalid value")
	// ErrTrailing: content after the document element.
	ErrTrailing = errors.New("content after the document element")
)

// SyntaxError is a decoding error. Line and Column are 1-based; Column
// counts bytes. For a bad element or attribute they point at the start of
// its tag, for malformed XML at where encoding/xml stopped. Err is one of
// the sentinels; Msg, when set, explains; it is not part of the contract.
type SyntaxError struct {
	Line, Column int
	Err          error
	Msg          string
}

// Error returns "xmlgraph: line L, column C: sentinel[: detail]".
func (e *SyntaxError) Error() string {
	s := "xmlgraph: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Err.Error()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }
