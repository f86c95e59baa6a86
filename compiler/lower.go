package compiler

import (
	"strconv"
	"time"

	"github.com/graphwire/graphwire/graphresponse"
)

// lowerer holds what every lowering needs: the catalog, the caller and the request.
type lowerer struct {
	cat    *catalog
	caller *Caller
	scopes *scopeCache
	r      *request
	after  []*string // decoded cursor keys, nil without "after"
	plan   *graphresponse.BuildPlan
	sizes  TableSizes     // nil: sizes unknown
	steps  *neighborSteps // neighbors: the two-step plan, if the query has one
	paths  *pathSteps     // path_finding: the multi-step plan
	walks  *walkCache     // traversal: the walk's cached form, if it can have one
	walked *Walks         // set: the walk is read from these (WalkCachedStep)
	hops   *hopCache      // traversal: the fixed-length hops' cached form, if they can have one
	hopped *Hops          // set: the hops are read from these (HopsCachedStep)
}

// sortKey is one ORDER BY key with what the seek predicate and the readback need.
type sortKey struct {
	e        expr
	desc     bool
	nullable bool
	typ      string // parameter type of a cursor value
}

// nodeScan builds SELECT t.id AS id, t.<c> AS <c>… FROM <table> AS t FINAL WHERE
// t._deleted = false AND <scope> AND <filters> AND <node_ids> AND <id_range> AND <extra>.
func (l *lowerer) nodeScan(n *nodeSel, cols []*property, extra ...expr) *selectStmt {
	s := l.entityScan(n.ent, extra...)
	s.cols = []selItem{as(col("t", "id"), "id")}
	for _, p := range cols {
		s.cols = append(s.cols, as(col("t", p.name), p.name))
	}
	where := s.where[:len(s.where)-len(extra)]
	where = append(where, predExprs("t", n.preds)...)
	if n.hasIDs {
		where = append(where, idsIn(col("t", "id"), n.nodeIDs))
	}
	if n.idRange != nil {
		where = append(where,
			&binOp{op: ">=", l: col("t", "id"), r: prm(n.idRange[0], typInt64)},
			&binOp{op: "<=", l: col("t", "id"), r: prm(n.idRange[1], typInt64)})
	}
	s.where = append(where, extra...)
	return s
}

// knownIDs repeats, for an edge scan seeded by the CTE of node selector n, the ids or id
// range n names as constants on the seed column c. The CTE seed stays (it carries the node's
// scope and liveness); the constants let the engine prune by the primary key and the id
// bloom-filter indexes, which a set built from a sub-query does not.
func knownIDs(n *nodeSel, c expr) []expr {
	var out []expr
	if n.hasIDs {
		out = append(out, idsIn(c, n.nodeIDs))
	}
	if n.idRange != nil {
		out = append(out,
			&binOp{op: ">=", l: c, r: prm(n.idRange[0], typInt64)},
			&binOp{op: "<=", l: c, r: prm(n.idRange[1], typInt64)})
	}
	return out
}

// entityScan is the bare scan of an entity table with its mandatory conjuncts.
func (l *lowerer) entityScan(e *entity, extra ...expr) *selectStmt {
	s := &selectStmt{from: &tableRef{table: e.table, alias: "t", final: true}}
	s.where = []expr{eq(col("t", "_deleted"), litBool(false))}
	if !e.global {
		s.where = append(s.where, scopeFor(l.scopes, "t", e.floor))
	}
	s.where = append(s.where, extra...)
	return s
}

// edgeScan is the bare scan of an edge table with its mandatory conjuncts, the relationship
// types and the selector's own filters.
func (l *lowerer) edgeScan(table string, types []string, preds []*pred) *selectStmt {
	s := &selectStmt{from: &tableRef{table: table, alias: "t", final: true}}
	s.where = []expr{
		eq(col("t", "_deleted"), litBool(false)),
		scopeFor(l.scopes, "t", edgeFloor),
	}
	if len(types) > 0 {
		s.where = append(s.where, inValues(col("t", "relationship_kind"), stringsAny(types), typString))
	}
	s.where = append(s.where, predExprs("t", preds)...)
	return s
}

func stringsAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// inValues is c = {p} for one value and c IN {p:Array(T)} for several.
func inValues(c expr, vals []any, typ string) expr {
	if len(vals) == 1 {
		return eq(c, prm(vals[0], typ))
	}
	return &binOp{op: "IN", l: c, r: prm(vals, "Array("+typ+")")}
}

func idsIn(c expr, ids []int64) expr {
	vals := make([]any, len(ids))
	for i, id := range ids {
		vals[i] = id
	}
	return inValues(c, vals, typInt64)
}

// predExprs renders filter predicates on scan alias t (docs/dsl.md, "Filters").
func predExprs(t string, preds []*pred) []expr {
	var out []expr
	for _, p := range preds {
		c := col(t, p.col)
		switch p.op {
		case "eq":
			out = append(out, eq(c, prm(p.val, p.typ)))
		case "gt", "gte", "lt", "lte":
			op := map[string]string{"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}[p.op]
			out = append(out, &binOp{op: op, l: c, r: prm(p.val, p.typ)})
		case "in":
			out = append(out, inValues(c, p.vals, p.typ))
		case "contains":
			out = append(out, &binOp{op: ">", l: fn("positionCaseInsensitiveUTF8", c, prm(p.val, typString)), r: litInt(0)})
		case "starts_with":
			out = append(out, fn("startsWith", c, prm(p.val, typString)))
		case "ends_with":
			out = append(out, fn("endsWith", c, prm(p.val, typString)))
		case "token_match":
			out = append(out, fn("hasToken", c, prm(p.val, typString)))
		case "all_tokens":
			out = append(out, fn("hasAllTokens", c, prm(p.val, typString)))
		case "any_tokens":
			out = append(out, fn("hasAnyTokens", c, prm(p.val, typString)))
		case "is_null":
			out = append(out, &isNull{e: c})
		case "is_not_null":
			out = append(out, &isNull{e: c, not: true})
		}
	}
	return out
}

// keyType is the cursor parameter type of a property key.
func keyType(p *property) string {
	switch p.typ {
	case typLC:
		return typString
	case typDateTime:
		return "DateTime64(6, 'UTC')"
	}
	return p.typ
}

// orderItems and readback columns for sort keys.
func orderItems(keys []sortKey) []orderItem {
	out := make([]orderItem, len(keys))
	for i, k := range keys {
		out[i] = orderItem{e: k.e, desc: k.desc, nullsLast: k.nullable}
	}
	return out
}

func readback(keys []sortKey) []selItem {
	out := make([]selItem, len(keys))
	for i, k := range keys {
		out[i] = as(fn("toString", k.e), "_k"+strconv.Itoa(i))
	}
	return out
}

// seek builds the keyset predicate of a cursor page: a row passes when its sort keys come
// strictly after the keys the cursor carries, in the query's total order (NULLs last, ids
// breaking ties; docs/dsl.md, "Ordering, limits and pages").
func (l *lowerer) seek(keys []sortKey) (expr, error) {
	if len(l.after) != len(keys) {
		return nil, newErr("/cursor/after", ErrInvalidCursor, "the cursor does not fit this query")
	}
	vals := make([]expr, len(keys))
	for i, k := range keys {
		v := l.after[i]
		if v == nil {
			if !k.nullable {
				return nil, newErr("/cursor/after", ErrInvalidCursor, "the cursor does not fit this query")
			}
			continue
		}
		tv, ok := parseKey(*v, k.typ)
		if !ok {
			return nil, newErr("/cursor/after", ErrInvalidCursor, "the cursor does not fit this query")
		}
		vals[i] = prm(tv, k.typ)
	}
	var after func(i int) expr
	after = func(i int) expr {
		k := keys[i]
		var strict expr
		if vals[i] != nil {
			op := ">"
			if k.desc {
				op = "<"
			}
			strict = &binOp{op: op, l: k.e, r: vals[i]}
			if k.nullable {
				strict = orExpr{strict, &isNull{e: k.e}}
			}
		}
		if i == len(keys)-1 {
			if strict == nil {
				return litBool(false)
			}
			return strict
		}
		var equal expr
		if vals[i] != nil {
			equal = eq(k.e, vals[i])
		} else {
			equal = &isNull{e: k.e}
		}
		rest := andExpr{equal, after(i + 1)}
		if strict == nil {
			return rest
		}
		return orExpr{strict, rest}
	}
	return after(0), nil
}

func parseKey(s, typ string) (any, bool) {
	switch typ {
	case typInt64:
		n, err := strconv.ParseInt(s, 10, 64)
		return n, err == nil
	case typFloat64:
		f, err := strconv.ParseFloat(s, 64)
		return f, err == nil
	case typBool:
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		return nil, false
	case typString:
		return s, true
	case typDate32:
		t, err := time.Parse(time.DateOnly, s)
		return t, err == nil
	case "DateTime64(6, 'UTC')":
		t, err := time.Parse("2006-01-02 15:04:05.999999999", s)
		return t, err == nil
	}
	return nil, false
}

// selection resolves the selected properties of a node selector (stage 3).
func selection(n *nodeSel) []*property {
	switch {
	case n.colsAll:
		return n.ent.starProps()
	case n.cols == nil:
		return n.ent.defaults()
	}
	var out []*property
	seen := map[string]bool{"id": true}
	for _, c := range n.cols {
		if !seen[c] {
			seen[c] = true
			out = append(out, n.ent.prop(c))
		}
	}
	return out
}

func planColumns(ps []*property) []graphresponse.PlanColumn {
	out := make([]graphresponse.PlanColumn, len(ps))
	for i, p := range ps {
		out[i] = graphresponse.PlanColumn{Name: p.name, Type: p.typ}
	}
	return out
}

// settingsFor returns the per-query ClickHouse settings: at most 30 s and 4 GiB per
// statement, 15 s and 8 GiB for path_finding (docs/clickhouse.md, "chDB statements,
// connections and limits", says how an executor applies them).
//
// Every statement turns off the engine's direct read from text indexes: with a scan's
// sorting-key predicates in PREWHERE ahead of FINAL, that rewrite drops the PREWHERE columns
// on unmerged parts (NOT_FOUND_COLUMN_IN_BLOCK, chDB 26.7). The text indexes still skip
// granules; only the column they would replace is read.
//
// An aggregation also turns off the engine's runtime join filters (a filter built from each
// join's right side and applied to the left side's reads): its joins keep most of the rows
// they are given (the edges of the nodes read), so building and applying the filters cost
// more than they drop, 5–14 % of the statement's CPU at scale 10 and 100 (docs/duckdb.md,
// "Search and aggregation against DuckDB").
func settingsFor(queryType string) []Setting {
	noDirect := Setting{Key: "query_plan_direct_read_from_text_index", Value: int64(0)}
	switch queryType {
	case qPathFinding:
		return []Setting{{Key: "max_execution_time", Value: int64(15)}, {Key: "max_memory_usage", Value: int64(8589934592)}, noDirect}
	case qAggregation:
		return []Setting{{Key: "max_execution_time", Value: int64(30)}, {Key: "max_memory_usage", Value: int64(4294967296)}, noDirect,
			{Key: "enable_join_runtime_filters", Value: int64(0)}}
	}
	return []Setting{{Key: "max_execution_time", Value: int64(30)}, {Key: "max_memory_usage", Value: int64(4294967296)}, noDirect}
}

// readableSet is the body of a CTE of the nodes of kinds the caller may read: one entity
// scan per kind, scoped like any other scan of that entity (a global entity's nodes need only
// be live), yielding columns id and kind. With src set, each arm keeps only the (id, kind)
// pairs the CTE src yields in its columns idCol and kindCol. Every node a walk passes through
// is taken from such a set, so a walk never crosses a node the caller cannot read
// (docs/compiler.md, "Security rules in SQL"). kinds must not be empty.
//
// With withTP, each arm also yields the node's traversal_path (the empty string for a global entity), for
// the joins of edges bound to their ends (namespace.go).
func (l *lowerer) readableSet(kinds []*entity, src, idCol, kindCol string, withTP bool) *selectStmt {
	var out *selectStmt
	for _, e := range kinds {
		var extra []expr
		if src != "" {
			ids := idsFrom(src, idCol)
			ids.where = []expr{eq(col("", kindCol), prm(e.name, typString))}
			extra = append(extra, in(col("t", "id"), ids))
		}
		arm := l.entityScan(e, extra...)
		arm.cols = []selItem{as(col("t", "id"), "id"), as(prm(e.name, typString), "kind")}
		if withTP {
			var tp expr = col("t", tpProp.name)
			if e.global {
				tp = prm("", typString)
			}
			arm.cols = append(arm.cols, as(tp, tpProp.name))
		}
		if out == nil {
			out = arm
		} else {
			out.union = append(out.union, arm)
		}
	}
	return out
}

// innerKinds lists, in ontology order, the entities a walk over types can stand on one edge
// after an entity in at and leave again by another edge: along the edges when forward,
// against them when backward (both for direction "both"). These are the kinds a readable
// set of walk intermediates has to scan.
func (l *lowerer) innerKinds(types []string, at []*entity, forward, backward bool) []*entity {
	from := map[string]bool{}
	for _, e := range at {
		from[e.name] = true
	}
	reach, leave := map[string]bool{}, map[string]bool{}
	for _, t := range types {
		for _, p := range l.cat.rels[t].pairs {
			if forward {
				reach[p.to] = reach[p.to] || from[p.from]
				leave[p.from] = true
			}
			if backward {
				reach[p.from] = reach[p.from] || from[p.to]
				leave[p.to] = true
			}
		}
	}
	var out []*entity
	for _, name := range l.cat.entityNames {
		if reach[name] && leave[name] {
			out = append(out, l.cat.entities[name])
		}
	}
	return out
}

// stepsTo reports whether one edge of the given types leads from an entity of kind from to one
// of the kinds in to: along the edges when forward, against them when backward.
func (l *lowerer) stepsTo(types []string, from *entity, to []*entity, forward, backward bool) bool {
	for _, t := range types {
		for _, p := range l.cat.rels[t].pairs {
			for _, e := range to {
				if (forward && p.from == from.name && p.to == e.name) || (backward && p.to == from.name && p.from == e.name) {
					return true
				}
			}
		}
	}
	return false
}

// keepIf returns the entities of es for which keep holds, in order.
func keepIf(es []*entity, keep func(*entity) bool) []*entity {
	var out []*entity
	for _, e := range es {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// edgeKey is the sorting key of both edge tables (config/graph.sql): they differ only in
// the order of the columns.
var edgeKey = map[string]bool{
	"traversal_path": true, "relationship_kind": true, "source_kind": true,
	"source_id": true, "target_kind": true, "target_id": true,
}

// The sorting keys of the entity tables: (traversal_path, id) for a namespaced entity, (id)
// for a global one.
var (
	namespacedKey = map[string]bool{"traversal_path": true, "id": true}
	globalKey     = map[string]bool{"id": true}
)

// sortingKey returns the sorting-key columns of a graph table (shared; callers only read
// them): the six edge columns, namespacedKey or globalKey. Nil for a table the catalog does
// not know.
func sortingKey(cat *catalog, table string) map[string]bool {
	if table == cat.edgeTable || table == cat.edgeByTarget {
		return edgeKey
	}
	e, ok := cat.tables[table]
	switch {
	case !ok:
		return nil
	case e.global:
		return globalKey
	}
	return namespacedKey
}

// keyOnly reports whether conjunct c of a scan with alias reads no column of that scan but
// the sorting-key columns key. All versions of a row share its sorting key, so such a
// conjunct holds for all of them or for none: it may filter before FINAL merges the versions
// (PREWHERE) without ever letting an old version through. The sub-query of an IN reads other
// relations and is not looked into; its left side is.
func keyOnly(c expr, alias string, key map[string]bool) bool {
	switch x := c.(type) {
	case *colRef:
		return x.qual == alias && key[x.name]
	case *scopePred:
		return x.alias == alias && key["traversal_path"]
	case *param, *lit:
		return true
	case *inSub:
		return keyOnly(x.l, alias, key)
	case *notInSub:
		return keyOnly(x.l, alias, key)
	case *binOp:
		return keyOnly(x.l, alias, key) && keyOnly(x.r, alias, key)
	case *isNull:
		return keyOnly(x.e, alias, key)
	case *castExpr:
		return keyOnly(x.e, alias, key)
	case *call:
		return allKeyOnly(x.args, alias, key)
	case andExpr:
		return allKeyOnly(x, alias, key)
	case orExpr:
		return allKeyOnly(x, alias, key)
	case tupleExpr:
		return allKeyOnly(x, alias, key)
	case arrayExpr:
		return allKeyOnly(x, alias, key)
	}
	return false
}

func allKeyOnly(es []expr, alias string, key map[string]bool) bool {
	for _, e := range es {
		if !keyOnly(e, alias, key) {
			return false
		}
	}
	return true
}

// placePrewhere moves, in every FINAL scan of stmt, the conjuncts that read only
// sorting-key columns (the scope predicate, ids, id ranges, edge kinds, traversal_path
// filters, IN sets on ids) from WHERE to PREWHERE, so they narrow the rows before FINAL
// merges versions instead of after. _deleted = false and filters on other columns stay in
// WHERE: they must see only the latest version of a row.
func placePrewhere(stmt *selectStmt, cat *catalog) {
	walk(stmt, func(n sqlNode) {
		s, ok := n.(*selectStmt)
		if !ok {
			return
		}
		t, ok := s.from.(*tableRef)
		if !ok || !t.final || len(s.joins) > 0 {
			return
		}
		key := sortingKey(cat, t.table)
		if key == nil {
			return
		}
		var where []expr
		for _, c := range s.where {
			if keyOnly(c, t.alias, key) {
				s.prewhere = append(s.prewhere, c)
			} else {
				where = append(where, c)
			}
		}
		s.where = where
	})
}
