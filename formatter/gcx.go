package formatter

import (
	"errors"
	"fmt"
	"io"

	"github.com/graphwire/graphwire/gcx"
	"github.com/graphwire/graphwire/graphresponse"
)

// gcxFormatter renders the GCX1 sections of specs/gcx.md §11.
type gcxFormatter struct{ version string }

// NewGCX returns the GCX formatter stamped with version.
func NewGCX(version string) Formatter { return gcxFormatter{version} }

func (f gcxFormatter) Name() string      { return GCX }
func (f gcxFormatter) MediaType() string { return "text/x-gcx; charset=utf-8" }
func (f gcxFormatter) Version() string   { return f.version }
func (f gcxFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	_, err := f.FormatCount(w, r)
	return err
}

func (f gcxFormatter) FormatCount(w io.Writer, r *graphresponse.Response) (int, error) {
	e := gcx.NewEncoder(w, gcx.Options{})
	err := e.Encode(r)
	if errors.Is(err, gcx.ErrLineTooLong) {
		// A GCX row is one line of at most 4 MiB (gcx.DefaultMaxLineBytes): a longer row
		// is the answer's limit in this format, not a failure of the server.
		err = fmt.Errorf("%w: %w", ErrUnrepresentable, err)
	}
	return e.Altered(), err
}
func (f gcxFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return gcx.Unmarshal(data, gcx.Options{})
}
