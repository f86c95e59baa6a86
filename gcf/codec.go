package gcf

import (
	"bufio"
	"bytes"
	"io"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
)

// Encoder writes GCF payloads to an output stream. Every Encode… call writes
// one whole payload and flushes. The first write error sticks: later calls
// return it. Encoding errors ([*EncodeError]) write nothing and do not stick.
// An Encoder keeps its buffers between calls, so reusing one makes repeated
// [Encoder.Encode] calls allocation-free. It is not safe for concurrent use.
type Encoder struct {
	w    *bufio.Writer
	opts Options
	lim  Limits
	buf  []byte
	err  error
	resp respScratch
	gen  genScratch
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: bufio.NewWriter(w), opts: opts, lim: opts.Limits.withDefaults()}
}

// flush writes e.buf and flushes, recording the first error.
func (e *Encoder) flush() error {
	if e.err != nil {
		return e.err
	}
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = err
		return err
	}
	if err := e.w.Flush(); err != nil {
		e.err = err
		return err
	}
	return nil
}

func appendGenericHeader(dst []byte, tool string) []byte {
	dst = append(dst, "GCF profile=generic"...)
	if tool != "" {
		dst = appendHeaderStr(dst, "tool", tool)
	}
	return append(dst, '\n')
}

func (e *Encoder) checkTool() error {
	if e.opts.Tool != "" && !isToken(e.opts.Tool) {
		return &EncodeError{Path: "/tool", Err: ErrInvalidToken, Detail: "tool must be printable non-space ASCII"}
	}
	return nil
}

// EncodeValue writes v as a generic-profile payload (§2.7). v may be nil,
// bool, any Go integer or float type, json.Number, string, []any, []*Object,
// *Object or map[string]any (keys sorted by byte order).
func (e *Encoder) EncodeValue(v any) error {
	if e.err != nil {
		return e.err
	}
	if err := e.checkTool(); err != nil {
		return err
	}
	v, err := normalize(v, 0, e.lim.MaxDepth)
	if err != nil {
		return err
	}
	g := genEncoder{buf: appendGenericHeader(e.buf[:0], e.opts.Tool), maxDepth: e.lim.MaxDepth, maxElems: e.lim.MaxElements}
	err = g.root(v)
	e.buf = g.buf
	if err != nil {
		return err
	}
	return e.flush()
}

// EncodeGraph writes a full graph-profile payload (§2.6.5).
func (e *Encoder) EncodeGraph(g *Graph) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendGraph(e.buf[:0], g, nil); err != nil {
		return err
	}
	return e.flush()
}

// EncodeGraphSession writes a session payload (§2.9), updating s.
func (e *Encoder) EncodeGraphSession(g *Graph, s *Session) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendGraph(e.buf[:0], g, s); err != nil {
		return err
	}
	return e.flush()
}

// EncodeUnchanged writes a header-only unchanged payload for g (§2.10.3).
func (e *Encoder) EncodeUnchanged(g *Graph) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendUnchanged(e.buf[:0], g); err != nil {
		return err
	}
	return e.flush()
}

// EncodeDelta writes a graph delta payload (§2.10.2).
func (e *Encoder) EncodeDelta(d *GraphDelta) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendDelta(e.buf[:0], d); err != nil {
		return err
	}
	return e.flush()
}

// EncodeSet writes a keyed-set full payload with its pack root (§2.11).
func (e *Encoder) EncodeSet(s *Set) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendSet(e.buf[:0], s, e.opts.Tool, e.lim); err != nil {
		return err
	}
	return e.flush()
}

// EncodeSetDelta writes a keyed-set delta payload (§2.11).
func (e *Encoder) EncodeSetDelta(d *SetDelta) error {
	if e.err != nil {
		return e.err
	}
	var err error
	if e.buf, err = appendSetDelta(e.buf[:0], d, e.lim); err != nil {
		return err
	}
	return e.flush()
}

// MarshalValue returns the generic-profile encoding of v.
func MarshalValue(v any, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).EncodeValue(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalValue decodes a generic-profile payload into the generic value
// model.
func UnmarshalValue(data []byte, opts Options) (any, error) {
	return NewDecoder(bytes.NewReader(data), opts).DecodeValue()
}

// Document is one decoded payload: the header plus exactly one of Value
// (generic), Graph, Delta (graph delta) or SetDelta (generic delta).
type Document struct {
	Header   Header
	Value    any
	Graph    *Graph
	Delta    *GraphDelta
	SetDelta *SetDelta
}

// Decoder reads one GCF payload from an input stream. Decoding is strict:
// every error is a [*SyntaxError] wrapping a sentinel, except I/O errors,
// which are returned as they are. A Decoder is not safe for concurrent use.
type Decoder struct {
	r        io.Reader
	opts     Options
	lim      Limits
	warnings []string
	header   string // header line of a fast-path decode; warnings are derived from it on demand
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader, opts Options) *Decoder {
	return &Decoder{r: r, opts: opts, lim: opts.Limits.withDefaults()}
}

// Warnings returns the warnings of the last decode: unknown header keys and
// deferred sections without a trailer.
func (d *Decoder) Warnings() []string {
	if d.header != "" {
		if h, err := parseHeader(d.header); err == nil {
			for _, f := range h.Fields {
				if !isKnown(h.Profile, f.Key) {
					d.warnings = append(d.warnings, "unknown header key "+f.Key)
				}
			}
		}
		d.header = ""
	}
	return d.warnings
}

// read returns the whole input as a string. A reader that knows its length
// (bytes.Reader, strings.Reader) is read in one allocation.
func (d *Decoder) read() (string, error) {
	var sb strings.Builder
	limit := int64(d.lim.MaxInputSize) + 1
	var r io.Reader
	if l, ok := d.r.(interface{ Len() int }); ok && int64(l.Len()) < limit {
		sb.Grow(l.Len())
		r = d.r // its WriterTo copies without an intermediate buffer
	} else {
		r = io.LimitReader(d.r, limit)
	}
	if _, err := io.Copy(&sb, r); err != nil {
		return "", err
	}
	return sb.String(), nil
}

// DecodeDocument decodes one payload of either profile.
func (d *Decoder) DecodeDocument() (*Document, error) {
	data, err := d.read()
	if err != nil {
		return nil, err
	}
	return d.decodeDocument(data)
}

// decodeDocument decodes a whole payload: the common graph layout through
// [fastDecodeGraph], anything else, and every error, through the strict
// decoder [Decoder.decodeBytes], with the same result.
func (d *Decoder) decodeDocument(data string) (*Document, error) {
	if doc, ok := tryFastDecodeGraph(data, d.lim); ok {
		d.warnings, d.header = nil, ""
		d.warnUnknown(&doc.Header)
		return doc, nil
	}
	return d.decodeBytes(data)
}

// tryFastDecodeGraph runs [fastDecodeGraph], turning a panic (a bug) into a
// fallback to the strict decoder, which has its own recovery.
func tryFastDecodeGraph(data string, lim Limits) (doc *Document, ok bool) {
	defer func() {
		if recover() != nil {
			doc, ok = nil, false
		}
	}()
	return fastDecodeGraph(data, lim)
}

// warnUnknown records a warning for each header key the profile does not
// define.
func (d *Decoder) warnUnknown(h *Header) {
	for _, f := range h.Fields {
		if !isKnown(h.Profile, f.Key) {
			d.warnings = append(d.warnings, "unknown header key "+f.Key)
		}
	}
}

func (d *Decoder) decodeBytes(data string) (doc *Document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, synErr(1, 1, ErrSyntax, "internal decoder error")
		}
	}()
	d.warnings, d.header = nil, ""
	header, lines, err := splitInput(data, d.lim)
	if err != nil {
		return nil, err
	}
	if header == "" && len(data) == 0 {
		return nil, synErr(1, 1, ErrMissingHeader, "empty input")
	}
	h, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	d.warnUnknown(&h)
	doc = &Document{Header: h}
	delta, _ := h.Get("delta")
	if h.Profile == "graph" {
		if delta == "true" {
			doc.Delta, err = decodeGraphDelta(&h, lines, d.lim)
		} else {
			doc.Graph, err = decodeGraph(&h, lines, d.lim)
		}
		if err != nil {
			return nil, err
		}
		return doc, nil
	}
	key, _ := h.Get("key")
	if delta == "true" {
		doc.SetDelta, err = decodeSetDelta(&h, lines, d.lim)
		if err != nil {
			return nil, err
		}
		return doc, nil
	}
	lines, trailer, err := takeTrailer(lines)
	if err != nil {
		return nil, err
	}
	gd := genDecoder{lines: lines, lim: d.lim, identKey: key}
	v, err := gd.root()
	if err != nil {
		return nil, err
	}
	if err := gd.checkTrailer(trailer); err != nil {
		return nil, err
	}
	if trailer == nil && len(gd.deferred) > 0 {
		d.warnings = append(d.warnings, "deferred section without trailer")
	}
	doc.Value = v
	return doc, nil
}

// DecodeValue decodes a generic-profile payload.
func (d *Decoder) DecodeValue() (any, error) {
	doc, err := d.DecodeDocument()
	if err != nil {
		return nil, err
	}
	if doc.Header.Profile != "generic" || doc.SetDelta != nil {
		return nil, synErr(1, 1, ErrSyntax, "not a generic value payload")
	}
	return doc.Value, nil
}

// DecodeGraph decodes a graph-profile payload that is not a delta.
func (d *Decoder) DecodeGraph() (*Graph, error) {
	doc, err := d.DecodeDocument()
	if err != nil {
		return nil, err
	}
	if doc.Graph == nil {
		return nil, synErr(1, 1, ErrSyntax, "not a graph payload")
	}
	return doc.Graph, nil
}

// DecodeDelta decodes a graph delta payload.
func (d *Decoder) DecodeDelta() (*GraphDelta, error) {
	doc, err := d.DecodeDocument()
	if err != nil {
		return nil, err
	}
	if doc.Delta == nil {
		return nil, synErr(1, 1, ErrMalformedDelta, "not a graph delta payload")
	}
	return doc.Delta, nil
}

// DecodeSetDelta decodes a generic (keyed-set) delta payload.
func (d *Decoder) DecodeSetDelta() (*SetDelta, error) {
	doc, err := d.DecodeDocument()
	if err != nil {
		return nil, err
	}
	if doc.SetDelta == nil {
		return nil, synErr(1, 1, ErrMalformedDelta, "not a generic delta payload")
	}
	return doc.SetDelta, nil
}

// Marshal returns the encoding of r in the format selected by
// opts.Profile: `gcf` (generic, lossless) or `gcf-graph` (topology).
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var b bytes.Buffer
	if err := NewEncoder(&b, opts).Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Unmarshal decodes a `gcf` or `gcf-graph` payload into a response.
func Unmarshal(data []byte, opts Options) (*graphresponse.Response, error) {
	d := Decoder{opts: opts, lim: opts.Limits.withDefaults()}
	if len(data) > d.lim.MaxInputSize {
		// Decode reads only the first MaxInputSize+1 bytes of oversized input.
		return NewDecoder(bytes.NewReader(data), opts).Decode()
	}
	// Decode would copy data into a string too; this skips the reader and
	// the Decoder allocation.
	return d.decodeResponse(string(data))
}
