package gcf

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// StreamHeader holds the header values of a graph stream.
type StreamHeader struct {
	Tool           string
	Budget, Tokens int
	Session        bool
	PackRoot       string
	Extra          []Field
}

// StreamEncoder writes a graph-profile payload node by node (§2.8): counts
// are deferred to a ##! summary trailer written by Close. Each call writes
// its line at once, so memory per node is constant apart from the identity
// index edges are resolved against. The first write error sticks. A
// StreamEncoder is not safe for concurrent use.
type StreamEncoder struct {
	w       *bufio.Writer
	h       StreamHeader
	opts    Options
	buf     []byte
	err     error
	started bool
	closed  bool
	idx     *endpointIndex
	kinds   []string
	groups  []int // distance per group
	counts  []int // nodes per group
	edges   int
	inEdges bool
}

// NewStreamEncoder returns a stream encoder writing to w.
func NewStreamEncoder(w io.Writer, h StreamHeader, opts Options) *StreamEncoder {
	return &StreamEncoder{w: bufio.NewWriter(w), h: h, opts: opts, idx: newEndpointIndex(16)}
}

func (s *StreamEncoder) write() error {
	if s.err != nil {
		return s.err
	}
	if _, err := s.w.Write(s.buf); err != nil {
		s.err = err
	}
	s.buf = s.buf[:0]
	return s.err
}

func (s *StreamEncoder) start() error {
	if s.started {
		return nil
	}
	h := &s.h
	if (h.Tool != "" && !isToken(h.Tool)) || (h.PackRoot != "" && !isToken(h.PackRoot)) {
		return &EncodeError{Path: "/tool", Err: ErrInvalidToken}
	}
	if err := validExtra(h.Extra); err != nil {
		return err
	}
	s.started = true
	b := append(s.buf[:0], "GCF profile=graph"...)
	if h.Tool != "" {
		b = appendHeaderStr(b, "tool", h.Tool)
	}
	if h.Budget > 0 {
		b = appendHeaderInt(b, "budget", h.Budget)
	}
	if h.Tokens > 0 {
		b = appendHeaderInt(b, "tokens", h.Tokens)
	}
	if h.Session {
		b = append(b, " session=true"...)
	}
	if h.PackRoot != "" {
		b = appendHeaderStr(b, "pack_root", h.PackRoot)
	}
	b = appendExtra(b, h.Extra)
	s.buf = append(b, '\n')
	return s.write()
}

// WriteNode writes one symbol with the next id. Symbols must come in
// ascending distance and before any edge ([ErrStreamState] otherwise).
func (s *StreamEncoder) WriteNode(sym Symbol) error {
	if s.err != nil {
		return s.err
	}
	if s.closed || s.inEdges {
		return &EncodeError{Err: ErrStreamState, Detail: "node after edges or close"}
	}
	kind, err := validateSymbol(&sym)
	if err != nil {
		return err
	}
	if len(s.groups) > 0 && sym.Distance < s.groups[len(s.groups)-1] {
		return &EncodeError{Err: ErrStreamState, Detail: "distance lower than the current group"}
	}
	id := len(s.kinds)
	if !s.idx.add(kind, sym.Name, id) {
		return &EncodeError{Err: ErrDuplicateSymbol, Detail: kind + " " + sym.Name + " written twice"}
	}
	if err := s.start(); err != nil {
		return err
	}
	s.kinds = append(s.kinds, kind)
	if len(s.groups) == 0 || s.groups[len(s.groups)-1] != sym.Distance {
		s.groups = append(s.groups, sym.Distance)
		s.counts = append(s.counts, 0)
		s.buf = append(s.buf, "## "...)
		s.buf = appendGroupName(s.buf, sym.Distance)
		s.buf = append(s.buf, '\n')
	}
	s.counts[len(s.counts)-1]++
	s.buf = appendNodeLine(s.buf, id, kind, &sym)
	s.buf = append(s.buf, '\n')
	return s.write()
}

// WriteEdge writes one edge between symbols already written, in call order.
func (s *StreamEncoder) WriteEdge(e Edge) error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return &EncodeError{Err: ErrStreamState, Detail: "edge after close"}
	}
	pe, err := planEdgeOf(&e, s.idx)
	if err != nil {
		return err
	}
	if err := s.start(); err != nil {
		return err
	}
	if !s.inEdges {
		s.inEdges = true
		s.buf = append(s.buf, "## edges [?]\n"...)
	}
	s.edges++
	s.buf = appendEdgeLine(s.buf, pe.tgt, pe.src, pe.typ, pe.status)
	return s.write()
}

// Close writes the trailer and flushes.
func (s *StreamEncoder) Close() error {
	if s.err != nil {
		return s.err
	}
	if s.closed {
		return &EncodeError{Err: ErrStreamState, Detail: "closed twice"}
	}
	if err := s.start(); err != nil {
		return err
	}
	s.closed = true
	b := append(s.buf[:0], "##! summary"...)
	b = appendHeaderInt(b, "symbols", len(s.kinds))
	b = appendHeaderInt(b, "edges", s.edges)
	b = append(b, " counts="...)
	for i, d := range s.groups {
		if s.opts.LabeledTrailerCounts {
			b = appendGroupName(b, d)
			b = append(b, ':')
		}
		b = strconv.AppendInt(b, int64(s.counts[i]), 10)
		b = append(b, ',')
	}
	if s.opts.LabeledTrailerCounts {
		b = append(b, "edges:"...)
	}
	b = strconv.AppendInt(b, int64(s.edges), 10)
	s.buf = append(b, '\n')
	if err := s.write(); err != nil {
		return err
	}
	if err := s.w.Flush(); err != nil {
		s.err = err
	}
	return s.err
}

// ValueStream writes a generic-profile payload section by section (§2.8):
// root scalars, then deferred tables, keyed tables and item lists whose
// counts go to the ##! summary trailer. Rows are written as they come, so
// memory per row is constant. The first write error sticks. A ValueStream is
// not safe for concurrent use.
type ValueStream struct {
	w       *bufio.Writer
	opts    Options
	lim     Limits
	buf     []byte
	err     error
	started bool
	closed  bool
	mode    int // 0 none, 1 table, 2 keyed, 3 items
	width   int
	n       int
	counts  []int
	keys    []string
}

// NewValueStream returns a value stream writing to w.
func NewValueStream(w io.Writer, opts Options) *ValueStream {
	return &ValueStream{w: bufio.NewWriter(w), opts: opts, lim: opts.Limits.withDefaults()}
}

func (v *ValueStream) write() error {
	if v.err != nil {
		return v.err
	}
	if _, err := v.w.Write(v.buf); err != nil {
		v.err = err
	}
	v.buf = v.buf[:0]
	return v.err
}

func (v *ValueStream) start() error {
	if v.err != nil {
		return v.err
	}
	if v.closed {
		return &EncodeError{Err: ErrStreamState, Detail: "stream closed"}
	}
	if v.started {
		return nil
	}
	if v.opts.Tool != "" && !isToken(v.opts.Tool) {
		return &EncodeError{Path: "/tool", Err: ErrInvalidToken}
	}
	v.started = true
	v.buf = appendGenericHeader(v.buf[:0], v.opts.Tool)
	return nil
}

func (v *ValueStream) useKey(k string) error {
	if !validUTF8(k) {
		return &EncodeError{Err: ErrInvalidUTF8, Detail: "key is not valid UTF-8"}
	}
	if slices.Contains(v.keys, k) {
		return &EncodeError{Err: ErrStreamSchema, Detail: "root key " + strconv.Quote(k) + " written twice"}
	}
	v.keys = append(v.keys, k)
	return nil
}

// WriteKV writes a root scalar member; only before the first section.
func (v *ValueStream) WriteKV(key string, val any) error {
	if err := v.start(); err != nil {
		return err
	}
	if len(v.counts) > 0 || v.mode != 0 {
		return &EncodeError{Err: ErrStreamState, Detail: "root scalar after a deferred section"}
	}
	val, err := normalize(val, 0, 1)
	if err != nil || !isScalar(val) {
		return &EncodeError{Path: "/" + pointerToken(key), Err: ErrStreamSchema, Detail: "WriteKV takes scalars only"}
	}
	if err := v.useKey(key); err != nil {
		return err
	}
	b := appendKey(v.buf, key)
	b = append(b, '=')
	if b, err = appendScalar(b, val); err != nil {
		return err
	}
	v.buf = append(b, '\n')
	return v.write()
}

func (v *ValueStream) begin(name string, mode int) error {
	if err := v.start(); err != nil {
		return err
	}
	if v.mode != 0 {
		v.end()
	}
	if err := v.useKey(name); err != nil {
		return err
	}
	v.mode, v.n = mode, 0
	v.buf = append(v.buf, "## "...)
	v.buf = appendKey(v.buf, name)
	return nil
}

func checkStreamFields(fields []string) error {
	if len(fields) == 0 {
		return &EncodeError{Err: ErrStreamSchema, Detail: "a table needs fields"}
	}
	for i, f := range fields {
		if strings.Contains(f, ">") || !validUTF8(f) || slices.Contains(fields[:i], f) {
			return &EncodeError{Err: ErrStreamSchema, Detail: "bad field name " + strconv.Quote(f)}
		}
	}
	return nil
}

// BeginTable opens "## name [?]{fields}"; rows follow through WriteRow.
func (v *ValueStream) BeginTable(name string, fields []string) error {
	if err := checkStreamFields(fields); err != nil {
		return err
	}
	if err := v.begin(name, 1); err != nil {
		return err
	}
	v.width = len(fields)
	v.buf = append(v.buf, " [?]"...)
	v.buf = appendFieldList(v.buf, fields, -1)
	v.buf = append(v.buf, '\n')
	return v.write()
}

// BeginKeyed opens "## name [?:]{label,fields}"; each WriteRow starts with
// the member key.
func (v *ValueStream) BeginKeyed(name string, fields []string) error {
	if err := checkStreamFields(fields); err != nil {
		return err
	}
	if err := v.begin(name, 2); err != nil {
		return err
	}
	label := "key"
	for slices.Contains(fields, label) {
		label = "_" + label
	}
	v.width = len(fields) + 1
	v.buf = append(v.buf, " [?:]"...)
	v.buf = appendFieldList(v.buf, append([]string{label}, fields...), -1)
	v.buf = append(v.buf, '\n')
	return v.write()
}

// BeginItems opens "## name [?]"; items follow through WriteItem.
func (v *ValueStream) BeginItems(name string) error {
	if err := v.begin(name, 3); err != nil {
		return err
	}
	v.buf = append(v.buf, " [?]\n"...)
	return v.write()
}

// WriteRow writes one row of scalars and [Absent] cells.
func (v *ValueStream) WriteRow(cells ...any) error {
	if v.err != nil {
		return v.err
	}
	if v.mode != 1 && v.mode != 2 {
		return &EncodeError{Err: ErrStreamState, Detail: "WriteRow outside a table"}
	}
	if len(cells) != v.width {
		return &EncodeError{Err: ErrStreamSchema, Detail: "row has " + strconv.Itoa(len(cells)) + " cells, table has " + strconv.Itoa(v.width)}
	}
	b := v.buf
	for i, c := range cells {
		if i > 0 {
			b = append(b, '|')
		}
		if _, ok := c.(absent); ok {
			if v.mode == 2 && i == 0 {
				return &EncodeError{Err: ErrStreamSchema, Detail: "member key cannot be absent"}
			}
			b = append(b, '~')
			continue
		}
		n, err := normalize(c, 0, 1)
		if err != nil || !isScalar(n) {
			v.buf = v.buf[:0]
			return &EncodeError{Path: "/" + strconv.Itoa(i), Err: ErrStreamSchema, Detail: "cells must be scalars"}
		}
		if _, ok := n.(string); v.mode == 2 && i == 0 && !ok {
			return &EncodeError{Err: ErrStreamSchema, Detail: "member key must be a string"}
		}
		if b, err = appendScalar(b, n); err != nil {
			v.buf = v.buf[:0]
			return err
		}
	}
	v.buf = append(b, '\n')
	v.n++
	return v.write()
}

// WriteItem writes one item "@i …" of an item list.
func (v *ValueStream) WriteItem(val any) error {
	if v.err != nil {
		return v.err
	}
	if v.mode != 3 {
		return &EncodeError{Err: ErrStreamState, Detail: "WriteItem outside an item list"}
	}
	n, err := normalize(val, 0, v.lim.MaxDepth)
	if err != nil {
		return err
	}
	g := genEncoder{buf: v.buf[:0], maxDepth: v.lim.MaxDepth, maxElems: v.lim.MaxElements}
	if err := g.item(v.n, n, 0, 1); err != nil {
		v.buf = v.buf[:0]
		return err
	}
	v.buf = g.buf
	v.n++
	return v.write()
}

func (v *ValueStream) end() {
	v.counts = append(v.counts, v.n)
	v.mode = 0
}

// End closes the current section.
func (v *ValueStream) End() error {
	if v.err != nil {
		return v.err
	}
	if v.mode == 0 {
		return &EncodeError{Err: ErrStreamState, Detail: "End without an open section"}
	}
	v.end()
	return nil
}

// Close ends any open section, writes the trailer and flushes.
func (v *ValueStream) Close() error {
	if err := v.start(); err != nil {
		return err
	}
	if v.mode != 0 {
		v.end()
	}
	v.closed = true
	// A streaming payload always ends with its trailer (§2.8).
	v.buf = append(v.buf, "##! summary"...)
	if len(v.counts) > 0 {
		v.buf = append(v.buf, " counts="...)
		for i, c := range v.counts {
			if i > 0 {
				v.buf = append(v.buf, ',')
			}
			v.buf = strconv.AppendInt(v.buf, int64(c), 10)
		}
	}
	v.buf = append(v.buf, '\n')
	if err := v.write(); err != nil {
		return err
	}
	if err := v.w.Flush(); err != nil {
		v.err = err
	}
	return v.err
}
