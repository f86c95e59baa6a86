package formatter

import (
	"errors"
	"fmt"
	"io"

	"github.com/graphwire/graphwire/gcb1"
	"github.com/graphwire/graphwire/graphresponse"
)

// Binary is implemented by formatters whose output is bytes, not text:
// gcb1. Their output is never sent as text (MCP refuses them, gRPC's
// ExecuteQuery answers in formatted_bytes), its tokens are not counted and
// max_tokens does not apply.
type Binary interface {
	// Binary reports whether the output is binary.
	Binary() bool
}

// IsBinary reports whether f writes binary output.
func IsBinary(f Formatter) bool {
	b, ok := f.(Binary)
	return ok && b.Binary()
}

// gcb1Formatter writes knowing's GCB1 binary payload (package gcb1). It
// reads back what the payload keeps: nodes with their properties, edges
// whose type knowing names, the query type.
type gcb1Formatter struct{ version string }

// NewGCB1 returns the GCB1 formatter stamped with version.
func NewGCB1(version string) Formatter { return gcb1Formatter{version} }

func (f gcb1Formatter) Name() string      { return GCB1 }
func (f gcb1Formatter) MediaType() string { return "application/x-gcb1" }
func (f gcb1Formatter) Version() string   { return f.version }
func (f gcb1Formatter) Binary() bool      { return true }
func (f gcb1Formatter) Format(w io.Writer, r *graphresponse.Response) error {
	err := gcb1.NewEncoder(w, gcb1.Options{}).Encode(r)
	if errors.Is(err, gcb1.ErrUnsupportedQuery) {
		return fmt.Errorf("%w: %w", ErrUnrepresentable, err)
	}
	return err
}

// Parse reads a GCB1 payload back into a response.
func (f gcb1Formatter) Parse(data []byte) (*graphresponse.Response, error) {
	return gcb1.Unmarshal(data, gcb1.Options{})
}
