package formatter

import (
	"errors"
	"fmt"
	"io"

	"github.com/graphwire/graphwire/gcf"
	"github.com/graphwire/graphwire/graphresponse"
)

// gcfFormatter renders one of the two GCF mappings of specs/gcf.md §3: the
// lossless generic profile (gcf) or the graph-profile topology (gcf-graph).
type gcfFormatter struct {
	name    string
	version string
	opts    gcf.Options
}

// NewGCF returns the lossless generic-profile formatter stamped with version.
func NewGCF(version string) Formatter {
	return gcfFormatter{name: GCF, version: version, opts: gcf.Options{Profile: gcf.ProfileGeneric}}
}

// NewGCFGraph returns the graph-profile topology formatter stamped with
// version. Aggregations have no topology and fail with
// gcf.ErrUnsupportedQuery.
func NewGCFGraph(version string) Formatter {
	return gcfFormatter{name: GCFGraph, version: version, opts: gcf.Options{Profile: gcf.ProfileGraph}}
}

func (f gcfFormatter) Name() string      { return f.name }
func (f gcfFormatter) MediaType() string { return gcf.MediaType }
func (f gcfFormatter) Version() string   { return f.version }
func (f gcfFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	err := gcf.NewEncoder(w, f.opts).Encode(r)
	if errors.Is(err, gcf.ErrUnsupportedQuery) || errors.Is(err, gcf.ErrUnrepresentable) {
		return fmt.Errorf("%w: %w", ErrUnrepresentable, err)
	}
	return err
}

// Parse reads gcf back losslessly; gcf-graph comes back as topology only.
func (f gcfFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return gcf.Unmarshal(data, f.opts)
}
