package compiler

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/ontology"
)

// Selectivity caps (docs/dsl.md, "Nodes").
const (
	maxSelectiveSpan = 100000
	maxAnchorSpan    = 500
)

// validate is stage 2, step 3: the semantic rules S1–S11 listed in docs/compiler.md,
// "Stages", applied in order. It resolves entities, selections, relationship types, predicates and
// output names on r as it goes.
func validate(r *request, cat *catalog) error {
	byAlias := map[string]*nodeSel{}
	// S1 aliases are unique.
	for _, n := range r.nodes {
		if _, dup := byAlias[n.alias]; dup {
			return newErr(ptr("nodes", n.idx, "id"), ErrDuplicateAlias, "alias "+strconv.Quote(n.alias)+" is used by more than one node")
		}
		byAlias[n.alias] = n
		n.ent = cat.entities[n.entityName]
		if n.ent == nil {
			return newErr(ptr("nodes", n.idx, "entity"), ErrUnknownEntity, "unknown entity "+strconv.Quote(n.entityName), cat.entityNames...)
		}
	}
	aliases := slices.Sorted(maps.Keys(byAlias))
	undefined := func(at, a string) error {
		return newErr(at, ErrUndefinedAlias, "alias "+strconv.Quote(a)+" does not name a node"+didYouMean(a, aliases), aliases...)
	}
	// S2 alias references.
	for _, rs := range r.rels {
		if byAlias[rs.from] == nil {
			return undefined(ptr("relationships", rs.idx, "from"), rs.from)
		}
		if byAlias[rs.to] == nil {
			return undefined(ptr("relationships", rs.idx, "to"), rs.to)
		}
	}
	for i, a := range r.aggs {
		if byAlias[a.target] == nil {
			return undefined(ptr("aggregations", i, a.fn), a.target)
		}
	}
	for i, g := range r.groupBy {
		if byAlias[g.alias] == nil {
			return undefined(groupPtr(r, i), g.alias)
		}
	}
	var orderAlias, orderProp string
	if r.orderBy != "" {
		orderAlias, orderProp, _ = strings.Cut(strings.TrimPrefix(r.orderBy, "-"), ".")
		if byAlias[orderAlias] == nil {
			return undefined("/order_by", orderAlias)
		}
	}
	if r.path != nil {
		if byAlias[r.path.from] == nil {
			return undefined("/path/from", r.path.from)
		}
		if byAlias[r.path.to] == nil {
			return undefined("/path/to", r.path.to)
		}
	}
	// S3 property references. A property the caller's catalog view withholds (admin-only for
	// a caller who is not an administrator, virtual without a stored value) is refused with
	// its own reason, so the caller learns why rather than that it does not exist.
	unknownProp := func(at string, e *entity, name string, options []string) error {
		if p := e.withheld[name]; p != nil {
			return withheldErr(at, e, p)
		}
		if name == tpProp.name && e.global {
			return newErr(at, ErrUnknownProperty, e.name+" is a global entity: its rows carry no traversal_path (only namespaced entities have one); leave traversal_path out for "+e.name, options...)
		}
		if name == "id_property" && strings.Contains(at, "/filters/") {
			// Orbit's node field written among the filters (its corpus keeps such a query as a
			// negative control): say where it belongs, and that it can only be "id".
			return newErr(at, ErrUnknownProperty, "unknown property \"id_property\" on "+e.name+`: id_property is a field of the node, beside "filters", and only "id" is accepted there; to reach the nodes of a group, add the Group as a node and connect it with a relationship`, options...)
		}
		return newErr(at, ErrUnknownProperty, "unknown property "+strconv.Quote(name)+" on "+e.name+didYouMean(name, options), options...)
	}
	for _, n := range r.nodes {
		kept := n.cols[:0:0]
		for j, c := range n.cols {
			if n.ent.prop(c) == nil {
				// A column the caller may not read because it is admin-only is left out of
				// the answer, as Orbit strips it: the same query works for every caller, and
				// the property is absent, not null (docs/orbit-parity.md, "Semantics").
				if p := n.ent.withheld[c]; p != nil && p.adminOnly && !p.unserved() {
					continue
				}
				return unknownProp(ptr("nodes", n.idx, "columns", j), n.ent, c, sortedNames(n.ent))
			}
			kept = append(kept, c)
		}
		if n.cols != nil {
			n.cols = kept
		}
		for _, k := range sortedKeys(n.filters) {
			if n.ent.prop(k) == nil {
				return unknownProp(ptr("nodes", n.idx, "filters", k), n.ent, k, n.ent.filterableNames())
			}
		}
	}
	for i, a := range r.aggs {
		if a.prop != "" {
			e := byAlias[a.target].ent
			if e.prop(a.prop) == nil {
				return unknownProp(ptr("aggregations", i, a.fn), e, a.prop, sortedNames(e))
			}
		}
	}
	for i, g := range r.groupBy {
		if g.prop != "" {
			e := byAlias[g.alias].ent
			if e.prop(g.prop) == nil {
				return unknownProp(groupPtr(r, i), e, g.prop, sortedNames(e))
			}
		}
	}
	if orderAlias != "" {
		e := byAlias[orderAlias].ent
		if e.prop(orderProp) == nil {
			return unknownProp("/order_by", e, orderProp, sortedNames(e))
		}
	}
	// S4 fields allowed per query type.
	allowed := map[string][]string{
		qTraversal:   {"relationships", "order_by"},
		qAggregation: {"relationships", "aggregations", "group_by", "aggregation_sort"},
		qPathFinding: {"path"},
		qNeighbors:   {"neighbors", "order_by"},
	}[r.queryType]
	for _, f := range []string{"relationships", "aggregations", "group_by", "path", "neighbors", "order_by", "aggregation_sort"} {
		if r.present[f] && !slices.Contains(allowed, f) {
			return newErr("/"+f, ErrFieldNotAllowed, "field "+strconv.Quote(f)+" is not allowed in "+withArticle(r.queryType)+" query")
		}
	}
	// S5 shape.
	if err := checkShape(r, byAlias); err != nil {
		return err
	}
	// S6 relationship compatibility.
	if err := resolveRelTypes(r, cat, byAlias); err != nil {
		return err
	}
	// S7 filters.
	if err := resolveFilters(r, cat); err != nil {
		return err
	}
	if orderAlias != "" {
		p := byAlias[orderAlias].ent.prop(orderProp)
		if p.tpath {
			return newErr("/order_by", ErrNotFilterable, "traversal_path can be selected and filtered by prefix but not sorted on (Orbit marks it not filterable); order by another property of the node or leave order_by out")
		}
		if !p.filterable {
			return newErr("/order_by", ErrNotFilterable, "property "+strconv.Quote(orderProp)+" is not filterable, so it cannot be used in order_by; sort by another property of the node or leave order_by out")
		}
		// Long text sorts like any string (Orbit sorts it too), but a cursor carries the sort
		// key of the last row, and a long text could outgrow the cursor's size cap.
		if p.longText && r.cursor != nil {
			return newErr("/order_by", ErrUnsupportedFeature, "a cursor cannot page over the long-text property "+strconv.Quote(orderProp)+" (the cursor would carry the text); use limit instead of cursor, or order by a short property")
		}
		if r.queryType == qNeighbors && orderAlias != r.nodes[0].alias {
			return newErr("/order_by", ErrInvalidShape, "order_by must name a property of the center node")
		}
	}
	// S8 aggregations.
	if err := resolveAggregations(r, byAlias); err != nil {
		return err
	}
	// S9 selectivity.
	if err := checkSelectivity(r, byAlias); err != nil {
		return err
	}
	// S10 features of later versions.
	for _, n := range r.nodes {
		if n.idProperty != "" && n.idProperty != "id" {
			return newErr(ptr("nodes", n.idx, "id_property"), ErrUnsupportedFeature, "id_property other than \"id\" is not available in this version")
		}
	}
	for i, a := range r.aggs {
		if a.fn == "collect" {
			return newErr(ptr("aggregations", i, "collect"), ErrUnsupportedFeature, "the collect aggregation is not available in this version")
		}
	}
	// S11 caps, re-checked on the typed request.
	return checkCaps(r)
}

// withheldErr refuses a property the caller's catalog view withholds (see [catalog.view]).
func withheldErr(at string, e *entity, p *property) error {
	if p.unserved() {
		return newErr(at, ErrUnsupportedFeature, "property "+strconv.Quote(p.name)+" of "+e.name+" is virtual and graphwire does not hold its value (Orbit fetches it from the repository service); leave it out of the query")
	}
	return newErr(at, ErrAdminOnlyProperty, "property "+strconv.Quote(p.name)+" of "+e.name+" is readable by administrators only; leave it out, or select \"*\" or the default columns, which omit it for you")
}

func groupPtr(r *request, i int) string {
	if r.groupBy[i].truncate != "" || r.groupBy[i].as != "" {
		return ptr("group_by", i, "key")
	}
	if _, isObj := r.raw["group_by"].([]any)[i].(map[string]any); isObj {
		return ptr("group_by", i, "key")
	}
	return ptr("group_by", i)
}

func sortedNames(e *entity) []string {
	return slices.Sorted(slices.Values(e.propNames()))
}

func checkShape(r *request, byAlias map[string]*nodeSel) error {
	n := len(r.nodes)
	switch r.queryType {
	case qTraversal, qAggregation:
		if r.queryType == qTraversal && n == 1 && r.hasRels {
			return newErr("/relationships", ErrInvalidShape, "a single-node traversal must not have a relationships field")
		}
		if n > 1 && len(r.rels) == 0 && r.queryType == qAggregation {
			return newErr("/relationships", ErrUnsupportedFeature, "an aggregation over several nodes without relationships is not available in this version")
		}
		if len(r.rels) != n-1 {
			return newErr("/relationships", ErrInvalidShape, "the query needs exactly "+strconv.Itoa(n-1)+" relationships to connect "+strconv.Itoa(n)+" nodes as a tree")
		}
		// Union-find over aliases: connected and acyclic.
		parent := map[string]string{}
		var find func(string) string
		find = func(a string) string {
			if p, ok := parent[a]; ok && p != a {
				root := find(p)
				parent[a] = root
				return root
			}
			return a
		}
		for _, rs := range r.rels {
			at := ptr("relationships", rs.idx)
			if rs.from == rs.to {
				return newErr(sub(at, "to"), ErrInvalidShape, "a relationship must connect two different nodes")
			}
			if r.queryType == qAggregation && rs.direction == "both" {
				return newErr(sub(at, "direction"), ErrInvalidShape, "aggregations allow only outgoing or incoming relationships")
			}
			a, b := find(rs.from), find(rs.to)
			if a == b {
				return newErr(at, ErrInvalidShape, "the relationships form a cycle")
			}
			parent[a] = b
		}
		root := find(r.nodes[0].alias)
		for _, nd := range r.nodes[1:] {
			if find(nd.alias) != root {
				return newErr(ptr("nodes", nd.idx), ErrInvalidShape, "node "+strconv.Quote(nd.alias)+" is not connected to the others")
			}
		}
		for _, rs := range r.rels {
			if rs.minHops > rs.maxHops {
				return newErr(ptr("relationships", rs.idx, "hops"), ErrInvalidShape, "hops minimum must not exceed the maximum")
			}
		}
	case qPathFinding:
		if n != 2 {
			return newErr("/nodes", ErrInvalidShape, "path finding needs exactly 2 nodes")
		}
		if r.path.from == r.path.to {
			return newErr("/path/to", ErrInvalidShape, "path from and to must be different nodes")
		}
	case qNeighbors:
		if n != 1 {
			return newErr("/nodes", ErrInvalidShape, "neighbors needs exactly 1 node (the center)")
		}
	}
	return nil
}

func resolveRelTypes(r *request, cat *catalog, byAlias map[string]*nodeSel) error {
	for _, rs := range r.rels {
		at := ptr("relationships", rs.idx, "type")
		from, to := byAlias[rs.from].ent.name, byAlias[rs.to].ent.name
		ok := concreteTypes(cat, rs.types, rs.star, rs.direction, from, to, rs.maxHops)
		if len(ok) == 0 || !walkExists(cat, ok, rs.direction, from, to, rs.minHops, rs.maxHops) {
			return noMatchingRelationship(at, cat, rs, from, to)
		}
		// Single hops keep only the types with a compatible pair; the others can never match.
		rs.concrete = ok
	}
	if r.path != nil {
		if r.path.hasTypes && !r.path.star {
			rs := slices.Clone(r.path.relTypes)
			slices.Sort(rs)
			r.path.relTypes = slices.Compact(rs)
		} else {
			r.path.relTypes = slices.Clone(cat.relNames)
		}
	}
	if r.neighbors != nil {
		center := r.nodes[0].ent.name
		touches := func(t string) bool {
			for _, p := range cat.rels[t].pairs {
				if (r.neighbors.direction != "incoming" && p.from == center) || (r.neighbors.direction != "outgoing" && p.to == center) {
					return true
				}
			}
			return false
		}
		if r.neighbors.hasTypes {
			// A type that never touches the center in this direction can link no neighbor:
			// like Orbit, the query answers with no rows for it rather than an error.
			var ok []string
			for _, t := range r.neighbors.relTypes {
				if touches(t) {
					ok = append(ok, t)
				}
			}
			slices.Sort(ok)
			r.neighbors.relTypes = slices.Compact(ok)
		} else {
			r.neighbors.relTypes = nil
			for _, n := range cat.relNames {
				if touches(n) {
					r.neighbors.relTypes = append(r.neighbors.relTypes, n)
				}
			}
		}
	}
	return nil
}

// walkExists reports whether the ontology's type graph has a walk of length d in [lo, hi]
// from entity `from` to entity `to` using only types, in the given direction.
func walkExists(cat *catalog, types []string, dir, from, to string, lo, hi int) bool {
	cur := map[string]bool{from: true}
	for d := 1; d <= hi; d++ {
		next := map[string]bool{}
		for _, t := range types {
			rt := cat.rels[t]
			if rt == nil {
				continue
			}
			for _, p := range rt.pairs {
				if dir != "incoming" && cur[p.from] {
					next[p.to] = true
				}
				if dir != "outgoing" && cur[p.to] {
					next[p.from] = true
				}
			}
		}
		if d >= lo && next[to] {
			return true
		}
		cur = next
	}
	return false
}

func resolveFilters(r *request, cat *catalog) error {
	for _, n := range r.nodes {
		at := ptr("nodes", n.idx, "filters")
		e := n.ent
		preds, err := parseFilters(at, n.filters, func(k string) *filterTarget {
			if k == "traversal_path" {
				if e.global {
					return nil
				}
				return &filterTarget{col: k, tpath: true}
			}
			p := e.prop(k)
			if p == nil {
				return nil
			}
			return &filterTarget{col: k, p: p, longText: p.longText}
		}, func(k string) error {
			return newErr(sub(at, k), ErrUnknownProperty, "unknown property "+strconv.Quote(k)+" on "+e.name, e.filterableNames()...)
		})
		if err != nil {
			return err
		}
		for _, k := range sortedKeys(n.filters) {
			p := e.prop(k)
			switch {
			case p == nil || p.tpath:
			case p.virtual && p.stored:
				// As in Orbit, which fetches the text per node from the repository service: a
				// filter on it needs the nodes named by id (docs/dsl.md, "Virtual content").
				if !n.hasIDs {
					return newErr(sub(at, k), ErrNotSelective, "filtering on "+e.name+"."+k+" (virtual content) needs node_ids on the node: the text is matched per named node, never searched across the graph; add node_ids, or filter on another property")
				}
			case !p.filterable:
				return newErr(sub(at, k), ErrNotFilterable, "property "+strconv.Quote(k)+" cannot be filtered")
			}
		}
		n.preds = preds
	}
	for _, rs := range r.rels {
		at := ptr("relationships", rs.idx, "filters")
		// An edge property (project_id, branch) is a filter key only when every type the
		// relationship may match declares it: an edge of another type holds no such value.
		edgeProps := edgePropsOf(cat, rs.concrete)
		preds, err := parseFilters(at, rs.filters, func(k string) *filterTarget {
			switch k {
			case "traversal_path":
				return &filterTarget{col: k, tpath: true}
			case "source_id", "target_id":
				return &filterTarget{col: k, p: &property{name: k, typ: typInt64, filterable: true}}
			case "project_id":
				if slices.Contains(edgeProps, k) {
					return &filterTarget{col: k, p: &property{name: k, typ: typInt64, filterable: true}}
				}
			case "branch":
				if slices.Contains(edgeProps, k) {
					return &filterTarget{col: k, p: &property{name: k, typ: typString, filterable: true}}
				}
			}
			return nil
		}, func(k string) error {
			msg := "unknown edge property " + strconv.Quote(k)
			if slices.Contains(ontology.EdgeProperties, k) {
				msg = "edge property " + strconv.Quote(k) + " is carried only by " + strings.Join(edgePropTypes(cat, k), ", ") + " edges; this relationship may match " + strings.Join(rs.concrete, ", ")
			}
			return newErr(sub(at, k), ErrUnknownProperty, msg, append([]string{"source_id", "target_id", "traversal_path"}, edgeProps...)...)
		})
		if err != nil {
			return err
		}
		rs.preds = preds
	}
	return nil
}

// concreteTypes returns the relationship types a relationship naming types (or "*" when
// star) may match between the entities from and to, sorted: at one hop only the types with a
// pair that connects them in direction, at several hops every named type.
func concreteTypes(cat *catalog, types []string, star bool, direction, from, to string, maxHops int) []string {
	cands := types
	if star {
		cands = cat.relNames
	}
	var ok []string
	for _, t := range cands {
		if t == "*" || cat.rels[t] == nil {
			continue
		}
		if maxHops > 1 || walkExists(cat, []string{t}, direction, from, to, 1, 1) {
			ok = append(ok, t)
		}
	}
	slices.Sort(ok)
	return slices.Compact(ok)
}

// noMatchingRelationship is the NO_MATCHING_RELATIONSHIP error of a relationship between the
// entities from and to that no edge can satisfy. It says which case it is: no relationship type
// connects the two entities at all (naming both, and the direction that would), none of the
// named types does (listing those that do), or the hops cannot be walked.
func noMatchingRelationship(at string, cat *catalog, rs *relSel, from, to string) *Error {
	var would []string
	for _, t := range cat.relNames {
		if walkExists(cat, []string{t}, rs.direction, from, to, 1, 1) {
			would = append(would, t)
		}
	}
	hops := ""
	if rs.maxHops > 1 {
		hops = " in " + strconv.Itoa(rs.minHops) + " to " + strconv.Itoa(rs.maxHops) + " hops"
	}
	if len(would) == 0 && rs.maxHops == 1 {
		msg := "no relationship connects " + from + " to " + to + " (" + rs.direction + "): the ontology has no relationship type with a pair between these two entities"
		if rs.direction != "both" {
			other := map[string]string{"outgoing": "incoming", "incoming": "outgoing"}[rs.direction]
			if walkExists(cat, cat.relNames, other, from, to, 1, 1) {
				msg = "no relationship connects " + from + " to " + to + " (" + rs.direction + "); relationships do connect them the other way: swap from and to, or set direction to \"" + other + "\" or \"both\""
			} else {
				msg += " in either direction"
			}
		}
		return newErr(at, ErrNoMatchingRelationship, msg+"; connect them through an intermediate node, or check the entities")
	}
	if rs.star {
		return newErr(at, ErrNoMatchingRelationship, "no walk over any relationship type connects "+from+" to "+to+" ("+rs.direction+")"+hops+"; change the hops or the direction", would...)
	}
	return newErr(at, ErrNoMatchingRelationship, "no relationship of the given types connects "+from+" to "+to+" ("+rs.direction+")"+hops+"; name one of the types listed, use \"*\" for every type that connects them, or change direction", would...)
}

// edgePropsOf returns the edge properties every type of types declares.
func edgePropsOf(cat *catalog, types []string) []string {
	if len(types) == 0 {
		return nil
	}
	var out []string
	for _, k := range ontology.EdgeProperties {
		all := true
		for _, t := range types {
			if rt := cat.rels[t]; rt == nil || !slices.Contains(rt.edgeProps, k) {
				all = false
				break
			}
		}
		if all {
			out = append(out, k)
		}
	}
	return out
}

// edgePropTypes returns the relationship types that declare the edge property k, sorted.
func edgePropTypes(cat *catalog, k string) []string {
	var out []string
	for _, t := range cat.relNames {
		if slices.Contains(cat.rels[t].edgeProps, k) {
			out = append(out, t)
		}
	}
	return out
}

var aggFunctions = []string{"avg", "count", "max", "min", "sum"}

func resolveAggregations(r *request, byAlias map[string]*nodeSel) error {
	names := map[string]bool{}
	claim := func(at, name string) error {
		if names[name] {
			return newErr(at, ErrDuplicateOutputName, "output name "+strconv.Quote(name)+" is used twice")
		}
		names[name] = true
		return nil
	}
	for i, g := range r.groupBy {
		at := groupPtr(r, i)
		e := byAlias[g.alias].ent
		if g.prop != "" {
			p := e.prop(g.prop)
			if p.tpath {
				return newErr(at, ErrInvalidAggregation, "traversal_path cannot be a group key (Orbit groups only by filterable properties); group by the node, or by a property such as a project's full_path")
			}
			if !p.filterable || p.longText {
				return newErr(at, ErrInvalidAggregation, "property "+strconv.Quote(g.prop)+" cannot be a group key")
			}
			if g.truncate != "" {
				if p.typ != typDate32 && p.typ != typDateTime {
					return newErr(at, ErrInvalidAggregation, "truncate needs a date or date-time property")
				}
				if (g.truncate == "minute" || g.truncate == "hour") && !byAlias[g.alias].hasIDs && !hasFilterOn(byAlias[g.alias], g.prop) {
					return newErr(sub(ptr("group_by", i), "truncate"), ErrNotSelective, "truncating to "+g.truncate+" needs node_ids on the node or a filter on the property")
				}
			}
		} else if g.truncate != "" {
			return newErr(sub(ptr("group_by", i), "truncate"), ErrInvalidAggregation, "truncate applies only to a property key")
		}
		g.name = g.as
		if g.name == "" {
			g.name = g.alias
			if g.prop != "" {
				g.name += "_" + g.prop
				if g.truncate != "" {
					g.name += "_" + g.truncate
				}
			}
		}
		if err := claim(at, g.name); err != nil {
			return err
		}
	}
	for i, a := range r.aggs {
		at := ptr("aggregations", i, a.fn)
		if a.fn == "collect" {
			continue
		}
		if a.fn != "count" && a.prop == "" {
			return newErr(at, ErrInvalidAggregation, a.fn+" needs a property target \"alias.property\"")
		}
		if a.prop != "" {
			p := byAlias[a.target].ent.prop(a.prop)
			if p.tpath {
				return newErr(at, ErrInvalidAggregation, a.fn+" cannot aggregate traversal_path; select it as a column of the node instead")
			}
			switch a.fn {
			case "sum", "avg":
				if p.typ != typInt64 && p.typ != typFloat64 {
					return newErr(at, ErrInvalidAggregation, a.fn+" needs a numeric property")
				}
			case "min", "max":
				if p.longText {
					return newErr(at, ErrInvalidAggregation, a.fn+" is not allowed on long text")
				}
			}
		}
		a.name = a.as
		if a.name == "" {
			a.name = a.fn + "_" + a.target
			if a.prop != "" {
				a.name += "_" + a.prop
			}
		}
		if err := claim(sub(ptr("aggregations", i), "as"), a.name); err != nil {
			return err
		}
	}
	if r.aggSort != "" {
		name := strings.TrimPrefix(r.aggSort, "-")
		if !names[name] {
			opts := slices.Sorted(maps.Keys(names))
			return newErr("/aggregation_sort", ErrUndefinedOutput, "aggregation_sort names no output column "+strconv.Quote(name), opts...)
		}
	}
	return nil
}

func hasFilterOn(n *nodeSel, prop string) bool {
	_, ok := n.filters[prop]
	return ok
}

func selective(n *nodeSel, span int64) bool {
	return n.hasIDs || len(n.filters) > 0 || (n.idRange != nil && n.idRange[1]-n.idRange[0] < span && n.idRange[1]-n.idRange[0] >= 0)
}

func checkSelectivity(r *request, byAlias map[string]*nodeSel) error {
	switch r.queryType {
	case qTraversal, qAggregation:
		for _, n := range r.nodes {
			if selective(n, maxSelectiveSpan) {
				return nil
			}
		}
		return newErr("/nodes", ErrNotSelective, "at least one node needs node_ids, a filter or an id_range spanning at most "+strconv.Itoa(maxSelectiveSpan)+" ids; add one, or split a wider id_range into several queries")
	case qPathFinding:
		for _, a := range []string{r.path.from, r.path.to} {
			n := byAlias[a]
			if !selective(n, maxAnchorSpan) {
				return newErr(ptr("nodes", n.idx), ErrNotSelective, "path endpoints need node_ids, a filter or an id_range spanning at most "+strconv.Itoa(maxAnchorSpan)+" ids; narrow the id_range or add one of the others")
			}
		}
		// Orbit's compiler has required rel_types since 2026-06-09 (its docs still call it
		// optional when both endpoints use node_ids); we follow the code.
		if !r.path.hasTypes {
			return newErr("/path/rel_types", ErrNotSelective, "path finding needs rel_types: list the relationship types a path may use, or \"*\" for every type")
		}
	case qNeighbors:
		if !selective(r.nodes[0], maxAnchorSpan) {
			return newErr("/nodes/0", ErrNotSelective, "the neighbors center needs node_ids, a filter or an id_range spanning at most "+strconv.Itoa(maxAnchorSpan)+" ids; Orbit accepts any id_range here, we cap it: narrow the range or page through it in several queries")
		}
	}
	return nil
}

func checkCaps(r *request) error {
	capErr := func(at string, max, got int) error {
		return newErr(at, ErrLimitExceeded, "at most "+strconv.Itoa(max)+" items allowed (got "+strconv.Itoa(got)+")")
	}
	switch {
	case len(r.nodes) > 5:
		return capErr("/nodes", 5, len(r.nodes))
	case len(r.rels) > 5:
		return capErr("/relationships", 5, len(r.rels))
	case len(r.aggs) > 10:
		return capErr("/aggregations", 10, len(r.aggs))
	case len(r.groupBy) > 4:
		return capErr("/group_by", 4, len(r.groupBy))
	}
	for _, n := range r.nodes {
		if len(n.nodeIDs) > 500 {
			return capErr(ptr("nodes", n.idx, "node_ids"), 500, len(n.nodeIDs))
		}
		if len(n.cols) > 50 {
			return capErr(ptr("nodes", n.idx, "columns"), 50, len(n.cols))
		}
	}
	for _, rs := range r.rels {
		if rs.minHops < 1 || rs.maxHops > 3 {
			return newErr(ptr("relationships", rs.idx, "hops"), ErrLimitExceeded, "hops must be between 1 and 3")
		}
	}
	if r.path != nil && (r.path.maxDepth < 1 || r.path.maxDepth > 3) {
		return newErr("/path/max_depth", ErrLimitExceeded, "max_depth must be between 1 and 3")
	}
	if ps := r.pageSize(); ps < 1 || ps > 1000 {
		return newErr("/limit", ErrLimitExceeded, "limit must be between 1 and 1000")
	}
	return nil
}
