package ontology

import "slices"

// Ontology is the loaded, validated registry of entities and relationship types.
// It is immutable after [Load] and safe for concurrent use.
type Ontology struct {
	Format                int
	Version               int    // bumped whenever the DDL changes shape
	TablePrefix           string // "gl_"
	EdgeTable             string // "gl_edge"
	EdgeTableByTarget     string // "gl_edge_by_target"
	DefaultMinAccessLevel int

	// Entities and Relationships are sorted by name.
	Entities      []*Entity
	Relationships []*Relationship

	// Fingerprint is "sha256:<hex>" over the canonical content of the YAML files.
	Fingerprint string
}

// Scope values.
const (
	ScopeNamespaced = "namespaced"
	ScopeGlobal     = "global"
)

// Entity is a node type.
type Entity struct {
	Name           string
	Description    string
	Table          string
	Scope          string // ScopeNamespaced or ScopeGlobal
	MinAccessLevel int    // namespaced only
	Label          string // display property, may be empty
	Properties     []Property
}

// Namespaced reports whether rows of e carry a traversal_path.
func (e *Entity) Namespaced() bool { return e.Scope == ScopeNamespaced }

// Property returns the property called name.
func (e *Entity) Property(name string) (Property, bool) {
	i := slices.IndexFunc(e.Properties, func(p Property) bool { return p.Name == name })
	if i < 0 {
		return Property{}, false
	}
	return e.Properties[i], true
}

// VisibleProperties returns the properties a reader may see, in declaration order: all of
// them for an administrator, and those that are not [Property.AdminOnly] for anyone else.
// The result is a new slice.
func (e *Entity) VisibleProperties(admin bool) []Property {
	out := make([]Property, 0, len(e.Properties))
	for _, p := range e.Properties {
		if p.Visible(admin) {
			out = append(out, p)
		}
	}
	return out
}

// AdminOnlyProperties returns the names of the [Property.AdminOnly] properties of e, in
// declaration order (nil when there are none).
func (e *Entity) AdminOnlyProperties() []string {
	return e.names(func(p Property) bool { return p.AdminOnly })
}

// VirtualProperties returns the names of the [Property.Virtual] properties of e, in
// declaration order (nil when there are none).
func (e *Entity) VirtualProperties() []string {
	return e.names(func(p Property) bool { return p.Virtual })
}

func (e *Entity) names(keep func(Property) bool) []string {
	var out []string
	for _, p := range e.Properties {
		if keep(p) {
			out = append(out, p.Name)
		}
	}
	return out
}

// Property is one column of an entity.
type Property struct {
	Name        string
	Type        string // closed set: Int64, Float64, Bool, String, LowCardinality(String), Date32, DateTime64(0, 'UTC')
	Nullable    bool
	Enum        []string
	Filterable  bool
	Default     bool
	LongText    bool
	Index       string // "none", "bloom", "ngram" or "set"
	Description string

	// AdminOnly marks a property only instance administrators may read or filter on (Orbit's
	// admin_only, e.g. User.email). The loader guarantees it is never a default column or the
	// entity's label; the compiler must drop it from "*" and reject it in filters, sorts and
	// aggregations for callers that are not administrators.
	AdminOnly bool
	// Virtual marks a property whose value Orbit fetches from a repository service at query
	// time rather than from its tables (MergeRequest.diff, File.content, …). graphwire keeps a
	// Nullable column for it, NULL unless an indexer (or the seed) has filled it. The loader
	// guarantees a virtual property is a nullable String, not filterable, not a default
	// column, not the label and not indexed.
	Virtual bool
	// Stored marks a [Property.Virtual] property whose graphwire column actually holds the
	// value (the seed, or a code indexer, writes it), so the compiler serves it like any other
	// column. A virtual property without Stored is always NULL in graphwire, and the compiler
	// refuses to select it (UNSUPPORTED_FEATURE) rather than answer nulls. The loader accepts
	// stored only together with virtual.
	Stored bool
	// Tokens marks a text property Orbit indexes for word search: the DSL's token_match,
	// all_tokens and any_tokens operators apply to it, and the DDL gives it a ClickHouse text
	// index (tokenizer splitByNonAlpha) that hasToken, hasAllTokens and hasAnyTokens use. The
	// loader accepts it only on String or LowCardinality(String) properties without an enum.
	Tokens bool
}

// Visible reports whether a reader sees p: administrators see every property, everyone else
// every property that is not [Property.AdminOnly].
func (p Property) Visible(admin bool) bool { return admin || !p.AdminOnly }

// ColumnType returns the ClickHouse column type, Nullable applied.
func (p Property) ColumnType() string {
	switch {
	case !p.Nullable:
		return p.Type
	case p.Type == "LowCardinality(String)":
		return "LowCardinality(Nullable(String))"
	}
	return "Nullable(" + p.Type + ")"
}

// Relationship is an edge label with its allowed stored orientations.
type Relationship struct {
	Name        string
	Description string
	// SameNamespace binds an edge of this type to its ends: an edge is followed only when
	// its traversal_path is the traversal_path of both of its end nodes, as Orbit joins its
	// code-graph edges (gl_code_edge) on id and traversal_path. Both ends of every pair are
	// namespaced (ontology key same_namespace).
	SameNamespace bool
	// EdgeProperties are the edge columns of [EdgeProperties] that edges of this type carry
	// and that a relationship filter may name (ontology key edge_properties), as Orbit's
	// code-graph edges carry their project and branch.
	EdgeProperties []string
	Pairs          []Pair
}

// Pair is one allowed (from, to) orientation of a relationship.
type Pair struct {
	From, To    string
	FK          string // "from.<property>" or "to.<property>", or empty
	Description string
}

// Entity returns the entity called name.
func (o *Ontology) Entity(name string) (*Entity, bool) {
	i, ok := slices.BinarySearchFunc(o.Entities, name, func(e *Entity, n string) int { return cmpString(e.Name, n) })
	if !ok {
		return nil, false
	}
	return o.Entities[i], true
}

// Relationship returns the relationship type called name.
func (o *Ontology) Relationship(name string) (*Relationship, bool) {
	i, ok := slices.BinarySearchFunc(o.Relationships, name, func(r *Relationship, n string) int { return cmpString(r.Name, n) })
	if !ok {
		return nil, false
	}
	return o.Relationships[i], true
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
