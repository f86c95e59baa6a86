package compiler

import (
	"fmt"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// Options configures [New]. The zero value uses the embedded schema
// (config/schemas/graph_query.schema.json).
type Options struct {
	// Schema is the static JSON Schema of the DSL; nil means the embedded copy.
	Schema []byte
	// Sizes reports how many rows the graph's tables hold; the lowering reads a small node
	// table whole instead of narrowing it to the ends of a hop's edges (docs/compiler.md,
	// "Table sizes"). Nil: every such scan is narrowed, as for a table of unknown size.
	Sizes TableSizes
	// MaxQueryBytes bounds the DSL text a Compile reads; 0 means [MaxQueryBytes]. A server
	// whose request limit is raised (graphwire serve --max-recv-msg-size) sets the same number
	// here, so that the query text it accepts is also compiled.
	MaxQueryBytes int
	// CursorKeys sign the cursors of answers and verify those sent back; nil means a random
	// key of this compiler's own (cursors then stay valid while it lives).
	CursorKeys *CursorKeys
	// MaxWalkCost bounds the estimated work of a variable-length relationship (edge
	// combinations, from the engine's edge counts when Sizes implements [EdgeSizes]): a
	// query above it fails with QUERY_TOO_EXPENSIVE before it runs. 0 means
	// [DefaultMaxWalkCost]; negative means no bound.
	MaxWalkCost float64
	// Redacted says answers go through a redaction authority (docs/redaction.md), which
	// withholds rows showing a denied node but cannot see inside an aggregation's bucket: an
	// aggregation may then not group by, or take the min or max of, a free-text property
	// (a String without an enum), whose values would show what denied nodes hold.
	Redacted bool
}

// TableSizes reports the approximate number of rows stored in a table (every stored version
// counts). ok is false when the table's size is unknown. Implementations are safe for
// concurrent use; the compiler may call Rows during any Compile.
type TableSizes interface {
	Rows(table string) (rows int64, ok bool)
}

// Compiler compiles DSL queries against one ontology. It holds the catalog and the derived
// JSON Schema; it is immutable and safe for concurrent use.
type Compiler struct {
	cat    *catalog // the whole ontology: schema names, security check tables
	admin  *catalog // what an administrator may read (cat.view(true))
	public *catalog // what anyone else may read (cat.view(false))
	schema *validator
	sizes  TableSizes // nil: no table is known to be small
	limit  int        // the longest DSL text in bytes (Options.MaxQueryBytes)
	keys   *CursorKeys
	cost   float64 // the largest walk estimate allowed (Options.MaxWalkCost); negative: none
	// redacted: answers are redacted (Options.Redacted), so aggregations keep to values
	// redaction can account for ([checkRedactedAggregation]).
	redacted bool
}

// catalogFor returns the view of the catalog caller may read: validation, lowering, the
// security check and hydration all work on it, so a withheld property can neither be named
// nor selected by "*", default or dynamic columns.
func (c *Compiler) catalogFor(caller *Caller) *catalog {
	if caller != nil && caller.Admin {
		return c.admin
	}
	return c.public
}

// New prepares a compiler for ont: it derives the catalog and compiles the JSON Schema with
// the ontology's entity and relationship names injected.
func New(ont *ontology.Ontology, opts Options) (*Compiler, error) {
	if ont == nil {
		return nil, fmt.Errorf("compiler: nil ontology")
	}
	schema := opts.Schema
	if schema == nil {
		schema = config.GraphQuerySchema()
	}
	cat := newCatalog(ont)
	v, err := newValidator(schema, cat)
	if err != nil {
		return nil, fmt.Errorf("compiler: %w", err)
	}
	limit := opts.MaxQueryBytes
	if limit <= 0 {
		limit = MaxQueryBytes
	}
	keys := opts.CursorKeys
	if keys == nil {
		keys = RandomCursorKeys()
	}
	cost := opts.MaxWalkCost
	if cost == 0 {
		cost = DefaultMaxWalkCost
	}
	return &Compiler{cat: cat, admin: cat.view(true), public: cat.view(false), schema: v, sizes: opts.Sizes, limit: limit, keys: keys, cost: cost, redacted: opts.Redacted}, nil
}

// CursorKeys returns the keys that sign and verify this compiler's cursors.
func (c *Compiler) CursorKeys() *CursorKeys { return c.keys }

// MaxQueryBytes returns the longest DSL text Compile reads (Options.MaxQueryBytes, its
// default filled in).
func (c *Compiler) MaxQueryBytes() int { return c.limit }

// Compile compiles one query with a throw-away [Compiler]. It is a convenience for one-shot
// callers; servers and benchmarks keep a Compiler from [New].
func Compile(dsl []byte, ont *ontology.Ontology, caller *Caller) (*Query, error) {
	c, err := New(ont, Options{})
	if err != nil {
		return nil, err
	}
	return c.Compile(dsl, caller)
}

// Compile turns one DSL document into a parameterized statement for caller. It is pure: no
// I/O, no clock, except what [Options.Sizes] does when asked a table's size (the executor's
// TableSizes answers from a snapshot and may start a refresh in the background). Errors are
// [*Error] values whose Err is a [Reason] sentinel.
//
// Stages, in order: strict decode; JSON Schema validation; typed decode and the semantic
// rules S1–S11; cursor decode; restrict (scopes); lower; security check; emit.
func (c *Compiler) Compile(dsl []byte, caller *Caller) (q *Query, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			q, err = nil, newErr("", ErrCompilerBug, fmt.Sprint("internal compiler error: ", rec))
		}
	}()
	if caller == nil {
		caller = &Caller{}
	}
	stmt, plan, err := c.lower(dsl, caller)
	if err != nil {
		return nil, err
	}
	if c.redacted {
		if err := c.checkRedactedAggregation(plan); err != nil {
			return nil, err
		}
	}
	q, err = c.finish(stmt, caller, plan.Build.QueryType, plan)
	if err != nil || (plan.steps == nil && plan.paths == nil) {
		return q, err
	}
	first := plan.paths.firstStmt()
	if plan.steps != nil {
		first = plan.steps.first
	}
	if plan.edges, err = c.finishEdges(first, caller, plan.Build.QueryType); err != nil {
		return nil, err
	}
	return q, nil
}

// Redacted reports whether c was built for redacted answers (Options.Redacted).
func (c *Compiler) Redacted() bool { return c.redacted }

// checkRedactedAggregation refuses, when answers are redacted, an aggregation that groups by
// or takes the min or max of a free-text property. Redaction withholds a bucket grouped by a
// denied node, and Orbit lets counts and sums through (the scopes bound what they count), but
// a bucket key or a min/max of free text is a value of some node in the bucket, and the
// authority is never asked about those nodes: a title of a confidential issue would be shown
// to a caller the authority denies it to. Enums, numbers, dates and booleans stay allowed.
func (c *Compiler) checkRedactedAggregation(plan *Plan) error {
	b := plan.Build
	if b.QueryType != graphresponse.QueryAggregation {
		return nil
	}
	entityOf := map[string]string{}
	for _, n := range b.Nodes {
		entityOf[n.Alias] = n.Entity
	}
	freeText := func(entity, prop string) bool {
		e := c.cat.entities[entity]
		if e == nil {
			return false
		}
		p := e.prop(prop)
		return p != nil && p.typ == typString && len(p.enum) == 0
	}
	for i, g := range b.Groups {
		if g.Kind == graphresponse.GroupKindProperty && freeText(g.Entity, g.Property) {
			return newErr(ptr("group_by", i), ErrRedactedAggregation, "answers are redacted, and a group key of free text ("+g.Entity+"."+g.Property+") would show values of nodes the redaction authority was not asked about; group by the node, or by an enum, number or date property")
		}
	}
	for i, m := range b.Metrics {
		if (m.Function == "min" || m.Function == "max") && m.Property != "" && freeText(entityOf[m.Target], m.Property) {
			return newErr(ptr("aggregations", i, m.Function), ErrRedactedAggregation, "answers are redacted, and "+m.Function+" of free text ("+entityOf[m.Target]+"."+m.Property+") would show a value of a node the redaction authority was not asked about; count it, or aggregate an enum, number or date property")
		}
	}
	return nil
}

// lower runs stages 1–5 and returns the statement tree before the security check.
func (c *Compiler) lower(dsl []byte, caller *Caller) (*selectStmt, *Plan, error) {
	doc, err := decode(dsl, c.limit)
	if err != nil {
		return nil, nil, err
	}
	if err := c.schema.validate(doc, c.cat); err != nil {
		return nil, nil, err
	}
	r, err := toRequest(doc)
	if err != nil {
		return nil, nil, err
	}
	cat := c.catalogFor(caller)
	if err := validate(r, cat); err != nil {
		return nil, nil, err
	}
	// The hash binds cursors to the query; only paginated requests need it.
	hash := ""
	if r.cursor != nil {
		hash = queryHash(doc)
	}
	l := &lowerer{cat: cat, caller: caller, scopes: newScopeCache(caller), r: r, sizes: c.sizes, plan: &graphresponse.BuildPlan{
		QueryType:     r.queryType,
		PageSize:      r.pageSize(),
		Paginate:      r.cursor != nil,
		QueryHash:     hash,
		SignCursor:    signer(c.keys, caller, r.cursor != nil),
		FormatVersion: config.RawVersion(),
	}}
	if r.cursor != nil && r.cursor.hasAfter {
		if l.after, err = decodeCursor(r.cursor.after, hash, c.keys, caller); err != nil {
			return nil, nil, err
		}
	}
	if err := restrict(r, caller); err != nil {
		return nil, nil, err
	}
	if r.queryType == qTraversal || r.queryType == qAggregation {
		if err := l.checkCost(c.cost); err != nil {
			return nil, nil, err
		}
	}
	var stmt *selectStmt
	switch r.queryType {
	case qTraversal:
		stmt, err = l.lowerTraversal()
	case qAggregation:
		stmt, err = l.lowerAggregation()
	case qPathFinding:
		stmt, err = l.lowerPath()
	case qNeighbors:
		stmt, err = l.lowerNeighbors()
	}
	if err != nil {
		return nil, nil, err
	}
	placePrewhere(stmt, cat)
	if l.steps != nil {
		placePrewhere(l.steps.first, cat)
	}
	if l.paths != nil {
		placePrewhere(l.paths.first, cat)
	}
	l.planDerived()
	return stmt, &Plan{Build: l.plan, caller: caller, debug: r.debugSQL && caller.Admin, steps: l.steps, paths: l.paths, walks: l.walks, hops: l.hops}, nil
}

// finish runs the security check and emits the statement.
func (c *Compiler) finish(stmt *selectStmt, caller *Caller, queryType string, plan *Plan) (*Query, error) {
	stmt.settings = append(settingsFor(queryType), stmt.settings...)
	if err := check(stmt, c.catalogFor(caller), caller); err != nil {
		return nil, err
	}
	return c.emit(stmt, plan), nil
}

// finishEdges is finish for the first statement of a plan in steps, checked by checkEdges.
func (c *Compiler) finishEdges(stmt *selectStmt, caller *Caller, queryType string) (*Query, error) {
	stmt.settings = settingsFor(queryType)
	if err := checkEdges(stmt, c.catalogFor(caller), caller); err != nil {
		return nil, err
	}
	return c.emit(stmt, nil), nil
}

// emit writes a checked statement.
func (c *Compiler) emit(stmt *selectStmt, plan *Plan) *Query {
	b := newBuilder()
	b.statement(stmt)
	settings := append(stmt.settings, Setting{Key: "readonly", Value: int64(2)})
	return &Query{SQL: b.sb.String(), Params: b.params, Settings: settings, Plan: plan}
}

// Plan is what the edges need after running a compiled query: the builder plan for
// [graphresponse.Build] and, for neighbors and path_finding, what [Compiler.Hydrate] needs.
type Plan struct {
	// Build is the column contract and result rules for graphresponse.Build.
	Build *graphresponse.BuildPlan

	caller *Caller // for hydration, which re-applies the same scopes
	debug  bool    // include_debug_sql requested by an admin
	// steps and edges are the two-step neighbors plan (steps.go): what the lowering left, and
	// its first statement compiled; nil when the query runs as one statement.
	steps *neighborSteps
	edges *Query
	// paths is the multi-step path_finding plan (pathsteps.go), whose first statement is
	// edges too.
	paths *pathSteps
	// walks is the cached form of a traversal's walk (walkcache.go); nil when it has none.
	walks *walkCache
	// hops is the cached form of a fixed-length traversal (hopcache.go); nil when it has none.
	hops *hopCache
}

// Debug reports whether the response should carry the executed SQL (include_debug_sql
// requested by an admin caller).
func (p *Plan) Debug() bool { return p != nil && p.debug }

// NeedsHydration reports whether the query needs a second, hydration statement.
func (p *Plan) NeedsHydration() bool {
	return p != nil && p.Build != nil && (p.Build.QueryType == qNeighbors || p.Build.QueryType == qPathFinding)
}
