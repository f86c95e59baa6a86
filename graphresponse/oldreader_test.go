package graphresponse

// This file keeps the reader as it was before it moved onto internal/jsonread,
// as the oracle of FuzzReaderMigration. It goes once the migration is merged.

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// oldMaxDepth bounds the nesting of arrays and objects in property values.
const oldMaxDepth = 512

// oldUnmarshal decodes one raw JSON GraphResponse (specs/goon.md §2.6).
//
// It keeps integer versus float (a literal with '.', 'e' or 'E' is a float,
// "-0" too; other literals are int64, then uint64, then float64 when they fit
// neither), absent versus empty for every optional section and field, and
// member order of rows and nested objects. Ids must be decimal int64 strings.
// Unknown keys, duplicate keys, wrong types and trailing data are errors; every
// error is a [*SyntaxError] naming the JSON Pointer, line and column.
func oldUnmarshal(data []byte) (*Response, error) {
	p := &oldParser{data: data}
	r, err := p.response()
	if err != nil {
		return nil, err
	}
	return r, nil
}

// oldUnmarshalValue decodes any JSON document into a [Value], keeping member
// order and integer versus float. Errors are [*SyntaxError].
func oldUnmarshalValue(data []byte) (Value, error) {
	p := &oldParser{data: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if err := p.end(); err != nil {
		return Value{}, err
	}
	return v, nil
}

type oldParser struct {
	data []byte
	pos  int
	path []string
}

func (p *oldParser) errAt(pos int, sentinel error, detail string) *SyntaxError {
	line := 1 + bytes.Count(p.data[:pos], []byte{'\n'})
	col := pos - bytes.LastIndexByte(p.data[:pos], '\n')
	return &SyntaxError{Pointer: p.pointer(), Line: line, Column: col, Err: sentinel, Detail: detail}
}

func (p *oldParser) pointer() string {
	if len(p.path) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range p.path {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

func (p *oldParser) push(tok string) { p.path = append(p.path, tok) }
func (p *oldParser) pop()            { p.path = p.path[:len(p.path)-1] }

func (p *oldParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *oldParser) end() error {
	p.ws()
	if p.pos != len(p.data) {
		return p.errAt(p.pos, ErrSyntax, "unexpected data after the document")
	}
	return nil
}

func (p *oldParser) unexpected() error {
	if p.pos >= len(p.data) {
		return p.errAt(p.pos, ErrSyntax, "unexpected end of input")
	}
	return p.errAt(p.pos, ErrSyntax, "unexpected character "+strconv.QuoteRune(rune(p.data[p.pos])))
}

// object parses an object, calling member for each key with the oldParser
// positioned at the value; member must consume the value. Duplicate keys are
// rejected.
func (p *oldParser) object(member func(key string, keyPos int) error) error {
	if p.pos >= len(p.data) || p.data[p.pos] != '{' {
		return p.wrongType("want an object")
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	var seen map[string]struct{}
	var first [8]string
	n := 0
	for {
		p.ws()
		keyPos := p.pos
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return p.unexpected()
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		dup := false
		if seen != nil {
			_, dup = seen[key]
			seen[key] = struct{}{}
		} else {
			for _, k := range first[:n] {
				dup = dup || k == key
			}
			if n < len(first) {
				first[n] = key
				n++
			} else {
				seen = make(map[string]struct{}, 16)
				for _, k := range first {
					seen[k] = struct{}{}
				}
				seen[key] = struct{}{}
			}
		}
		if dup {
			p.push(key)
			e := p.errAt(keyPos, ErrDuplicateKey, strconv.Quote(key))
			p.pop()
			return e
		}
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return p.unexpected()
		}
		p.pos++
		p.ws()
		p.push(key)
		if err := member(key, keyPos); err != nil {
			return err
		}
		p.pop()
		p.ws()
		if p.pos >= len(p.data) {
			return p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return nil
		default:
			return p.unexpected()
		}
	}
}

// array parses an array, calling elem for each element with the oldParser
// positioned at it.
func (p *oldParser) array(elem func(i int) error) error {
	if p.pos >= len(p.data) || p.data[p.pos] != '[' {
		return p.wrongType("want an array")
	}
	p.pos++
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for i := 0; ; i++ {
		p.ws()
		p.push(strconv.Itoa(i))
		if err := elem(i); err != nil {
			return err
		}
		p.pop()
		p.ws()
		if p.pos >= len(p.data) {
			return p.unexpected()
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return nil
		default:
			return p.unexpected()
		}
	}
}

// str parses a JSON string at p.pos.
func (p *oldParser) str() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	// Fast path: no escapes.
	i := p.pos
	for i < len(p.data) {
		c := p.data[i]
		if c == '"' {
			s := p.data[p.pos:i]
			if !utf8.Valid(s) {
				break
			}
			p.pos = i + 1
			return string(s), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	var b []byte
	b = append(b, p.data[p.pos:i]...)
	p.pos = i
	for {
		if p.pos >= len(p.data) {
			return "", p.errAt(start, ErrSyntax, "unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(b), nil
		case c < 0x20:
			return "", p.errAt(p.pos, ErrSyntax, "control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errAt(start, ErrSyntax, "unterminated string")
			}
			esc := p.data[p.pos+1]
			p.pos += 2
			switch esc {
			case '"', '\\', '/':
				b = append(b, esc)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", p.errAt(p.pos-2, ErrSyntax, "invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
						save := p.pos
						p.pos += 2
						var ok2 bool
						r2, ok2 = p.hex4()
						if !ok2 {
							return "", p.errAt(save, ErrSyntax, "invalid \\u escape")
						}
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
						p.pos = save
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", p.errAt(p.pos-2, ErrSyntax, "invalid escape \\"+string(rune(esc)))
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			p.pos++
		default:
			r, size := utf8.DecodeRune(p.data[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return "", p.errAt(p.pos, ErrSyntax, "invalid UTF-8")
			}
			b = append(b, p.data[p.pos:p.pos+size]...)
			p.pos += size
		}
	}
}

func (p *oldParser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

// number parses a JSON number literal and classifies it (§2.6).
func (p *oldParser) number() (Value, error) {
	start := p.pos
	i := p.pos
	d := p.data
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && '1' <= d[i] && d[i] <= '9':
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return Value{}, p.unexpected()
	}
	isFloat := false
	if i < len(d) && d[i] == '.' {
		isFloat = true
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return Value{}, p.errAt(start, ErrSyntax, "digit expected after decimal point")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		isFloat = true
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			return Value{}, p.errAt(start, ErrSyntax, "digit expected in exponent")
		}
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
	}
	lit := string(d[start:i])
	p.pos = i
	if !isFloat && lit != "-0" {
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil {
			return Int(n), nil
		}
		if n, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return Uint(n), nil
		}
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		return Value{}, p.errAt(start, ErrSyntax, "invalid number "+lit)
	}
	if math.IsInf(f, 0) {
		return Value{}, p.errAt(start, ErrInvalidValue, "number "+lit+" is out of the float64 range")
	}
	return Float(f), nil
}

func (p *oldParser) literal(word string, v Value) (Value, error) {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return v, nil
	}
	return Value{}, p.unexpected()
}

// value parses any JSON value.
func (p *oldParser) value(depth int) (Value, error) {
	if p.pos >= len(p.data) {
		return Value{}, p.unexpected()
	}
	switch c := p.data[p.pos]; {
	case c == '"':
		s, err := p.str()
		return String(s), err
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", Bool(true))
	case c == 'f':
		return p.literal("false", Bool(false))
	case c == 'n':
		return p.literal("null", Null())
	case c == '[' || c == '{':
		if depth >= oldMaxDepth {
			return Value{}, p.errAt(p.pos, ErrTooDeep, "more than "+strconv.Itoa(oldMaxDepth)+" levels")
		}
		if c == '[' {
			elems := []Value{}
			err := p.array(func(int) error {
				v, err := p.value(depth + 1)
				elems = append(elems, v)
				return err
			})
			return Array(elems...), err
		}
		ms := []Member{}
		err := p.object(func(key string, _ int) error {
			v, err := p.value(depth + 1)
			ms = append(ms, Member{Key: key, Value: v})
			return err
		})
		return Object(ms...), err
	}
	return Value{}, p.unexpected()
}

// wrongType reports a value of the wrong JSON type, or malformed JSON when
// no value starts here.
func (p *oldParser) wrongType(detail string) error {
	if p.pos < len(p.data) && strings.IndexByte(`{["tfn-0123456789`, p.data[p.pos]) >= 0 {
		return p.errAt(p.pos, ErrType, detail)
	}
	return p.unexpected()
}

func (p *oldParser) stringField() (string, error) {
	if p.pos >= len(p.data) || p.data[p.pos] != '"' {
		return "", p.wrongType("want a string")
	}
	return p.str()
}

// ident parses a required non-empty string.
func (p *oldParser) ident() (string, error) {
	pos := p.pos
	s, err := p.stringField()
	if err == nil && s == "" {
		err = p.errAt(pos, ErrInvalidValue, "must not be empty")
	}
	return s, err
}

func (p *oldParser) boolField() (bool, error) {
	v, err := p.value(oldMaxDepth)
	if err != nil {
		return false, err
	}
	if v.Kind() != KindBool {
		return false, p.errAt(p.pos, ErrType, "want a boolean")
	}
	return v.Bool(), nil
}

// id parses a decimal int64 held in a JSON string.
func (p *oldParser) id() (int64, error) {
	pos := p.pos
	s, err := p.stringField()
	if err != nil {
		return 0, err
	}
	n, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		return 0, p.errAt(pos, ErrInvalidID, strconv.Quote(s)+" is not a decimal int64")
	}
	return n, nil
}

// optInt parses a non-negative integer edge field. min is the smallest
// allowed value.
func (p *oldParser) optInt(min int64) (OptInt, error) {
	pos := p.pos
	v, err := p.value(oldMaxDepth)
	if err != nil {
		return OptInt{}, err
	}
	if v.Kind() != KindInt || v.Int() < min {
		return OptInt{}, p.errAt(pos, ErrInvalidValue, "want an integer ≥ "+strconv.FormatInt(min, 10))
	}
	return Some(v.Int()), nil
}

func (p *oldParser) unknown(key string, keyPos int, known string) error {
	return p.errAt(keyPos, ErrUnknownKey, strconv.Quote(key)+" (known keys: "+known+")")
}

func (p *oldParser) response() (*Response, error) {
	p.ws()
	start := p.pos
	r := &Response{}
	var have [4]bool // format_version, query_type, nodes, edges
	err := p.object(func(key string, keyPos int) error {
		var err error
		switch key {
		case "format_version":
			have[0] = true
			r.FormatVersion, err = p.stringField()
		case "query_type":
			have[1] = true
			r.QueryType, err = p.stringField()
		case "nodes":
			have[2] = true
			r.Nodes = []Node{}
			err = p.array(func(int) error {
				n, err := p.node()
				r.Nodes = append(r.Nodes, n)
				return err
			})
		case "edges":
			have[3] = true
			r.Edges = []Edge{}
			err = p.array(func(int) error {
				e, err := p.edge()
				r.Edges = append(r.Edges, e)
				return err
			})
		case "columns":
			r.Columns = []Column{}
			err = p.array(func(int) error {
				c, err := p.column()
				r.Columns = append(r.Columns, c)
				return err
			})
		case "group_columns":
			r.GroupColumns = []GroupColumn{}
			err = p.array(func(int) error {
				g, err := p.groupColumn()
				r.GroupColumns = append(r.GroupColumns, g)
				return err
			})
		case "rows":
			r.Rows = []Row{}
			err = p.array(func(int) error {
				row, err := p.row()
				r.Rows = append(r.Rows, row)
				return err
			})
		case "pagination":
			r.Pagination, err = p.pagination()
		default:
			err = p.unknown(key, keyPos, "format_version, query_type, nodes, edges, columns, group_columns, rows, pagination")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, name := range []string{"format_version", "query_type", "nodes", "edges"} {
		if !have[i] {
			return nil, p.errAt(start, ErrMissingKey, strconv.Quote(name))
		}
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return r, nil
}

func (p *oldParser) node() (Node, error) {
	start := p.pos
	var n Node
	var hasType, hasID bool
	err := p.object(func(key string, _ int) error {
		var err error
		switch key {
		case "type":
			hasType = true
			n.Type, err = p.ident()
		case "id":
			hasID = true
			n.ID, err = p.id()
		default:
			var v Value
			v, err = p.value(0)
			n.Props = append(n.Props, Member{Key: key, Value: v})
		}
		return err
	})
	if err == nil && (!hasType || !hasID) {
		err = p.errAt(start, ErrMissingKey, `a node needs "type" and "id"`)
	}
	return n, err
}

func (p *oldParser) edge() (Edge, error) {
	start := p.pos
	var e Edge
	var have [5]bool
	err := p.object(func(key string, keyPos int) error {
		var err error
		switch key {
		case "from":
			have[0] = true
			e.From, err = p.ident()
		case "from_id":
			have[1] = true
			e.FromID, err = p.id()
		case "to":
			have[2] = true
			e.To, err = p.ident()
		case "to_id":
			have[3] = true
			e.ToID, err = p.id()
		case "type":
			have[4] = true
			e.Type, err = p.ident()
		case "depth":
			e.Depth, err = p.optInt(1)
		case "path_id":
			e.PathID, err = p.optInt(0)
		case "step":
			e.Step, err = p.optInt(0)
		default:
			err = p.unknown(key, keyPos, "from, from_id, to, to_id, type, depth, path_id, step")
		}
		return err
	})
	if err == nil && have != [5]bool{true, true, true, true, true} {
		err = p.errAt(start, ErrMissingKey, `an edge needs "from", "from_id", "to", "to_id" and "type"`)
	}
	return e, err
}

func (p *oldParser) column() (Column, error) {
	start := p.pos
	var c Column
	var have [3]bool
	err := p.object(func(key string, keyPos int) error {
		var err error
		switch key {
		case "name":
			have[0] = true
			c.Name, err = p.ident()
		case "function":
			have[1] = true
			c.Function, err = p.ident()
		case "target":
			have[2] = true
			c.Target, err = p.ident()
		case "property":
			c.Property, err = p.ident()
		default:
			err = p.unknown(key, keyPos, "name, function, target, property")
		}
		return err
	})
	if err == nil && have != [3]bool{true, true, true} {
		err = p.errAt(start, ErrMissingKey, `a column needs "name", "function" and "target"`)
	}
	return c, err
}

func (p *oldParser) groupColumn() (GroupColumn, error) {
	start := p.pos
	var g GroupColumn
	var have [3]bool
	err := p.object(func(key string, keyPos int) error {
		var err error
		switch key {
		case "name":
			have[0] = true
			g.Name, err = p.ident()
		case "kind":
			have[1] = true
			g.Kind, err = p.ident()
		case "node":
			have[2] = true
			g.Node, err = p.ident()
		case "property":
			g.Property, err = p.ident()
		case "entity":
			g.Entity, err = p.ident()
		default:
			err = p.unknown(key, keyPos, "name, kind, node, property, entity")
		}
		return err
	})
	if err == nil && have != [3]bool{true, true, true} {
		err = p.errAt(start, ErrMissingKey, `a group column needs "name", "kind" and "node"`)
	}
	return g, err
}

func (p *oldParser) row() (Row, error) {
	row := Row{}
	err := p.object(func(key string, _ int) error {
		v, err := p.value(0)
		row = append(row, Member{Key: key, Value: v})
		return err
	})
	return row, err
}

func (p *oldParser) pagination() (*Pagination, error) {
	start := p.pos
	pg := &Pagination{}
	var have [2]bool
	err := p.object(func(key string, keyPos int) error {
		var err error
		switch key {
		case "has_more":
			have[0] = true
			pg.HasMore, err = p.boolField()
		case "truncated":
			have[1] = true
			pg.Truncated, err = p.boolField()
		case "next_cursor":
			var s string
			s, err = p.stringField()
			pg.NextCursor = &s
		default:
			err = p.unknown(key, keyPos, "has_more, truncated, next_cursor")
		}
		return err
	})
	if err == nil && have != [2]bool{true, true} {
		err = p.errAt(start, ErrMissingKey, `pagination needs "has_more" and "truncated"`)
	}
	return pg, err
}
