package gcb1

import (
	"errors"
	"strconv"
)

// Decoding sentinels. Every decode error but an I/O error is a
// [*SyntaxError] whose Err is one of these; test them with errors.Is.
var (
	// ErrMagic: the input does not start with "GCB1".
	ErrMagic = errors.New("not a GCB1 payload")
	// ErrVersion: the version byte is not 1.
	ErrVersion = errors.New("unknown version")
	// ErrTruncated: the input ends inside a field, or a count promises more
	// symbols or edges than the bytes left can hold.
	ErrTruncated = errors.New("truncated input")
	// ErrVarint: a varint longer than 10 bytes, above 2^64-1, not in its
	// shortest form, or a count or length above what this platform indexes.
	ErrVarint = errors.New("invalid varint")
	// ErrEnum: a kind, provenance, edge type or status outside its table.
	ErrEnum = errors.New("enum value out of range")
	// ErrIndex: an edge endpoint that is not a symbol index.
	ErrIndex = errors.New("symbol index out of range")
	// ErrTrailing: bytes after the last edge.
	ErrTrailing = errors.New("trailing bytes")
	// ErrMapping: a well-formed payload that is not a graphwire response:
	// a qualified name that is not "Type:ID", or a signature that is not
	// a JSON object of properties.
	ErrMapping = errors.New("not a graphwire response")
)

// SyntaxError is a decoding error. Offset is the 0-based byte offset of the
// field that is wrong (for a truncated input, the length of the input). Err
// is one of the sentinels; Msg, when set, explains; it is not part of the
// contract.
type SyntaxError struct {
	Offset int
	Err    error
	Msg    string
}

// Error returns "gcb1: offset N: sentinel[: detail]".
func (e *SyntaxError) Error() string {
	s := "gcb1: offset " + strconv.Itoa(e.Offset) + ": " + e.Err.Error()
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// Unwrap returns the sentinel.
func (e *SyntaxError) Unwrap() error { return e.Err }

// Encoding sentinels, the Err of an [*EncodeError].
var (
	// ErrUnsupportedQuery: an aggregation response, which has no topology.
	ErrUnsupportedQuery = errors.New("query type has no GCB1 form")
	// ErrUnencodable: a payload field outside what the layout can carry (an
	// enum value outside its table, an edge endpoint that is not a symbol).
	ErrUnencodable = errors.New("value has no GCB1 encoding")
)

// EncodeError is an encoding error. Path is a JSON Pointer into the input
// (the response, or the [Payload] with its Go field names in snake case).
type EncodeError struct {
	Path   string
	Err    error
	Detail string
}

// Error returns "gcb1: encode PATH: sentinel[: detail]".
func (e *EncodeError) Error() string {
	s := "gcb1: encode " + e.Path + ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel.
func (e *EncodeError) Unwrap() error { return e.Err }
