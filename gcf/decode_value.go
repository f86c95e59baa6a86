package gcf

import (
	"slices"
	"strconv"
	"strings"
)

// Context of a counted body, for deciding what a line after the last row
// means (§2.7.9).
const (
	ctxRoot   = iota // the root: only the trailer may follow
	ctxMember        // a member of an object at the same level
	ctxNested        // an item or attachment body: nothing may follow at its level
)

// genDecoder parses a generic body.
type genDecoder struct {
	lines    []line
	pos      int
	lim      Limits
	identKey string // header key=, "" when none
	deferred []int  // actual counts of [?] sections, in document order
}

// bracket is a parsed count bracket and what follows it.
type bracket struct {
	count     int // -1 for ?
	keyed     bool
	fields    []string
	ident     int
	hasFields bool
	inline    bool
	items     string // inline items text
	itemsOff  int
}

func (d *genDecoder) checkIndent() error {
	for _, ln := range d.lines {
		if ln.tab {
			return synErr(ln.num, 1, ErrTabIndentation, "tab in indentation")
		}
		if ln.odd {
			return synErr(ln.num, 1, ErrInvalidIndent, "odd indentation")
		}
	}
	return nil
}

// parseBracket parses "[N]…" at s[off:] of ln.
func (d *genDecoder) parseBracket(ln line, s string, off int) (bracket, error) {
	b := bracket{ident: -1}
	if !strings.HasPrefix(s, "[") {
		return b, ln.err(off, ErrSyntax, "expected [")
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return b, ln.err(off, ErrInvalidCount, "unterminated count")
	}
	cnt := s[1:end]
	if strings.HasSuffix(cnt, ":") {
		b.keyed = true
		cnt = cnt[:len(cnt)-1]
	}
	switch {
	case cnt == "?":
		b.count = -1
	case isCountValue(cnt):
		n, err := strconv.ParseInt(cnt, 10, 64)
		if err != nil || n > int64(d.lim.MaxElements) {
			return b, ln.err(off, ErrLimit, "declared count "+cnt+" exceeds the element limit")
		}
		b.count = int(n)
	default:
		if len(cnt) > 0 && isDigitsOnly(cnt) && cnt[0] != '0' {
			return b, ln.err(off, ErrLimit, "declared count "+cnt+" exceeds the element limit")
		}
		return b, ln.err(off+1, ErrInvalidCount, "invalid count "+strconv.Quote(cnt))
	}
	rest := s[end+1:]
	roff := off + end + 1
	switch {
	case rest == "":
	case rest[0] == '{':
		if rest[len(rest)-1] != '}' {
			return b, ln.err(roff, ErrSyntax, "malformed field declaration")
		}
		fs, ident, err := parseFieldList(rest[1:len(rest)-1], d.identKey != "")
		if err != nil {
			return b, ln.err(roff, err, "bad field declaration")
		}
		if len(fs) > d.lim.MaxFields {
			return b, ln.err(roff, ErrLimit, "too many fields")
		}
		if ident >= 0 && fs[ident] != d.identKey {
			return b, ln.err(roff, ErrSyntax, "identity marker on a field other than key="+d.identKey)
		}
		b.fields, b.ident, b.hasFields = fs, ident, true
	case rest[0] == ':' && !b.keyed:
		b.inline = true
		b.items = trimSpaces(rest[1:])
		b.itemsOff = roff + 1 + (len(rest[1:]) - len(strings.TrimLeft(rest[1:], " ")))
	default:
		return b, ln.err(roff, ErrSyntax, "unexpected text after count")
	}
	if b.keyed {
		if !b.hasFields {
			return b, ln.err(off, ErrSyntax, "keyed block without field declaration")
		}
		if b.count == 0 {
			return b, ln.err(off, ErrInvalidCount, "keyed block with zero count")
		}
		if len(b.fields) < 2 {
			return b, ln.err(off, ErrTooFewFields, "keyed block needs at least two fields")
		}
	}
	return b, nil
}

func isDigitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// root decodes the whole body.
func (d *genDecoder) root() (any, error) {
	if err := d.checkIndent(); err != nil {
		return nil, err
	}
	if len(d.lines) == 0 {
		return &Object{}, nil
	}
	first := d.lines[0]
	if first.level != 0 {
		return nil, first.err(0, ErrInvalidIndent, "indented first line")
	}
	var v any
	var err error
	switch {
	case strings.HasPrefix(first.text, "="):
		v, err, off := parseValueToken(trimSpaces(first.text[1:]))
		if err != nil {
			return nil, first.err(1+off, err, "bad root scalar")
		}
		d.pos++
		if d.pos < len(d.lines) {
			return nil, d.lines[d.pos].err(0, ErrSyntax, "content after a root scalar")
		}
		return v, nil
	case strings.HasPrefix(first.text, "## ["):
		b, berr := d.parseBracket(first, first.text[3:], 3)
		if berr != nil {
			return nil, berr
		}
		d.pos++
		v, err = d.container(first, b, 0, 1, ctxRoot, nil)
		if err != nil {
			return nil, err
		}
		if d.pos < len(d.lines) {
			return nil, d.lines[d.pos].err(0, ErrSyntax, "content after the root array")
		}
		return v, nil
	}
	v, err = d.object(0, 1)
	if err != nil {
		return nil, err
	}
	if d.pos < len(d.lines) {
		return nil, d.lines[d.pos].err(0, ErrSyntax, "unexpected line")
	}
	return v, nil
}

func (d *genDecoder) depthCheck(ln line, depth int) error {
	if depth > d.lim.MaxDepth {
		return ln.err(0, ErrLimit, "nesting deeper than "+strconv.Itoa(d.lim.MaxDepth))
	}
	return nil
}

// object decodes members at level.
func (d *genDecoder) object(level, depth int) (*Object, error) {
	o := &Object{}
	for d.pos < len(d.lines) {
		ln := d.lines[d.pos]
		if ln.level < level {
			break
		}
		if ln.level > level {
			return nil, ln.err(0, ErrInvalidIndent, "line deeper than its container")
		}
		if err := d.depthCheck(ln, depth); err != nil {
			return nil, err
		}
		k, v, err := d.member(ln, level, depth)
		if err != nil {
			return nil, err
		}
		if o.Has(k) {
			return nil, ln.err(0, ErrDuplicateKey, "duplicate key "+strconv.Quote(k))
		}
		if o.Len() >= d.lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many members")
		}
		o.add(k, v)
	}
	return o, nil
}

// isMemberLine reports whether text is a plausible object member line.
func isMemberLine(text string) bool {
	if strings.HasPrefix(text, "## ") {
		return true
	}
	_, rest, err := leadingKey(text)
	if err != nil {
		return false
	}
	return strings.HasPrefix(rest, "[") || strings.HasPrefix(trimSpaces(rest), "=")
}

func (d *genDecoder) member(ln line, level, depth int) (string, any, error) {
	text := ln.text
	if strings.HasPrefix(text, "##") {
		if !strings.HasPrefix(text, "## ") {
			return "", nil, ln.err(0, ErrSyntax, "malformed section header")
		}
		rest := text[3:]
		if strings.HasPrefix(rest, "[") {
			return "", nil, ln.err(3, ErrSyntax, "anonymous block outside the root")
		}
		k, after, err := leadingKey(rest)
		if err != nil {
			return "", nil, ln.err(3, err, "bad section name")
		}
		d.pos++
		if after == "" {
			v, err := d.object(level+1, depth+1)
			return k, v, err
		}
		if !strings.HasPrefix(after, " [") {
			return "", nil, ln.err(len(text)-len(after), ErrSyntax, "unexpected text after section name")
		}
		off := len(text) - len(after) + 1
		b, err := d.parseBracket(ln, after[1:], off)
		if err != nil {
			return "", nil, err
		}
		v, err := d.container(ln, b, level, depth+1, ctxMember, nil)
		return k, v, err
	}
	k, rest, err := leadingKey(text)
	if err != nil {
		return "", nil, ln.err(0, err, "expected a key")
	}
	off := len(text) - len(rest)
	if strings.HasPrefix(rest, "[") {
		b, err := d.parseBracket(ln, rest, off)
		if err != nil {
			return "", nil, err
		}
		if !b.inline {
			return "", nil, ln.err(off, ErrSyntax, "member array must be inline (key[N]: …)")
		}
		d.pos++
		v, err := d.inline(ln, b)
		return k, v, err
	}
	r := strings.TrimLeft(rest, " ")
	if !strings.HasPrefix(r, "=") {
		return "", nil, ln.err(off, ErrSyntax, "expected = after key")
	}
	off += len(rest) - len(r) + 1
	r = r[1:]
	lead := leadingBlanks(r)
	v, verr, voff := parseValueToken(trimSpaces(r))
	if verr != nil {
		return "", nil, ln.err(off+lead+voff, verr, "bad value")
	}
	d.pos++
	return k, v, nil
}

// inline decodes the items of an inline array.
func (d *genDecoder) inline(ln line, b bracket) ([]any, error) {
	var items []any
	if b.items != "" {
		parts, offs, err, eoff := splitOutsideQuotes(b.items, ',', nil, nil)
		if err != nil {
			return nil, ln.err(b.itemsOff+eoff, err, "bad inline item")
		}
		if b.count >= 0 && len(parts) != b.count {
			return nil, ln.err(0, ErrCountMismatch, "inline array declares "+strconv.Itoa(b.count)+" items, has "+strconv.Itoa(len(parts)))
		}
		if len(parts) > d.lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many items")
		}
		items = make([]any, 0, len(parts))
		for i, p := range parts {
			lead := leadingBlanks(p)
			v, verr, voff := parseValueToken(trimSpaces(p))
			if verr != nil {
				return nil, ln.err(b.itemsOff+offs[i]+lead+voff, verr, "bad inline item")
			}
			items = append(items, v)
		}
	} else {
		if b.count > 0 {
			return nil, ln.err(0, ErrCountMismatch, "inline array declares "+strconv.Itoa(b.count)+" items, has 0")
		}
		items = []any{}
	}
	if b.count < 0 {
		d.deferred = append(d.deferred, len(items))
	}
	return items, nil
}

// container decodes the body announced by bracket b on line hdr, with rows or
// items at level. shared, when non-nil, is the established field list for a
// declaration-less attachment array.
func (d *genDecoder) container(hdr line, b bracket, level, depth int, ctx int, shared []string) (any, error) {
	if err := d.depthCheck(hdr, depth); err != nil {
		return nil, err
	}
	switch {
	case b.inline:
		return d.inline(hdr, b)
	case b.hasFields:
		return d.table(hdr, b, level, depth, ctx)
	case shared != nil:
		b.fields, b.hasFields = shared, true
		return d.table(hdr, b, level, depth, ctx)
	default:
		return d.items(hdr, b, level, depth, ctx)
	}
}

// exhausted reports the error for a line met after a counted body was
// complete, or nil when the line belongs to the enclosing container.
func exhausted(ln line, ctx int, hadInline bool) error {
	if ctx == ctxMember && isMemberLine(ln.text) {
		return nil
	}
	if hadInline {
		return ln.err(0, ErrOrphanInlineAttachment, "positional body without an eligible marker")
	}
	return ln.err(0, ErrCountMismatch, "more entries than the declared count")
}

// items decodes an expanded body at level.
func (d *genDecoder) items(hdr line, b bracket, level, depth int, ctx int) ([]any, error) {
	out := []any{}
	deferIdx := -1
	if b.count < 0 {
		deferIdx = len(d.deferred)
		d.deferred = append(d.deferred, 0)
	}
	for d.pos < len(d.lines) {
		ln := d.lines[d.pos]
		if ln.level < level {
			break
		}
		if strings.HasPrefix(ln.text, "##") {
			if ln.level > level {
				return nil, ln.err(0, ErrInvalidIndent, "section deeper than its container")
			}
			break
		}
		if ln.level > level {
			return nil, ln.err(0, ErrInvalidIndent, "line deeper than its container")
		}
		if b.count >= 0 && len(out) == b.count {
			if err := exhausted(ln, ctx, false); err != nil {
				return nil, err
			}
			break
		}
		text := ln.text
		id, rest, ok := itemID(text)
		if !ok {
			return nil, ln.err(0, ErrInvalidItemID, "expected @"+strconv.Itoa(len(out)))
		}
		if id != len(out) {
			return nil, ln.err(0, ErrInvalidItemID, "item id @"+strconv.Itoa(id)+" should be @"+strconv.Itoa(len(out)))
		}
		off := len(text) - len(rest)
		if len(out) >= d.lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many items")
		}
		d.pos++
		var v any
		var err error
		switch {
		case strings.HasPrefix(rest, "="):
			lead := leadingBlanks(rest[1:])
			var verr error
			var voff int
			v, verr, voff = parseValueToken(trimSpaces(rest[1:]))
			if verr != nil {
				return nil, ln.err(off+1+lead+voff, verr, "bad item value")
			}
		case rest == "{}":
			v, err = d.object(level+1, depth+1)
		case strings.HasPrefix(rest, "["):
			var ib bracket
			ib, err = d.parseBracket(ln, rest, off)
			if err == nil {
				v, err = d.container(ln, ib, level+1, depth+1, ctxNested, nil)
			}
		default:
			return nil, ln.err(off, ErrSyntax, "malformed item")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if b.count >= 0 && len(out) < b.count {
		return nil, hdr.err(0, ErrCountMismatch, "declared "+strconv.Itoa(b.count)+" items, found "+strconv.Itoa(len(out)))
	}
	if deferIdx >= 0 {
		d.deferred[deferIdx] = len(out)
	}
	return out, nil
}

// itemID parses "@digits " at the start of text.
func itemID(text string) (int, string, bool) {
	if !strings.HasPrefix(text, "@") {
		return 0, "", false
	}
	i := 1
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	if i == 1 || i >= len(text) || text[i] != ' ' || i > 10 {
		return 0, "", false
	}
	n, err := strconv.Atoi(text[1:i])
	if err != nil || (text[1] == '0' && i > 2) {
		return 0, "", false
	}
	return n, text[i+1:], true
}

// pathNode is one node of the object tree rebuilt from > path columns.
type pathNode struct {
	key      string
	col      int // leaf column, -1 for an intermediate node
	children []*pathNode
}

// slot is one top-level key of a row object: a plain column or a path group.
type slot struct {
	col  int       // plain column index, or -1
	node *pathNode // path group
}

// planSlots builds the row layout for fields (first skips the keyed label).
func planSlots(fields []string, first int) ([]slot, error) {
	var slots []slot
	groups := map[string]*pathNode{}
	plain := map[string]bool{}
	for i := first; i < len(fields); i++ {
		f := fields[i]
		segs := strings.Split(f, ">")
		isPath := len(segs) > 1
		for _, s := range segs {
			if s == "" {
				isPath = false
			}
		}
		if !isPath {
			if _, ok := groups[f]; ok {
				return nil, ErrDuplicateKey
			}
			plain[f] = true
			slots = append(slots, slot{col: i})
			continue
		}
		if plain[segs[0]] {
			return nil, ErrDuplicateKey
		}
		root, ok := groups[segs[0]]
		if !ok {
			root = &pathNode{key: segs[0], col: -1}
			groups[segs[0]] = root
			slots = append(slots, slot{col: -1, node: root})
		}
		n := root
		for j, s := range segs[1:] {
			last := j == len(segs)-2
			var child *pathNode
			for _, c := range n.children {
				if c.key == s {
					child = c
				}
			}
			if child != nil && (last || child.col >= 0) {
				return nil, ErrDuplicateKey
			}
			if child == nil {
				child = &pathNode{key: s, col: -1}
				if last {
					child.col = i
				}
				n.children = append(n.children, child)
			}
			n = child
		}
	}
	return slots, nil
}

// cell is one decoded row cell.
type cell struct {
	kind   cellKind
	v      any
	fields []string // ^{…} schema
	filled bool     // marker got its body
}

// buildNode rebuilds a path group: state 0 absent, 1 null, 2 value.
func buildNode(n *pathNode, cells []cell) (any, int) {
	if n.col >= 0 {
		c := cells[n.col]
		switch {
		case c.kind == cellAbsent:
			return nil, 0
		case c.kind == cellValue && c.v == nil:
			return nil, 1
		}
		return c.v, 2
	}
	vals := make([]any, len(n.children))
	states := make([]int, len(n.children))
	allAbsent, allNull := true, true
	for i, c := range n.children {
		vals[i], states[i] = buildNode(c, cells)
		if states[i] != 0 {
			allAbsent = false
		}
		if states[i] != 1 {
			allNull = false
		}
	}
	if allAbsent {
		return nil, 0
	}
	if allNull {
		return nil, 1
	}
	o := NewObject(len(n.children))
	for i, c := range n.children {
		if states[i] != 0 {
			o.add(c.key, vals[i])
		}
	}
	return o, 2
}

// table decodes a tabular (b.keyed false) or keyed body with rows at level.
func (d *genDecoder) table(hdr line, b bracket, level, depth int, ctx int) (any, error) {
	fields := b.fields
	first := 0
	if b.keyed {
		first = 1
	}
	slots, err := planSlots(fields, first)
	if err != nil {
		return nil, hdr.err(0, err, "conflicting path columns")
	}
	deferIdx := -1
	if b.count < 0 {
		deferIdx = len(d.deferred)
		d.deferred = append(d.deferred, 0)
	}
	var list []any
	var keyed *Object
	if b.keyed {
		keyed = &Object{}
	} else if b.count >= 0 {
		// Each row takes at least one line, which bounds a forged count.
		list = make([]any, 0, max(0, min(b.count, len(d.lines)-d.pos)))
	} else {
		list = []any{}
	}
	var slab objectSlab
	var identSeen map[string]bool
	if b.ident >= 0 && !b.keyed {
		identSeen = map[string]bool{}
	}
	inlineSchemas := make([][]string, len(fields))
	var shared schemaFields
	n := 0
	hadInline := false
	cells := make([]cell, len(fields))
	var parts []string
	var offs []int
	for d.pos < len(d.lines) {
		ln := d.lines[d.pos]
		if ln.level < level {
			break
		}
		if strings.HasPrefix(ln.text, "##") {
			if ln.level > level {
				return nil, ln.err(0, ErrInvalidIndent, "section deeper than its container")
			}
			break
		}
		if ln.level > level {
			return nil, ln.err(0, ErrInvalidIndent, "line deeper than its container")
		}
		if b.count >= 0 && n == b.count {
			if err := exhausted(ln, ctx, hadInline); err != nil {
				return nil, err
			}
			break
		}
		if n >= d.lim.MaxElements {
			return nil, ln.err(0, ErrLimit, "too many rows")
		}
		text := ln.text
		off := 0
		hasID := false
		if strings.HasPrefix(text, "@") {
			id, rest, ok := itemID(text)
			if !ok || id != n {
				return nil, ln.err(0, ErrInvalidItemID, "row id should be @"+strconv.Itoa(n))
			}
			off = len(text) - len(rest)
			text = rest
			hasID = true
		}
		var serr error
		var eoff int
		parts, offs, serr, eoff = splitOutsideQuotes(text, '|', parts[:0], offs[:0])
		if serr != nil {
			return nil, ln.err(off+eoff, serr, "bad cell")
		}
		if len(parts) != len(fields) {
			return nil, ln.err(0, ErrRowWidthMismatch, "row has "+strconv.Itoa(len(parts))+" cells, declaration has "+strconv.Itoa(len(fields)))
		}
		markers := 0
		hadInline = false
		for i, p := range parts {
			lead := leadingBlanks(p)
			v, kind, fs, perr, poff := parseScalar(trimSpaces(p))
			if perr != nil {
				return nil, ln.err(off+offs[i]+lead+poff, perr, "bad cell")
			}
			cells[i] = cell{kind: kind, v: v, fields: fs}
			switch kind {
			case cellMarker:
				markers++
				if inlineSchemas[i] != nil {
					hadInline = true
				}
			case cellSchemaMarker:
				markers++
				inlineSchemas[i] = fs
				hadInline = true
			}
		}
		if markers > 0 && !hasID {
			return nil, ln.err(0, ErrInvalidItemID, "row with attachment markers needs an @ id")
		}
		if b.keyed {
			if _, ok := cells[0].v.(string); !ok || cells[0].kind != cellValue {
				return nil, ln.err(off, ErrSyntax, "keyed row must start with a string member key")
			}
		}
		d.pos++
		var extraKeys []string
		var extraVals []any
		// Attachments and positional bodies.
		for d.pos < len(d.lines) {
			al := d.lines[d.pos]
			if al.level < level || strings.HasPrefix(al.text, "##") {
				break
			}
			if al.level > level+1 {
				return nil, al.err(0, ErrInvalidIndent, "line deeper than its row")
			}
			if strings.HasPrefix(al.text, ".") {
				name, rest, kerr := leadingKey(al.text[1:])
				if kerr != nil {
					return nil, al.err(1, kerr, "bad attachment name")
				}
				col := -1
				for i := first; i < len(fields); i++ {
					if fields[i] == name {
						col = i
						break
					}
				}
				gt := col < 0 && strings.Contains(name, ">")
				switch {
				case col >= 0:
					if cells[col].kind != cellMarker {
						return nil, al.err(0, ErrOrphanAttachment, "attachment ."+name+" has no ^ cell")
					}
					if cells[col].filled {
						return nil, al.err(0, ErrDuplicateAttachment, "second attachment for ."+name)
					}
				case gt:
					for _, k := range extraKeys {
						if k == name {
							return nil, al.err(0, ErrDuplicateAttachment, "second attachment for ."+name)
						}
					}
				default:
					return nil, al.err(0, ErrOrphanAttachment, "attachment ."+name+" matches no column")
				}
				if !strings.HasPrefix(rest, " ") {
					return nil, al.err(0, ErrSyntax, "malformed attachment")
				}
				rest = rest[1:]
				aoff := len(al.text) - len(rest)
				d.pos++
				var v any
				var err error
				switch {
				case rest == "{}":
					v, err = d.object(level+2, depth+1)
				case strings.HasPrefix(rest, "="):
					if !gt {
						return nil, al.err(aoff, ErrSyntax, "scalar attachment on a column")
					}
					lead := leadingBlanks(rest[1:])
					var verr error
					var voff int
					v, verr, voff = parseValueToken(trimSpaces(rest[1:]))
					if verr != nil {
						return nil, al.err(aoff+1+lead+voff, verr, "bad attachment value")
					}
				case strings.HasPrefix(rest, "["):
					var ab bracket
					ab, err = d.parseBracket(al, rest, aoff)
					if err != nil {
						return nil, err
					}
					var sh []string
					if !ab.inline && !ab.keyed {
						if ab.hasFields {
							shared.establish(name, ab.fields)
						} else {
							sh = shared.lookup(name)
						}
					}
					v, err = d.container(al, ab, level+2, depth+1, ctxNested, sh)
				default:
					return nil, al.err(aoff, ErrSyntax, "malformed attachment")
				}
				if err != nil {
					return nil, err
				}
				if col >= 0 {
					cells[col].v = v
					cells[col].filled = true
				} else {
					extraKeys = append(extraKeys, name)
					extraVals = append(extraVals, v)
				}
				continue
			}
			// Positional body for the first unmatched eligible marker.
			col := -1
			for i := range cells {
				c := &cells[i]
				if c.filled {
					continue
				}
				if c.kind == cellSchemaMarker || c.kind == cellMarker && inlineSchemas[i] != nil {
					col = i
					break
				}
			}
			if col < 0 {
				if al.level == level+1 {
					return nil, al.err(0, ErrOrphanInlineAttachment, "positional body without an eligible marker")
				}
				break
			}
			schema := cells[col].fields
			if schema == nil {
				schema = inlineSchemas[col]
			}
			ps, pos, perr, peoff := splitOutsideQuotes(al.text, '|', nil, nil)
			if perr != nil {
				return nil, al.err(peoff, perr, "bad positional value")
			}
			if len(ps) != len(schema) {
				return nil, al.err(0, ErrInlineWidthMismatch, "positional body has "+strconv.Itoa(len(ps))+" values, schema has "+strconv.Itoa(len(schema)))
			}
			o := NewObject(len(schema))
			for i, p := range ps {
				lead := leadingBlanks(p)
				v, verr, voff := parseValueToken(trimSpaces(p))
				if verr != nil {
					return nil, al.err(pos[i]+lead+voff, verr, "bad positional value")
				}
				o.add(schema[i], v)
			}
			cells[col].v = o
			cells[col].filled = true
			d.pos++
		}
		for i := range cells {
			if (cells[i].kind == cellMarker || cells[i].kind == cellSchemaMarker) && !cells[i].filled {
				return nil, ln.err(0, ErrMissingAttachment, "no attachment for column "+strconv.Quote(fields[i]))
			}
		}
		// Rows still to come: the declared rest, bounded by the lines left,
		// or a guess that grows with the rows seen so far.
		hint := max(16, n)
		if b.count >= 0 {
			hint = b.count - n
		}
		hint = min(hint, len(d.lines)-d.pos+1)
		obj := slab.next(len(slots)+len(extraKeys), hint)
		for _, s := range slots {
			if s.col >= 0 {
				c := cells[s.col]
				if c.kind == cellAbsent {
					continue
				}
				obj.add(fields[s.col], c.v)
				continue
			}
			v, st := buildNode(s.node, cells)
			if st != 0 {
				obj.add(s.node.key, v)
			}
		}
		for i, k := range extraKeys {
			if obj.Has(k) {
				return nil, ln.err(0, ErrDuplicateKey, "attachment ."+k+" collides with a column")
			}
			obj.add(k, extraVals[i])
		}
		if identSeen != nil {
			id, ok := obj.Get(fields[b.ident])
			var buf []byte
			buf, _ = appendRootValue(buf, id, ok)
			if identSeen[string(buf)] {
				return nil, ln.err(0, ErrDuplicateKey, "duplicate identity value")
			}
			identSeen[string(buf)] = true
		}
		if b.keyed {
			mk := cells[0].v.(string)
			if keyed.Has(mk) {
				return nil, ln.err(off, ErrDuplicateKey, "duplicate member key "+strconv.Quote(mk))
			}
			keyed.add(mk, obj)
		} else {
			list = append(list, obj)
		}
		n++
	}
	if b.count >= 0 && n < b.count {
		return nil, hdr.err(0, ErrCountMismatch, "declared "+strconv.Itoa(b.count)+" rows, found "+strconv.Itoa(n))
	}
	if deferIdx >= 0 {
		d.deferred[deferIdx] = n
	}
	if b.keyed {
		return keyed, nil
	}
	return list, nil
}

// schemaFields is the decoder's shared array schema table of one body.
type schemaFields struct {
	names  []string
	fields [][]string
}

func (s *schemaFields) establish(name string, fields []string) {
	for _, n := range s.names {
		if n == name {
			return
		}
	}
	s.names = append(s.names, name)
	s.fields = append(s.fields, fields)
}

func (s *schemaFields) lookup(name string) []string {
	for i, n := range s.names {
		if n == name {
			return s.fields[i]
		}
	}
	return nil
}

// checkTrailer validates generic trailer counts (§2.8).
func (d *genDecoder) checkTrailer(s *summary) error {
	if s == nil || len(d.deferred) == 0 {
		return nil
	}
	v, _ := s.get("counts")
	var entries []string
	if v != "" {
		entries = strings.Split(v, ",")
	}
	for _, e := range entries {
		if strings.Contains(e, ":") || !isCountValue(e) {
			return s.ln.err(0, ErrInvalidCount, "bad trailer count "+strconv.Quote(e))
		}
	}
	if len(entries) != len(d.deferred) {
		return s.ln.err(0, ErrCountMismatch, "trailer has "+strconv.Itoa(len(entries))+" counts for "+strconv.Itoa(len(d.deferred))+" deferred sections")
	}
	for i, e := range entries {
		if e != strconv.Itoa(d.deferred[i]) {
			return s.ln.err(0, ErrCountMismatch, "trailer count "+e+" but section has "+strconv.Itoa(d.deferred[i]))
		}
	}
	return nil
}

// appendRootValue renders a value canonically for identity comparisons and
// generic pack roots: null/absent -, booleans, canonical numbers, quoted
// strings, nested values as compact JSON-like text with sorted keys.
func appendRootValue(dst []byte, v any, present bool) ([]byte, error) {
	if !present {
		return append(dst, '-'), nil
	}
	switch x := v.(type) {
	case nil:
		return append(dst, '-'), nil
	case string:
		return appendQuoted(dst, x), nil
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendRootValue(dst, e, true); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *Object:
		keys := append([]string(nil), x.keys...)
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, k)
			dst = append(dst, ':')
			e, _ := x.Get(k)
			var err error
			if dst, err = appendRootValue(dst, e, true); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return appendScalar(dst, v)
}
