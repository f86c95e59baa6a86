package compiler

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// builder is the tracked SQL buffer: SQL text plus the parameters written into it. Values
// reach the text only through arg, which appends a {pN:Type} placeholder; equal (type,
// value) pairs share one parameter, numbered in order of first appearance.
type builder struct {
	sb     strings.Builder
	params []Param
	seen   map[argKey]string
	arrays map[string][]string // CTEs computed once into an array: name -> column names
}

func newBuilder() *builder {
	b := &builder{seen: make(map[argKey]string, 16)}
	b.sb.Grow(4096)
	return b
}

func (b *builder) w(s string) { b.sb.WriteString(s) }

// argKey identifies a parameter by type and value, so equal pairs share one placeholder.
type argKey struct {
	typ string
	val string
}

// arg appends the placeholder for v of ClickHouse type typ.
func (b *builder) arg(v any, typ string) {
	key := argKey{typ: typ, val: paramKey(v)}
	name, ok := b.seen[key]
	if !ok {
		name = "p" + strconv.Itoa(len(b.params))
		b.seen[key] = name
		b.params = append(b.params, Param{Name: name, Type: typ, Value: v})
	}
	b.w("{")
	b.w(name)
	b.w(":")
	b.w(typ)
	b.w("}")
}

func paramKey(v any) string {
	switch x := v.(type) {
	case string:
		return x // strings are the common case; other kinds carry a prefix byte that no
		// placeholder type shares with String, and the type is part of the key anyway
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "b" + strconv.FormatBool(x)
	case time.Time:
		return "t" + x.UTC().Format(time.RFC3339Nano)
	case []any:
		var sb strings.Builder
		sb.WriteString("a")
		for _, e := range x {
			k := paramKey(e)
			sb.WriteString(strconv.Itoa(len(k)))
			sb.WriteByte(':')
			sb.WriteString(k)
		}
		return sb.String()
	}
	return fmt.Sprintf("?%T%v", v, v)
}

// ident appends an identifier. Identifiers come only from the ontology registry and the
// compiler's own names, all matching ^[a-z_][a-z0-9_]*$; anything else is a compiler bug.
func (b *builder) ident(s string) {
	if !isIdent(s) {
		panic("compiler: identifier " + strconv.Quote(s) + " is not renderable")
	}
	b.w(s)
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case c == '_' || (c >= 'a' && c <= 'z'):
		case i > 0 && c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return true
}

// Operator precedence for parenthesisation.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp
	precAtom
)

func prec(e expr) int {
	switch x := e.(type) {
	case orExpr:
		if len(x) == 1 {
			return prec(x[0])
		}
		return precOr
	case andExpr:
		if len(x) == 1 {
			return prec(x[0])
		}
		return precAnd
	case *scopePred:
		return prec(scopeExpr(x))
	case *binOp, *isNull, *inSub, *notInSub:
		return precCmp
	}
	return precAtom
}

// membership renders "<l> IN (<sub>)" or "<l> NOT IN (<sub>)" (op), the set read straight
// from an array CTE where it can be.
func (b *builder) membership(l expr, op string, sub *selectStmt) {
	b.expr(l, precCmp+1)
	b.w(op)
	if !b.arrayLookup(sub) {
		b.selectInline(sub)
	}
	b.w(")")
}

// expr renders e, wrapping it in parentheses when it binds more loosely than the context.
// It is the one place that decides where parentheses go.
func (b *builder) expr(e expr, ctx int) {
	if prec(e) < ctx {
		b.w("(")
		b.exprBare(e)
		b.w(")")
		return
	}
	b.exprBare(e)
}

func (b *builder) exprBare(e expr) {
	switch x := e.(type) {
	case *colRef:
		if x.qual != "" {
			b.ident(x.qual)
			b.w(".")
		}
		b.ident(x.name)
	case *param:
		b.arg(x.val, x.typ)
	case *lit:
		switch v := x.v.(type) {
		case bool:
			b.w(strconv.FormatBool(v))
		case int:
			b.w(strconv.Itoa(v))
		default:
			panic("compiler: unsupported literal")
		}
	case *call:
		if !allowedFunctions[x.fn] {
			panic("compiler: function " + strconv.Quote(x.fn) + " is not in the allow-list")
		}
		b.w(x.fn)
		b.w("(")
		for i, a := range x.args {
			if i > 0 {
				b.w(", ")
			}
			b.expr(a, 0)
		}
		b.w(")")
	case *binOp:
		b.expr(x.l, precCmp+1)
		b.w(" ")
		b.w(x.op)
		b.w(" ")
		b.expr(x.r, precCmp+1)
	case andExpr:
		// An AllowAll scope (admin) is omitted from its conjunction (docs/compiler.md,
		// "Security rules in SQL").
		first := true
		for _, c := range x {
			if sp, ok := c.(*scopePred); ok && sp.mode == scopeAllowAll && len(x) > 1 {
				continue
			}
			if !first {
				b.w(" AND ")
			}
			first = false
			b.expr(c, precAnd+1)
		}
	case orExpr:
		for i, c := range x {
			if i > 0 {
				b.w(" OR ")
			}
			b.expr(c, precOr+1)
		}
	case *isNull:
		b.expr(x.e, precCmp+1)
		if x.not {
			b.w(" IS NOT NULL")
		} else {
			b.w(" IS NULL")
		}
	case *inSub:
		b.membership(x.l, " IN (", x.sub)
	case *notInSub:
		b.membership(x.l, " NOT IN (", x.sub)
	case tupleExpr:
		b.w("(")
		for i, c := range x {
			if i > 0 {
				b.w(", ")
			}
			b.expr(c, 0)
		}
		b.w(")")
	case arrayExpr:
		b.w("[")
		for i, c := range x {
			if i > 0 {
				b.w(", ")
			}
			b.expr(c, 0)
		}
		b.w("]")
	case *castExpr:
		b.w("CAST(")
		b.expr(x.e, 0)
		b.w(" AS " + castTypes[x.typ] + ")")
	case *scopePred:
		b.exprBare(scopeExpr(x))
	default:
		panic("compiler: emit: unknown expression type")
	}
}

// castTypes is the closed set of type names CAST may use.
var castTypes = map[string]string{
	"String":                  "String",
	"Array(Nullable(String))": "Array(Nullable(String))",
}

// maxScopeOr is the largest path set rendered as an OR of startsWith (docs/compiler.md,
// "Security rules in SQL"), which the
// primary key on traversal_path can prune by.
const maxScopeOr = 8

// scopeExpr is the SQL form of a scope predicate. Admins get true, callers without an
// eligible path false, up to maxScopeOr paths an OR of startsWith. A larger set (a token may
// carry 10 000 scopes) must not cost one startsWith per path per row: the paths, which
// PathsAtLeast made prefix-free, are grouped by length, and a row matches when the prefix of
// its traversal_path of one of those lengths is in that group's set (a hash lookup per
// length, not per path): startsWith(tp, p) holds exactly when substring(tp, 1, len(p)) = p.
// The common prefix of all paths, when there is one, stays in front as a startsWith for the
// primary key. Values are parameters; lengths (at most 400 bytes for a valid path) are
// literals.
func scopeExpr(s *scopePred) expr {
	tp := col(s.alias, "traversal_path")
	switch {
	case s.mode == scopeAllowAll:
		return litBool(true)
	case s.mode == scopeDenyAll || len(s.paths) == 0:
		return litBool(false)
	case len(s.paths) == 1:
		return fn("startsWith", tp, prm(s.paths[0], typString))
	case len(s.paths) <= maxScopeOr:
		or := make(orExpr, len(s.paths))
		for i, p := range s.paths {
			or[i] = fn("startsWith", tp, prm(p, typString))
		}
		return or
	}
	byLen := map[int][]any{}
	for _, p := range s.paths {
		byLen[len(p)] = append(byLen[len(p)], p)
	}
	var or orExpr
	for _, n := range slices.Sorted(maps.Keys(byLen)) {
		if ps := byLen[n]; len(ps) == 1 {
			or = append(or, fn("startsWith", tp, prm(ps[0], typString)))
		} else {
			or = append(or, &binOp{op: "IN", l: fn("substring", tp, litInt(1), litInt(n)), r: prm(ps, "Array(String)")})
		}
	}
	var match expr = or
	if len(or) == 1 {
		match = or[0]
	}
	if lcp := commonPrefix(s.paths); lcp != "" {
		return andExpr{fn("startsWith", tp, prm(lcp, typString)), match}
	}
	return match
}

// commonPrefix is the longest "/"-terminated prefix shared by all paths.
func commonPrefix(paths []string) string {
	p := paths[0]
	for _, q := range paths[1:] {
		for !strings.HasPrefix(q, p) {
			p = p[:len(p)-1]
		}
	}
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return ""
}

// arrayPrefix names the scalar that holds an array CTE's rows; no column alias the
// compiler writes starts with it, so the scalar never shadows a table alias or a column.
const arrayPrefix = "_arr_"

// arrayCTEs picks the CTEs of s that are read more than once. ClickHouse inlines an
// ordinary CTE at every reference, so a CTE that is both joined and fed into the next scan's
// IN, or read by several later CTEs, would be computed once per reference, and a chain of
// them once per path through the chain. Such a CTE is rendered as a scalar sub-query
// instead, which ClickHouse computes once per statement:
//
//	WITH (SELECT groupArray(tuple(id, name)) FROM (<body>)) AS _arr_n0
//
// and every reference reads the array back as rows:
//
//	(SELECT e.1 AS id, e.2 AS name FROM (SELECT arrayJoin(_arr_n0) AS e)) AS n0
//
// A CTE read once stays an ordinary CTE. The result maps each array CTE to the columns its
// array holds: those some reader uses (usedColumns).
func arrayCTEs(s *selectStmt) map[string][]string {
	refs := map[string]int{}
	walk(s, func(n sqlNode) {
		if r, ok := n.(*cteRef); ok {
			refs[r.name]++
		}
	})
	used := usedColumns(s)
	out := map[string][]string{}
	for _, c := range s.with {
		if refs[c.name] < 2 || c.inline {
			continue
		}
		var cols []string
		for _, it := range c.body.cols {
			name := it.alias
			if name == "" {
				r, ok := it.e.(*colRef)
				if !ok {
					panic("compiler: column of CTE " + c.name + " has no name")
				}
				name = r.name
			}
			if used[c.name][name] {
				cols = append(cols, name)
			}
		}
		if len(cols) == 0 { // read only for its rows (never today): keep one column
			cols = []string{c.body.cols[0].alias}
		}
		out[c.name] = cols
	}
	return out
}

// usedColumns returns, per CTE, the names of its columns that some select reading it may use:
// every column reference qualified by the name or alias the CTE has in that select, and every
// unqualified reference in a select that reads the CTE (over-counting is harmless: it only
// keeps a column in the array). An array holds only these, so a hop's kind, direction and
// depth, or a node's selected properties, are not copied around when nothing reads them.
func usedColumns(stmt *selectStmt) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	mark := func(cte, name string) {
		if out[cte] == nil {
			out[cte] = map[string]bool{}
		}
		out[cte][name] = true
	}
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok {
			return
		}
		byQual := map[string]string{} // qualifier -> CTE name
		var ctes []string
		for _, f := range s.fromItems() {
			if r, ok := f.(*cteRef); ok {
				byQual[r.qual()] = r.name
				ctes = append(ctes, r.name)
			}
		}
		if len(ctes) == 0 {
			return
		}
		var visit func(e sqlNode)
		visit = func(e sqlNode) {
			switch x := e.(type) {
			case *colRef:
				if x.qual == "" {
					for _, c := range ctes {
						mark(c, x.name)
					}
				} else if c, ok := byQual[x.qual]; ok {
					mark(c, x.name)
				}
			case *inSub:
				visit(x.l) // the sub-query is a select of its own, visited by walk
			case *notInSub:
				visit(x.l)
			case *selectStmt, *cte:
			default:
				walkExpr(e, visit)
			}
		}
		for _, it := range s.cols {
			visit(it.e)
		}
		for _, j := range s.joins {
			for _, e := range j.on {
				visit(e)
			}
		}
		for _, list := range [][]expr{s.prewhere, s.where, s.groupBy, s.having} {
			for _, e := range list {
				visit(e)
			}
		}
		for _, o := range s.orderBy {
			visit(o.e)
		}
	})
	return out
}

// walkExpr calls fn for each direct child expression of e.
func walkExpr(e sqlNode, fn func(sqlNode)) {
	switch x := e.(type) {
	case *call:
		for _, a := range x.args {
			fn(a)
		}
	case *binOp:
		fn(x.l)
		fn(x.r)
	case andExpr:
		for _, c := range x {
			fn(c)
		}
	case orExpr:
		for _, c := range x {
			fn(c)
		}
	case *isNull:
		fn(x.e)
	case tupleExpr:
		for _, c := range x {
			fn(c)
		}
	case arrayExpr:
		for _, c := range x {
			fn(c)
		}
	case *castExpr:
		fn(x.e)
	case *scopePred:
		fn(scopeExpr(x))
	case *param, *lit:
	default:
		panic("compiler: usedColumns: unknown expression type")
	}
}

// arrayLookup renders the set of an IN whose sub-query reads columns of an array CTE, with
// at most equality filters on its columns against parameters, straight from the array:
//
//	SELECT arrayJoin(arrayMap(e -> e.2, arrayFilter(e -> e.3 = {p1:String}, _arr_x)))
//
// which spares the engine unpacking every column of every row; a UNION ALL of such arms
// becomes one arrayJoin over the arrayConcat of their arrays (one set, not one per arm). It
// reports false, writing nothing, for any other sub-query.
func (b *builder) arrayLookup(s *selectStmt) bool {
	if len(s.orderBy) > 0 || s.limit > 0 {
		return false
	}
	arms := append([]*selectStmt{s}, s.union...)
	plans := make([]lookupPlan, len(arms))
	for i, arm := range arms {
		var ok bool
		if plans[i], ok = b.planLookup(arm); !ok {
			return false
		}
	}
	b.w("SELECT arrayJoin(")
	if len(plans) > 1 {
		b.w("arrayConcat(")
	}
	for i, p := range plans {
		if i > 0 {
			b.w(", ")
		}
		b.renderLookup(p)
	}
	if len(plans) > 1 {
		b.w(")")
	}
	b.w(")")
	return true
}

// lookupPlan is one arm of an arrayLookup: the array, the 1-based tuple positions to pick and
// the position = parameter filters.
type lookupPlan struct {
	array   string
	picks   []int
	filters []lookupFilter
}

type lookupFilter struct {
	pos int
	val *param
}

func (b *builder) planLookup(s *selectStmt) (lookupPlan, bool) {
	r, ok := s.from.(*cteRef)
	if !ok || len(s.joins) > 0 || len(s.prewhere) > 0 || len(s.groupBy) > 0 || len(s.having) > 0 ||
		len(s.orderBy) > 0 || s.limit > 0 || s.distinct || len(s.cols) == 0 || len(s.with) > 0 {
		return lookupPlan{}, false
	}
	cols, isArray := b.arrays[r.name]
	if !isArray {
		return lookupPlan{}, false
	}
	pos := func(e expr) (int, bool) {
		c, ok := e.(*colRef)
		if !ok || (c.qual != "" && c.qual != r.name && c.qual != r.alias) {
			return 0, false
		}
		i := slices.Index(cols, c.name)
		return i + 1, i >= 0
	}
	p := lookupPlan{array: arrayPrefix + r.name}
	for _, it := range s.cols {
		i, ok := pos(it.e)
		if !ok {
			return lookupPlan{}, false
		}
		p.picks = append(p.picks, i)
	}
	for _, w := range s.where {
		o, ok := w.(*binOp)
		if !ok || o.op != "=" {
			return lookupPlan{}, false
		}
		i, ok := pos(o.l)
		v, isParam := o.r.(*param)
		if !ok || !isParam {
			return lookupPlan{}, false
		}
		p.filters = append(p.filters, lookupFilter{i, v})
	}
	return p, true
}

// renderLookup writes the array expression of one arm: arrayMap(e -> …, [arrayFilter(…, ]_arr_x[)]).
func (b *builder) renderLookup(p lookupPlan) {
	b.w("arrayMap(e -> ")
	if len(p.picks) > 1 {
		b.w("(")
	}
	for k, i := range p.picks {
		if k > 0 {
			b.w(", ")
		}
		b.w("e." + strconv.Itoa(i))
	}
	if len(p.picks) > 1 {
		b.w(")")
	}
	b.w(", ")
	if len(p.filters) > 0 {
		b.w("arrayFilter(e -> ")
		for k, f := range p.filters {
			if k > 0 {
				b.w(" AND ")
			}
			b.w("e." + strconv.Itoa(f.pos) + " = ")
			b.arg(f.val.val, f.val.typ)
		}
		b.w(", ")
	}
	b.ident(p.array)
	if len(p.filters) > 0 {
		b.w(")")
	}
	b.w(")")
}

// statement renders the top-level statement: one clause per line.
func (b *builder) statement(s *selectStmt) {
	b.arrays = arrayCTEs(s)
	if len(s.with) > 0 {
		b.w("WITH\n")
		for i, c := range s.with {
			b.w("  ")
			if cols, ok := b.arrays[c.name]; ok {
				b.w("(SELECT groupArray(tuple(")
				for j, name := range cols {
					if j > 0 {
						b.w(", ")
					}
					b.ident(name)
				}
				b.w(")) FROM (")
				b.selectInline(c.body)
				b.w(")) AS ")
				b.ident(arrayPrefix + c.name)
			} else {
				b.ident(c.name)
				b.w(" AS (")
				b.selectInline(c.body)
				b.w(")")
			}
			if i < len(s.with)-1 {
				b.w(",")
			}
			b.w("\n")
		}
	}
	b.selectBody(s, "\n")
	if len(s.settings) > 0 {
		b.w("\nSETTINGS ")
		for i, st := range s.settings {
			if i > 0 {
				b.w(", ")
			}
			b.ident(st.Key)
			b.w(" = ")
			switch v := st.Value.(type) {
			case int64:
				b.w(strconv.FormatInt(v, 10))
			case string:
				// Settings values come from the closed configuration set, never from requests.
				if !isIdent(v) {
					panic("compiler: setting value is not a plain word")
				}
				b.w("'" + v + "'")
			default:
				panic("compiler: unsupported setting value")
			}
		}
	}
}

func (b *builder) selectInline(s *selectStmt) {
	if len(s.with) > 0 {
		panic("compiler: nested WITH is not supported")
	}
	b.selectBody(s, " ")
}

func (b *builder) selectBody(s *selectStmt, sep string) {
	b.selectCore(s, sep)
	b.selectTail(s, sep)
	for _, u := range s.union {
		b.w(sep + "UNION ALL" + sep)
		b.selectCore(u, sep)
		b.selectTail(u, sep)
	}
}

// selectTail writes the ORDER BY and LIMIT of one SELECT (of a union, too: the engine applies
// them to that SELECT alone).
func (b *builder) selectTail(s *selectStmt, sep string) {
	if len(s.orderBy) > 0 {
		b.w(sep + "ORDER BY ")
		for i, o := range s.orderBy {
			if i > 0 {
				b.w(", ")
			}
			b.expr(o.e, 0)
			if o.desc {
				b.w(" DESC")
			} else {
				b.w(" ASC")
			}
			if o.nullsLast {
				b.w(" NULLS LAST")
			}
		}
	}
	if s.limit > 0 {
		b.w(sep + "LIMIT " + strconv.Itoa(s.limit))
	}
}

func (b *builder) selectCore(s *selectStmt, sep string) {
	b.w("SELECT ")
	if s.distinct {
		b.w("DISTINCT ")
	}
	for i, c := range s.cols {
		if i > 0 {
			b.w(", ")
		}
		b.expr(c.e, 0)
		if c.alias != "" {
			b.w(" AS ")
			b.ident(c.alias)
		}
	}
	if s.from != nil {
		b.w(sep + "FROM ")
		b.fromItem(s.from)
	}
	for _, j := range s.joins {
		b.w(sep + "INNER JOIN ")
		b.fromItem(j.right)
		b.w(" ON ")
		b.expr(andExpr(j.on), 0)
	}
	var pre andExpr
	for _, c := range s.prewhere {
		if sp, ok := c.(*scopePred); !ok || sp.mode != scopeAllowAll {
			pre = append(pre, c) // an AllowAll scope (admin) is left out (docs/compiler.md)
		}
	}
	if len(pre) > 0 {
		b.w(sep + "PREWHERE ")
		b.expr(pre, 0)
	}
	if len(s.where) > 0 {
		b.w(sep + "WHERE ")
		b.expr(andExpr(s.where), 0)
	}
	if len(s.groupBy) > 0 {
		b.w(sep + "GROUP BY ")
		for i, g := range s.groupBy {
			if i > 0 {
				b.w(", ")
			}
			b.expr(g, 0)
		}
	}
	if len(s.having) > 0 {
		b.w(sep + "HAVING ")
		b.expr(andExpr(s.having), 0)
	}
}

func (b *builder) fromItem(f fromItem) {
	switch x := f.(type) {
	case *tableRef:
		b.ident(x.table)
		b.w(" AS ")
		b.ident(x.alias)
		if x.final {
			b.w(" FINAL")
		}
	case *paramRows:
		b.w("(SELECT 1) ARRAY JOIN ")
		for i, c := range x.cols {
			if i > 0 {
				b.w(", ")
			}
			b.arg(c.vals.val, c.vals.typ)
			b.w(" AS ")
			b.ident(c.name)
		}
	case *cteRef:
		cols, isArray := b.arrays[x.name]
		if !isArray {
			b.ident(x.name)
			if x.alias != "" {
				b.w(" AS ")
				b.ident(x.alias)
			}
			return
		}
		b.w("(SELECT ")
		for i, name := range cols {
			if i > 0 {
				b.w(", ")
			}
			b.w("e." + strconv.Itoa(i+1) + " AS ")
			b.ident(name)
		}
		b.w(" FROM (SELECT arrayJoin(")
		b.ident(arrayPrefix + x.name)
		b.w(") AS e)) AS ")
		if x.alias != "" {
			b.ident(x.alias)
		} else {
			b.ident(x.name)
		}
	default:
		panic("compiler: emit: unknown FROM item")
	}
}
