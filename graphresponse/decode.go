package graphresponse

import (
	"io"
	"math"
	"strconv"

	"github.com/graphwire/graphwire/internal/jsonread"
)

// maxDepth bounds the nesting of arrays and objects in property values.
const maxDepth = 512

// Unmarshal decodes one raw JSON GraphResponse (specs/goon.md §2.6).
//
// It keeps integer versus float (a literal with '.', 'e' or 'E' is a float,
// "-0" too; other literals are int64, then uint64, then float64 when they fit
// neither), absent versus empty for every optional section and field, and
// member order of rows and nested objects. Ids must be decimal int64 strings.
// Unknown keys, duplicate keys, wrong types and trailing data are errors; every
// error is a [*SyntaxError] naming the JSON Pointer, line and column.
func Unmarshal(data []byte) (*Response, error) {
	p := newParser(data)
	r, err := p.response()
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Decode reads all of rd and decodes it with [Unmarshal]. Read errors are
// returned unchanged.
func Decode(rd io.Reader) (*Response, error) {
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, err
	}
	return Unmarshal(data)
}

// UnmarshalValue decodes any JSON document into a [Value], keeping member
// order and integer versus float. Errors are [*SyntaxError].
func UnmarshalValue(data []byte) (Value, error) {
	p := newParser(data)
	p.r.SkipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	if err := p.r.End(); err != nil {
		return Value{}, err
	}
	return v, nil
}

// parser is the schema-directed reader of a raw GraphResponse, on top of
// the shared strict reader (internal/jsonread). The JSON layer reports
// through errorf, so every error is a *SyntaxError with this package's
// sentinels, pointer and position.
type parser struct {
	r    *jsonread.Reader
	data []byte
}

func newParser(data []byte) *parser {
	p := &parser{data: data}
	p.r = jsonread.New(data, jsonread.Options{Errorf: p.errorf})
	return p
}

// errorf maps the reader's error kinds onto this package's sentinels.
func (p *parser) errorf(f jsonread.Fault) error {
	sentinel := ErrSyntax
	switch f.Kind {
	case jsonread.KindDuplicateKey:
		sentinel = ErrDuplicateKey
	case jsonread.KindType:
		sentinel = ErrType
	case jsonread.KindTooDeep:
		sentinel = ErrTooDeep
	}
	return p.errAt(f.Offset, sentinel, f.Detail)
}

func (p *parser) errAt(pos int, sentinel error, detail string) *SyntaxError {
	line, col := jsonread.Position(p.data, pos)
	return &SyntaxError{Pointer: p.r.Pointer(), Line: line, Column: col, Err: sentinel, Detail: detail}
}

// pos is the offset of the next unread byte.
func (p *parser) pos() int { return p.r.Offset() }

// at reports whether the next byte is c.
func (p *parser) at(c byte) bool {
	b, ok := p.r.Peek()
	return ok && b == c
}

// number parses a JSON number literal and classifies it (§2.6).
func (p *parser) number() (Value, error) {
	start := p.pos()
	b, isFloat, err := p.r.Number()
	if err != nil {
		return Value{}, err
	}
	lit := string(b)
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

func (p *parser) literal(word string, v Value) (Value, error) {
	if err := p.r.Literal(word); err != nil {
		return Value{}, err
	}
	return v, nil
}

// value parses any JSON value.
func (p *parser) value(depth int) (Value, error) {
	c, ok := p.r.Peek()
	if !ok {
		return Value{}, p.r.Unexpected(jsonread.WantValue)
	}
	switch {
	case c == '"':
		s, err := p.r.String()
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
		if depth >= maxDepth {
			return Value{}, p.r.Fail(jsonread.KindTooDeep, p.pos(), "more than "+strconv.Itoa(maxDepth)+" levels")
		}
		if c == '[' {
			elems := []Value{}
			err := p.r.Array(func(int) error {
				v, err := p.value(depth + 1)
				elems = append(elems, v)
				return err
			})
			return Array(elems...), err
		}
		ms := []Member{}
		err := p.r.Object(func(key string, _ int) error {
			v, err := p.value(depth + 1)
			ms = append(ms, Member{Key: key, Value: v})
			return err
		})
		return Object(ms...), err
	}
	return Value{}, p.r.Unexpected(jsonread.WantValue)
}

func (p *parser) stringField() (string, error) {
	if !p.at('"') {
		return "", p.r.WrongType("want a string")
	}
	return p.r.String()
}

// ident parses a required non-empty string.
func (p *parser) ident() (string, error) {
	pos := p.pos()
	s, err := p.stringField()
	if err == nil && s == "" {
		err = p.errAt(pos, ErrInvalidValue, "must not be empty")
	}
	return s, err
}

func (p *parser) boolField() (bool, error) {
	switch c, _ := p.r.Peek(); c {
	case 't':
		return true, p.r.Literal("true")
	case 'f':
		return false, p.r.Literal("false")
	}
	return false, p.r.WrongType("want a boolean")
}

// id parses a decimal int64 held in a JSON string.
func (p *parser) id() (int64, error) {
	pos := p.pos()
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
func (p *parser) optInt(min int64) (OptInt, error) {
	pos := p.pos()
	var v Value // a composite stays null: the wrong value, not one to read
	if !p.at('[') && !p.at('{') {
		var err error
		if v, err = p.value(0); err != nil {
			return OptInt{}, err
		}
	}
	if v.Kind() != KindInt || v.Int() < min {
		return OptInt{}, p.errAt(pos, ErrInvalidValue, "want an integer ≥ "+strconv.FormatInt(min, 10))
	}
	return Some(v.Int()), nil
}

func (p *parser) unknown(key string, keyPos int, known string) error {
	return p.errAt(keyPos, ErrUnknownKey, strconv.Quote(key)+" (known keys: "+known+")")
}

func (p *parser) response() (*Response, error) {
	p.r.SkipSpace()
	start := p.pos()
	r := &Response{}
	var have [4]bool // format_version, query_type, nodes, edges
	err := p.r.Object(func(key string, keyPos int) error {
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
			err = p.r.Array(func(int) error {
				n, err := p.node()
				r.Nodes = append(r.Nodes, n)
				return err
			})
		case "edges":
			have[3] = true
			r.Edges = []Edge{}
			err = p.r.Array(func(int) error {
				e, err := p.edge()
				r.Edges = append(r.Edges, e)
				return err
			})
		case "columns":
			r.Columns = []Column{}
			err = p.r.Array(func(int) error {
				c, err := p.column()
				r.Columns = append(r.Columns, c)
				return err
			})
		case "group_columns":
			r.GroupColumns = []GroupColumn{}
			err = p.r.Array(func(int) error {
				g, err := p.groupColumn()
				r.GroupColumns = append(r.GroupColumns, g)
				return err
			})
		case "rows":
			r.Rows = []Row{}
			err = p.r.Array(func(int) error {
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
	if err := p.r.End(); err != nil {
		return nil, err
	}
	return r, nil
}

func (p *parser) node() (Node, error) {
	start := p.pos()
	var n Node
	var hasType, hasID bool
	err := p.r.Object(func(key string, _ int) error {
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

func (p *parser) edge() (Edge, error) {
	start := p.pos()
	var e Edge
	var have [5]bool
	err := p.r.Object(func(key string, keyPos int) error {
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

func (p *parser) column() (Column, error) {
	start := p.pos()
	var c Column
	var have [3]bool
	err := p.r.Object(func(key string, keyPos int) error {
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

func (p *parser) groupColumn() (GroupColumn, error) {
	start := p.pos()
	var g GroupColumn
	var have [3]bool
	err := p.r.Object(func(key string, keyPos int) error {
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

func (p *parser) row() (Row, error) {
	row := Row{}
	err := p.r.Object(func(key string, _ int) error {
		v, err := p.value(0)
		row = append(row, Member{Key: key, Value: v})
		return err
	})
	return row, err
}

func (p *parser) pagination() (*Pagination, error) {
	start := p.pos()
	pg := &Pagination{}
	var have [2]bool
	err := p.r.Object(func(key string, keyPos int) error {
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
