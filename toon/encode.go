package toon

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/graphwire/graphwire/internal/textsafe"
)

// SpecVersion is the TOON specification version this codec implements.
const SpecVersion = "4.0"

// Delimiter separates inline array values, table cells and field names.
type Delimiter byte

// The three delimiters of TOON.
const (
	Comma Delimiter = ','
	Tab   Delimiter = '\t'
	Pipe  Delimiter = '|'
)

// Options configures the encoder and decoder. The zero Options is the
// default: comma delimiter, indent 2, strict decoding.
type Options struct {
	IndentSize int       // spaces per depth; 0 = 2
	Delimiter  Delimiter // document delimiter (encoder); 0 = Comma
	Lenient    bool      // decoder; false = strict, the spec default
}

func (o Options) indent() (int, error) {
	switch {
	case o.IndentSize == 0:
		return 2, nil
	case o.IndentSize < 0:
		return 0, fmt.Errorf("toon: %w: IndentSize %d", ErrInvalidOptions, o.IndentSize)
	}
	return o.IndentSize, nil
}

func (o Options) delim() (byte, error) {
	switch o.Delimiter {
	case 0, Comma:
		return ',', nil
	case Tab, Pipe:
		return byte(o.Delimiter), nil
	}
	return 0, fmt.Errorf("toon: %w: delimiter %q", ErrInvalidOptions, rune(o.Delimiter))
}

// flushSize is the buffered size at which the encoder writes to its writer.
const flushSize = 32 << 10

// Encoder writes TOON documents to a writer. Lines are built in one reused
// buffer that is written out in chunks, so a document is never held in memory
// twice. After a write error the encoder stops and returns that error from
// every later call. An Encoder is not safe for concurrent use.
type Encoder struct {
	w       io.Writer
	opts    Options
	indent  int
	delim   byte
	quote   quoteSet
	buf     []byte
	started bool
	err     error
}

// NewEncoder returns an encoder writing to w.
func NewEncoder(w io.Writer, opts Options) *Encoder {
	return &Encoder{w: w, opts: opts}
}

// Encode writes v as one TOON document, without a trailing newline. v may be
// any value the value model accepts (see the package documentation).
func (e *Encoder) Encode(v any) error {
	if e.err != nil {
		return e.err
	}
	n, err := normalize(v)
	if err != nil {
		return err
	}
	return e.encodeModel(n)
}

func (e *Encoder) setup() error {
	ind, err := e.opts.indent()
	if err != nil {
		return err
	}
	d, err := e.opts.delim()
	if err != nil {
		return err
	}
	e.indent, e.delim, e.quote = ind, d, newQuoteSet(d)
	return nil
}

// encodeModel writes a value already in the model.
func (e *Encoder) encodeModel(v any) error {
	if err := e.setup(); err != nil {
		return err
	}
	e.started = false
	e.root(v)
	e.flush()
	if e.err != nil {
		return e.err
	}
	return nil
}

// Marshal returns the TOON encoding of v with default options.
func Marshal(v any) ([]byte, error) { return MarshalOptions(v, Options{}) }

// MarshalOptions returns the TOON encoding of v with the given options.
func MarshalOptions(v any, opts Options) ([]byte, error) {
	e := &Encoder{opts: opts}
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	if e.buf == nil {
		return []byte{}, nil
	}
	return e.buf, nil
}

func (e *Encoder) flush() {
	if e.w == nil || e.err != nil || len(e.buf) == 0 {
		return
	}
	n, err := e.w.Write(e.buf)
	if err == nil && n < len(e.buf) {
		err = io.ErrShortWrite
	}
	if err != nil {
		e.err = err
	}
	e.buf = e.buf[:0]
}

// reserve grows the buffer ahead of n more lines like one of size bytes,
// which saves copying a large table's output several times over. With a
// writer the buffer never needs much more than flushSize.
func (e *Encoder) reserve(size, n int) {
	need := size*n + size*n/8 + 64
	if e.w != nil {
		need = min(need, flushSize+2*size)
	}
	if cap(e.buf)-len(e.buf) < need {
		e.buf = slices.Grow(e.buf, need)
	}
}

// line starts a new line at depth.
func (e *Encoder) line(depth int) {
	if e.w != nil && len(e.buf) >= flushSize {
		e.flush()
	}
	if e.started {
		e.buf = append(e.buf, '\n')
	}
	e.started = true
	for n := depth * e.indent; n > 0; n-- {
		e.buf = append(e.buf, ' ')
	}
}

func (e *Encoder) root(v any) {
	switch x := v.(type) {
	case Object:
		if len(x) == 0 {
			return
		}
		if shape := keyedShape(x); shape != nil {
			e.line(0)
			e.keyed(x, shape, 1)
			return
		}
		e.fields(x, 0)
	case []any:
		e.line(0)
		if len(x) == 0 {
			e.buf = append(e.buf, "[]"...)
			return
		}
		e.array(x, 1, true)
	default:
		e.line(0)
		e.primitive(v)
	}
}

// fields writes the members of a non-empty object at depth.
func (e *Encoder) fields(o Object, depth int) {
	for i := range o {
		if e.err != nil {
			return
		}
		e.field(o[i].Key, o[i].Value, depth, false, depth+1)
	}
}

// field writes one member on a new line at depth; with hyphen the line is a
// list item's "- " line. Whatever the member opens goes to depth child.
func (e *Encoder) field(key string, v any, depth int, hyphen bool, child int) {
	e.line(depth)
	if hyphen {
		e.buf = append(e.buf, '-', ' ')
	}
	e.buf = appendKey(e.buf, key)
	switch x := v.(type) {
	case Object:
		if len(x) == 0 {
			e.buf = append(e.buf, ':')
			return
		}
		if shape := keyedShape(x); shape != nil {
			e.keyed(x, shape, child)
			return
		}
		e.buf = append(e.buf, ':')
		e.fields(x, child)
	case []any:
		if len(x) == 0 {
			e.buf = append(e.buf, ": []"...)
			return
		}
		e.array(x, child, true)
	default:
		e.buf = append(e.buf, ':', ' ')
		e.primitive(v)
	}
}

// array writes a non-empty array from its '[' on the current line; items or
// rows go to depth child. tables says whether the table form is available.
func (e *Encoder) array(a []any, child int, tables bool) {
	if allPrimitive(a) {
		e.header(len(a), false, nil)
		e.buf = append(e.buf, ' ')
		for i, v := range a {
			if i > 0 {
				e.buf = append(e.buf, e.delim)
			}
			e.primitive(v)
		}
		return
	}
	if tables {
		if objectRows(a) {
			if shape, aligned := alignedShape(a); shape != nil {
				e.header(len(a), false, shape)
				e.rows(a, shape, aligned, child)
				return
			}
		}
	}
	e.header(len(a), false, nil)
	for _, v := range a {
		if e.err != nil {
			return
		}
		e.item(v, child)
	}
}

// rows writes the rows of a table at depth child. The hot loop appends to a
// local buffer, which keeps it free of write barriers on e.buf.
func (e *Encoder) rows(a []any, shape []field, aligned bool, child int) {
	pad := child * e.indent
	delim, q := e.delim, e.quote
	buf := e.buf
	for i, r := range a {
		if e.w != nil && len(buf) >= flushSize {
			e.buf = buf
			e.flush()
			if e.err != nil {
				return
			}
			buf = e.buf
		}
		start := len(buf)
		// The header is already on the current line, so every row starts
		// with a newline.
		buf = append(buf, '\n')
		buf = appendSpaces(buf, pad)
		if aligned {
			buf, _ = appendAlignedCells(buf, r.(Object), shape, true, delim, q)
		} else {
			buf, _ = appendCells(buf, r.(Object), shape, true, delim, q)
		}
		if i == 0 {
			e.buf = buf
			e.reserve(len(buf)-start, len(a)-1)
			buf = e.buf
		}
	}
	e.buf = buf
}

const spaces = "                                "

func appendSpaces(dst []byte, n int) []byte {
	for n > len(spaces) {
		dst = append(dst, spaces...)
		n -= len(spaces)
	}
	return append(dst, spaces[:n]...)
}

// item writes one list item at depth h.
func (e *Encoder) item(v any, h int) {
	switch x := v.(type) {
	case Object:
		if len(x) == 0 {
			e.line(h)
			e.buf = append(e.buf, '-')
			return
		}
		e.field(x[0].Key, x[0].Value, h, true, h+2)
		for i := 1; i < len(x); i++ {
			if e.err != nil {
				return
			}
			e.field(x[i].Key, x[i].Value, h+1, false, h+2)
		}
	case []any:
		e.line(h)
		e.buf = append(e.buf, '-', ' ')
		if len(x) == 0 {
			e.header(0, false, nil)
			return
		}
		e.array(x, h+1, false)
	default:
		e.line(h)
		e.buf = append(e.buf, '-', ' ')
		e.primitive(v)
	}
}

// keyed writes a keyed table from its '[' on the current line.
func (e *Encoder) keyed(o Object, shape []field, child int) {
	e.header(len(o), true, shape)
	for i := range o {
		if e.err != nil {
			return
		}
		e.line(child)
		e.buf = appendKey(e.buf, o[i].Key)
		e.buf = append(e.buf, ':', ' ')
		e.cells(o[i].Value.(Object), shape, true)
	}
}

// header appends "[N(:)(delim)]({fields}):".
func (e *Encoder) header(n int, keyed bool, shape []field) {
	e.buf = append(e.buf, '[')
	e.buf = strconv.AppendInt(e.buf, int64(n), 10)
	if keyed {
		e.buf = append(e.buf, ':')
	}
	if e.delim != ',' {
		e.buf = append(e.buf, e.delim)
	}
	e.buf = append(e.buf, ']')
	if shape != nil {
		e.buf = e.appendFields(e.buf, shape)
	}
	e.buf = append(e.buf, ':')
}

func (e *Encoder) appendFields(dst []byte, shape []field) []byte {
	dst = append(dst, '{')
	for i, f := range shape {
		if i > 0 {
			dst = append(dst, e.delim)
		}
		dst = appendKey(dst, f.key)
		if f.sub != nil {
			dst = e.appendFields(dst, f.sub)
		}
	}
	return append(dst, '}')
}

// cells appends the leaf values of one row in depth-first field order and
// reports whether the next cell is still the first of the row.
func (e *Encoder) cells(o Object, shape []field, first bool) bool {
	e.buf, first = appendCells(e.buf, o, shape, first, e.delim, e.quote)
	return first
}

func (e *Encoder) primitive(v any) { e.buf = appendPrimitive(e.buf, v, e.quote) }

// appendCells appends the leaf values of row o in depth-first field order and
// reports whether the next cell is still the first of the row.
func appendCells(dst []byte, o Object, shape []field, first bool, delim byte, q quoteSet) ([]byte, bool) {
	for j, f := range shape {
		k := j
		if k >= len(o) || o[k].Key != f.key {
			k = o.index(f.key, j)
		}
		v := o[k].Value
		if f.sub != nil {
			dst, first = appendCells(dst, v.(Object), f.sub, first, delim, q)
			continue
		}
		if !first {
			dst = append(dst, delim)
		}
		first = false
		dst = appendPrimitive(dst, v, q)
	}
	return dst, first
}

// appendAlignedCells is [appendCells] for a row whose keys, at every level,
// are in field order.
func appendAlignedCells(dst []byte, o Object, shape []field, first bool, delim byte, q quoteSet) ([]byte, bool) {
	for j, f := range shape {
		v := o[j].Value
		if f.sub != nil {
			dst, first = appendAlignedCells(dst, v.(Object), f.sub, first, delim, q)
			continue
		}
		if !first {
			dst = append(dst, delim)
		}
		first = false
		dst = appendPrimitive(dst, v, q)
	}
	return dst, first
}

// appendPrimitive appends a primitive model value, quoting strings as q
// requires.
func appendPrimitive(dst []byte, v any, q quoteSet) []byte {
	switch x := v.(type) {
	case string:
		if q.needsQuote(x) {
			return appendQuoted(dst, x)
		}
		return append(dst, x...)
	case json.Number:
		return append(dst, x...)
	case bool:
		if x {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case nil:
		return append(dst, "null"...)
	}
	return dst
}

// field is one entry of a table header: a leaf column, or a nested field
// group when sub is non-nil.
type field struct {
	key string
	sub []field
}

func allPrimitive(a []any) bool {
	for _, v := range a {
		if !isPrimitive(v) {
			return false
		}
	}
	return true
}

// objectRows reports whether the elements of a are all non-empty objects.
func objectRows(a []any) bool {
	for _, v := range a {
		o, ok := v.(Object)
		if !ok || len(o) == 0 {
			return false
		}
	}
	return true
}

// tableShape returns the header fields when rows, which are non-empty
// objects, qualify for the table form (§2.7.3): the same key set everywhere,
// and every column either all primitives or all non-empty objects that
// qualify in turn. Fields follow the first row's key order.
func tableShape(rows []any) []field {
	shape, _ := alignedShape(rows)
	return shape
}

// alignedShape is [tableShape] that also reports whether every row, at every
// level, has its keys in the order of the fields, so that the cells can be
// read by position.
func alignedShape(rows []any) ([]field, bool) {
	first := rows[0].(Object)
	if len(first) == 0 {
		return nil, false
	}
	shape := make([]field, len(first))
	hasSub := false
	for j, m := range first {
		shape[j].key = m.Key
		switch v := m.Value.(type) {
		case Object:
			if len(v) == 0 {
				return nil, false
			}
			hasSub = true
		case []any:
			return nil, false
		}
	}
	// The primitive columns, row by row (rows are separate allocations, so
	// one pass over them is kinder to the cache than one per column).
	aligned := true
	for _, rv := range rows[1:] {
		r := rv.(Object)
		if len(r) != len(first) {
			return nil, false
		}
		for j, m := range first {
			if hasSub && !isPrimitive(m.Value) {
				continue
			}
			k := j
			if r[j].Key != m.Key {
				if k = r.index(m.Key, j); k < 0 {
					return nil, false
				}
				aligned = false
			}
			if !isPrimitive(r[k].Value) {
				return nil, false
			}
		}
	}
	if !hasSub {
		return shape, aligned
	}
	var subs []any
	for j, m := range first {
		if isPrimitive(m.Value) {
			continue
		}
		subs = subs[:0]
		for _, rv := range rows {
			r := rv.(Object)
			k := r.index(m.Key, j)
			if k < 0 {
				return nil, false
			}
			aligned = aligned && k == j
			o, ok := r[k].Value.(Object)
			if !ok || len(o) == 0 {
				return nil, false
			}
			subs = append(subs, r[k].Value)
		}
		sub, subAligned := alignedShape(subs)
		if sub == nil {
			return nil, false
		}
		shape[j].sub = sub
		aligned = aligned && subAligned
	}
	return shape, aligned
}

// keyedShape returns the header fields when o qualifies for the keyed table
// form (§2.9).
func keyedShape(o Object) []field {
	if len(o) < 2 {
		return nil
	}
	for i := range o {
		v, ok := o[i].Value.(Object)
		if !ok || len(v) == 0 {
			return nil
		}
	}
	rows := make([]any, len(o))
	for i := range o {
		rows[i] = o[i].Value
	}
	return tableShape(rows)
}

// quoteSet is the set of bytes that force a string into quotes: the control
// bytes, DEL, the structural characters of §2.4 and the delimiter, as a
// 256-bit mask. Bytes from 128 up that can start a [textsafe.Forbidden]
// code point are in the set too; needsQuote decodes the rune to decide.
type quoteSet [4]uint64

func newQuoteSet(delim byte) quoteSet {
	var q quoteSet
	q[0] = 1<<0x20 - 1
	for c := 0x80; c < 0x100; c++ {
		if textsafe.MayStart(byte(c)) {
			q[c>>6] |= 1 << (c & 63)
		}
	}
	for _, c := range []byte{':', '"', '\\', '[', ']', '{', '}', 0x7f, delim} {
		q[c>>6] |= 1 << (c & 63)
	}
	return q
}

// needsQuote applies the quoting rules of §2.4 with the delimiter of q.
func (q quoteSet) needsQuote(s string) bool {
	if s == "" {
		return true
	}
	switch s[0] {
	case ' ', '\t', '-', '#':
		return true
	}
	switch s[len(s)-1] {
	case ' ', '\t':
		return true
	}
	switch s {
	case "true", "false", "null":
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if q[c>>6]>>(c&63)&1 != 0 {
			if c < utf8.RuneSelf {
				return true
			}
			if r, _ := utf8.DecodeRuneInString(s[i:]); textsafe.Forbidden(r) {
				return true
			}
		}
	}
	c := s[0]
	if (c >= '0' && c <= '9') || c == '+' {
		return isNumberLike(s)
	}
	return false
}

// isBareKey reports whether a key matches ^[A-Za-z_][A-Za-z0-9_.]*$.
func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_':
		case i > 0 && ((c >= '0' && c <= '9') || c == '.'):
		default:
			return false
		}
	}
	return true
}

func appendKey(dst []byte, k string) []byte {
	if isBareKey(k) {
		return append(dst, k...)
	}
	return appendQuoted(dst, k)
}

const hexDigits = "0123456789abcdef"

// appendQuoted appends s in double quotes with the escapes of §2.4. DEL,
// the C1 controls and the other code points of [textsafe.Forbidden] are
// written as \uXXXX (lower-case hex) as well, where §2.4 would copy them:
// every TOON decoder reads the escape back, and no value puts a line
// separator, terminal control or bidirectional control into the output.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			if !textsafe.MayStart(c) {
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(s[i:])
			if !textsafe.Forbidden(r) {
				i += n
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
			i += n
			start = i
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
