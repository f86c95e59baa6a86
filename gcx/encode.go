package gcx

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/graphwire/graphwire/graphresponse"
)

// Encoder writes GCX1 payloads to an io.Writer. Each call appends its lines
// to a reused buffer and writes them through a bufio.Writer, flushing before
// it returns. The first error sticks: every later call returns it. An
// Encoder is not safe for concurrent use.
type Encoder struct {
	w       *bufio.Writer
	buf     []byte
	opts    Options
	nfields int // fields of the section being streamed; 0 before WriteHeader
	altered int // cells changed beyond their escapes, see Altered
	err     error
}

// Altered returns how many cells the encoder has written, since it was
// created, whose text is not the original behind the cell escapes: a
// code point of the text-safety set written as its ⟦U+XXXX⟧ marker (or a
// literal ⟦ written as ⟦U+27E6⟧), or a CR dropped (spec §4.2). The decoder
// restores markers; dropped CRs are lost. Callers report this count
// (formatter.Stamped.Altered), so no value is changed silently.
func (e *Encoder) Altered() int { return e.altered }

// NewEncoder returns an encoder writing to w with opts.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: bufio.NewWriter(w), opts: opts}
}

// Encode writes the GCX1 form of the GraphResponse r (spec §11) and
// flushes. The whole payload is built and checked before any byte is
// written, so a response the mapping rejects leaves w untouched.
func (e *Encoder) Encode(r *graphresponse.Response) error {
	if e.err != nil {
		return e.err
	}
	secs, altered, err := sections(r)
	if err != nil {
		e.err = fmt.Errorf("encode response: %w", err)
		return e.err
	}
	buf := slices.Grow(e.buf[:0], sizeHint(secs))
	for i := range secs {
		var n int
		if buf, n, err = appendSection(buf, &secs[i], e.opts.maxLine()); err != nil {
			e.err = fmt.Errorf("encode response: %w", err)
			return e.err
		}
		altered += n
	}
	e.buf = buf
	e.altered += altered
	return e.write(buf)
}

// EncodeSection checks the whole section s, then writes it and flushes.
// Nothing is written when s is invalid. It ends any section started with
// [Encoder.WriteHeader].
func (e *Encoder) EncodeSection(s Section) error {
	if e.err != nil {
		return e.err
	}
	buf, altered, err := appendSection(slices.Grow(e.buf[:0], sizeHint([]Section{s})), &s, e.opts.maxLine())
	e.buf = buf
	if err != nil {
		e.err = fmt.Errorf("encode section: %w", err)
		return e.err
	}
	e.altered += altered
	e.nfields = len(s.Fields)
	return e.write(buf)
}

// WriteHeader starts a section by writing its header line. Meta keys are
// written in ascending byte order. Rows follow with [Encoder.WriteRow].
func (e *Encoder) WriteHeader(tool string, fields []string, meta map[string]string) error {
	if e.err != nil {
		return e.err
	}
	buf, err := appendHeader(e.buf[:0], tool, fields, meta, e.opts.maxLine())
	e.buf = buf
	if err != nil {
		e.err = fmt.Errorf("write header: %w", err)
		return e.err
	}
	e.nfields = len(fields)
	return e.write(buf)
}

// WriteRow writes one row of the current section. Missing trailing cells
// are written empty; more cells than fields fail with [ErrTooManyCells], a
// one-field row with an empty cell with [ErrBlankRow]. A first cell that
// starts with "#" or "GCX" gets a guarding backslash (spec §4.1).
func (e *Encoder) WriteRow(cells ...string) error {
	if e.err != nil {
		return e.err
	}
	if e.nfields == 0 {
		e.err = fmt.Errorf("write row before a header: %w", ErrNoHeader)
		return e.err
	}
	buf, altered, err := appendRow(e.buf[:0], cells, e.nfields, e.opts.maxLine())
	e.buf = buf
	if err != nil {
		e.err = fmt.Errorf("write row: %w", err)
		return e.err
	}
	e.altered += altered
	return e.write(buf)
}

// WriteComment writes "# text" with CR removed and each LF replaced by a
// space. Comments carry no data; decoders skip them.
func (e *Encoder) WriteComment(text string) error {
	if e.err != nil {
		return e.err
	}
	if e.nfields == 0 {
		// A payload must start with a header (spec §5).
		e.err = fmt.Errorf("write comment before a header: %w", ErrNoHeader)
		return e.err
	}
	buf, err := appendComment(e.buf[:0], text, e.opts.maxLine())
	e.buf = buf
	if err != nil {
		e.err = fmt.Errorf("write comment: %w", err)
		return e.err
	}
	return e.write(buf)
}

// EncodeValue writes any JSON-encodable Go value as one section named
// tool, with the generic fallback of spec §9, and flushes. Pass a
// json.RawMessage to keep number literals exactly as written.
func (e *Encoder) EncodeValue(tool string, v any) error {
	if e.err != nil {
		return e.err
	}
	s, err := valueSection(tool, v, e.opts.EscapeHTML)
	if err != nil {
		e.err = fmt.Errorf("encode value: %w", err)
		return e.err
	}
	return e.EncodeSection(s)
}

func (e *Encoder) write(b []byte) error {
	if _, err := e.w.Write(b); err != nil {
		e.err = err
		return err
	}
	if err := e.w.Flush(); err != nil {
		e.err = err
		return err
	}
	return nil
}

// Marshal returns the GCX1 form of the GraphResponse r (spec §11).
func Marshal(r *graphresponse.Response, opts Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := NewEncoder(&buf, opts).Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalSections returns the payload of the given sections, written back
// to back, with the default [Options].
func MarshalSections(sections ...Section) ([]byte, error) {
	dst := make([]byte, 0, sizeHint(sections))
	var err error
	for i := range sections {
		if dst, _, err = appendSection(dst, &sections[i], DefaultMaxLineBytes); err != nil {
			return nil, fmt.Errorf("marshal sections: %w", err)
		}
	}
	return dst, nil
}

// sizeHint estimates the encoded size of sections, a little generously so
// that escapes rarely force a second allocation.
func sizeHint(sections []Section) int {
	n := 0
	for i := range sections {
		n += 64 + 16*len(sections[i].Fields)
		for _, row := range sections[i].Rows {
			n += len(row)
			for _, c := range row {
				n += len(c)
			}
		}
	}
	return n + n/16
}

// MarshalValue returns the generic-fallback section (spec §9) of v, named
// tool, with the default [Options].
func MarshalValue(tool string, v any) ([]byte, error) {
	s, err := valueSection(tool, v, false)
	if err != nil {
		return nil, fmt.Errorf("marshal value: %w", err)
	}
	return MarshalSections(s)
}
