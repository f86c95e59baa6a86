package compiler

import (
	"slices"

	"github.com/graphwire/graphwire/ontology"
)

// Property types of the ontology (docs/clickhouse.md, "Ontology rules"), without Nullable;
// docs/dsl.md, "Filters", says how a filter value of each is written.
const (
	typInt64    = "Int64"
	typFloat64  = "Float64"
	typBool     = "Bool"
	typString   = "String"
	typLC       = "LowCardinality(String)"
	typDate32   = "Date32"
	typDateTime = "DateTime64(0, 'UTC')"
)

// catalog is the compiler's read-only view of the ontology: entities with their tables,
// floors and typed properties, and relationship types with their stored pairs.
type catalog struct {
	entities     map[string]*entity
	entityNames  []string // sorted
	rels         map[string]*relType
	relNames     []string // sorted
	edgeTable    string
	edgeByTarget string
	tables       map[string]*entity // table name -> entity
}

type entity struct {
	name   string
	table  string
	global bool
	floor  int
	props  []*property // ontology order, without id, then traversal_path if namespaced; only those this view may read
	byName map[string]*property
	// withheld holds the properties of the ontology this view may not read: admin-only ones
	// in the view of a caller who is not an administrator, and virtual ones whose value
	// graphwire does not hold (see [catalog.view]). Validation names them in its refusals;
	// lowering never sees them.
	withheld map[string]*property
}

type property struct {
	name       string
	typ        string // one of the typ* constants
	nullable   bool
	enum       []string
	filterable bool
	def        bool
	longText   bool
	adminOnly  bool // readable by administrators only (ontology admin_only)
	virtual    bool // Orbit fetches the value from a repository service (ontology virtual)
	stored     bool // virtual, and graphwire's own column holds the value (ontology stored)
	tokens     bool // word-searchable: token_match, all_tokens, any_tokens (ontology tokens)
	tpath      bool // the traversal_path column ([tpProp])
	derived    bool // virtual, not stored, served from MergeRequestDiffFile.diff (derived.go)
}

// unserved reports whether p is a virtual property whose value graphwire does not hold: its
// column is always NULL, so naming it is refused rather than answered with nulls.
func (p *property) unserved() bool { return p.virtual && !p.stored && !p.derived }

// starProps lists the properties "*" selects: all but the derived ones, which cost a second
// statement and are returned only when named (as Orbit's virtual columns).
func (e *entity) starProps() []*property {
	out := make([]*property, 0, len(e.props))
	for _, p := range e.props {
		if !p.derived {
			out = append(out, p)
		}
	}
	return out
}

// paramType is the ClickHouse type of a filter parameter on p (docs/dsl.md, "Filters").
func (p *property) paramType() string {
	switch p.typ {
	case typLC:
		return typString
	case typDateTime:
		return "DateTime64(6, 'UTC')"
	}
	return p.typ
}

type relType struct {
	name   string
	pairs  []pair
	sameNS bool // edges bind to their ends on id and traversal_path (ontology same_namespace)
	// edgeProps are the edge columns a relationship filter may name (ontology edge_properties).
	edgeProps []string
}

type pair struct{ from, to string }

// idProp is the implicit id property every entity has.
var idProp = &property{name: "id", typ: typInt64, filterable: true}

// tpProp is the traversal_path column of a namespaced entity's table, selectable like a
// property (as in Orbit, where the ontology lists it). It is not filterable as a property:
// a traversal_path filter is a path prefix checked against the caller's scopes (restrict.go),
// and it is not a sort key, group key or aggregation target. Every namespaced entity lists it
// last, so "*" and dynamic "*" selections return it; it is never a default column.
var tpProp = &property{name: "traversal_path", typ: typString, tpath: true}

// prop returns the named property of e, including the implicit id.
func (e *entity) prop(name string) *property {
	if name == "id" {
		return idProp
	}
	return e.byName[name]
}

// propNames lists the property names of e in ontology order.
func (e *entity) propNames() []string {
	out := make([]string, 0, len(e.props)+1)
	out = append(out, "id")
	for _, p := range e.props {
		out = append(out, p.name)
	}
	return out
}

// filterableNames lists filter keys valid on e, sorted.
func (e *entity) filterableNames() []string {
	out := []string{"id"}
	for _, p := range e.props {
		if p.filterable {
			out = append(out, p.name)
		}
	}
	if !e.global {
		out = append(out, "traversal_path")
	}
	slices.Sort(out)
	return out
}

// defaults lists the default columns of e in ontology order.
func (e *entity) defaults() []*property {
	var out []*property
	for _, p := range e.props {
		if p.def {
			out = append(out, p)
		}
	}
	return out
}

func (c *catalog) finish() {
	c.entityNames = c.entityNames[:0]
	c.tables = map[string]*entity{}
	for n, e := range c.entities {
		c.entityNames = append(c.entityNames, n)
		c.tables[e.table] = e
		e.byName = map[string]*property{}
		for _, p := range e.props {
			e.byName[p.name] = p
		}
	}
	slices.Sort(c.entityNames)
	c.relNames = c.relNames[:0]
	for n := range c.rels {
		c.relNames = append(c.relNames, n)
	}
	slices.Sort(c.relNames)
}

// newCatalog builds the compiler's view of ont.
func newCatalog(ont *ontology.Ontology) *catalog {
	c := &catalog{
		entities:     map[string]*entity{},
		rels:         map[string]*relType{},
		edgeTable:    ont.EdgeTable,
		edgeByTarget: ont.EdgeTableByTarget,
	}
	if c.edgeTable == "" {
		c.edgeTable = "gl_edge"
	}
	if c.edgeByTarget == "" {
		c.edgeByTarget = c.edgeTable + "_by_target"
	}
	for _, oe := range ont.Entities {
		e := &entity{name: oe.Name, table: oe.Table, global: !oe.Namespaced(), floor: oe.MinAccessLevel}
		if !e.global && e.floor == 0 {
			e.floor = ont.DefaultMinAccessLevel
		}
		if !e.global && e.floor < 10 {
			e.floor = 10
		}
		for _, op := range oe.Properties {
			e.props = append(e.props, &property{
				name: op.Name, typ: op.Type, nullable: op.Nullable, enum: op.Enum,
				filterable: op.Filterable, def: op.Default, longText: op.LongText,
				adminOnly: op.AdminOnly, virtual: op.Virtual, stored: op.Stored, tokens: op.Tokens,
			})
		}
		if !e.global {
			e.props = append(e.props, tpProp)
		}
		c.entities[e.name] = e
	}
	for _, e := range c.entities {
		e.byName = map[string]*property{}
		for _, p := range e.props {
			e.byName[p.name] = p
		}
	}
	c.markDerived()
	for _, or := range ont.Relationships {
		rt := &relType{name: or.Name, sameNS: or.SameNamespace, edgeProps: or.EdgeProperties}
		for _, p := range or.Pairs {
			rt.pairs = append(rt.pairs, pair{from: p.From, to: p.To})
		}
		c.rels[rt.name] = rt
	}
	c.finish()
	return c
}

// view returns the catalog as a caller sees it. Every entity keeps only the properties the
// caller may read: an administrator reads all but the unserved virtual ones
// ([property.unserved]), anyone else also loses the admin-only ones. The withheld properties
// stay reachable through entity.withheld so that naming one is refused with its reason
// instead of UNKNOWN_PROPERTY. Because "*", the default columns and the dynamic selections of
// neighbors and paths all read entity.props, no later stage can select a withheld column.
func (c *catalog) view(admin bool) *catalog {
	v := &catalog{
		entities:     map[string]*entity{},
		rels:         c.rels,
		edgeTable:    c.edgeTable,
		edgeByTarget: c.edgeByTarget,
	}
	for n, e := range c.entities {
		ve := &entity{name: e.name, table: e.table, global: e.global, floor: e.floor, withheld: map[string]*property{}}
		for _, p := range e.props {
			if p.unserved() || (p.adminOnly && !admin) {
				ve.withheld[p.name] = p
				continue
			}
			ve.props = append(ve.props, p)
		}
		v.entities[n] = ve
	}
	v.finish()
	return v
}
