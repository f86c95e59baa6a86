package gcb1

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// Magic is the first four bytes of every payload; Version the byte after it.
const (
	Magic   = "GCB1"
	Version = 1
)

// Payload is one GCB1 payload as the layout has it: knowing's wire.Payload
// without the pack root, which GCB1 does not carry. Field order is wire order.
type Payload struct {
	Tool        string // length-prefixed string
	TokensUsed  uint64 // varint
	TokenBudget uint64 // varint
	Symbols     []Symbol
	Edges       []Edge
}

// Symbol is one payload symbol, in wire order.
type Symbol struct {
	QualifiedName string // length-prefixed string
	Kind          Kind
	Score         float32 // little-endian IEEE 754
	Provenance    Provenance
	Distance      uint8
	Signature     string // length-prefixed string
	// Score components, little-endian float32 each.
	BlastRadius, Confidence, Recency, DistanceC float32
}

// Edge is one payload edge: Source → Target as indexes into
// [Payload.Symbols].
type Edge struct {
	Source, Target int // varints
	Type           EdgeType
	Status         Status
}

// Kind is a symbol kind: 1–18 in knowing's order (internal/wire/binary.go).
type Kind uint8

// Provenance is how a symbol was found: 1–7 in knowing's order.
type Provenance uint8

// EdgeType is an edge type: 1–38 in knowing's order.
type EdgeType uint8

// Status is an edge's diff status: 0 unchanged, 1 added, 2 removed.
type Status uint8

// The enum tables; index i is wire value i+1 (Status: i).
var (
	kindNames = [...]string{
		"function", "type", "method", "interface", "var", "const", "resource", "table",
		"class", "selector", "field", "route_handler", "external", "file", "package", "service",
		"env_var", "process",
	}
	provenanceNames = [...]string{
		"ast_inferred", "ast_resolved", "lsp_resolved", "otel_trace", "scip_resolved",
		"runtime_observed", "structural",
	}
	edgeTypeNames = [...]string{
		"calls", "imports", "implements", "references", "handles_route", "depends_on",
		"deploys", "exposes", "configures", "extends", "overrides", "decorates", "throws",
		"owned_by", "authored_by", "tests", "runtime_calls", "runtime_rpc", "runtime_produces",
		"runtime_consumes", "contains", "member_of", "documents", "consumes_endpoint",
		"implements_rpc", "consumes_rpc", "gated_by_flag", "deployed_by", "tested_by",
		"publishes", "subscribes", "connects_to", "similar_to", "co_tested_with",
		"type_hint_of", "accesses_field", "reads_env", "executes_process",
	}
	statusNames = [...]string{"unchanged", "added", "removed"}
)

// Named kinds, provenances and edge types the graphwire mapping uses.
const (
	KindType     Kind       = 2
	KindExternal Kind       = 13
	KindFile     Kind       = 14
	KindPackage  Kind       = 15
	Structural   Provenance = 7
	References   EdgeType   = 4
)

func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return "unknown_" + strconv.Itoa(v)
}

func enumValue(names []string, s string) (int, bool) {
	for i, n := range names {
		if n == s {
			return i, true
		}
	}
	return 0, false
}

// String returns knowing's name of k, or "unknown_N".
func (k Kind) String() string { return enumName(kindNames[:], int(k)-1) }

// String returns knowing's name of p, or "unknown_N".
func (p Provenance) String() string { return enumName(provenanceNames[:], int(p)-1) }

// String returns knowing's name of t, or "unknown_N".
func (t EdgeType) String() string { return enumName(edgeTypeNames[:], int(t)-1) }

// String returns the name of s, or "unknown_N".
func (s Status) String() string { return enumName(statusNames[:], int(s)) }

// ParseKind returns the kind named s (knowing's spelling).
func ParseKind(s string) (Kind, bool) { v, ok := enumValue(kindNames[:], s); return Kind(v + 1), ok }

// ParseEdgeType returns the edge type named s (knowing's spelling).
func ParseEdgeType(s string) (EdgeType, bool) {
	v, ok := enumValue(edgeTypeNames[:], s)
	return EdgeType(v + 1), ok
}

func (k Kind) valid() bool       { return k >= 1 && int(k) <= len(kindNames) }
func (p Provenance) valid() bool { return p >= 1 && int(p) <= len(provenanceNames) }
func (t EdgeType) valid() bool   { return t >= 1 && int(t) <= len(edgeTypeNames) }
func (s Status) valid() bool     { return int(s) < len(statusNames) }

// MarshalPayload returns the GCB1 bytes of p. An enum outside its table or
// an edge endpoint that is not a symbol index is an [*EncodeError].
func MarshalPayload(p *Payload) ([]byte, error) {
	return appendPayload(nil, p)
}

// Minimum wire sizes, used to refuse counts the input cannot hold before
// allocating for them.
const (
	minSymbolSize = 1 + 1 + 4 + 1 + 1 + 1 + 16 // empty strings
	minEdgeSize   = 1 + 1 + 1 + 1
)

func appendPayload(dst []byte, p *Payload) ([]byte, error) {
	for i := range p.Symbols {
		s := &p.Symbols[i]
		switch {
		case !s.Kind.valid():
			return dst, &EncodeError{Path: "/symbols/" + strconv.Itoa(i) + "/kind", Err: ErrUnencodable, Detail: "kind " + strconv.Itoa(int(s.Kind)) + " is not 1-18"}
		case !s.Provenance.valid():
			return dst, &EncodeError{Path: "/symbols/" + strconv.Itoa(i) + "/provenance", Err: ErrUnencodable, Detail: "provenance " + strconv.Itoa(int(s.Provenance)) + " is not 1-7"}
		}
	}
	n := len(p.Symbols)
	for i := range p.Edges {
		e := &p.Edges[i]
		path := "/edges/" + strconv.Itoa(i)
		switch {
		case e.Source < 0 || e.Source >= n:
			return dst, &EncodeError{Path: path + "/source", Err: ErrUnencodable, Detail: "not a symbol index"}
		case e.Target < 0 || e.Target >= n:
			return dst, &EncodeError{Path: path + "/target", Err: ErrUnencodable, Detail: "not a symbol index"}
		case !e.Type.valid():
			return dst, &EncodeError{Path: path + "/type", Err: ErrUnencodable, Detail: "edge type " + strconv.Itoa(int(e.Type)) + " is not 1-38"}
		case !e.Status.valid():
			return dst, &EncodeError{Path: path + "/status", Err: ErrUnencodable, Detail: "status " + strconv.Itoa(int(e.Status)) + " is not 0-2"}
		}
	}
	dst = append(dst, Magic...)
	dst = append(dst, Version)
	dst = appendString(dst, p.Tool)
	dst = binary.AppendUvarint(dst, p.TokensUsed)
	dst = binary.AppendUvarint(dst, p.TokenBudget)
	dst = binary.AppendUvarint(dst, uint64(n))
	dst = binary.AppendUvarint(dst, uint64(len(p.Edges)))
	for i := range p.Symbols {
		s := &p.Symbols[i]
		dst = appendString(dst, s.QualifiedName)
		dst = append(dst, byte(s.Kind))
		dst = appendFloat32(dst, s.Score)
		dst = append(dst, byte(s.Provenance), s.Distance)
		dst = appendString(dst, s.Signature)
		dst = appendFloat32(dst, s.BlastRadius)
		dst = appendFloat32(dst, s.Confidence)
		dst = appendFloat32(dst, s.Recency)
		dst = appendFloat32(dst, s.DistanceC)
	}
	for i := range p.Edges {
		e := &p.Edges[i]
		dst = binary.AppendUvarint(dst, uint64(e.Source))
		dst = binary.AppendUvarint(dst, uint64(e.Target))
		dst = append(dst, byte(e.Type), byte(e.Status))
	}
	return dst, nil
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendFloat32(dst []byte, f float32) []byte {
	return binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
}

// UnmarshalPayload decodes one GCB1 payload strictly: the whole input, in
// shortest-form varints, every enum inside its table and every edge
// endpoint a symbol index. Errors are [*SyntaxError] with the byte offset.
func UnmarshalPayload(data []byte) (*Payload, error) {
	d := reader{data: data}
	return d.payload()
}

// reader is the decoder state: the input and the offset of the next byte.
type reader struct {
	data []byte
	off  int
	at   *offsets // when set, where the mapped fields start
}

func (d *reader) fail(at int, err error, msg string) error {
	return &SyntaxError{Offset: at, Err: err, Msg: msg}
}

func (d *reader) truncated(what string) error {
	return d.fail(len(d.data), ErrTruncated, "input ends in "+what)
}

func (d *reader) payload() (*Payload, error) {
	if len(d.data) < len(Magic) {
		if string(d.data) == Magic[:len(d.data)] {
			return nil, d.truncated("the magic")
		}
		return nil, d.fail(0, ErrMagic, "")
	}
	if string(d.data[:4]) != Magic {
		return nil, d.fail(0, ErrMagic, "")
	}
	d.off = 4
	v, err := d.byte("the version")
	if err != nil {
		return nil, err
	}
	if v != Version {
		return nil, d.fail(4, ErrVersion, "version "+strconv.Itoa(int(v))+", want 1")
	}
	p := &Payload{}
	if d.at != nil {
		d.at.tool = d.off
	}
	if p.Tool, err = d.string("the tool"); err != nil {
		return nil, err
	}
	if p.TokensUsed, err = d.uvarint("tokens_used"); err != nil {
		return nil, err
	}
	if p.TokenBudget, err = d.uvarint("token_budget"); err != nil {
		return nil, err
	}
	ns, err := d.count("the symbol count", minSymbolSize)
	if err != nil {
		return nil, err
	}
	ne, err := d.count("the edge count", minEdgeSize)
	if err != nil {
		return nil, err
	}
	// Symbols and edges together must fit in what is left.
	if left := len(d.data) - d.off; ns*minSymbolSize+ne*minEdgeSize > left {
		return nil, d.fail(len(d.data), ErrTruncated, strconv.Itoa(ns)+" symbols and "+strconv.Itoa(ne)+" edges need more than the "+strconv.Itoa(left)+" bytes left")
	}
	p.Symbols = make([]Symbol, ns)
	if d.at != nil {
		d.at.qname, d.at.signature, d.at.status = make([]int, ns), make([]int, ns), make([]int, ne)
	}
	for i := range p.Symbols {
		if err := d.symbol(&p.Symbols[i], i); err != nil {
			return nil, err
		}
	}
	p.Edges = make([]Edge, ne)
	for i := range p.Edges {
		if err := d.edge(&p.Edges[i], i, ns); err != nil {
			return nil, err
		}
	}
	if d.off != len(d.data) {
		return nil, d.fail(d.off, ErrTrailing, strconv.Itoa(len(d.data)-d.off)+" bytes after the last edge")
	}
	return p, nil
}

func (d *reader) symbol(s *Symbol, i int) error {
	what := "symbol " + strconv.Itoa(i) + " "
	var err error
	if d.at != nil {
		d.at.qname[i] = d.off
	}
	if s.QualifiedName, err = d.string(what + "qname"); err != nil {
		return err
	}
	at := d.off
	k, err := d.byte(what + "kind")
	if err != nil {
		return err
	}
	if s.Kind = Kind(k); !s.Kind.valid() {
		return d.fail(at, ErrEnum, what+"kind "+strconv.Itoa(int(k))+" is not 1-18")
	}
	if s.Score, err = d.float32(what + "score"); err != nil {
		return err
	}
	at = d.off
	pv, err := d.byte(what + "provenance")
	if err != nil {
		return err
	}
	if s.Provenance = Provenance(pv); !s.Provenance.valid() {
		return d.fail(at, ErrEnum, what+"provenance "+strconv.Itoa(int(pv))+" is not 1-7")
	}
	if s.Distance, err = d.byte(what + "distance"); err != nil {
		return err
	}
	if d.at != nil {
		d.at.signature[i] = d.off
	}
	if s.Signature, err = d.string(what + "signature"); err != nil {
		return err
	}
	for _, f := range [...]*float32{&s.BlastRadius, &s.Confidence, &s.Recency, &s.DistanceC} {
		if *f, err = d.float32(what + "components"); err != nil {
			return err
		}
	}
	return nil
}

func (d *reader) edge(e *Edge, i, ns int) error {
	what := "edge " + strconv.Itoa(i) + " "
	for _, end := range [...]struct {
		dst  *int
		name string
	}{{&e.Source, "source"}, {&e.Target, "target"}} {
		at := d.off
		v, err := d.uvarint(what + end.name)
		if err != nil {
			return err
		}
		if v >= uint64(ns) {
			return d.fail(at, ErrIndex, what+end.name+" "+strconv.FormatUint(v, 10)+" with "+strconv.Itoa(ns)+" symbols")
		}
		*end.dst = int(v)
	}
	at := d.off
	t, err := d.byte(what + "type")
	if err != nil {
		return err
	}
	if e.Type = EdgeType(t); !e.Type.valid() {
		return d.fail(at, ErrEnum, what+"type "+strconv.Itoa(int(t))+" is not 1-38")
	}
	at = d.off
	if d.at != nil {
		d.at.status[i] = at
	}
	st, err := d.byte(what + "status")
	if err != nil {
		return err
	}
	if e.Status = Status(st); !e.Status.valid() {
		return d.fail(at, ErrEnum, what+"status "+strconv.Itoa(int(st))+" is not 0-2")
	}
	return nil
}

func (d *reader) byte(what string) (byte, error) {
	if d.off >= len(d.data) {
		return 0, d.truncated(what)
	}
	b := d.data[d.off]
	d.off++
	return b, nil
}

func (d *reader) float32(what string) (float32, error) {
	if len(d.data)-d.off < 4 {
		return 0, d.truncated(what)
	}
	f := math.Float32frombits(binary.LittleEndian.Uint32(d.data[d.off:]))
	d.off += 4
	return f, nil
}

// uvarint reads an unsigned LEB128 varint in its shortest form.
func (d *reader) uvarint(what string) (uint64, error) {
	start := d.off
	var v uint64
	for i := 0; ; i++ {
		if d.off >= len(d.data) {
			return 0, d.truncated(what)
		}
		b := d.data[d.off]
		d.off++
		if i == 9 && b > 1 {
			return 0, d.fail(start, ErrVarint, what+" overflows 64 bits")
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			if b == 0 && i > 0 {
				return 0, d.fail(start, ErrVarint, what+" is not in its shortest form")
			}
			return v, nil
		}
	}
}

// count reads a symbol or edge count, which must be an int the rest of
// the input could hold at size bytes per item.
func (d *reader) count(what string, size int) (int, error) {
	at := d.off
	v, err := d.uvarint(what)
	if err != nil {
		return 0, err
	}
	if hi, lo := bits.Mul64(v, uint64(size)); hi != 0 || lo > uint64(len(d.data)) {
		return 0, d.fail(len(d.data), ErrTruncated, what+" "+strconv.FormatUint(v, 10)+" at offset "+strconv.Itoa(at)+" exceeds the input")
	}
	return int(v), nil
}

func (d *reader) string(what string) (string, error) {
	at := d.off
	n, err := d.uvarint(what + " length")
	if err != nil {
		return "", err
	}
	if n > uint64(len(d.data)-d.off) {
		return "", d.fail(len(d.data), ErrTruncated, what+" of "+strconv.FormatUint(n, 10)+" bytes at offset "+strconv.Itoa(at)+" runs past the input")
	}
	s := string(d.data[d.off : d.off+int(n)])
	d.off += int(n)
	return s, nil
}
