package toon

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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
	e.indent, e.delim = ind, d
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
		if rows, ok := objectRows(a); ok {
			if shape := tableShape(rows); shape != nil {
				e.header(len(a), false, shape)
				for _, r := range rows {
					if e.err != nil {
						return
					}
					e.line(child)
					e.cells(r, shape, true)
				}
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
	for j, f := range shape {
		v := o[o.index(f.key, j)].Value
		if f.sub != nil {
			first = e.cells(v.(Object), f.sub, first)
			continue
		}
		if !first {
			e.buf = append(e.buf, e.delim)
		}
		first = false
		e.primitive(v)
	}
	return first
}

func (e *Encoder) primitive(v any) {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, x)
	case json.Number:
		e.buf = append(e.buf, x...)
	case string:
		if needsQuote(x, e.delim) {
			e.buf = appendQuoted(e.buf, x)
		} else {
			e.buf = append(e.buf, x...)
		}
	}
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

// objectRows returns the elements of a as objects when all of them are
// non-empty objects.
func objectRows(a []any) ([]Object, bool) {
	rows := make([]Object, len(a))
	for i, v := range a {
		o, ok := v.(Object)
		if !ok || len(o) == 0 {
			return nil, false
		}
		rows[i] = o
	}
	return rows, true
}

// tableShape returns the header fields when rows qualify for the table form
// (§2.7.3): the same key set everywhere, and every column either all
// primitives or all non-empty objects that qualify in turn. Fields follow the
// first row's key order.
func tableShape(rows []Object) []field {
	first := rows[0]
	if len(first) == 0 {
		return nil
	}
	for _, r := range rows[1:] {
		if len(r) != len(first) {
			return nil
		}
	}
	shape := make([]field, len(first))
	var subs []Object
	for j, m := range first {
		shape[j].key = m.Key
		switch v := m.Value.(type) {
		case Object:
			if len(v) == 0 {
				return nil
			}
			subs = subs[:0]
			for _, r := range rows {
				k := r.index(m.Key, j)
				if k < 0 {
					return nil
				}
				o, ok := r[k].Value.(Object)
				if !ok || len(o) == 0 {
					return nil
				}
				subs = append(subs, o)
			}
			sub := tableShape(subs)
			if sub == nil {
				return nil
			}
			shape[j].sub = sub
		case []any:
			return nil
		default:
			for _, r := range rows[1:] {
				k := r.index(m.Key, j)
				if k < 0 || !isPrimitive(r[k].Value) {
					return nil
				}
			}
		}
	}
	return shape
}

// keyedShape returns the header fields when o qualifies for the keyed table
// form (§2.9).
func keyedShape(o Object) []field {
	if len(o) < 2 {
		return nil
	}
	rows := make([]Object, len(o))
	for i := range o {
		v, ok := o[i].Value.(Object)
		if !ok || len(v) == 0 {
			return nil
		}
		rows[i] = v
	}
	return tableShape(rows)
}

// needsQuote applies the quoting rules of §2.4 with the relevant delimiter.
func needsQuote(s string, delim byte) bool {
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
		if c < 0x20 || c == delim {
			return true
		}
		switch c {
		case ':', '"', '\\', '[', ']', '{', '}':
			return true
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

// appendQuoted appends s in double quotes with the escapes of §2.4.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
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
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
