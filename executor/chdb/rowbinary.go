package chdb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/graphwire/graphwire/executor"
)

// errShort is returned when a RowBinary buffer ends inside a value.
var errShort = errors.New("RowBinary: unexpected end of data")

// decoder reads RowBinaryWithNamesAndTypes from an in-memory buffer, one row at a time. The
// buffer may be one chunk of a streamed result: a value cut off at its end gives errShort.
type decoder struct {
	buf   []byte
	off   int
	cols  []executor.Column
	types []*chType
}

// newDecoder returns a decoder over a whole result, its header already read.
func newDecoder(buf []byte) (*decoder, error) {
	d := &decoder{buf: buf}
	if len(buf) == 0 { // statements without a result (SET, DDL) write nothing at all
		return d, nil
	}
	if err := d.header(); err != nil {
		return nil, err
	}
	return d, nil
}

// header reads a uvarint column count, the names, then the type strings. Once the decoder
// has columns, a header (every chunk of a stream starts with one) must repeat them.
func (d *decoder) header() error {
	n, err := d.uvarint()
	if err != nil {
		return err
	}
	if n > uint64(len(d.buf)) { // every name takes at least one byte
		return errShort
	}
	if d.cols != nil {
		return d.sameHeader(n)
	}
	cols := make([]executor.Column, n)
	for i := range cols {
		if cols[i].Name, err = d.string(); err != nil {
			return err
		}
	}
	types := make([]*chType, n)
	for i := range cols {
		if cols[i].Type, err = d.string(); err != nil {
			return err
		}
		if types[i], err = parseType(cols[i].Type); err != nil {
			return err
		}
	}
	d.cols, d.types = cols, types
	return nil
}

// sameHeader reads the names and types of a header of n columns and checks that they are
// the decoder's, without building or parsing them again.
func (d *decoder) sameHeader(n uint64) error {
	if n != uint64(len(d.cols)) {
		return fmt.Errorf("RowBinary: header of %d columns, want %d", n, len(d.cols))
	}
	for i := range 2 * len(d.cols) {
		c := d.cols[i%len(d.cols)]
		want := c.Name
		if i >= len(d.cols) {
			want = c.Type
		}
		l, err := d.uvarint()
		if err != nil {
			return err
		}
		if l > uint64(len(d.buf)) {
			return errShort
		}
		b, err := d.take(int(l))
		if err != nil {
			return err
		}
		if string(b) != want {
			return fmt.Errorf("RowBinary: header column %d is %q, want %q", i%len(d.cols), b, want)
		}
	}
	return nil
}

func (d *decoder) more() bool { return d.off < len(d.buf) }

// row decodes the next row.
func (d *decoder) row() ([]any, error) {
	vals := make([]any, len(d.types))
	for i, t := range d.types {
		v, err := d.value(t)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", d.cols[i].Name, err)
		}
		vals[i] = v
	}
	return vals, nil
}

func (d *decoder) take(n int) ([]byte, error) {
	if n < 0 || len(d.buf)-d.off < n {
		return nil, errShort
	}
	b := d.buf[d.off : d.off+n]
	d.off += n
	return b, nil
}

func (d *decoder) uvarint() (uint64, error) {
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		return 0, errShort
	}
	d.off += n
	return v, nil
}

func (d *decoder) string() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > uint64(len(d.buf)) {
		return "", errShort
	}
	b, err := d.take(int(n))
	return string(b), err
}

func (d *decoder) fixed(n int) (uint64, error) {
	b, err := d.take(n)
	if err != nil {
		return 0, err
	}
	switch n {
	case 1:
		return uint64(b[0]), nil
	case 2:
		return uint64(binary.LittleEndian.Uint16(b)), nil
	case 4:
		return uint64(binary.LittleEndian.Uint32(b)), nil
	}
	return binary.LittleEndian.Uint64(b), nil
}

var epoch = time.Unix(0, 0).UTC()

func (d *decoder) value(t *chType) (any, error) {
	switch t.kind {
	case kInt:
		u, err := d.fixed(t.size)
		if err != nil {
			return nil, err
		}
		switch t.size { // sign-extend
		case 1:
			return int64(int8(u)), nil
		case 2:
			return int64(int16(u)), nil
		case 4:
			return int64(int32(u)), nil
		}
		return int64(u), nil
	case kUint:
		u, err := d.fixed(t.size)
		if err != nil {
			return nil, err
		}
		if u > math.MaxInt64 {
			return u, nil // the value model keeps UInt64 values above MaxInt64 as uint64
		}
		return int64(u), nil
	case kFloat:
		u, err := d.fixed(t.size)
		if err != nil {
			return nil, err
		}
		if t.size == 4 {
			return float64(math.Float32frombits(uint32(u))), nil
		}
		return math.Float64frombits(u), nil
	case kBool:
		u, err := d.fixed(1)
		return u != 0, err
	case kString:
		return d.string()
	case kFixedString:
		b, err := d.take(t.size)
		return string(b), err
	case kUUID:
		b, err := d.take(16)
		if err != nil {
			return nil, err
		}
		// ClickHouse writes a UUID as two little-endian 64-bit halves.
		hi, lo := binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff), nil
	case kDate:
		u, err := d.fixed(2)
		if err != nil {
			return nil, err
		}
		return executor.DateOf(epoch.AddDate(0, 0, int(u))), nil
	case kDate32:
		u, err := d.fixed(4)
		if err != nil {
			return nil, err
		}
		return executor.DateOf(epoch.AddDate(0, 0, int(int32(u)))), nil
	case kDateTime:
		u, err := d.fixed(4)
		if err != nil {
			return nil, err
		}
		return time.Unix(int64(u), 0).UTC(), nil
	case kDateTime64:
		u, err := d.fixed(8)
		if err != nil {
			return nil, err
		}
		ticks, scale := int64(u), pow10(t.prec)
		sec, frac := ticks/scale, ticks%scale
		if frac < 0 {
			sec, frac = sec-1, frac+scale
		}
		return time.Unix(sec, frac*pow10(9-t.prec)).UTC(), nil
	case kEnum:
		u, err := d.fixed(t.size)
		if err != nil {
			return nil, err
		}
		n := int64(int8(u))
		if t.size == 2 {
			n = int64(int16(u))
		}
		return t.enum[n], nil
	case kNothing:
		_, err := d.take(1) // Nothing is written as one placeholder byte
		return nil, err
	case kNullable:
		u, err := d.fixed(1)
		if err != nil {
			return nil, err
		}
		if u != 0 {
			return nil, nil
		}
		return d.value(t.elem)
	case kArray:
		n, err := d.uvarint()
		if err != nil {
			return nil, err
		}
		if n > uint64(len(d.buf)-d.off) && t.elem.kind != kNothing {
			return nil, errShort
		}
		items := make([]any, 0, min(n, 1<<16))
		for range n {
			v, err := d.value(t.elem)
			if err != nil {
				return nil, err
			}
			items = append(items, v)
		}
		return items, nil
	case kTuple:
		items := make([]any, len(t.fields))
		for i, f := range t.fields {
			v, err := d.value(f)
			if err != nil {
				return nil, err
			}
			items[i] = v
		}
		return items, nil
	}
	return nil, errType
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

// appendValue appends v, a value-model value, to dst in RowBinary as type t. It is the inverse
// of decoder.value and what the Loader sends.
func appendValue(dst []byte, t *chType, v any) ([]byte, error) {
	if t.kind == kNullable {
		if v == nil {
			return append(dst, 1), nil
		}
		return appendValue(append(dst, 0), t.elem, v)
	}
	if v == nil {
		return nil, fmt.Errorf("NULL for a non-Nullable column")
	}
	switch t.kind {
	case kInt, kUint, kEnum:
		var n uint64
		switch x := v.(type) {
		case int64:
			n = uint64(x)
		case int:
			n = uint64(x)
		case uint64:
			n = x
		case string:
			if t.kind != kEnum {
				return nil, fmt.Errorf("string for an integer column")
			}
			code, ok := t.labels[x]
			if !ok {
				return nil, fmt.Errorf("unknown enum label %q", x)
			}
			n = uint64(code)
		default:
			return nil, fmt.Errorf("Go type %T for an integer column", v)
		}
		return appendFixed(dst, t.size, n), nil
	case kFloat:
		f, ok := v.(float64)
		if !ok {
			if n, isInt := v.(int64); isInt {
				f, ok = float64(n), true
			}
		}
		if !ok {
			return nil, fmt.Errorf("Go type %T for a float column", v)
		}
		if t.size == 4 {
			return appendFixed(dst, 4, uint64(math.Float32bits(float32(f)))), nil
		}
		return appendFixed(dst, 8, math.Float64bits(f)), nil
	case kBool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("Go type %T for a Bool column", v)
		}
		if b {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case kString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("Go type %T for a String column", v)
		}
		dst = binary.AppendUvarint(dst, uint64(len(s)))
		return append(dst, s...), nil
	case kFixedString:
		s, ok := v.(string)
		if !ok || len(s) > t.size {
			return nil, fmt.Errorf("value does not fit FixedString(%d)", t.size)
		}
		dst = append(dst, s...)
		for range t.size - len(s) {
			dst = append(dst, 0)
		}
		return dst, nil
	case kDate, kDate32:
		var day time.Time
		switch x := v.(type) {
		case executor.Date:
			day = x.Time()
		case time.Time:
			day = executor.DateOf(x.UTC()).Time()
		default:
			return nil, fmt.Errorf("Go type %T for a date column", v)
		}
		days := int64(day.Sub(epoch) / (24 * time.Hour))
		if t.kind == kDate {
			return appendFixed(dst, 2, uint64(days)), nil
		}
		return appendFixed(dst, 4, uint64(uint32(int32(days)))), nil
	case kDateTime, kDateTime64:
		tm, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("Go type %T for a date-time column", v)
		}
		if t.kind == kDateTime {
			return appendFixed(dst, 4, uint64(uint32(tm.Unix()))), nil
		}
		ticks := tm.Unix()*pow10(t.prec) + int64(tm.Nanosecond())/pow10(9-t.prec)
		return appendFixed(dst, 8, uint64(ticks)), nil
	case kArray:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("Go type %T for an Array column", v)
		}
		dst = binary.AppendUvarint(dst, uint64(len(items)))
		var err error
		for _, it := range items {
			if dst, err = appendValue(dst, t.elem, it); err != nil {
				return nil, err
			}
		}
		return dst, nil
	}
	return nil, errType
}

func appendFixed(dst []byte, size int, n uint64) []byte {
	switch size {
	case 1:
		return append(dst, byte(n))
	case 2:
		return binary.LittleEndian.AppendUint16(dst, uint16(n))
	case 4:
		return binary.LittleEndian.AppendUint32(dst, uint32(n))
	}
	return binary.LittleEndian.AppendUint64(dst, n)
}
