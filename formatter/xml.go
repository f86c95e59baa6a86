package formatter

import (
	"io"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/xmlgraph"
)

// xmlFormatter writes the XML document of config/schemas/graph_response.xsd
// (package xmlgraph); it reads back losslessly.
type xmlFormatter struct{ version string }

// NewXML returns the XML formatter stamped with version.
func NewXML(version string) Formatter { return xmlFormatter{version} }

func (f xmlFormatter) Name() string      { return XML }
func (f xmlFormatter) MediaType() string { return "application/xml" }
func (f xmlFormatter) Version() string   { return f.version }
func (f xmlFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	return xmlgraph.NewEncoder(w, xmlgraph.Options{}).Encode(r)
}

// Parse reads an XML document back into an equal response.
func (f xmlFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return xmlgraph.Unmarshal(data, xmlgraph.Options{})
}
