package compiler

// The SQL tree the lowering builds and the emitter renders. It is sealed: every node
// implements the unexported sqlNode marker, and walk panics on a type it does not know, so a
// new node cannot slip past the security check unnoticed. There is no node for raw SQL.

type sqlNode interface{ sqlNode() }

type expr interface {
	sqlNode
	expr()
}

type fromItem interface {
	sqlNode
	from()
}

// selectStmt is one SELECT, optionally followed by UNION ALL arms.
type selectStmt struct {
	with     []*cte
	distinct bool
	cols     []selItem
	from     fromItem
	joins    []join
	prewhere []expr // conjuncts read before FINAL merges versions: sorting-key columns only
	where    []expr // conjuncts
	groupBy  []expr
	having   []expr // conjuncts
	orderBy  []orderItem
	limit    int // 0: none
	// union holds the UNION ALL arms. ClickHouse applies each SELECT's ORDER BY and LIMIT to
	// that SELECT alone, never to the union, and the emitter writes them after it.
	union    []*selectStmt
	settings []Setting
}

// fromItems returns what the select reads: its FROM item, then the right side of each join.
func (s *selectStmt) fromItems() []fromItem {
	out := make([]fromItem, 1, 1+len(s.joins))
	out[0] = s.from
	for _, j := range s.joins {
		out = append(out, j.right)
	}
	return out
}

type cte struct {
	name string
	body *selectStmt
	// inline keeps the CTE an ordinary one even when it is read more than once, so the engine
	// computes it at every reference instead of once into an array (see arrayCTEs): for a
	// read of a few rows by id that is cheaper than the array's scalar sub-query.
	inline bool
}

// arms returns the CTE's body followed by the arms of its union.
func (c *cte) arms() []*selectStmt { return append([]*selectStmt{c.body}, c.body.union...) }

type selItem struct {
	e     expr
	alias string // "" renders the bare expression
}

type join struct {
	right fromItem
	on    []expr
}

type orderItem struct {
	e         expr
	desc      bool
	nullsLast bool
}

// tableRef reads one physical table: FROM <table> AS <alias> [FINAL].
type tableRef struct {
	table string
	alias string
	final bool
}

// cteRef reads a CTE: FROM <name> [AS <alias>]. The emitter decides how a CTE is computed
// (see builder.statement): once into an array when it is read more than once.
type cteRef struct {
	name  string
	alias string
}

// qual is the name a select's column references use for the CTE: its alias, else its name.
func (r *cteRef) qual() string {
	if r.alias != "" {
		return r.alias
	}
	return r.name
}

// paramRows reads rows the compiler computed, bound as parameters: one array per column, of
// equal lengths, zipped into rows, FROM (SELECT 1) ARRAY JOIN {p0:Array(Int64)} AS a, ....
// It reads no table; a select reads its columns by bare name (colRef with no qual). It holds
// the walks found on cached edges ([Compiler.WalkCachedStep]), which the statement trusts
// for nothing but their middles: every row's start and end come from checked scans it is
// joined to.
type paramRows struct {
	cols []paramCol
}

// paramCol is one column of [paramRows]: its name and its values, an array parameter.
type paramCol struct {
	name string
	vals *param
}

// colRef is <qual>.<name>, or a bare name when qual is "".
type colRef struct{ qual, name string }

// param is a value bound as a typed placeholder.
type param struct {
	val any
	typ string
}

// lit is a compiler constant: a bool or a small integer.
type lit struct{ v any }

type call struct {
	fn   string
	args []expr
}

type binOp struct {
	op   string // = != < <= > >= IN
	l, r expr
}

type andExpr []expr
type orExpr []expr

type isNull struct {
	e   expr
	not bool
}

// inSub is <l> IN (<sub>).
type inSub struct {
	l   expr
	sub *selectStmt
}

// notInSub is <l> NOT IN (<sub>). It is a type of its own, not a flag of inSub, so that no
// rule of the security check that reads an IN as a seed or a lookup can take it for one: it
// only ever narrows the rows of the select that holds it.
type notInSub struct {
	l   expr
	sub *selectStmt
}

type tupleExpr []expr
type arrayExpr []expr

type castExpr struct {
	e   expr
	typ string
}

// Scope modes of a scopePred.
const (
	scopePaths = iota
	scopeAllowAll
	scopeDenyAll
)

// scopePred is the authorization conjunct of a scan (docs/compiler.md, "Security rules in SQL").
type scopePred struct {
	alias string
	mode  int
	paths []string
}

func (*selectStmt) sqlNode() {}
func (*cte) sqlNode()        {}
func (*tableRef) sqlNode()   {}
func (*cteRef) sqlNode()     {}
func (*paramRows) sqlNode()  {}
func (*colRef) sqlNode()     {}
func (*param) sqlNode()      {}
func (*lit) sqlNode()        {}
func (*call) sqlNode()       {}
func (*binOp) sqlNode()      {}
func (andExpr) sqlNode()     {}
func (orExpr) sqlNode()      {}
func (*isNull) sqlNode()     {}
func (*inSub) sqlNode()      {}
func (*notInSub) sqlNode()   {}
func (tupleExpr) sqlNode()   {}
func (arrayExpr) sqlNode()   {}
func (*castExpr) sqlNode()   {}
func (*scopePred) sqlNode()  {}

func (*colRef) expr()    {}
func (*param) expr()     {}
func (*lit) expr()       {}
func (*call) expr()      {}
func (*binOp) expr()     {}
func (andExpr) expr()    {}
func (orExpr) expr()     {}
func (*isNull) expr()    {}
func (*inSub) expr()     {}
func (*notInSub) expr()  {}
func (tupleExpr) expr()  {}
func (arrayExpr) expr()  {}
func (*castExpr) expr()  {}
func (*scopePred) expr() {}

func (*tableRef) from()  {}
func (*cteRef) from()    {}
func (*paramRows) from() {}

// walk calls fn for n and every node below it, depth first, left to right. It panics on a
// node type it does not know.
func walk(n sqlNode, fn func(sqlNode)) {
	if n == nil {
		return
	}
	fn(n)
	switch x := n.(type) {
	case *selectStmt:
		for _, c := range x.with {
			walk(c, fn)
		}
		for _, c := range x.cols {
			walk(c.e, fn)
		}
		if x.from != nil {
			walk(x.from, fn)
		}
		for _, j := range x.joins {
			walk(j.right, fn)
			for _, e := range j.on {
				walk(e, fn)
			}
		}
		for _, e := range x.prewhere {
			walk(e, fn)
		}
		for _, e := range x.where {
			walk(e, fn)
		}
		for _, e := range x.groupBy {
			walk(e, fn)
		}
		for _, e := range x.having {
			walk(e, fn)
		}
		for _, o := range x.orderBy {
			walk(o.e, fn)
		}
		for _, u := range x.union {
			walk(u, fn)
		}
	case *cte:
		walk(x.body, fn)
	case *paramRows:
		for _, c := range x.cols {
			walk(c.vals, fn)
		}
	case *tableRef, *cteRef, *colRef, *param, *lit, *scopePred:
	case *call:
		for _, a := range x.args {
			walk(a, fn)
		}
	case *binOp:
		walk(x.l, fn)
		walk(x.r, fn)
	case andExpr:
		for _, e := range x {
			walk(e, fn)
		}
	case orExpr:
		for _, e := range x {
			walk(e, fn)
		}
	case *isNull:
		walk(x.e, fn)
	case *inSub:
		walk(x.l, fn)
		walk(x.sub, fn)
	case *notInSub:
		walk(x.l, fn)
		walk(x.sub, fn)
	case tupleExpr:
		for _, e := range x {
			walk(e, fn)
		}
	case arrayExpr:
		for _, e := range x {
			walk(e, fn)
		}
	case *castExpr:
		walk(x.e, fn)
	default:
		panic("compiler: walk: unknown SQL node type")
	}
}

// Small constructors used by the lowering.

func col(qual, name string) *colRef      { return &colRef{qual: qual, name: name} }
func fn(name string, args ...expr) *call { return &call{fn: name, args: args} }
func eq(l, r expr) *binOp                { return &binOp{op: "=", l: l, r: r} }
func ne(l, r expr) *binOp                { return &binOp{op: "!=", l: l, r: r} }
func prm(v any, typ string) *param       { return &param{val: v, typ: typ} }
func litInt(n int) *lit                  { return &lit{v: n} }
func litBool(b bool) *lit                { return &lit{v: b} }
func as(e expr, alias string) selItem    { return selItem{e: e, alias: alias} }
func in(l expr, sub *selectStmt) *inSub  { return &inSub{l: l, sub: sub} }

func notIn(l expr, sub *selectStmt) *notInSub { return &notInSub{l: l, sub: sub} }

// idsFrom is SELECT <c> FROM <cteName>.
func idsFrom(cteName string, cols ...string) *selectStmt {
	s := &selectStmt{from: &cteRef{name: cteName}}
	for _, c := range cols {
		s.cols = append(s.cols, selItem{e: col("", c)})
	}
	return s
}
