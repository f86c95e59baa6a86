package formatter

import (
	"errors"
	"strconv"
	"strings"
)

// ErrUnrepresentable is wrapped by a formatter that cannot carry a response
// at all: gcf-graph has no aggregations, gcf refuses duplicate nodes. It is
// the caller's choice of format that is wrong, not the data.
var ErrUnrepresentable = errors.New("formatter: response not representable in this format")

// UnknownFormatError reports a format name that is not registered.
type UnknownFormatError struct {
	Name  string
	Known []string // sorted
	LLM   bool     // the name was asked for as an LLM format
}

// Error lists the known names.
func (e *UnknownFormatError) Error() string {
	kind := "format"
	if e.LLM {
		kind = "LLM format"
	}
	return "formatter: unknown " + kind + " " + quote(e.Name) + " (known: " + strings.Join(e.Known, ", ") + ")"
}

// RegistryError reports an invalid registry.
type RegistryError struct {
	Name   string
	Reason string
}

// Error describes the problem.
func (e *RegistryError) Error() string {
	if e.Name == "" {
		return "formatter: " + e.Reason
	}
	return "formatter: " + e.Reason + " " + quote(e.Name)
}

// quote quotes a caller-supplied name with Go escapes, so an error message
// never carries a control character, line separator or bidirectional
// control into a log line, a gRPC status or a terminal.
func quote(s string) string { return strconv.Quote(s) }
