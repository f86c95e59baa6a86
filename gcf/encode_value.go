package gcf

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// normalize converts the accepted Go input types into the canonical value
// model (nil, bool, int64, float64, string, []any, *Object). It returns v
// itself when nothing needs converting.
func normalize(v any, depth, maxDepth int) (any, error) {
	if depth > maxDepth {
		return nil, encErr(ErrLimit, "nesting deeper than "+strconv.Itoa(maxDepth))
	}
	switch x := v.(type) {
	case nil, bool, int64, float64, string:
		return v, nil
	case int:
		return int64(x), nil
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint:
		return fromUint(uint64(x))
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		return fromUint(x)
	case float32:
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return f, nil
	case json.Number:
		n, ok, err := parseNumber(string(x))
		if !ok {
			return nil, encErr(ErrUnsupportedType, "json.Number "+strconv.Quote(string(x))+" is not a number")
		}
		if err != nil {
			return nil, encErr(err, "json.Number "+string(x)+" outside int64")
		}
		return n, nil
	case []any:
		var out []any
		for i, e := range x {
			n, err := normalize(e, depth+1, maxDepth)
			if err != nil {
				return nil, atIndex(err, i)
			}
			if out == nil && !sameValue(n, e) {
				out = make([]any, len(x))
				copy(out, x[:i])
			}
			if out != nil {
				out[i] = n
			}
		}
		if out != nil {
			return out, nil
		}
		return x, nil
	case []*Object:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := normalize(e, depth+1, maxDepth)
			if err != nil {
				return nil, atIndex(err, i)
			}
			out[i] = n
		}
		return out, nil
	case *Object:
		if x == nil {
			return nil, nil
		}
		var out *Object
		for i, k := range x.keys {
			e := x.vals[i]
			n, err := normalize(e, depth+1, maxDepth)
			if err != nil {
				return nil, atPath(err, k)
			}
			if out == nil && !sameValue(n, e) {
				out = NewObject(len(x.keys))
				for j := 0; j < i; j++ {
					out.add(x.keys[j], x.vals[j])
				}
			}
			if out != nil {
				out.add(k, n)
			}
		}
		if out != nil {
			return out, nil
		}
		return x, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := NewObject(len(keys))
		for _, k := range keys {
			n, err := normalize(x[k], depth+1, maxDepth)
			if err != nil {
				return nil, atPath(err, k)
			}
			out.add(k, n)
		}
		return out, nil
	}
	return nil, encErr(ErrUnsupportedType, "unsupported Go type")
}

// sameValue reports whether normalize left a value unchanged (identity for
// composites, equality for scalars).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	case *Object:
		y, ok := b.(*Object)
		return ok && x == y
	case nil, bool, int64, float64, string:
		return a == b
	}
	return false
}

func fromUint(u uint64) (any, error) {
	if u > math.MaxInt64 {
		return nil, encErr(ErrOutOfRange, strconv.FormatUint(u, 10)+" exceeds int64")
	}
	return int64(u), nil
}

// genEncoder writes the generic profile (§2.7) into buf.
type genEncoder struct {
	buf      []byte
	maxDepth int
	maxElems int
	// plans caches the table plan of each array (nil: not tabular). The
	// shared-schema check plans nested arrays before they are written, so
	// without it nested tables would be planned once per enclosing level.
	plans map[arrKey]*tabPlan
}

type arrKey struct {
	p *any
	n int
}

// arrayPlan returns the table plan of a, or nil when a is not an array of
// losslessly tabular objects.
func (g *genEncoder) arrayPlan(a []any) *tabPlan {
	if len(a) == 0 {
		return nil
	}
	k := arrKey{&a[0], len(a)}
	if p, ok := g.plans[k]; ok {
		return p
	}
	var p *tabPlan
	if objs, ok := asObjects(a); ok {
		if p = g.planTable(objs); p != nil {
			p.objs = objs
		}
	}
	if g.plans == nil {
		g.plans = make(map[arrKey]*tabPlan)
	}
	g.plans[k] = p
	return p
}

func (g *genEncoder) indent(level int) {
	for range level {
		g.buf = append(g.buf, ' ', ' ')
	}
}

func (g *genEncoder) nl() { g.buf = append(g.buf, '\n') }

func (g *genEncoder) depthCheck(depth int) error {
	if depth > g.maxDepth {
		return encErr(ErrLimit, "nesting deeper than "+strconv.Itoa(g.maxDepth))
	}
	return nil
}

func (g *genEncoder) scalar(v any) error {
	var err error
	g.buf, err = appendScalar(g.buf, v)
	return err
}

// root writes a whole value after the header line.
func (g *genEncoder) root(v any) error {
	switch x := v.(type) {
	case *Object:
		if kp := g.keyedPlan(x); kp != nil {
			g.buf = append(g.buf, "## "...)
			return g.keyedBody(x, kp, 0, 1)
		}
		return g.members(x, 0, 1)
	case []any:
		g.buf = append(g.buf, "## "...)
		return g.arrayAfterName(x, 0, 1)
	default:
		g.buf = append(g.buf, '=')
		if err := g.scalar(v); err != nil {
			return err
		}
		g.nl()
		return nil
	}
}

// members writes an object's members at level.
func (g *genEncoder) members(o *Object, level, depth int) error {
	if err := g.depthCheck(depth); err != nil {
		return err
	}
	if len(o.keys) > g.maxElems {
		return encErr(ErrLimit, "too many members")
	}
	for i, k := range o.keys {
		if err := g.member(k, o.vals[i], level, depth); err != nil {
			return atPath(err, k)
		}
	}
	return nil
}

func (g *genEncoder) member(k string, v any, level, depth int) error {
	if !validUTF8(k) {
		return encErr(ErrInvalidUTF8, "key is not valid UTF-8")
	}
	g.indent(level)
	switch x := v.(type) {
	case *Object:
		g.buf = append(g.buf, "## "...)
		g.buf = appendKey(g.buf, k)
		if kp := g.keyedPlan(x); kp != nil {
			g.buf = append(g.buf, ' ')
			return g.keyedBody(x, kp, level, depth+1)
		}
		g.nl()
		return g.members(x, level+1, depth+1)
	case []any:
		if len(x) > 0 && allScalars(x) {
			g.buf = appendKey(g.buf, k)
			return g.inlineItems(x)
		}
		g.buf = append(g.buf, "## "...)
		g.buf = appendKey(g.buf, k)
		g.buf = append(g.buf, ' ')
		return g.arrayAfterName(x, level, depth+1)
	default:
		g.buf = appendKey(g.buf, k)
		g.buf = append(g.buf, '=')
		if err := g.scalar(v); err != nil {
			return err
		}
		g.nl()
		return nil
	}
}

func allScalars(a []any) bool {
	for _, e := range a {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

// inlineItems writes "[N]: a,b" and the line end.
func (g *genEncoder) inlineItems(a []any) error {
	if len(a) > g.maxElems {
		return encErr(ErrLimit, "too many elements")
	}
	g.buf = append(g.buf, '[')
	g.buf = strconv.AppendInt(g.buf, int64(len(a)), 10)
	g.buf = append(g.buf, "]:"...)
	for i, e := range a {
		if i == 0 {
			g.buf = append(g.buf, ' ')
		} else {
			g.buf = append(g.buf, ',')
		}
		if err := g.scalar(e); err != nil {
			return atIndex(err, i)
		}
	}
	g.nl()
	return nil
}

// arrayAfterName writes an array's bracket (the name, if any, is already
// written) and its body. Items and rows sit at bodyLevel.
func (g *genEncoder) arrayAfterName(a []any, bodyLevel, depth int) error {
	if err := g.depthCheck(depth); err != nil {
		return err
	}
	if len(a) > g.maxElems {
		return encErr(ErrLimit, "too many elements")
	}
	if len(a) == 0 {
		g.buf = append(g.buf, "[0]\n"...)
		return nil
	}
	if allScalars(a) {
		return g.inlineItems(a)
	}
	if plan := g.arrayPlan(a); plan != nil {
		g.bracket(len(a), false)
		g.buf = appendFieldList(g.buf, plan.names, -1)
		g.nl()
		return g.rows(plan.objs, nil, plan, bodyLevel, depth)
	}
	g.bracket(len(a), false)
	g.nl()
	return g.items(a, bodyLevel, depth)
}

func (g *genEncoder) bracket(n int, keyed bool) {
	g.buf = append(g.buf, '[')
	g.buf = strconv.AppendInt(g.buf, int64(n), 10)
	if keyed {
		g.buf = append(g.buf, ':')
	}
	g.buf = append(g.buf, ']')
}

func asObjects(a []any) ([]*Object, bool) {
	objs := make([]*Object, len(a))
	for i, e := range a {
		o, ok := e.(*Object)
		if !ok {
			return nil, false
		}
		objs[i] = o
	}
	return objs, true
}

// items writes an expanded body: @i lines at level, content at level+1.
func (g *genEncoder) items(a []any, level, depth int) error {
	for i, e := range a {
		if err := g.item(i, e, level, depth); err != nil {
			return atIndex(err, i)
		}
	}
	return nil
}

// item writes one expanded item "@i …".
func (g *genEncoder) item(i int, e any, level, depth int) error {
	g.indent(level)
	g.buf = append(g.buf, '@')
	g.buf = strconv.AppendInt(g.buf, int64(i), 10)
	g.buf = append(g.buf, ' ')
	switch x := e.(type) {
	case *Object:
		if kp := g.keyedPlan(x); kp != nil {
			return g.keyedBody(x, kp, level+1, depth+1)
		}
		g.buf = append(g.buf, "{}\n"...)
		return g.members(x, level+1, depth+1)
	case []any:
		return g.arrayAfterName(x, level+1, depth+1)
	default:
		g.buf = append(g.buf, '=')
		if err := g.scalar(e); err != nil {
			return err
		}
		g.nl()
		return nil
	}
}

// keyedPlan returns the table plan when o is keyed-eligible (§2.7.4).
func (g *genEncoder) keyedPlan(o *Object) *tabPlan {
	if len(o.keys) < 2 {
		return nil
	}
	objs := make([]*Object, len(o.vals))
	for i, v := range o.vals {
		m, ok := v.(*Object)
		if !ok {
			return nil
		}
		objs[i] = m
	}
	p := g.planTable(objs)
	if p == nil {
		return nil
	}
	p.objs = objs
	return p
}

// keyedBody writes "[N:]{label,…}" and the rows at level.
func (g *genEncoder) keyedBody(o *Object, p *tabPlan, level, depth int) error {
	if err := g.depthCheck(depth); err != nil {
		return err
	}
	if len(o.keys) > g.maxElems {
		return encErr(ErrLimit, "too many members")
	}
	label := "key"
	for slices.Contains(p.names, label) {
		label = "_" + label
	}
	g.bracket(len(o.keys), true)
	g.buf = append(g.buf, '{')
	g.buf = appendKey(g.buf, label)
	for _, n := range p.names {
		g.buf = append(g.buf, ',')
		g.buf = appendKey(g.buf, n)
	}
	g.buf = append(g.buf, "}\n"...)
	return g.rows(p.objs, o.keys, p, level, depth)
}

// column is one declared column of a tabular body.
type column struct {
	field string   // top-level key
	path  []string // leaf path below field; nil for a plain column
	hint  int      // likely position of field in a row object
}

// tabPlan is the layout of a tabular or keyed body (§2.7.6).
type tabPlan struct {
	cols     []column
	names    []string // declared names, parallel to cols
	attach   []string // fields that may carry attachments, in union order
	attachGT []bool   // parallel to attach: attachment-only (`>`) field
	objs     []*Object
}

// unionKeys returns the ordered key union of objs.
func unionKeys(objs []*Object) []string {
	union := slices.Clone(objs[0].keys)
	var seen map[string]struct{}
	for _, o := range objs[1:] {
		if len(o.keys) <= len(union) {
			same := true
			for i, k := range o.keys {
				if union[i] != k {
					same = false
					break
				}
			}
			if same {
				continue
			}
		}
		if seen == nil {
			seen = make(map[string]struct{}, len(union)+4)
			for _, k := range union {
				seen[k] = struct{}{}
			}
		}
		for _, k := range o.keys {
			if _, ok := seen[k]; !ok {
				seen[k] = struct{}{}
				union = append(union, k)
			}
		}
	}
	return union
}

// getHint looks key up in o, trying position hint first.
func getHint(o *Object, key string, hint int) (any, bool) {
	if hint >= 0 && hint < len(o.keys) && o.keys[hint] == key {
		return o.vals[hint], true
	}
	return o.Get(key)
}

// planTable returns the table plan for objs, or nil when they are not
// losslessly tabular.
func (g *genEncoder) planTable(objs []*Object) *tabPlan {
	if len(objs) == 0 {
		return nil
	}
	union := unionKeys(objs)
	p := &tabPlan{}
	var gtFields []string
	for ui, f := range union {
		if strings.Contains(f, ">") {
			gtFields = append(gtFields, f)
			continue
		}
		if f != "" {
			if paths := flattenField(objs, f, ui); paths != nil {
				for _, path := range paths {
					p.cols = append(p.cols, column{field: f, path: path, hint: ui})
					p.names = append(p.names, f+">"+strings.Join(path, ">"))
				}
				continue
			}
		}
		p.cols = append(p.cols, column{field: f, hint: ui})
		p.names = append(p.names, f)
		p.attach = append(p.attach, f)
		p.attachGT = append(p.attachGT, false)
	}
	if len(p.cols) == 0 {
		return nil
	}
	// Attachment-only fields come after the columns' attachments: the
	// decoder appends them after the declared fields, so this order keeps
	// Encode(Decode(Encode(v))) == Encode(v).
	for _, f := range gtFields {
		p.attach = append(p.attach, f)
		p.attachGT = append(p.attachGT, true)
	}
	// Shared-schema conflict: a tabular array for f followed by a non-empty
	// array for f that needs expanded form.
	for _, f := range p.attach {
		hint := slices.Index(union, f)
		seenTab := false
		for _, o := range objs {
			v, ok := getHint(o, f, hint)
			if !ok {
				continue
			}
			a, isArr := v.([]any)
			if !isArr || len(a) == 0 || allScalars(a) {
				continue
			}
			if g.arrayPlan(a) != nil {
				seenTab = true
			} else if seenTab {
				return nil
			}
		}
	}
	return p
}

// flattenField returns the leaf paths when field f is flattenable across
// objs (§2.7.6), or nil.
func flattenField(objs []*Object, f string, hint int) [][]string {
	var present []*Object
	nonEmpty := false
	for _, o := range objs {
		v, ok := getHint(o, f, hint)
		if !ok || v == nil {
			continue
		}
		m, isObj := v.(*Object)
		if !isObj {
			return nil
		}
		if len(m.keys) > 0 {
			nonEmpty = true
		}
		present = append(present, m)
	}
	if !nonEmpty {
		return nil
	}
	paths := flattenObjects(present)
	if paths == nil {
		return nil
	}
	for _, m := range present {
		if ok, _ := nonNullLeaves(m); !ok {
			return nil
		}
	}
	return paths
}

// flattenObjects checks rules 2–3 over non-null objects and returns the leaf
// paths, or nil.
func flattenObjects(objs []*Object) [][]string {
	ref := objs[0].keys
	if len(ref) == 0 {
		return nil
	}
	for _, k := range ref {
		if k == "" || strings.Contains(k, ">") {
			return nil
		}
	}
	for _, o := range objs[1:] {
		if !slices.Equal(o.keys, ref) {
			return nil
		}
	}
	var paths [][]string
	for j, k := range ref {
		scalars, objects := 0, 0
		for _, o := range objs {
			switch o.vals[j].(type) {
			case *Object:
				objects++
			case []any:
				return nil
			default:
				scalars++
			}
		}
		switch {
		case objects == 0:
			paths = append(paths, []string{k})
		case scalars == 0:
			sub := make([]*Object, len(objs))
			for i, o := range objs {
				sub[i] = o.vals[j].(*Object)
			}
			sp := flattenObjects(sub)
			if sp == nil {
				return nil
			}
			for _, s := range sp {
				paths = append(paths, append([]string{k}, s...))
			}
		default:
			return nil
		}
	}
	return paths
}

// nonNullLeaves reports whether o and every nested object node has at least
// one non-null leaf (ok), and whether o has any (any).
func nonNullLeaves(o *Object) (ok, any bool) {
	for _, v := range o.vals {
		switch x := v.(type) {
		case *Object:
			cok, cany := nonNullLeaves(x)
			if !cok {
				return false, false
			}
			any = any || cany
		case nil:
		default:
			any = true
		}
	}
	return any, any
}

// schemaTable remembers, per attachment field, the first tabular declaration
// of one body (shared array schemas).
type schemaTable struct {
	fields []string
	decls  [][]byte
}

func (s *schemaTable) lookup(f string) ([]byte, bool) {
	for i, x := range s.fields {
		if x == f {
			return s.decls[i], true
		}
	}
	return nil, false
}

// rows writes the rows of a tabular body (keys != nil: keyed rows) at level,
// with their attachments.
func (g *genEncoder) rows(objs []*Object, keys []string, p *tabPlan, level, depth int) error {
	if err := g.depthCheck(depth); err != nil {
		return err
	}
	if len(objs) > g.maxElems {
		return encErr(ErrLimit, "too many rows")
	}
	var schemas schemaTable
	for i, o := range objs {
		if err := g.row(o, i, keys, p, level, depth, &schemas); err != nil {
			if keys != nil {
				return atPath(err, keys[i])
			}
			return atIndex(err, i)
		}
	}
	return nil
}

func (g *genEncoder) row(o *Object, i int, keys []string, p *tabPlan, level, depth int, schemas *schemaTable) error {
	hasAttach := false
	for ai, f := range p.attach {
		v, ok := o.Get(f)
		if !ok {
			continue
		}
		if p.attachGT[ai] {
			hasAttach = true
			break
		}
		switch v.(type) {
		case *Object, []any:
			hasAttach = true
		}
		if hasAttach {
			break
		}
	}
	g.indent(level)
	if hasAttach {
		g.buf = append(g.buf, '@')
		g.buf = strconv.AppendInt(g.buf, int64(i), 10)
		g.buf = append(g.buf, ' ')
	}
	if keys != nil {
		if !validUTF8(keys[i]) {
			return encErr(ErrInvalidUTF8, "key is not valid UTF-8")
		}
		g.buf = appendString(g.buf, keys[i])
		g.buf = append(g.buf, '|')
	}
	for ci := range p.cols {
		c := &p.cols[ci]
		if ci > 0 {
			g.buf = append(g.buf, '|')
		}
		v, ok := getHint(o, c.field, c.hint)
		if !ok {
			g.buf = append(g.buf, '~')
			continue
		}
		if c.path != nil && v != nil {
			for _, seg := range c.path {
				v, _ = v.(*Object).Get(seg)
			}
		}
		switch v.(type) {
		case *Object, []any:
			g.buf = append(g.buf, '^')
		default:
			if err := g.scalar(v); err != nil {
				return atPath(err, c.field)
			}
		}
	}
	g.nl()
	if !hasAttach {
		return nil
	}
	for ai, f := range p.attach {
		v, ok := o.Get(f)
		if !ok {
			continue
		}
		if !p.attachGT[ai] {
			switch v.(type) {
			case *Object, []any:
			default:
				continue
			}
		}
		if err := g.attachment(f, v, level, depth, schemas); err != nil {
			return atPath(err, f)
		}
	}
	return nil
}

// attachment writes ".f …" at level with content at level+2.
func (g *genEncoder) attachment(f string, v any, level, depth int, schemas *schemaTable) error {
	if !validUTF8(f) {
		return encErr(ErrInvalidUTF8, "key is not valid UTF-8")
	}
	g.indent(level)
	g.buf = append(g.buf, '.')
	g.buf = appendKey(g.buf, f)
	g.buf = append(g.buf, ' ')
	switch x := v.(type) {
	case *Object:
		if kp := g.keyedPlan(x); kp != nil {
			return g.keyedBody(x, kp, level+2, depth+1)
		}
		g.buf = append(g.buf, "{}\n"...)
		return g.members(x, level+2, depth+1)
	case []any:
		if err := g.depthCheck(depth + 1); err != nil {
			return err
		}
		if len(x) > g.maxElems {
			return encErr(ErrLimit, "too many elements")
		}
		if len(x) == 0 {
			g.buf = append(g.buf, "[0]\n"...)
			return nil
		}
		if allScalars(x) {
			return g.inlineItems(x)
		}
		if plan := g.arrayPlan(x); plan != nil {
			objs := plan.objs
			{
				g.bracket(len(x), false)
				start := len(g.buf)
				g.buf = appendFieldList(g.buf, plan.names, -1)
				decl := g.buf[start:]
				if prev, ok := schemas.lookup(f); ok {
					if string(prev) == string(decl) {
						g.buf = g.buf[:start]
					}
				} else {
					schemas.fields = append(schemas.fields, f)
					schemas.decls = append(schemas.decls, slices.Clone(decl))
				}
				g.nl()
				return g.rows(objs, nil, plan, level+2, depth+1)
			}
		}
		g.bracket(len(x), false)
		g.nl()
		return g.items(x, level+2, depth+1)
	default:
		g.buf = append(g.buf, '=')
		if err := g.scalar(v); err != nil {
			return err
		}
		g.nl()
		return nil
	}
}
