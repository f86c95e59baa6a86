package gcx

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// readChunk is the size of the first read buffer of a streaming Decoder.
const readChunk = 32 << 10

// Decoder reads GCX1 sections from an io.Reader. It converts whole runs of
// complete lines to one string at a time and hands out substrings of it, so
// decoding allocates per chunk rather than per line or cell; only escaped
// cells get their own string. After an error the Decoder stays failed. A
// Decoder is not safe for concurrent use.
type Decoder struct {
	r    io.Reader
	opts Options
	max  int

	buf   []byte // bytes read but not yet converted: no complete line yet
	text  string // converted lines
	pos   int    // read position in text
	eof   bool   // r is exhausted
	ioErr error  // read error to report once text is used up

	line    int    // number of the last line returned by nextLine
	started bool   // the first header has been read
	pending string // a header line that ended the current section
	hasPend bool
	pendAt  int  // line number of pending
	inSec   bool // rows of the current section may follow
	nfields int

	cells []string         // arena the rows are cut from
	esc   *strings.Builder // arena for unescaped cells

	err error

	// sectionLines records the header line of each section read, so that
	// graph-level errors can point at a section.
	sectionLines []int
}

// NewDecoder returns a decoder reading from r with opts.
func NewDecoder(r io.Reader, opts Options) *Decoder {
	return &Decoder{r: r, opts: opts, max: opts.maxLine()}
}

func newBytesDecoder(data []byte, opts Options) *Decoder {
	d := &Decoder{text: string(data), eof: true, opts: opts, max: opts.maxLine()}
	// Every cell written ends at a TAB or an LF (or the end), so one arena
	// usually serves the whole payload; padded short rows may need more,
	// which row allocates as it goes.
	d.cells = make([]string, 0, 1+bytes.Count(data, []byte{'\t'})+bytes.Count(data, []byte{'\n'}))
	return d
}

// Decode reads the whole payload and returns the GraphResponse it encodes
// (spec §12.2). A payload that is valid GCX1 but breaks the graph layout
// fails with a [*SyntaxError] pointing at the section header whose Err
// wraps [ErrSchema].
func (d *Decoder) Decode() (*graphresponse.Response, error) {
	var sections []Section
	for {
		s, err := d.ReadSection()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		sections = append(sections, s)
	}
	r, err := DecodeGraph(sections)
	if err != nil {
		line := 1
		var se *sectionError
		if errors.As(err, &se) && se.index < len(d.sectionLines) {
			line = d.sectionLines[se.index]
		}
		return nil, &SyntaxError{Line: line, Column: 1, Err: err}
	}
	return r, nil
}

// Unmarshal decodes a GCX1 graph payload into an equivalent GraphResponse:
// [Canon] of the response that was encoded (spec §13.2).
func Unmarshal(data []byte, opts Options) (*graphresponse.Response, error) {
	return newBytesDecoder(data, opts).Decode()
}

// UnmarshalSections returns all sections of a payload, with the default
// [Options]. On error it also returns the sections read before it,
// including a partly read one.
func UnmarshalSections(data []byte) ([]Section, error) {
	d := newBytesDecoder(data, Options{})
	var out []Section
	for {
		s, err := d.ReadSection()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			if s.Fields != nil {
				out = append(out, s)
			}
			return out, err
		}
		out = append(out, s)
	}
}

// ReadSection is [Decoder.NextSection] followed by all of the section's
// rows. On a row error it returns the partly read section with the error;
// at the end of the payload it returns io.EOF.
func (d *Decoder) ReadSection() (Section, error) {
	s, err := d.NextSection()
	if err != nil {
		return s, err
	}
	// The rows= meta, when present, sizes the row list; the cap keeps a
	// lying header from reserving much memory.
	hint, _ := strconv.Atoi(s.Meta["rows"])
	s.Rows = make([][]string, 0, min(max(hint, 0), 4096))
	for {
		row, err := d.NextRow()
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, err
		}
		s.Rows = append(s.Rows, row)
	}
}

// NextSection skips what is left of the current section and returns the
// next header, with Rows nil; the first call returns the first header. It
// returns io.EOF when no section is left.
func (d *Decoder) NextSection() (Section, error) {
	if d.err != nil {
		return Section{}, d.err
	}
	if !d.started {
		d.started = true
		line, err := d.nextLine()
		if err == io.EOF {
			return Section{}, d.fail(&SyntaxError{Line: 1, Column: 1, Err: ErrNoHeader})
		}
		if err != nil {
			return Section{}, d.fail(err)
		}
		if !isHeaderLine(line) {
			return Section{}, d.fail(&SyntaxError{Line: d.line, Column: 1, Err: ErrNoHeader})
		}
		return d.header(line, d.line)
	}
	for !d.hasPend {
		line, err := d.nextLine()
		if err != nil {
			return Section{}, d.fail(err)
		}
		if isHeaderLine(line) {
			d.pending, d.hasPend, d.pendAt = line, true, d.line
		}
	}
	d.hasPend = false
	return d.header(d.pending, d.pendAt)
}

// NextRow returns the next row of the current section, padded to the
// field count, or io.EOF at the end of the section. Called before any
// header it reads the first header first. The returned slice is the
// caller's; its strings share memory with the decoder's input.
func (d *Decoder) NextRow() ([]string, error) {
	if d.err != nil {
		return nil, d.err
	}
	if !d.started {
		if _, err := d.NextSection(); err != nil {
			return nil, err
		}
	}
	for d.inSec {
		line, err := d.nextLine()
		if err == io.EOF {
			d.inSec = false
			return nil, io.EOF
		}
		if err != nil {
			return nil, d.fail(err)
		}
		if line == "" || line[0] == '#' {
			continue
		}
		if isHeaderLine(line) {
			d.pending, d.hasPend, d.pendAt = line, true, d.line
			d.inSec = false
			return nil, io.EOF
		}
		return d.row(line)
	}
	return nil, io.EOF
}

func (d *Decoder) fail(err error) error {
	if err != io.EOF {
		d.err = err
	}
	return err
}

// row splits a row line into cells cut from the arena.
func (d *Decoder) row(line string) ([]string, error) {
	n := d.nfields
	if len(d.cells)+n > cap(d.cells) {
		size := 2 * cap(d.cells)
		if size > 4096 {
			size = 4096
		}
		if size < 64 {
			size = 64
		}
		if size < n {
			size = n
		}
		d.cells = make([]string, 0, size)
	}
	at := len(d.cells)
	row := d.cells[at : at+n : at+n]
	d.cells = d.cells[:at+n]
	// Most lines hold no backslash at all; then every cell is a plain
	// substring and needs no per-cell escape scan.
	esc := strings.IndexByte(line, '\\') >= 0
	marked := strings.Contains(line, markerOpen)
	rest := line
	i := 0
	for {
		if i == n {
			col := len(line) - len(rest) + 1
			clear(row)
			return nil, d.fail(&SyntaxError{Line: d.line, Column: col, Err: ErrTooManyCells})
		}
		tab := strings.IndexByte(rest, '\t')
		cell := rest
		if tab >= 0 {
			cell = rest[:tab]
		}
		if esc {
			cell = d.unescape(cell)
		}
		if marked {
			cell = textsafe.Restore(cell)
		}
		row[i] = cell
		i++
		if tab < 0 {
			break
		}
		rest = rest[tab+1:]
	}
	for ; i < n; i++ {
		row[i] = ""
	}
	return row, nil
}

// markerOpen is the UTF-8 form of textsafe.Open: a row holding it may hold
// ⟦U+XXXX⟧ markers, which the decoder turns back into their code points.
const markerOpen = string(textsafe.Open)

// unescape is the package unescape writing into an arena: the strings
// it returns share a few large buffers instead of one allocation each.
// A strings.Builder never changes bytes it has written, so the strings
// stay valid when it grows or is replaced.
func (d *Decoder) unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	if d.esc == nil || d.esc.Cap()-d.esc.Len() < len(s) {
		d.esc = &strings.Builder{}
		d.esc.Grow(max(4096, len(s)))
	}
	start := d.esc.Len()
	d.esc.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i == len(s)-1 {
			d.esc.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 't':
			d.esc.WriteByte('\t')
		case 'n':
			d.esc.WriteByte('\n')
		default:
			d.esc.WriteByte(c)
		}
	}
	return d.esc.String()[start:]
}

// header parses a header line (spec §3.3) and makes its section current.
func (d *Decoder) header(line string, lineNo int) (Section, error) {
	s, err := parseHeader(line, lineNo)
	if err != nil {
		return Section{}, d.fail(err)
	}
	d.inSec = true
	d.nfields = len(s.Fields)
	d.sectionLines = append(d.sectionLines, lineNo)
	return s, nil
}

// isHeaderLine reports whether line starts a section: "GCX" and a digit.
func isHeaderLine(line string) bool {
	return len(line) >= 4 && line[0] == 'G' && line[1] == 'C' && line[2] == 'X' && '0' <= line[3] && line[3] <= '9'
}

func parseHeader(line string, lineNo int) (Section, error) {
	synErr := func(col int, err error) error {
		return &SyntaxError{Line: lineNo, Column: col, Err: err}
	}
	magic := line
	if i := strings.IndexByte(line, ' '); i >= 0 {
		magic = line[:i]
	}
	if magic != Magic {
		return Section{}, synErr(1, ErrVersion)
	}
	s := Section{Meta: map[string]string{}}
	var haveTool, haveFields bool
	fieldsCol := 0
	var fieldsRaw string
	pos := len(magic)
	for pos < len(line) {
		if line[pos] == ' ' {
			pos++
			continue
		}
		end := strings.IndexByte(line[pos:], ' ')
		if end < 0 {
			end = len(line)
		} else {
			end += pos
		}
		tok := line[pos:end]
		col := pos + 1
		pos = end
		eq := strings.IndexByte(tok, '=')
		if eq <= 0 {
			return Section{}, synErr(col, ErrMalformedHeader)
		}
		key, val := unescape(tok[:eq]), unescape(tok[eq+1:])
		switch key {
		case "tool":
			if haveTool {
				return Section{}, synErr(col, ErrDuplicateKey)
			}
			haveTool, s.Tool = true, val
		case "fields":
			if haveFields {
				return Section{}, synErr(col, ErrDuplicateKey)
			}
			haveFields, fieldsRaw, fieldsCol = true, val, col
		default:
			if _, dup := s.Meta[key]; dup {
				return Section{}, synErr(col, ErrDuplicateKey)
			}
			s.Meta[key] = val
		}
	}
	if s.Tool == "" {
		return Section{}, synErr(1, ErrMissingTool)
	}
	if !haveFields {
		return Section{}, synErr(1, ErrMissingFields)
	}
	// An empty name is accepted, unlike spec §3.3 step 8 as first written:
	// the header grammar allows it (value = *(any byte except SP)), and
	// other GCX1 producers write it — gcx-go's EncodeAny turns {"":"-x"}
	// into "fields=" and reads it back as one field named "". Only a
	// repeated name is ambiguous, so only that is refused. The encoder
	// still never writes an empty name (§3.2).
	s.Fields = strings.Split(fieldsRaw, ",")
	for i, f := range s.Fields {
		if indexOf(s.Fields[:i], f) >= 0 {
			return Section{}, synErr(fieldsCol, ErrBadField)
		}
	}
	return s, nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// nextLine returns the next line without its LF and final CR, or io.EOF.
func (d *Decoder) nextLine() (string, error) {
	for {
		if d.pos < len(d.text) {
			rest := d.text[d.pos:]
			var line string
			if i := strings.IndexByte(rest, '\n'); i >= 0 {
				line = rest[:i]
				d.pos += i + 1
			} else {
				// Only the final line of the input lacks its LF.
				line = rest
				d.pos = len(d.text)
			}
			d.line++
			if len(line)+1 > d.max {
				return "", &SyntaxError{Line: d.line, Column: 1, Err: ErrLineTooLong}
			}
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, nil
		}
		if d.eof {
			return "", io.EOF
		}
		if err := d.fill(); err != nil {
			return "", err
		}
	}
}

// fill reads until the buffer holds a complete line or the input ends,
// then converts the complete lines (all of it at the end) to d.text.
func (d *Decoder) fill() error {
	d.text, d.pos = "", 0
	if d.buf == nil {
		size := readChunk
		if size > d.max+1 {
			size = d.max + 1
		}
		d.buf = make([]byte, 0, size)
	}
	scanned, idle := 0, 0
	for {
		if i := bytes.LastIndexByte(d.buf[scanned:], '\n'); i >= 0 {
			cut := scanned + i + 1
			d.text = string(d.buf[:cut])
			n := copy(d.buf, d.buf[cut:])
			d.buf = d.buf[:n]
			return nil
		}
		scanned = len(d.buf)
		if len(d.buf) >= d.max {
			// No LF within max bytes: the line is too long whatever
			// follows.
			return &SyntaxError{Line: d.line + 1, Column: 1, Err: ErrLineTooLong}
		}
		if d.ioErr != nil {
			// Complete lines before a read failure were handed out; a
			// partial line is not data.
			return d.ioErr
		}
		if d.eof {
			d.text = string(d.buf)
			d.buf = d.buf[:0]
			return nil
		}
		if len(d.buf) == cap(d.buf) {
			size := 2 * cap(d.buf)
			if size > d.max+1 {
				size = d.max + 1
			}
			nb := make([]byte, len(d.buf), size)
			copy(nb, d.buf)
			d.buf = nb
		}
		n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
		d.buf = d.buf[:len(d.buf)+n]
		switch {
		case err == io.EOF:
			d.eof = true
		case err != nil:
			d.ioErr = err
		case n == 0:
			if idle++; idle >= 100 {
				d.ioErr = io.ErrNoProgress
			}
		}
	}
}
