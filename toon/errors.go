package toon

import (
	"errors"
	"strconv"
)

// Decoding sentinels. Every decode error is a [*SyntaxError] whose Err is one
// of these; test them with errors.Is.
var (
	ErrLengthMismatch     = errors.New("array length does not match the declared count")
	ErrWidthMismatch      = errors.New("row width does not match the header's field count")
	ErrIndentation        = errors.New("invalid indentation")
	ErrBlankLine          = errors.New("blank line inside an array")
	ErrHeader             = errors.New("malformed array header")
	ErrDelimiterMismatch  = errors.New("delimiter inside the braces differs from the bracket's")
	ErrMissingColon       = errors.New("missing colon")
	ErrInvalidEscape      = errors.New("invalid escape sequence")
	ErrUnterminatedString = errors.New("unterminated string")
	ErrDuplicateKey       = errors.New("duplicate key")
	ErrStructure          = errors.New("invalid document structure")
	ErrTrailingContent    = errors.New("content after the root value")
	ErrInvalidUTF8        = errors.New("invalid UTF-8")
)

// Encoding and API sentinels.
var (
	// ErrUnsupportedType is returned by the encoder for Go values that have no
	// JSON form (channels, funcs, NaN inside a struct, invalid json.Number
	// literals, objects with duplicate keys).
	ErrUnsupportedType = errors.New("unsupported value")
	// ErrInvalidOptions is returned for an Options value the codec cannot
	// use, such as an unknown delimiter.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrInvalidJSON is the sentinel of [ParseJSON] errors (wrapped in a
	// [*SyntaxError] with the JSON line and column).
	ErrInvalidJSON = errors.New("invalid JSON")
	// ErrInvalidResponse is returned by the GraphResponse rendering for a
	// response it cannot lay out: a group column of unknown kind or a
	// malformed node bucket in a node-kind group column.
	ErrInvalidResponse = errors.New("invalid graph response")
)

// SyntaxError is a decoding error. Line is the 1-based line in the original
// input (comment lines included), Column the 1-based byte column of the
// offending token (1 when the whole line is at fault), Err one of the
// sentinels. Msg, when set, adds a human explanation; it is not part of the
// contract.
type SyntaxError struct {
	Line, Column int
	Err          error
	Msg          string
}

// Error returns "toon: line L, column C: sentinel[: detail]".
func (e *SyntaxError) Error() string {
	s := "toon: line " + strconv.Itoa(e.Line) + ", column " + strconv.Itoa(e.Column) + ": " + e.Err.Error()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }
