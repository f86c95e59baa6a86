package formatter

import (
	"bytes"
	"io"
	"slices"
	"strings"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
)

// Format names, fixed for good: clients and metadata carry them.
const (
	JSON     = "json"
	GOON     = "goon"
	GCF      = "gcf"
	GCFGraph = "gcf-graph"
	GCX      = "gcx"
	TOON     = "toon"
	Markdown = "markdown"
	XML      = "xml"
	GCB1     = "gcb1"
)

// Formatter renders a GraphResponse in one output format.
type Formatter interface {
	// Name is the lower-case format name, e.g. "goon".
	Name() string
	// MediaType is the IANA-style media type of the output.
	MediaType() string
	// Version is the format's version, stamped into response metadata.
	Version() string
	// Format writes r to w. It returns the first write error.
	Format(w io.Writer, r *graphresponse.Response) error
}

// Parser is implemented by formatters whose output can be read back into a
// GraphResponse (losslessly or, for GOON, as far as the format carries it).
type Parser interface {
	Parse(data []byte) (*graphresponse.Response, error)
}

// Stamped is formatted output with the name and version of the format that
// produced it.
type Stamped struct {
	Bytes   []byte
	Name    string
	Version string
	// Altered is how many string values text safety changed beyond the
	// format's own escapes (see [FormatCount]); 0 for json, gcf,
	// gcf-graph, toon and xml, which escape every such code point
	// losslessly.
	Altered int
}

// Stamp formats r with f into memory and stamps the result, with the
// count of values text safety altered.
func Stamp(f Formatter, r *graphresponse.Response) (Stamped, error) {
	var b bytes.Buffer
	altered, err := FormatCount(f, &b, r)
	if err != nil {
		return Stamped{}, err
	}
	return Stamped{Bytes: b.Bytes(), Name: f.Name(), Version: f.Version(), Altered: altered}, nil
}

// Counter is implemented by formatters that may change a value's text for
// text safety: goon, gcx and markdown write the code points no LLM format
// may carry raw (C0 and C1 controls, DEL, U+2028, U+2029, bidirectional
// controls, U+FEFF; docs/formats.md) as visible ⟦U+XXXX⟧ markers, and GOON drops the
// C0 controls its spec drops. FormatCount formats like Format and also
// returns how many strings were changed that way, each counted once per
// time it is written.
type Counter interface {
	FormatCount(w io.Writer, r *graphresponse.Response) (altered int, err error)
}

// FormatCount writes r with f to w and returns how many values text safety
// altered: f's own count when f is a [Counter], else 0 (json, gcf,
// gcf-graph and toon escape those code points and never alter a value).
// It is the call for streaming paths that write to a connection rather
// than into memory; [Stamp] uses it too.
func FormatCount(f Formatter, w io.Writer, r *graphresponse.Response) (int, error) {
	if c, ok := f.(Counter); ok {
		return c.FormatCount(w, r)
	}
	return 0, f.Format(w, r)
}

// jsonFormatter is the raw GraphResponse JSON.
type jsonFormatter struct{ version string }

// NewJSON returns the raw JSON formatter stamped with version.
func NewJSON(version string) Formatter { return jsonFormatter{version} }

func (f jsonFormatter) Name() string      { return JSON }
func (f jsonFormatter) MediaType() string { return "application/json" }
func (f jsonFormatter) Version() string   { return f.version }
func (f jsonFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	return graphresponse.Encode(w, r)
}
func (f jsonFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return graphresponse.Unmarshal(data)
}

// goonFormatter is GOON with a fixed version.
type goonFormatter struct{ opts goon.Options }

// NewGOON returns the GOON formatter printing version on its header. It
// fails on a version that is not semantic.
func NewGOON(version string) (Formatter, error) {
	f := goonFormatter{goon.Options{Version: version}}
	if !config.ValidSemver(version) {
		return nil, goon.ErrVersion
	}
	return f, nil
}

func (f goonFormatter) Name() string      { return GOON }
func (f goonFormatter) MediaType() string { return "text/x-goon; charset=utf-8" }
func (f goonFormatter) Version() string   { return f.opts.Version }
func (f goonFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	_, err := f.FormatCount(w, r)
	return err
}

func (f goonFormatter) FormatCount(w io.Writer, r *graphresponse.Response) (int, error) {
	e := goon.NewEncoder(w, f.opts)
	err := e.Encode(r)
	return e.Altered(), err
}
func (f goonFormatter) Parse(data []byte) (*graphresponse.Response, error) {
	return goon.Unmarshal(data, f.opts)
}

// Registry holds formatters by name. It is immutable once built and safe
// for concurrent use.
type Registry struct {
	byName map[string]Formatter
	names  []string // sorted
}

// New builds a registry of fs. Empty names and names that are equal ignoring
// case are errors.
func New(fs ...Formatter) (*Registry, error) {
	r := &Registry{byName: make(map[string]Formatter, len(fs))}
	for _, f := range fs {
		name := f.Name()
		if name == "" {
			return nil, &RegistryError{Reason: "empty format name"}
		}
		key := strings.ToLower(name)
		if _, dup := r.byName[key]; dup {
			return nil, &RegistryError{Name: name, Reason: "duplicate format name"}
		}
		r.byName[key] = f
		r.names = append(r.names, name)
	}
	slices.Sort(r.names)
	return r, nil
}

// Default returns the built-in formatters, with versions from config/.
func Default() *Registry {
	g, err := NewGOON(config.GOONVersion())
	if err != nil {
		panic("formatter: config/GOON_OUTPUT_FORMAT_VERSION: " + err.Error())
	}
	r, err := New(
		NewJSON(config.RawVersion()),
		g,
		NewTOON(config.TOONVersion()),
		NewGCX(config.GCXVersion()),
		NewGCF(config.GCFVersion()),
		NewGCFGraph(config.GCFVersion()),
		NewMarkdown(config.MarkdownVersion()),
		NewXML(config.XMLVersion()),
		NewGCB1(config.GCB1Version()),
	)
	if err != nil {
		panic("formatter: built-in registry: " + err.Error())
	}
	return r
}

// Lookup returns the formatter named name, ignoring case, or an
// [*UnknownFormatError] listing the known names.
func (r *Registry) Lookup(name string) (Formatter, error) {
	if f, ok := r.byName[strings.ToLower(name)]; ok {
		return f, nil
	}
	return nil, &UnknownFormatError{Name: name, Known: slices.Clone(r.names)}
}

// Names returns the registered format names in sorted order.
func (r *Registry) Names() []string { return slices.Clone(r.names) }

// Formatters returns the registered formatters sorted by name.
func (r *Registry) Formatters() []Formatter {
	out := make([]Formatter, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.byName[strings.ToLower(n)])
	}
	return out
}

// ResponseFormat is what a caller asks for: raw JSON for programs or text
// for language models.
type ResponseFormat int

// Response formats.
const (
	RAW ResponseFormat = iota
	LLM
)

// DefaultLLM is the format LLM dispatch uses when none is named.
const DefaultLLM = GOON

// Select dispatches a request: RAW (and any value other than LLM) gives the
// json formatter; LLM gives the named LLM format, or [DefaultLLM] when llm is
// empty. Naming json for LLM is an error.
func (r *Registry) Select(format ResponseFormat, llm string) (Formatter, error) {
	if format != LLM {
		return r.Lookup(JSON)
	}
	if llm == "" {
		llm = DefaultLLM
	}
	if strings.EqualFold(llm, JSON) {
		return nil, &UnknownFormatError{Name: llm, Known: r.llmNames(), LLM: true}
	}
	f, err := r.Lookup(llm)
	if err != nil {
		return nil, &UnknownFormatError{Name: llm, Known: r.llmNames(), LLM: true}
	}
	return f, nil
}

func (r *Registry) llmNames() []string {
	var out []string
	for _, n := range r.names {
		if n != JSON {
			out = append(out, n)
		}
	}
	return out
}
