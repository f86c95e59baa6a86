package formatter

import (
	"io"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/toon"
)

// toonFormatter renders the TOON layout of specs/toon.md §7.
type toonFormatter struct{ version string }

// NewTOON returns the TOON formatter stamped with version.
func NewTOON(version string) Formatter { return toonFormatter{version} }

func (f toonFormatter) Name() string      { return TOON }
func (f toonFormatter) MediaType() string { return "text/x-toon; charset=utf-8" }
func (f toonFormatter) Version() string   { return f.version }
func (f toonFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	return toon.NewEncoder(w, toon.Options{}).EncodeResponse(r)
}

// Parse reads a TOON rendering back as far as TOON carries it (see
// toon.UnmarshalResponse for what is lost); the raw format version is the
// current one.
func (f toonFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	r, err := toon.UnmarshalResponse(data, toon.Options{})
	if err != nil {
		return nil, err
	}
	r.FormatVersion = config.RawVersion()
	return r, nil
}
