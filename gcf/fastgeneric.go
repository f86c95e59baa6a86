package gcf

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
)

// fastGenericResponse decodes the canonical `gcf` layout of a traversal-like
// response (§3.2.2: query_type, mapping_version, pagination, node tables,
// edges and paths tables, scalar cells only) straight into a response. It
// reports ok false for anything else, valid or not; the caller then runs the
// strict decoder and the §3.2.5 mapping, which give the same result or the
// precise error (FuzzFastGeneric checks this).
func fastGenericResponse(src string, lim Limits) (*graphresponse.Response, bool) {
	if len(src) > lim.MaxInputSize || !strings.HasSuffix(src, "\n") ||
		strings.ContainsAny(src, "\r\t") || !utf8.ValidString(src) {
		return nil, false
	}
	nl := strings.IndexByte(src, '\n')
	header := src[:nl]
	if header != "GCF profile=generic" {
		tool, ok := strings.CutPrefix(header, "GCF profile=generic tool=")
		if !ok || !isToken(tool) {
			return nil, false
		}
	}
	p := fastParser{src: src[nl+1:], lim: lim}
	r := &graphresponse.Response{FormatVersion: config.RawVersion()}
	qt, ok := p.member("query_type")
	if s, isStr := qt.(string); !ok || !isStr {
		return nil, false
	} else {
		r.QueryType = s
	}
	mv, ok := p.member("mapping_version")
	if s, isStr := mv.(string); !ok || !isStr || !strings.HasPrefix(s, "1.") {
		return nil, false
	}
	if p.peek() == "## pagination" {
		p.next()
		hm, ok1 := p.member("  has_more")
		tr, ok2 := p.member("  truncated")
		hb, ok3 := hm.(bool)
		tb, ok4 := tr.(bool)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, false
		}
		pg := &graphresponse.Pagination{HasMore: hb, Truncated: tb}
		if strings.HasPrefix(p.peek(), "  next_cursor=") {
			c, ok := p.member("  next_cursor")
			cs, isStr := c.(string)
			if !ok || !isStr {
				return nil, false
			}
			pg.NextCursor = &cs
		}
		r.Pagination = pg
	}
	lines := strings.Count(p.src, "\n")
	r.Nodes = make([]graphresponse.Node, 0, lines)
	r.Edges = make([]graphresponse.Edge, 0, lines)
	var types []string
	section := 0 // 0 node tables, 1 after edges, 2 after paths
	for p.src != "" {
		name, b, ok := p.tableHeader()
		if !ok {
			return nil, false
		}
		switch {
		case name == "edges" && section == 0, name == "paths" && section < 2:
			if name == "edges" {
				section = 1
			} else {
				section = 2
			}
			if !p.edgeRows(r, b, name == "paths") {
				return nil, false
			}
		case section == 0 && !isReserved(name):
			for _, t := range types {
				if t == name {
					return nil, false
				}
			}
			types = append(types, name)
			if !p.nodeRows(r, name, b) {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return r, true
}

type fastParser struct {
	src   string
	lim   Limits
	parts []string
	offs  []int
	vals  []graphresponse.Value
	kinds []cellKind
}

// cells returns reusable cell buffers of width w.
func (p *fastParser) cells(w int) ([]graphresponse.Value, []cellKind) {
	if cap(p.vals) < w {
		p.vals = make([]graphresponse.Value, w)
		p.kinds = make([]cellKind, w)
	}
	return p.vals[:w], p.kinds[:w]
}

func (p *fastParser) peek() string {
	i := strings.IndexByte(p.src, '\n')
	if i < 0 {
		return ""
	}
	return p.src[:i]
}

func (p *fastParser) next() string {
	i := strings.IndexByte(p.src, '\n')
	ln := p.src[:i]
	p.src = p.src[i+1:]
	return ln
}

// member reads "key=value" with a scalar value (key includes indentation).
func (p *fastParser) member(key string) (any, bool) {
	ln := p.peek()
	rest, ok := strings.CutPrefix(ln, key+"=")
	if !ok || rest == "" || rest[0] == ' ' || rest[len(rest)-1] == ' ' || len(ln) > p.lim.MaxLineLength {
		return nil, false
	}
	v, err, _ := parseValueToken(rest)
	if err != nil {
		return nil, false
	}
	p.next()
	return v, true
}

// tableHeader reads "## name [N]{fields}".
func (p *fastParser) tableHeader() (string, bracket, bool) {
	ln := p.next()
	rest, ok := strings.CutPrefix(ln, "## ")
	if !ok || len(ln) > p.lim.MaxLineLength {
		return "", bracket{}, false
	}
	name, after, err := leadingKey(rest)
	if err != nil || !strings.HasPrefix(after, " [") {
		return "", bracket{}, false
	}
	d := genDecoder{lim: p.lim}
	b, berr := d.parseBracket(line{text: ln}, after[1:], 0)
	if berr != nil || b.keyed || b.inline || !b.hasFields || b.count < 0 || b.ident >= 0 {
		return "", bracket{}, false
	}
	for _, f := range b.fields {
		if strings.Contains(f, ">") {
			return "", bracket{}, false
		}
	}
	return name, b, true
}

// responseCell decodes one trimmed cell like parseScalar, straight into a
// response value (no interface boxing). ok is false for markers and errors.
func responseCell(tok string) (v graphresponse.Value, kind cellKind, ok bool) {
	if tok == "" {
		return graphresponse.String(""), cellValue, true
	}
	switch tok {
	case "-":
		return graphresponse.Null(), cellValue, true
	case "~":
		return graphresponse.Null(), cellAbsent, true
	case "true":
		return graphresponse.Bool(true), cellValue, true
	case "false":
		return graphresponse.Bool(false), cellValue, true
	}
	switch c := tok[0]; {
	case c == '"':
		end := scanQuoted(tok)
		if end != len(tok) {
			return v, 0, false
		}
		str, err, _ := unquoteBody(tok[1 : end-1])
		if err != nil {
			return v, 0, false
		}
		return graphresponse.String(str), cellValue, true
	case c == '^':
		if tok == "^" || strings.HasPrefix(tok, "^{") && strings.HasSuffix(tok, "}") {
			return v, 0, false
		}
	case c == '-' || isDigit(c):
		if numOK, integer := isNumberToken(tok); numOK {
			if integer {
				n, err := strconv.ParseInt(tok, 10, 64)
				if err != nil {
					return v, 0, false
				}
				return graphresponse.Int(n), cellValue, true
			}
			f, err := strconv.ParseFloat(tok, 64)
			if err != nil {
				return v, 0, false
			}
			return graphresponse.Float(f), cellValue, true
		}
	}
	return graphresponse.String(tok), cellValue, true
}

// row reads one row of scalar cells into vals and kinds.
func (p *fastParser) row(width int, vals []graphresponse.Value, kinds []cellKind) bool {
	if p.src == "" {
		return false
	}
	ln := p.peek()
	if ln == "" || ln[0] == '@' || ln[0] == '#' || ln[0] == ' ' || ln[len(ln)-1] == ' ' || len(ln) > p.lim.MaxLineLength {
		return false
	}
	var err error
	p.parts, p.offs, err, _ = splitOutsideQuotes(ln, '|', p.parts[:0], p.offs[:0])
	if err != nil || len(p.parts) != width {
		return false
	}
	for i, part := range p.parts {
		if part == "" || part[0] == ' ' || part[len(part)-1] == ' ' {
			if part != "" {
				return false
			}
		}
		v, kind, ok := responseCell(part)
		if !ok {
			return false
		}
		vals[i], kinds[i] = v, kind
	}
	p.next()
	return true
}

// nodeRows reads a node table of type t.
func (p *fastParser) nodeRows(r *graphresponse.Response, t string, b bracket) bool {
	if len(b.fields) == 0 || b.fields[0] != "id" || b.count == 0 {
		return false
	}
	w := len(b.fields)
	vals, kinds := p.cells(w)
	backing := make([]graphresponse.Member, 0, b.count*(w-1))
	for range b.count {
		if !p.row(w, vals, kinds) {
			return false
		}
		if vals[0].Kind() != graphresponse.KindInt || kinds[0] != cellValue {
			return false
		}
		id := vals[0].Int()
		start := len(backing)
		for i := 1; i < w; i++ {
			if kinds[i] == cellAbsent {
				continue
			}
			backing = append(backing, graphresponse.Member{Key: b.fields[i], Value: vals[i]})
		}
		r.Nodes = append(r.Nodes, graphresponse.Node{Type: t, ID: id, Props: backing[start:len(backing):len(backing)]})
	}
	return !p.moreRows()
}

// moreRows reports whether a row line follows a complete table (the strict
// decoder reports that as an error).
func (p *fastParser) moreRows() bool {
	return p.src != "" && !strings.HasPrefix(p.peek(), "## ")
}

// edgeRows reads an edges or paths table.
func (p *fastParser) edgeRows(r *graphresponse.Response, b bracket, paths bool) bool {
	var col [numEdgeCols]int
	for i := range col {
		col[i] = -1
	}
	for i, f := range b.fields {
		k := -1
		for j, n := range edgeColNames {
			if n == f {
				k = j
			}
		}
		if k < 0 || (k == colPathID) != (paths && k == colPathID) {
			return false
		}
		col[k] = i
	}
	if col[colFrom] < 0 || col[colFromID] < 0 || col[colTo] < 0 || col[colToID] < 0 || col[colType] < 0 || paths && col[colPathID] < 0 || b.count == 0 {
		return false
	}
	w := len(b.fields)
	vals, kinds := p.cells(w)
	str := func(k int) (string, bool) {
		v := vals[col[k]]
		return v.Str(), v.Kind() == graphresponse.KindString && kinds[col[k]] == cellValue
	}
	num := func(k int) (int64, bool) {
		v := vals[col[k]]
		return v.Int(), v.Kind() == graphresponse.KindInt && kinds[col[k]] == cellValue
	}
	opt := func(k int) (graphresponse.OptInt, bool) {
		if col[k] < 0 || kinds[col[k]] == cellAbsent {
			return graphresponse.OptInt{}, true
		}
		n, ok := num(k)
		return graphresponse.OptInt{Value: n, Valid: ok}, ok
	}
	for range b.count {
		if !p.row(w, vals, kinds) {
			return false
		}
		var e graphresponse.Edge
		var ok [9]bool
		e.From, ok[0] = str(colFrom)
		e.To, ok[1] = str(colTo)
		e.Type, ok[2] = str(colType)
		e.FromID, ok[3] = num(colFromID)
		e.ToID, ok[4] = num(colToID)
		e.Depth, ok[5] = opt(colDepth)
		e.Step, ok[6] = opt(colStep)
		e.PathID, ok[7] = opt(colPathID)
		ok[8] = !paths || e.PathID.Valid
		for _, x := range ok {
			if !x {
				return false
			}
		}
		r.Edges = append(r.Edges, e)
	}
	return !p.moreRows()
}
