package formatter

import (
	"io"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/markdown"
)

// markdownFormatter renders GitHub-flavoured Markdown for people (package
// markdown). It has no parser: Markdown is a view, not a wire format.
type markdownFormatter struct{ version string }

// NewMarkdown returns the Markdown formatter stamped with version.
func NewMarkdown(version string) Formatter { return markdownFormatter{version} }

func (f markdownFormatter) Name() string      { return Markdown }
func (f markdownFormatter) MediaType() string { return "text/markdown; charset=utf-8; variant=GFM" }
func (f markdownFormatter) Version() string   { return f.version }
func (f markdownFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	_, err := f.FormatCount(w, r)
	return err
}

// FormatCount formats like Format and returns how many values were
// written with a ⟦U+XXXX⟧ marker.
func (f markdownFormatter) FormatCount(w io.Writer, r *graphresponse.Response) (int, error) {
	e := markdown.NewEncoder(w, markdown.Options{})
	err := e.Encode(r)
	return e.Altered(), err
}
