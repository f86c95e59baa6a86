package goon

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/textsafe"
)

// Decoder reads a GOON document back into a [graphresponse.Response], as far
// as GOON carries it. GOON is lossy by design, so the result is an
// approximation of the encoded response:
//
//   - truncated strings stay truncated (with their "..."), and _len
//     breadcrumbs are consumed, not kept as properties;
//   - null and empty-string properties were never printed and are absent,
//     and so is a quoted value made only of dropped control characters;
//   - C0 controls other than LF, CR and TAB, and DEL, were dropped from
//     quoted values (spec §3.7) and are lost; ⟦U+XXXX⟧ text-safety markers
//     (see the package doc) are turned back into their code points, in
//     values, keys, types and the cursor;
//   - integral floats print as integers and come back as integers; a
//     normalised ClickHouse datetime comes back in its T form;
//   - edges come back deduplicated; path edges come back from @paths with
//     path_id and step renumbered along each chain;
//   - aggregation descriptors lose the node alias (the group column's name
//     stands in for it), and lifted nodes become the properties of the node
//     buckets of the rows that name them;
//   - bare words that look like numbers or booleans decode as numbers or
//     booleans; quoted strings always decode as strings.
//
// A Decoder is not safe for concurrent use.
type Decoder struct {
	r    io.Reader
	opts Options
}

// NewDecoder returns a decoder that reads one document from r.
func NewDecoder(r io.Reader, opts Options) *Decoder { return &Decoder{r: r, opts: opts} }

// Unmarshal decodes one GOON document. Malformed input gives a
// [*SyntaxError].
func Unmarshal(data []byte, opts Options) (*graphresponse.Response, error) {
	return NewDecoder(bytes.NewReader(data), opts).Decode()
}

// Decode reads the whole input and decodes it. Read errors are returned
// unchanged; malformed input gives a [*SyntaxError].
func (d *Decoder) Decode() (*graphresponse.Response, error) {
	data, err := io.ReadAll(d.r)
	if err != nil {
		return nil, err
	}
	p := &decoder{data: data}
	return p.document()
}

type decoder struct {
	sawQueryType bool
	data         []byte
	pos          int // start of the next line
	line         int // number of the current line, 1-based
	cur          []byte
	curS         int // byte offset of cur
}

func (p *decoder) errAt(col int, err error) *SyntaxError {
	return &SyntaxError{Line: p.line, Column: col + 1, Err: err}
}

// next advances to the next line; false at the end of input.
func (p *decoder) next() (bool, error) {
	if p.pos >= len(p.data) {
		return false, nil
	}
	p.line++
	i := bytes.IndexByte(p.data[p.pos:], '\n')
	if i < 0 {
		p.cur, p.curS = p.data[p.pos:], p.pos
		return false, p.errAt(len(p.cur), ErrTruncated)
	}
	p.cur, p.curS = p.data[p.pos:p.pos+i], p.pos
	p.pos += i + 1
	if !utf8.Valid(p.cur) {
		return false, p.errAt(0, ErrInvalidUTF)
	}
	return true, nil
}

// peekSection reports whether the next line is a section marker.
func (p *decoder) peekMarker() string {
	if p.pos >= len(p.data) || p.data[p.pos] != '@' {
		return ""
	}
	i := bytes.IndexByte(p.data[p.pos:], '\n')
	if i < 0 {
		return ""
	}
	return string(p.data[p.pos : p.pos+i])
}

func (p *decoder) document() (*graphresponse.Response, error) {
	r := &graphresponse.Response{Nodes: []graphresponse.Node{}, Edges: []graphresponse.Edge{}}
	ok, err := p.next()
	if err != nil {
		return nil, err
	}
	if !ok || string(p.cur) != "@header" {
		return nil, p.errAt(0, ErrHeader)
	}
	if err := p.header(r); err != nil {
		return nil, err
	}
	if ok, err := p.next(); err != nil {
		return nil, err
	} else if !ok || string(p.cur) != "@nodes" {
		return nil, p.errAt(0, ErrSection)
	}
	nodes, err := p.nodes()
	if err != nil {
		return nil, err
	}
	switch m := p.peekMarker(); m {
	case "@edges":
		p.next()
		if r.Edges, err = p.edges(); err != nil {
			return nil, err
		}
	case "@paths":
		p.next()
		if r.Edges, err = p.paths(); err != nil {
			return nil, err
		}
	}
	if p.peekMarker() == "@rows" {
		p.next()
		if err := p.rows(r, nodes); err != nil {
			return nil, err
		}
	}
	if r.QueryType != graphresponse.QueryAggregation || r.Rows == nil {
		r.Nodes = nodes
	}
	if ok, err := p.next(); err != nil {
		return nil, err
	} else if ok {
		return nil, p.errAt(0, ErrSection)
	}
	return r, nil
}

func (p *decoder) header(r *graphresponse.Response) error {
	for {
		if m := p.peekMarker(); m != "" {
			if !p.sawQueryType {
				return p.errAt(0, ErrHeader)
			}
			return nil
		}
		ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return p.errAt(0, ErrSection)
		}
		key, val, found := strings.Cut(string(p.cur), ":")
		if !found {
			return p.errAt(0, ErrHeader)
		}
		col := len(key) + 1
		pag := func() *graphresponse.Pagination {
			if r.Pagination == nil {
				r.Pagination = &graphresponse.Pagination{}
			}
			return r.Pagination
		}
		switch key {
		case "query_type":
			r.QueryType = textsafe.Restore(val)
			p.sawQueryType = true
		case "goon_version", "nodes", "edges":
			if key != "goon_version" {
				if _, err := strconv.ParseUint(val, 10, 63); err != nil {
					return p.errAt(col, ErrHeader)
				}
			}
		case "has_more", "truncated":
			if val != "true" {
				return p.errAt(col, ErrHeader)
			}
			if key == "has_more" {
				pag().HasMore = true
			} else {
				pag().Truncated = true
			}
		case "next_cursor":
			c := textsafe.Restore(val)
			pag().NextCursor = &c
		case "rows":
			n, err := strconv.ParseUint(val, 10, 31)
			if err != nil {
				return p.errAt(col, ErrHeader)
			}
			r.Rows = make([]graphresponse.Row, 0, n)
		case "group_by":
			for _, d := range splitDescriptors(val) {
				g, ok := parseGroupDescriptor(d)
				if !ok {
					return p.errAt(col, ErrHeader)
				}
				r.GroupColumns = append(r.GroupColumns, g)
			}
		case "aggregations":
			for _, d := range splitDescriptors(val) {
				c, ok := parseMetricDescriptor(d)
				if !ok {
					return p.errAt(col, ErrHeader)
				}
				r.Columns = append(r.Columns, c)
			}
		default:
			return p.errAt(0, ErrHeader)
		}
	}
}

// splitDescriptors splits "a(x),b(y:z)" at the commas between descriptors.
func splitDescriptors(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func cutDescriptor(d string) (name, inner string, ok bool) {
	i := strings.IndexByte(d, '(')
	if i <= 0 || !strings.HasSuffix(d, ")") {
		return "", "", false
	}
	return d[:i], d[i+1 : len(d)-1], true
}

func parseGroupDescriptor(d string) (graphresponse.GroupColumn, bool) {
	name, inner, ok := cutDescriptor(d)
	if !ok {
		return graphresponse.GroupColumn{}, false
	}
	kind, arg, _ := strings.Cut(inner, ":")
	g := graphresponse.GroupColumn{Name: name, Kind: kind, Node: name}
	switch kind {
	case graphresponse.GroupKindNode:
		g.Entity = arg
	case graphresponse.GroupKindProperty:
		g.Property = arg
	}
	return g, kind != ""
}

func parseMetricDescriptor(d string) (graphresponse.Column, bool) {
	name, inner, ok := cutDescriptor(d)
	if !ok {
		return graphresponse.Column{}, false
	}
	fn, target, ok := strings.Cut(inner, ":")
	if !ok || fn == "" || target == "" {
		return graphresponse.Column{}, false
	}
	c := graphresponse.Column{Name: name, Function: fn, Target: target}
	if t, prop, ok := strings.Cut(target, "."); ok {
		c.Target, c.Property = t, prop
	}
	return c, true
}

// groupHeader parses "Type(N):".
func (p *decoder) groupHeader() (string, int, error) {
	s := string(p.cur)
	i := strings.LastIndexByte(s, '(')
	if i <= 0 || !strings.HasSuffix(s, "):") {
		return "", 0, p.errAt(0, ErrGroup)
	}
	n, err := strconv.ParseUint(s[i+1:len(s)-2], 10, 31)
	if err != nil || n == 0 {
		return "", 0, p.errAt(i+1, ErrGroup)
	}
	return textsafe.Restore(s[:i]), int(n), nil
}

// groups walks the "Type(N):" groups of a section up to the next marker,
// calling line for each of a group's N lines with the group's type.
func (p *decoder) groups(line func(typ string) error) error {
	for p.peekMarker() == "" {
		ok, err := p.next()
		if err != nil || !ok {
			return err
		}
		typ, n, err := p.groupHeader()
		if err != nil {
			return err
		}
		for range n {
			if ok, err := p.next(); err != nil {
				return err
			} else if !ok || len(p.cur) > 0 && p.cur[0] == '@' {
				return p.errAt(0, ErrCount)
			}
			if err := line(typ); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *decoder) nodes() ([]graphresponse.Node, error) {
	nodes := []graphresponse.Node{}
	err := p.groups(func(typ string) error {
		node, err := p.nodeLine(typ)
		nodes = append(nodes, node)
		return err
	})
	if err != nil {
		return nil, err
	}
	return nodes, nil
}

func (p *decoder) nodeLine(typ string) (graphresponse.Node, error) {
	s := string(p.cur)
	idText, rest, _ := strings.Cut(s, " ")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil {
		return graphresponse.Node{}, p.errAt(0, ErrInvalidID)
	}
	n := graphresponse.Node{Type: typ, ID: id}
	cells, err := p.pairs(rest, len(idText)+1)
	if err != nil {
		return graphresponse.Node{}, err
	}
	for i, c := range cells {
		// A breadcrumb follows its truncated value: drop it.
		if i > 0 && c.Key == cells[i-1].Key+"_len" && c.Value.Kind() == graphresponse.KindInt &&
			strings.HasSuffix(cells[i-1].Value.Str(), "...") {
			continue
		}
		if c.Value.Kind() == graphresponse.KindString && c.Value.Str() == "" {
			continue // only dropped characters: the encoder would leave it out
		}
		if _, dup := n.Prop(c.Key); dup {
			return graphresponse.Node{}, p.errAt(0, ErrLine)
		}
		n.Props = append(n.Props, c.Member)
	}
	return n, nil
}

// pair is one key=value token; quoted tells the bare word null from the
// string "null".
type pair struct {
	graphresponse.Member
	quoted bool
}

// pairs parses space-separated key=value tokens starting at byte col of the
// current line.
func (p *decoder) pairs(s string, col int) ([]pair, error) {
	var out []pair
	i := 0
	for i < len(s) {
		eq := strings.IndexByte(s[i:], '=')
		if eq <= 0 {
			return nil, p.errAt(col+i, ErrLine)
		}
		key := s[i : i+eq]
		if strings.ContainsAny(key, " \"") {
			return nil, p.errAt(col+i, ErrLine)
		}
		i += eq + 1
		var v graphresponse.Value
		quoted := i < len(s) && s[i] == '"'
		if quoted {
			str, n, err := unquote(s[i:])
			if err != nil {
				return nil, p.errAt(col+i+n, err)
			}
			v = graphresponse.String(str)
			i += n
		} else {
			end := strings.IndexByte(s[i:], ' ')
			if end < 0 {
				end = len(s) - i
			}
			if end == 0 {
				return nil, p.errAt(col+i, ErrLine)
			}
			v = bareValue(s[i : i+end])
			i += end
		}
		out = append(out, pair{graphresponse.Member{Key: textsafe.Restore(key), Value: v}, quoted})
		if i < len(s) {
			if s[i] != ' ' || i+1 == len(s) {
				return nil, p.errAt(col+i, ErrLine)
			}
			i++
		}
	}
	return out, nil
}

// unquote reads a quoted token at the start of s and returns its text and
// the number of bytes consumed; on error the count locates the problem.
func unquote(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return textsafe.Restore(b.String()), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", i, ErrQuote
			}
			i++
			switch s[i] {
			case '\\', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				return "", i - 1, ErrQuote
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", len(s), ErrQuote
}

// bareValue types a bare token: true/false are booleans, integer and
// decimal texts numbers, anything else a string.
func bareValue(s string) graphresponse.Value {
	switch s {
	case "true":
		return graphresponse.Bool(true)
	case "false":
		return graphresponse.Bool(false)
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && canonicalInt(s) {
		return graphresponse.Int(n)
	}
	if n, err := strconv.ParseUint(s, 10, 64); err == nil && canonicalInt(s) {
		return graphresponse.Uint(n)
	}
	if isDecimal(s) {
		if f, err := strconv.ParseFloat(s, 64); err == nil && strconv.FormatFloat(f, 'f', -1, 64) == s {
			return graphresponse.Float(f)
		}
	}
	return graphresponse.String(s)
}

// canonicalInt reports whether s is how the encoder prints an integer: no
// sign other than '-', no leading zeros.
func canonicalInt(s string) bool {
	d := strings.TrimPrefix(s, "-")
	return d != "" && d[0] >= '0' && d[0] <= '9' && (d == "0" || d[0] != '0') && s != "-0"
}

func isDecimal(s string) bool {
	d := strings.TrimPrefix(s, "-")
	dot := strings.IndexByte(d, '.')
	return dot > 0 && dot < len(d)-1 && strings.Trim(d[:dot]+d[dot+1:], "0123456789") == ""
}

// endpoint parses "Type:id".
func (p *decoder) endpoint(s string, col int) (string, int64, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, p.errAt(col, ErrLine)
	}
	id, err := strconv.ParseInt(s[i+1:], 10, 64)
	if err != nil {
		return "", 0, p.errAt(col+i+1, ErrInvalidID)
	}
	return textsafe.Restore(s[:i]), id, nil
}

func (p *decoder) edges() ([]graphresponse.Edge, error) {
	edges := []graphresponse.Edge{}
	err := p.groups(func(typ string) error {
		var err error
		s := string(p.cur)
		from, rest, ok := strings.Cut(s, " --> ")
		if !ok {
			return p.errAt(0, ErrLine)
		}
		e := graphresponse.Edge{Type: typ}
		if e.From, e.FromID, err = p.endpoint(from, 0); err != nil {
			return err
		}
		to, depth, hasDepth := strings.Cut(rest, " depth=")
		col := len(from) + 5
		if e.To, e.ToID, err = p.endpoint(to, col); err != nil {
			return err
		}
		if hasDepth {
			d, err := strconv.ParseInt(depth, 10, 64)
			if err != nil || d < 1 {
				return p.errAt(col+len(to)+7, ErrLine)
			}
			e.Depth = graphresponse.Some(d)
		}
		edges = append(edges, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return edges, nil
}

func (p *decoder) paths() ([]graphresponse.Edge, error) {
	edges := []graphresponse.Edge{}
	for p.peekMarker() == "" {
		ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return edges, nil
		}
		s := string(p.cur)
		head, chain, ok := strings.Cut(s, ": ")
		if !ok || !strings.HasPrefix(head, "path=") {
			return nil, p.errAt(0, ErrLine)
		}
		pathID, err := strconv.ParseInt(head[5:], 10, 64)
		if err != nil || pathID < 0 {
			return nil, p.errAt(5, ErrLine)
		}
		col := len(head) + 2
		parts := strings.Split(chain, " --")
		if len(parts) < 2 {
			return nil, p.errAt(col, ErrLine)
		}
		fromType, fromID, err := p.endpoint(parts[0], col)
		if err != nil {
			return nil, err
		}
		col += len(parts[0])
		for step, hop := range parts[1:] {
			typ, to, ok := strings.Cut(hop, "--> ")
			if !ok || typ == "" {
				return nil, p.errAt(col, ErrLine)
			}
			toType, toID, err := p.endpoint(to, col+3+len(typ)+4)
			if err != nil {
				return nil, err
			}
			edges = append(edges, graphresponse.Edge{
				From: fromType, FromID: fromID, To: toType, ToID: toID, Type: textsafe.Restore(typ),
				PathID: graphresponse.Some(pathID), Step: graphresponse.Some(int64(step)),
			})
			fromType, fromID = toType, toID
			col += 3 + len(hop)
		}
	}
	return edges, nil
}

func (p *decoder) rows(r *graphresponse.Response, nodes []graphresponse.Node) error {
	if r.Rows == nil {
		r.Rows = []graphresponse.Row{}
	}
	nodeCols := map[string]bool{}
	for _, g := range r.GroupColumns {
		if g.Kind == graphresponse.GroupKindNode {
			nodeCols[g.Name] = true
		}
	}
	for {
		ok, err := p.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		cells, err := p.pairs(string(p.cur), 0)
		if err != nil {
			return err
		}
		row := graphresponse.Row{}
		for _, c := range cells {
			v := c.Value
			if v.Kind() == graphresponse.KindString && v.Str() == "" {
				continue
			}
			switch {
			case v.Kind() == graphresponse.KindString && v.Str() == "null" && !c.quoted:
				v = graphresponse.Null()
			case nodeCols[c.Key] && v.Kind() == graphresponse.KindString:
				if typ, id, ok := strings.Cut(v.Str(), ":"); ok {
					var props []graphresponse.Member
					if n, err := strconv.ParseInt(id, 10, 64); err == nil {
						for i := range nodes {
							if nodes[i].Type == typ && nodes[i].ID == n {
								props = nodes[i].Props
								break
							}
						}
					}
					v = graphresponse.NodeBucket(typ, id, props)
				}
			}
			row = append(row, graphresponse.Member{Key: c.Key, Value: v})
		}
		r.Rows = append(r.Rows, row)
	}
}
