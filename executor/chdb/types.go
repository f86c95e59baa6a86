package chdb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errType is wrapped by errors about a ClickHouse type outside the value model.
var errType = errors.New("unsupported ClickHouse type")

type kind int

const (
	kInt kind = iota
	kUint
	kFloat
	kBool
	kString
	kFixedString
	kDate
	kDate32
	kDateTime
	kDateTime64
	kNullable
	kArray
	kTuple
	kEnum
	kNothing
	kUUID
)

// chType is a parsed ClickHouse type: enough to read and write RowBinary.
type chType struct {
	kind   kind
	size   int // bytes of ints, floats, FixedString and Enum
	prec   int // DateTime64 precision
	elem   *chType
	fields []*chType
	enum   map[int64]string // Enum value → label
	labels map[string]int64 // Enum label → value
}

// parseType parses the type strings ClickHouse writes in RowBinaryWithNamesAndTypes headers.
func parseType(s string) (*chType, error) {
	p := typeParser{s: s}
	t, err := p.parse()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, fmt.Errorf("%w: %q: trailing text", errType, s)
	}
	return t, nil
}

type typeParser struct {
	s string
	i int
}

func (p *typeParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *typeParser) ident() string {
	p.space()
	j := p.i
	for p.i < len(p.s) && (isIdent(p.s[p.i])) {
		p.i++
	}
	return p.s[j:p.i]
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (p *typeParser) eat(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// rawArgs returns the text between the parentheses that follow, with nesting and quotes honoured.
func (p *typeParser) rawArgs() (string, error) {
	if !p.eat('(') {
		return "", nil
	}
	start, depth, quoted := p.i, 1, false
	for ; p.i < len(p.s); p.i++ {
		c := p.s[p.i]
		switch {
		case quoted && c == '\\':
			p.i++
		case c == '\'':
			quoted = !quoted
		case quoted:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				arg := p.s[start:p.i]
				p.i++
				return arg, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %q: unbalanced parentheses", errType, p.s)
}

func (p *typeParser) parse() (*chType, error) {
	name := p.ident()
	switch name {
	case "Int8", "Int16", "Int32", "Int64":
		n, _ := strconv.Atoi(name[3:])
		return &chType{kind: kInt, size: n / 8}, nil
	case "UInt8", "UInt16", "UInt32", "UInt64":
		n, _ := strconv.Atoi(name[4:])
		return &chType{kind: kUint, size: n / 8}, nil
	case "Float32":
		return &chType{kind: kFloat, size: 4}, nil
	case "Float64":
		return &chType{kind: kFloat, size: 8}, nil
	case "Bool":
		return &chType{kind: kBool, size: 1}, nil
	case "String":
		return &chType{kind: kString}, nil
	case "UUID":
		return &chType{kind: kUUID, size: 16}, nil
	case "Nothing":
		return &chType{kind: kNothing}, nil
	case "Date":
		return &chType{kind: kDate}, nil
	case "Date32":
		return &chType{kind: kDate32}, nil
	case "FixedString":
		arg, err := p.rawArgs()
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil {
			return nil, fmt.Errorf("%w: FixedString(%s)", errType, arg)
		}
		return &chType{kind: kFixedString, size: n}, nil
	case "DateTime":
		if _, err := p.rawArgs(); err != nil { // optional time zone; values are UTC instants
			return nil, err
		}
		return &chType{kind: kDateTime}, nil
	case "DateTime64":
		arg, err := p.rawArgs()
		if err != nil {
			return nil, err
		}
		ps, _, _ := strings.Cut(arg, ",")
		prec, err := strconv.Atoi(strings.TrimSpace(ps))
		if err != nil || prec < 0 || prec > 9 {
			return nil, fmt.Errorf("%w: DateTime64(%s)", errType, arg)
		}
		return &chType{kind: kDateTime64, prec: prec}, nil
	case "Enum8", "Enum16":
		arg, err := p.rawArgs()
		if err != nil {
			return nil, err
		}
		t := &chType{kind: kEnum, size: 1, enum: map[int64]string{}, labels: map[string]int64{}}
		if name == "Enum16" {
			t.size = 2
		}
		if err := parseEnum(arg, t); err != nil {
			return nil, err
		}
		return t, nil
	case "Nullable", "LowCardinality", "Array":
		if !p.eat('(') {
			return nil, fmt.Errorf("%w: %s without argument", errType, name)
		}
		inner, err := p.parse()
		if err != nil {
			return nil, err
		}
		if !p.eat(')') {
			return nil, fmt.Errorf("%w: %q: expected )", errType, p.s)
		}
		switch name {
		case "Nullable":
			return &chType{kind: kNullable, elem: inner}, nil
		case "Array":
			return &chType{kind: kArray, elem: inner}, nil
		}
		return inner, nil // LowCardinality(T) is written as T in RowBinary
	case "Tuple":
		if !p.eat('(') {
			return nil, fmt.Errorf("%w: Tuple without argument", errType)
		}
		t := &chType{kind: kTuple}
		for {
			// A named tuple writes "name Type"; skip the name when two identifiers follow.
			save := p.i
			id := p.ident()
			p.space()
			if id != "" && p.i < len(p.s) && isIdent(p.s[p.i]) {
				// id was a field name
			} else {
				p.i = save
			}
			f, err := p.parse()
			if err != nil {
				return nil, err
			}
			t.fields = append(t.fields, f)
			if p.eat(',') {
				continue
			}
			if p.eat(')') {
				return t, nil
			}
			return nil, fmt.Errorf("%w: %q: expected , or )", errType, p.s)
		}
	}
	return nil, fmt.Errorf("%w: %q", errType, p.s)
}

// parseEnum reads "'a' = 1, 'b' = 2".
func parseEnum(arg string, t *chType) error {
	s := strings.TrimSpace(arg)
	for s != "" {
		if s[0] != '\'' {
			return fmt.Errorf("%w: enum %q", errType, arg)
		}
		var label strings.Builder
		i := 1
		for ; i < len(s) && s[i] != '\''; i++ {
			if s[i] == '\\' && i+1 < len(s) {
				i++
			}
			label.WriteByte(s[i])
		}
		rest := strings.TrimSpace(s[min(i+1, len(s)):])
		rest, ok := strings.CutPrefix(rest, "=")
		if !ok {
			return fmt.Errorf("%w: enum %q", errType, arg)
		}
		num, after, _ := strings.Cut(rest, ",")
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil {
			return fmt.Errorf("%w: enum %q", errType, arg)
		}
		t.enum[n] = label.String()
		t.labels[label.String()] = n
		s = strings.TrimSpace(after)
	}
	return nil
}
