package toon

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Decoder reads one TOON document from a reader.
type Decoder struct {
	r    io.Reader
	opts Options
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader, opts Options) *Decoder { return &Decoder{r: r, opts: opts} }

// Decode reads r to EOF and decodes it as one document. Read errors are
// returned unchanged; decoding errors are [*SyntaxError].
func (d *Decoder) Decode() (any, error) {
	data, err := io.ReadAll(d.r)
	if err != nil {
		return nil, err
	}
	return UnmarshalOptions(data, d.opts)
}

// Unmarshal decodes one TOON document in strict mode with indent 2. Objects
// come back as [Object], arrays as []any, numbers as canonical json.Number.
func Unmarshal(data []byte) (any, error) { return UnmarshalOptions(data, Options{}) }

// UnmarshalOptions decodes one TOON document with the given options
// (IndentSize and Lenient; Delimiter is ignored: every header names its own).
func UnmarshalOptions(data []byte, opts Options) (any, error) {
	ind, err := opts.indent()
	if err != nil {
		return nil, err
	}
	d := &decoder{strict: !opts.Lenient, indentSize: ind}
	if d.strict && !utf8.Valid(data) {
		return nil, invalidUTF8(data)
	}
	if err := d.split(string(data)); err != nil {
		return nil, err
	}
	return d.document()
}

func invalidUTF8(data []byte) error {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return &SyntaxError{Line: line, Column: col, Err: ErrInvalidUTF8}
		}
		if data[i] == '\n' {
			line, col = line+1, 1
		} else {
			col += size
		}
		i += size
	}
	return &SyntaxError{Line: line, Column: col, Err: ErrInvalidUTF8}
}

// line is one non-comment input line.
type line struct {
	num   int    // 1-based line number in the original input
	off   int    // byte offset of text within the original line
	depth int    // indentation depth
	text  string // content after the indentation, final CR removed
	blank bool
}

type decoder struct {
	strict     bool
	indentSize int
	lines      []line
	pos        int    // next unconsumed line
	spans      int    // open array spans (strict blank-line rule)
	toks       []tok  // scratch for splitCells
	cells      []any  // scratch for row cells
	scratch    []byte // scratch for unescaping quoted strings
}

func (d *decoder) errAt(ln *line, off int, sentinel error, msg string) error {
	col := 1
	if off >= 0 {
		col = ln.off + off + 1
	}
	return &SyntaxError{Line: ln.num, Column: col, Err: sentinel, Msg: msg}
}

// split cuts the input into lines, drops comment lines and computes depths.
func (d *decoder) split(src string) error {
	n := strings.Count(src, "\n") + 1
	d.lines = make([]line, 0, n)
	num := 0
	for len(src) > 0 || num == 0 {
		num++
		var raw string
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			raw, src = src[:i], src[i+1:]
		} else {
			raw, src = src, ""
		}
		if strings.HasSuffix(raw, "\r") {
			raw = raw[:len(raw)-1]
		}
		sp := 0
		for sp < len(raw) && raw[sp] == ' ' {
			sp++
		}
		if sp == len(raw) {
			d.lines = append(d.lines, line{num: num, blank: true})
			continue
		}
		if raw[sp] == '#' {
			continue // comment
		}
		start := sp
		for start < len(raw) && (raw[start] == ' ' || raw[start] == '\t') {
			start++
		}
		ln := line{num: num, off: start}
		if start > sp || raw[sp] == '\t' {
			if d.strict {
				return d.errAt(&ln, -1, ErrIndentation, "TAB in indentation")
			}
			if start == len(raw) {
				d.lines = append(d.lines, line{num: num, blank: true})
				continue
			}
		}
		if d.strict && sp%d.indentSize != 0 {
			return d.errAt(&ln, -1, ErrIndentation, strconv.Itoa(sp)+" spaces is not a multiple of the indent size "+strconv.Itoa(d.indentSize))
		}
		ln.depth = sp / d.indentSize
		ln.text = raw[start:]
		d.lines = append(d.lines, ln)
	}
	return nil
}

// peek returns the index of the next non-blank line, or -1.
func (d *decoder) peek() int {
	for i := d.pos; i < len(d.lines); i++ {
		if !d.lines[i].blank {
			return i
		}
	}
	return -1
}

// take consumes lines up to and including i. Inside an array span a skipped
// blank line is an error in strict mode.
func (d *decoder) take(i int) error {
	if d.strict && d.spans > 0 {
		for k := d.pos; k < i; k++ {
			if d.lines[k].blank {
				return d.errAt(&d.lines[k], -1, ErrBlankLine, "")
			}
		}
	}
	d.pos = i + 1
	return nil
}

// document applies the root-form rules of §3.2.
func (d *decoder) document() (any, error) {
	first := d.peek()
	if first < 0 {
		return Object{}, nil
	}
	ln := &d.lines[first]
	t := ln.text
	if ln.depth == 0 && strings.HasPrefix(t, "[") {
		if h, err := d.header(ln, t, 0); err == nil && !h.hasKey {
			if err := d.take(first); err != nil {
				return nil, err
			}
			v, err := d.arrayValue(ln, &h, 0)
			if err != nil {
				return nil, err
			}
			return v, d.trailing()
		}
		if t == "[]" && (d.strict || d.countNonBlank() == 1) {
			d.pos = first + 1
			return []any{}, d.trailing()
		}
	}
	if d.countNonBlank() == 1 {
		colon, bracket := findUnquoted(t, ':'), findUnquoted(t, '[')
		isHeader := false
		if bracket >= 0 && (colon < 0 || bracket < colon) {
			_, err := d.header(ln, t, 0)
			isHeader = err == nil
		}
		if !isHeader && colon < 0 {
			if d.strict && ln.depth != 0 {
				return nil, d.errAt(ln, -1, ErrIndentation, "indented root value")
			}
			d.pos = first + 1
			return d.token(ln, t, 0)
		}
	}
	obj := &objBuilder{o: Object{}}
	if err := d.object(obj, 0); err != nil {
		return nil, err
	}
	return obj.o, nil
}

func (d *decoder) countNonBlank() int {
	n := 0
	for i := range d.lines {
		if !d.lines[i].blank {
			n++
		}
	}
	return n
}

// trailing fails in strict mode when a non-blank line is left after a root
// array or keyed object.
func (d *decoder) trailing() error {
	if i := d.peek(); i >= 0 && d.strict {
		return d.errAt(&d.lines[i], -1, ErrTrailingContent, "")
	}
	return nil
}

// objBuilder collects object members with duplicate detection.
type objBuilder struct {
	o   Object
	idx map[string]int
}

func (b *objBuilder) find(key string) int {
	if b.idx != nil {
		if i, ok := b.idx[key]; ok {
			return i
		}
		return -1
	}
	for i := range b.o {
		if b.o[i].Key == key {
			return i
		}
	}
	return -1
}

func (b *objBuilder) add(key string, v any) {
	b.o = append(b.o, Member{key, v})
	if b.idx != nil {
		b.idx[key] = len(b.o) - 1
	} else if len(b.o) > 16 {
		b.idx = make(map[string]int, 2*len(b.o))
		for i := range b.o {
			b.idx[b.o[i].Key] = i
		}
	}
}

// set stores key: v. A repeated key fails in strict mode; in lenient mode
// the last write wins at the first position.
func (d *decoder) set(b *objBuilder, key string, v any, ln *line, off int) error {
	if i := b.find(key); i >= 0 {
		if d.strict {
			return d.errAt(ln, off, ErrDuplicateKey, strconv.Quote(key))
		}
		b.o[i].Value = v
		return nil
	}
	b.add(key, v)
	return nil
}

// object reads the fields of an object scope at depth.
func (d *decoder) object(b *objBuilder, depth int) error {
	for {
		i := d.peek()
		if i < 0 {
			return nil
		}
		ln := &d.lines[i]
		if ln.depth < depth {
			return nil
		}
		if ln.depth > depth && d.strict {
			return d.errAt(ln, -1, ErrIndentation, "line is indented deeper than its scope allows")
		}
		if err := d.take(i); err != nil {
			return err
		}
		if err := d.field(b, ln, ln.text, 0, ln.depth, depth == 0); err != nil {
			return err
		}
	}
}

// field reads one object field from text (which starts at byte off of the
// line's content). fd is the depth the field stands at: what it opens sits at
// fd+1.
func (d *decoder) field(b *objBuilder, ln *line, text string, off, fd int, root bool) error {
	colon, bracket := findUnquoted(text, ':'), findUnquoted(text, '[')
	if bracket >= 0 && (colon < 0 || bracket < colon) {
		h, err := d.header(ln, text, off)
		if err == nil && !h.hasKey {
			err = d.errAt(ln, off, ErrHeader, "keyless array header in field position")
		}
		if err == nil {
			v, err := d.arrayValue(ln, &h, fd)
			if err != nil {
				return err
			}
			return d.set(b, h.key, v, ln, off)
		}
		if d.strict {
			return err
		}
		// Lenient: a key-value line whose key is the literal text before the
		// colon (outside brackets).
		c := findColonOutsideBrackets(text)
		if c < 0 {
			return nil
		}
		return d.keyValue(b, ln, trimSpaces(text[:c]), text[c+1:], off, off+c+1, fd)
	}
	if colon < 0 {
		if !d.strict {
			return nil
		}
		if root {
			return d.errAt(ln, off, ErrStructure, "a line at the root that is neither a header nor a key-value line")
		}
		return d.errAt(ln, off, ErrMissingColon, "")
	}
	key, err := d.key(ln, text[:colon], off)
	if err != nil {
		return err
	}
	return d.keyValue(b, ln, key, text[colon+1:], off, off+colon+1, fd)
}

// keyValue stores key with the value given by rest (the text after the
// colon, starting at byte roff).
func (d *decoder) keyValue(b *objBuilder, ln *line, key, rest string, koff, roff, fd int) error {
	lead := 0
	for lead < len(rest) && rest[lead] == ' ' {
		lead++
	}
	val := trimSpaces(rest)
	var v any
	switch val {
	case "":
		child := &objBuilder{o: Object{}}
		if i := d.peek(); i >= 0 && d.lines[i].depth > fd {
			cd := fd + 1
			if !d.strict {
				cd = d.lines[i].depth
			}
			if err := d.object(child, cd); err != nil {
				return err
			}
		}
		v = child.o
	case "[]":
		v = []any{}
	default:
		var err error
		v, err = d.token(ln, val, roff+lead)
		if err != nil {
			return err
		}
	}
	return d.set(b, key, v, ln, koff)
}

// key decodes the key text before a colon: a quoted key, or the literal text
// trimmed of spaces.
func (d *decoder) key(ln *line, t string, off int) (string, error) {
	lead := 0
	for lead < len(t) && t[lead] == ' ' {
		lead++
	}
	k := trimSpaces(t)
	if k == "" || k[0] != '"' {
		return k, nil
	}
	s, end, err := d.quoted(ln, k, 0, off+lead)
	if err != nil {
		return "", err
	}
	if end != len(k) {
		if !d.strict {
			return k, nil
		}
		return "", d.errAt(ln, off+lead+end, ErrStructure, "text after a quoted key")
	}
	return s, nil
}

// header is a parsed array header (§3.4).
type header struct {
	hasKey    bool
	key       string
	n         int
	keyed     bool
	delim     byte
	fields    []field
	dupFields bool // some brace group repeats a name (lenient only)
	inline    string
	inlineOff int
}

// header parses text (starting at byte off of the line's content) as an
// array header.
func (d *decoder) header(ln *line, t string, off int) (header, error) {
	var h header
	pos := 0
	bad := func(p int, sentinel error, msg string) (header, error) {
		return header{}, d.errAt(ln, off+p, sentinel, msg)
	}
	if strings.HasPrefix(t, "\"") {
		k, end, err := d.quoted(ln, t, 0, off)
		if err != nil {
			return header{}, err
		}
		h.hasKey, h.key, pos = true, k, end
	} else {
		b := findUnquoted(t, '[')
		if b < 0 {
			return bad(0, ErrHeader, "no '['")
		}
		k := trimSpaces(t[:b])
		h.hasKey, h.key, pos = k != "", k, b
	}
	if pos >= len(t) || t[pos] != '[' {
		return bad(pos, ErrHeader, "want '[' after the key")
	}
	pos++
	ds := pos
	for pos < len(t) && isDigit(t[pos]) {
		pos++
	}
	if pos == ds {
		return bad(ds, ErrHeader, "missing array length")
	}
	if t[ds] == '0' && pos-ds > 1 {
		return bad(ds, ErrHeader, "array length with a leading zero")
	}
	n, err := strconv.Atoi(t[ds:pos])
	if err != nil {
		return bad(ds, ErrHeader, "array length out of range")
	}
	h.n = n
	if pos < len(t) && t[pos] == ':' {
		h.keyed = true
		pos++
	}
	h.delim = ','
	if pos < len(t) && (t[pos] == '\t' || t[pos] == '|') {
		h.delim = t[pos]
		pos++
	}
	if pos >= len(t) || t[pos] != ']' {
		return bad(pos, ErrHeader, "malformed bracket segment")
	}
	pos++
	if pos < len(t) && t[pos] == '{' {
		fs, end, dup, err := d.fields(ln, t, pos, off, h.delim, 0)
		if err != nil {
			return header{}, err
		}
		h.fields, h.dupFields, pos = fs, dup, end
	}
	if pos >= len(t) {
		return bad(pos, ErrMissingColon, "header without a colon")
	}
	if t[pos] != ':' {
		return bad(pos, ErrHeader, "unexpected text after the bracket segment")
	}
	pos++
	rest := t[pos:]
	lead := 0
	for lead < len(rest) && rest[lead] == ' ' {
		lead++
	}
	inline := trimSpaces(rest)
	if h.keyed && h.fields == nil {
		return bad(0, ErrHeader, "keyed header without fields")
	}
	if inline != "" {
		if h.fields != nil {
			return bad(pos+lead, ErrHeader, "inline values after a header with fields")
		}
		h.inline, h.inlineOff = inline, off+pos+lead
	}
	return h, nil
}

// fields parses a brace group starting at t[pos] == '{'. It returns the
// fields, the position after the closing brace and whether a name repeats.
func (d *decoder) fields(ln *line, t string, pos, off int, delim byte, depth int) ([]field, int, bool, error) {
	if depth > maxDepth {
		return nil, 0, false, d.errAt(ln, off+pos, ErrHeader, "field groups nested too deeply")
	}
	open := pos
	pos++
	var fs []field
	var seen map[string]struct{}
	dup := false
	for {
		for pos < len(t) && t[pos] == ' ' {
			pos++
		}
		if pos >= len(t) {
			return nil, 0, false, d.errAt(ln, off+open, ErrHeader, "unmatched '{'")
		}
		var name string
		start := pos
		if t[pos] == '"' {
			s, end, err := d.quoted(ln, t, pos, off)
			if err != nil {
				return nil, 0, false, err
			}
			name, pos = s, end
		} else {
			for pos < len(t) {
				c := t[pos]
				if c == '{' || c == '}' || c == ',' || c == '\t' || c == '|' || c == '"' {
					break
				}
				pos++
			}
			name = trimSpaces(t[start:pos])
			if name == "" {
				return nil, 0, false, d.errAt(ln, off+start, ErrHeader, "empty field name")
			}
		}
		for pos < len(t) && t[pos] == ' ' {
			pos++
		}
		f := field{key: name}
		if pos < len(t) && t[pos] == '{' {
			sub, end, subDup, err := d.fields(ln, t, pos, off, delim, depth+1)
			if err != nil {
				return nil, 0, false, err
			}
			f.sub, pos = sub, end
			dup = dup || subDup
			for pos < len(t) && t[pos] == ' ' {
				pos++
			}
		}
		repeated := false
		if seen != nil {
			_, repeated = seen[name]
		} else {
			for _, g := range fs {
				repeated = repeated || g.key == name
			}
		}
		if repeated {
			if d.strict {
				return nil, 0, false, d.errAt(ln, off+start, ErrDuplicateKey, "field "+strconv.Quote(name)+" repeats")
			}
			dup = true
		}
		fs = append(fs, f)
		if seen != nil {
			seen[name] = struct{}{}
		} else if len(fs) > 16 {
			seen = make(map[string]struct{}, 64)
			for _, g := range fs {
				seen[g.key] = struct{}{}
			}
		}
		if pos >= len(t) {
			return nil, 0, false, d.errAt(ln, off+open, ErrHeader, "unmatched '{'")
		}
		switch c := t[pos]; c {
		case '}':
			return fs, pos + 1, dup, nil
		case ',', '\t', '|':
			if c != delim {
				return nil, 0, false, d.errAt(ln, off+pos, ErrDelimiterMismatch, "")
			}
			pos++
		default:
			return nil, 0, false, d.errAt(ln, off+pos, ErrHeader, "unexpected text in the field list")
		}
	}
}

// arrayValue reads the content of an array header standing at depth fd; its
// items, rows or entries sit at fd+1.
func (d *decoder) arrayValue(ln *line, h *header, fd int) (any, error) {
	switch {
	case h.keyed:
		return d.keyedRows(ln, h, fd)
	case h.fields != nil:
		return d.tableRows(ln, h, fd)
	case h.inline != "":
		toks := splitCells(d.toks[:0], h.inline, h.delim)
		d.toks = toks[:0]
		if d.strict && len(toks) != h.n {
			return nil, d.errAt(ln, h.inlineOff, ErrLengthMismatch, "declared "+strconv.Itoa(h.n)+", found "+strconv.Itoa(len(toks)))
		}
		out := make([]any, len(toks))
		for i, tk := range toks {
			v, err := d.token(ln, tk.s, h.inlineOff+tk.off)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return d.listItems(ln, h, fd)
}

// contentLine returns the next line of an array's content (deeper than fd),
// or nil when the content has ended.
func (d *decoder) contentLine(fd int) (*line, int, error) {
	i := d.peek()
	if i < 0 {
		return nil, -1, nil
	}
	ln := &d.lines[i]
	if ln.depth <= fd {
		return nil, -1, nil
	}
	if ln.depth > fd+1 && d.strict {
		return nil, -1, d.errAt(ln, -1, ErrIndentation, "line is indented deeper than its scope allows")
	}
	return ln, i, nil
}

func (d *decoder) lengthCheck(hl *line, h *header, got int) error {
	if d.strict && got != h.n {
		return d.errAt(hl, -1, ErrLengthMismatch, "declared "+strconv.Itoa(h.n)+", found "+strconv.Itoa(got))
	}
	return nil
}

func (d *decoder) tableRows(hl *line, h *header, fd int) (any, error) {
	rs := d.newRowSet(h, h.n)
	// Pre-size for the declared length, but never beyond the lines left, so
	// a forged header cannot make the decoder allocate more than its input.
	out := make([]any, 0, min(h.n, len(d.lines)-d.pos))
	opened := false
	defer func() {
		if opened {
			d.spans--
		}
	}()
	for {
		ln, i, err := d.contentLine(fd)
		if err != nil {
			return nil, err
		}
		if ln == nil {
			break
		}
		if findUnquoted2(ln.text, ':', h.delim) == ':' {
			break // a key-value line: an unquoted colon before any delimiter
		}
		if err := d.take(i); err != nil {
			return nil, err
		}
		if !opened {
			opened = true
			d.spans++
		}
		row, err := d.row(ln, ln.text, 0, rs)
		if err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	if err := d.lengthCheck(hl, h, len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// rowSet is the per-table state of the row decoder: the header, the member
// slab the row objects are carved from, and a small cache per leaf column.
type rowSet struct {
	h       *header
	leaves  int
	members int // members per row over all nesting levels
	flat    bool
	left    int      // rows the slab still expects
	slab    []Member // carved into row objects, one allocation per table
	cache   []cellCache
}

// cellCache remembers recent decoded cells of one column by their token
// text. Tables often repeat values in a column (states, types, tags); a hit
// returns the value decoded before instead of boxing a new one. Tokens map
// to values deterministically, so a hit decodes to the same value.
//
// A column whose values rarely repeat (ids, names) turns its cache off after
// a few lookups, so it costs nothing there.
type cellCache struct {
	entries      [8]cacheEntry
	hits, misses int
}

type cacheEntry struct {
	tok string
	v   any
}

// cacheTrial is the number of misses after which a column keeps its cache
// only when at least a quarter of its lookups hit.
const cacheTrial = 32

// cacheMinRows is the smallest table whose columns get a cache.
const cacheMinRows = 32

func (d *decoder) newRowSet(h *header, n int) *rowSet {
	rs := &rowSet{h: h, leaves: countLeaves(h.fields), members: countMembers(h.fields), left: min(n, len(d.lines)-d.pos)}
	rs.flat = rs.members == len(h.fields) && !h.dupFields
	if rs.flat && rs.left >= cacheMinRows {
		rs.cache = make([]cellCache, rs.leaves)
	}
	return rs
}

// object returns a new row object of n members carved from the slab. The
// capacity is clipped, so appending to one row never touches the next.
func (rs *rowSet) object(n int) Object {
	if len(rs.slab) < n {
		rows := max(rs.left, 1)
		rs.slab = make([]Member, max(rows*rs.members, n))
	}
	o := Object(rs.slab[:n:n])
	rs.slab = rs.slab[n:]
	return o
}

// row decodes the cells in t into an object shaped by the header fields.
func (d *decoder) row(ln *line, t string, off int, rs *rowSet) (Object, error) {
	if rs.flat {
		return d.flatRow(ln, t, off, rs)
	}
	h, leaves := rs.h, rs.leaves
	toks := splitCells(d.toks[:0], t, h.delim)
	d.toks = toks[:0]
	if len(toks) == 1 && toks[0].s == "" && trimSpaces(t) == "" {
		toks = toks[:0]
	}
	if d.strict && len(toks) != leaves {
		return nil, d.errAt(ln, off, ErrWidthMismatch, "want "+strconv.Itoa(leaves)+" cells, found "+strconv.Itoa(len(toks)))
	}
	if rs.left > 0 {
		rs.left--
	}
	if cap(d.cells) < leaves {
		d.cells = make([]any, leaves)
	}
	cells := d.cells[:leaves]
	clear(cells)
	for i := 0; i < leaves && i < len(toks); i++ {
		v, err := d.cell(ln, toks[i].s, off+toks[i].off)
		if err != nil {
			return nil, err
		}
		cells[i] = v
	}
	k := 0
	return buildRow(h.fields, cells, &k, h.dupFields, rs), nil
}

// flatRow is row for a header without nested field groups or repeated
// names: it splits and decodes the cells in one pass, straight into the row
// object. Its cells and errors are those of splitCells followed by cell:
// a width mismatch is reported before any bad cell.
func (d *decoder) flatRow(ln *line, t string, off int, rs *rowSet) (Object, error) {
	leaves, delim := rs.leaves, rs.h.delim
	if rs.left > 0 {
		rs.left--
	}
	o := rs.object(leaves)
	for i, f := range rs.h.fields {
		o[i].Key = f.key
	}
	var cellErr error
	n, i := 0, 0
	for {
		a, b, end, ok := nextCell(t, i, delim)
		if !ok {
			break // a quote left open hides the last token
		}
		i = end
		if n < leaves && cellErr == nil {
			var v any
			var err error
			if rs.cache != nil {
				v, err = d.cachedCell(ln, t[a:b], off+a, &rs.cache[n])
			} else {
				v, err = d.cell(ln, t[a:b], off+a)
			}
			if err != nil {
				cellErr = err
			} else {
				o[n].Value = v
			}
		}
		n++
		if i == len(t) {
			break
		}
		i++
	}
	if n == 1 && trimSpaces(t) == "" {
		n, o[0].Value = 0, nil // a blank row has no cells
	}
	if d.strict && n != leaves {
		return nil, d.errAt(ln, off, ErrWidthMismatch, "want "+strconv.Itoa(leaves)+" cells, found "+strconv.Itoa(n))
	}
	if cellErr != nil {
		return nil, cellErr
	}
	return o, nil
}

// cachedCell is [decoder.cell] through the column cache c.
func (d *decoder) cachedCell(ln *line, t string, off int, c *cellCache) (any, error) {
	if t == "" {
		return "", nil
	}
	if c.misses >= cacheTrial && c.hits*3 < c.misses {
		return d.cell(ln, t, off)
	}
	e := &c.entries[(uint(len(t))*31+uint(t[len(t)-1]))&7]
	if e.tok == t && e.v != nil {
		c.hits++
		return e.v, nil
	}
	v, err := d.cell(ln, t, off)
	if err != nil {
		return nil, err
	}
	switch v.(type) {
	case string, json.Number:
		c.misses++
		e.tok, e.v = t, v
	}
	return v, nil
}

func countLeaves(fs []field) int {
	n := 0
	for _, f := range fs {
		if f.sub != nil {
			n += countLeaves(f.sub)
		} else {
			n++
		}
	}
	return n
}

// countMembers counts the members of one row object over all its nested
// field groups.
func countMembers(fs []field) int {
	n := len(fs)
	for _, f := range fs {
		if f.sub != nil {
			n += countMembers(f.sub)
		}
	}
	return n
}

// buildRow builds one row object from the leaf cells in depth-first field
// order. With dup (lenient mode, a repeated field name) the last write wins
// at the first position.
func buildRow(fs []field, cells []any, k *int, dup bool, rs *rowSet) Object {
	if dup {
		b := &objBuilder{o: make(Object, 0, len(fs))}
		for _, f := range fs {
			var v any
			if f.sub != nil {
				v = buildRow(f.sub, cells, k, dup, rs)
			} else {
				v = cells[*k]
				*k++
			}
			if i := b.find(f.key); i >= 0 {
				b.o[i].Value = v
			} else {
				b.add(f.key, v)
			}
		}
		return b.o
	}
	o := rs.object(len(fs))
	for i, f := range fs {
		var v any
		if f.sub != nil {
			v = buildRow(f.sub, cells, k, dup, rs)
		} else {
			v = cells[*k]
			*k++
		}
		o[i] = Member{f.key, v}
	}
	return o
}

func (d *decoder) keyedRows(hl *line, h *header, fd int) (any, error) {
	rs := d.newRowSet(h, h.n)
	b := &objBuilder{o: make(Object, 0, min(h.n, len(d.lines)-d.pos))}
	opened := false
	defer func() {
		if opened {
			d.spans--
		}
	}()
	for {
		ln, i, err := d.contentLine(fd)
		if err != nil {
			return nil, err
		}
		if ln == nil {
			break
		}
		if err := d.take(i); err != nil {
			return nil, err
		}
		if !opened {
			opened = true
			d.spans++
		}
		colon := findUnquoted(ln.text, ':')
		if colon < 0 {
			if d.strict {
				return nil, d.errAt(ln, -1, ErrStructure, "entry row without a colon")
			}
			continue
		}
		key, err := d.key(ln, ln.text[:colon], 0)
		if err != nil {
			return nil, err
		}
		entry, err := d.row(ln, ln.text[colon+1:], colon+1, rs)
		if err != nil {
			return nil, err
		}
		if err := d.set(b, key, entry, ln, 0); err != nil {
			return nil, err
		}
	}
	if err := d.lengthCheck(hl, h, len(b.o)); err != nil {
		return nil, err
	}
	return b.o, nil
}

func (d *decoder) listItems(hl *line, h *header, fd int) (any, error) {
	out := make([]any, 0, min(h.n, 1024))
	opened := false
	defer func() {
		if opened {
			d.spans--
		}
	}()
	for {
		ln, i, err := d.contentLine(fd)
		if err != nil {
			return nil, err
		}
		if ln == nil {
			break
		}
		t := ln.text
		if t != "-" && !strings.HasPrefix(t, "- ") {
			break
		}
		if err := d.take(i); err != nil {
			return nil, err
		}
		if !opened {
			opened = true
			d.spans++
		}
		v, err := d.item(ln)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := d.lengthCheck(hl, h, len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// item decodes the list item on ln (a "-" line at depth h).
func (d *decoder) item(ln *line) (any, error) {
	h := ln.depth
	off := 1
	for off < len(ln.text) && ln.text[off] == ' ' {
		off++
	}
	rest := trimSpaces(ln.text[off:])
	if rest == "" {
		return Object{}, nil
	}
	if rest == "[]" {
		return []any{}, nil
	}
	colon, bracket := findUnquoted(rest, ':'), findUnquoted(rest, '[')
	if bracket >= 0 && (colon < 0 || bracket < colon) {
		hd, err := d.header(ln, rest, off)
		if err == nil && !hd.hasKey {
			if d.strict && (hd.keyed || hd.fields != nil) {
				return nil, d.errAt(ln, off, ErrHeader, "keyless header with fields in a list item")
			}
			return d.arrayValue(ln, &hd, h)
		}
		// A header needs a colon: without one the item is a primitive.
		if err != nil && d.strict && colon >= 0 {
			return nil, err
		}
	}
	if colon < 0 {
		return d.token(ln, rest, off)
	}
	b := &objBuilder{}
	if err := d.field(b, ln, rest, off, h+1, false); err != nil {
		return nil, err
	}
	if err := d.object(b, h+1); err != nil {
		return nil, err
	}
	if b.o == nil {
		b.o = Object{}
	}
	return b.o, nil
}

// token decodes a value token (already trimmed): a quoted string, true,
// false, null, a number, or a bare string.
func (d *decoder) token(ln *line, t string, off int) (any, error) {
	if t == "" {
		return "", nil
	}
	if t[0] == '"' {
		s, end, err := d.quoted(ln, t, 0, off)
		if err != nil {
			return nil, err
		}
		if end != len(t) {
			return nil, d.errAt(ln, off+end, ErrStructure, "text after a quoted string")
		}
		return s, nil
	}
	switch t {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	if n, ok := decodeNumber(t); ok {
		return json.Number(n), nil
	}
	return t, nil
}

// cell decodes a table cell or inline value; unlike a field value, "[]" is
// the string "[]".
func (d *decoder) cell(ln *line, t string, off int) (any, error) { return d.token(ln, t, off) }

// quoted decodes the quoted string starting at t[pos] == '"'. It returns the
// string and the position after the closing quote.
func (d *decoder) quoted(ln *line, t string, pos, off int) (string, int, error) {
	start := pos
	pos++
	i := pos
	for i < len(t) && t[i] != '"' && t[i] != '\\' {
		i++
	}
	if i < len(t) && t[i] == '"' {
		return t[pos:i], i + 1, nil
	}
	// The unescaped text is built in a scratch buffer the decoder reuses.
	if cap(d.scratch) < len(t)-pos {
		d.scratch = make([]byte, 0, len(t)-pos) // unescaping never lengthens
	}
	b := append(d.scratch[:0], t[pos:i]...)
	for i < len(t) {
		c := t[i]
		switch c {
		case '"':
			d.scratch = b[:0]
			return string(b), i + 1, nil
		case '\\':
			if i+1 >= len(t) {
				return "", 0, d.errAt(ln, off+start, ErrUnterminatedString, "")
			}
			switch e := t[i+1]; e {
			case '\\', '"':
				b = append(b, e)
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := hex4(t, i+2)
				if !ok {
					return "", 0, d.errAt(ln, off+i, ErrInvalidEscape, "\\u needs four hex digits")
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return "", 0, d.errAt(ln, off+i, ErrInvalidEscape, "\\u escape of a surrogate")
				}
				b = utf8.AppendRune(b, r)
				i += 6
				continue
			default:
				return "", 0, d.errAt(ln, off+i, ErrInvalidEscape, strconv.Quote(t[i:i+2]))
			}
			i += 2
		default:
			j := i + 1
			for j < len(t) && t[j] != '"' && t[j] != '\\' {
				j++
			}
			b = append(b, t[i:j]...)
			i = j
		}
	}
	return "", 0, d.errAt(ln, off+start, ErrUnterminatedString, "")
}

func hex4(t string, i int) (rune, bool) {
	if i+4 > len(t) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(t[i : i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}

// findUnquoted returns the index of the first c outside double quotes, or -1.
// An unterminated quote hides the rest of the text.
func findUnquoted(t string, c byte) int {
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case c:
			return i
		case '"':
			i++
			for i < len(t) && t[i] != '"' {
				if t[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(t) {
				return -1
			}
		}
	}
	return -1
}

// findUnquoted2 returns whichever of a and b comes first in t outside double
// quotes, or 0 when neither does: findUnquoted for both in one scan.
func findUnquoted2(t string, a, b byte) byte {
	for i := 0; i < len(t); i++ {
		switch c := t[i]; c {
		case a, b:
			return c
		case '"':
			i++
			for i < len(t) && t[i] != '"' {
				if t[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(t) {
				return 0
			}
		}
	}
	return 0
}

// findColonOutsideBrackets returns the first unquoted ':' outside square
// brackets (lenient reading of a malformed header line).
func findColonOutsideBrackets(t string) int {
	depth := 0
	for i := 0; i < len(t); i++ {
		switch t[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case ':':
			if depth == 0 {
				return i
			}
		case '"':
			i++
			for i < len(t) && t[i] != '"' {
				if t[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(t) {
				return -1
			}
		}
	}
	return findUnquoted(t, ':')
}

type tok struct {
	s   string
	off int
}

// splitCells appends to dst the tokens of t split on delim outside quotes;
// every token is trimmed of spaces and carries its offset in t. A quote left
// open in the last token hides that token.
func splitCells(dst []tok, t string, delim byte) []tok {
	i := 0
	for {
		a, b, end, ok := nextCell(t, i, delim)
		if !ok {
			return dst // unterminated quote
		}
		i = end
		dst = append(dst, tok{t[a:b], a})
		if i == len(t) {
			return dst
		}
		i++
	}
}

// nextCell scans the token of t that starts at i, up to the next delim
// outside quotes: t[a:b] is the token trimmed of spaces and end the index of
// the delimiter (or len(t)). ok is false when a quote is left open, which
// hides the token.
func nextCell(t string, i int, delim byte) (a, b, end int, ok bool) {
	start := i
	for i < len(t) {
		c := t[i]
		if c == delim {
			break
		}
		if c == '"' {
			i++
			for i < len(t) && t[i] != '"' {
				if t[i] == '\\' {
					i++
				}
				i++
			}
		}
		i++
	}
	if i > len(t) {
		return 0, 0, 0, false
	}
	a, b = start, i
	for a < b && t[a] == ' ' {
		a++
	}
	for b > a && t[b-1] == ' ' {
		b--
	}
	return a, b, i, true
}

func trimSpaces(s string) string {
	i, j := 0, len(s)
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	return s[i:j]
}
