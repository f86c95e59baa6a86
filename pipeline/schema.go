package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/internal/editdist"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/toon"
)

// schemaTexts are the descriptions of the ontology and the DSL, rendered
// once: the ontology is immutable.
type schemaTexts struct {
	ont        *ontology.Ontology
	json, toon string // the full schema document (GetGraphSchema)
	compact    string // entity and relationship names, one line each
	dslJSON    string // the DSL JSON Schema with the ontology's enums
	dslText    string // the compact DSL reference
	dslVersion string
}

func newSchemaTexts(o *ontology.Ontology, dslSchema []byte, dslVersion string, _ *tokens.Counter) (*schemaTexts, error) {
	doc, err := json.Marshal(schemaDoc(o))
	if err != nil {
		return nil, fmt.Errorf("pipeline: render the graph schema: %w", err)
	}
	text, err := toon.FromJSON(doc, toon.Options{})
	if err != nil {
		return nil, fmt.Errorf("pipeline: render the graph schema as TOON: %w", err)
	}
	st := &schemaTexts{ont: o, json: string(doc), toon: string(text), compact: compactSchema(o), dslVersion: dslVersion}
	if len(dslSchema) > 0 {
		js, err := injectEnums(dslSchema, o)
		if err != nil {
			return nil, err
		}
		st.dslJSON = string(js)
	}
	st.dslText = dslReference(o, dslVersion)
	return st, nil
}

// SchemaJSON is the full graph schema as JSON: every entity with its
// properties, every relationship with its endpoint pairs.
func (p *Pipeline) SchemaJSON() string { return p.schema.json }

// SchemaTOON is [Pipeline.SchemaJSON] as TOON.
func (p *Pipeline) SchemaTOON() string { return p.schema.toon }

// Schema is the compact graph schema an agent reads first: every entity
// with its one-line description, every relationship type with its
// endpoints. expand names entities whose properties (type, filterable,
// enum values, description) are added; an unknown name is an error that
// lists the valid ones.
func (p *Pipeline) Schema(expand []string) (string, error) {
	if len(expand) == 0 {
		return p.schema.compact, nil
	}
	var b strings.Builder
	b.WriteString(p.schema.compact)
	seen := map[string]bool{}
	for i, name := range expand {
		e, ok := p.schema.ont.Entity(name)
		if !ok {
			return "", &RequestError{Field: "expand/" + strconv.Itoa(i), Reason: "UNKNOWN_ENTITY",
				Message: "unknown entity " + strconv.Quote(name) + didYouMean(name, entityNames(p.schema.ont))}
		}
		if seen[e.Name] {
			continue
		}
		seen[e.Name] = true
		b.WriteString("\n")
		writeEntity(&b, e)
	}
	return b.String(), nil
}

// DSL returns the query DSL reference: compact text by default, or the
// JSON Schema; both carry the ontology's entity and relationship names.
func (p *Pipeline) DSL(jsonSchema bool) string {
	if jsonSchema {
		return p.schema.dslJSON
	}
	return p.schema.dslText
}

// DSLSchema is the DSL JSON Schema with the ontology's enums injected,
// and DSLVersion its version.
func (p *Pipeline) DSLSchema() string { return p.schema.dslJSON }

// DSLVersion is the query DSL version (config/QUERY_DSL_VERSION).
func (p *Pipeline) DSLVersion() string { return p.schema.dslVersion }

func entityNames(o *ontology.Ontology) []string {
	names := make([]string, len(o.Entities))
	for i, e := range o.Entities {
		names[i] = e.Name
	}
	return names
}

func relationshipNames(o *ontology.Ontology) []string {
	names := make([]string, len(o.Relationships))
	for i, r := range o.Relationships {
		names[i] = r.Name
	}
	return names
}

// compactSchema lists entities and relationships, one line each:
//
//	Group: A GitLab group (namespace) that holds projects and subgroups.
//	MEMBER_OF: User>Group,Project
func compactSchema(o *ontology.Ontology) string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph schema v%d: %d entities, %d relationship types. Properties: get_graph_schema expand=[Entity,...].\n", o.Version, len(o.Entities), len(o.Relationships))
	b.WriteString("entities (name: description):\n")
	for _, e := range o.Entities {
		b.WriteString(e.Name)
		if d := firstSentence(e.Description); d != "" {
			b.WriteString(": ")
			b.WriteString(d)
		}
		b.WriteByte('\n')
	}
	b.WriteString("relationships (TYPE: From>To,...; From>To means an outgoing edge From→To):\n")
	for _, r := range o.Relationships {
		b.WriteString(r.Name)
		b.WriteString(": ")
		// Group the pairs by source: User>Group,Project.
		var froms []string
		tos := map[string][]string{}
		for _, p := range r.Pairs {
			if _, ok := tos[p.From]; !ok {
				froms = append(froms, p.From)
			}
			tos[p.From] = append(tos[p.From], p.To)
		}
		for i, f := range froms {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(f)
			b.WriteByte('>')
			b.WriteString(strings.Join(tos[f], ","))
		}
		if len(r.EdgeProperties) > 0 {
			// Filterable on the relationship besides traversal_path, source_id, target_id.
			b.WriteString(" edge_filters=")
			b.WriteString(strings.Join(r.EdgeProperties, "|"))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// writeEntity writes one entity's properties:
//
//	## MergeRequest (namespaced): A merge request …
//	state LowCardinality(String) filter default enum=opened|closed|merged|locked
func writeEntity(b *strings.Builder, e *ontology.Entity) {
	fmt.Fprintf(b, "## %s (%s)", e.Name, e.Scope)
	if e.Description != "" {
		b.WriteString(": ")
		b.WriteString(oneLine(e.Description))
	}
	b.WriteString("\nproperty type flags [enum] [— description] (filter: usable in filters; filter-with-node_ids: only on a node that has node_ids; default: returned without columns; unsupported: never served, leave it out)\n")
	b.WriteString("id Int64 default — select with node_ids or id_range\n")
	for _, p := range e.Properties {
		if p.Name == "" || p.Name == "id" {
			continue
		}
		b.WriteString(p.Name)
		b.WriteByte(' ')
		b.WriteString(p.Type)
		if p.Nullable {
			b.WriteString(" nullable")
		}
		if p.Filterable {
			b.WriteString(" filter")
		}
		if p.Virtual && p.Stored {
			// Virtual content (File.content, …): filterable only on a node named by node_ids
			// (compiler/validate.go, NOT_SELECTIVE otherwise).
			b.WriteString(" filter-with-node_ids")
		}
		if p.Default {
			b.WriteString(" default")
		}
		if p.AdminOnly {
			b.WriteString(" admin-only")
		}
		if unsupported(e.Name, p) {
			b.WriteString(" unsupported")
		}
		if p.LongText {
			b.WriteString(" long-text")
		}
		if len(p.Enum) > 0 {
			b.WriteString(" enum=")
			b.WriteString(strings.Join(p.Enum, "|"))
		}
		if p.Description != "" {
			b.WriteString(" — ")
			b.WriteString(oneLine(p.Description))
		}
		b.WriteByte('\n')
	}
	if e.Namespaced() {
		b.WriteString("traversal_path String filter — " + traversalPathNote + "\n")
	}
}

// unsupported reports whether graphwire never serves p of entity: a virtual
// property whose value Orbit fetches from the repository service and
// graphwire neither stores nor derives from other rows (MergeRequest.diff and
// MergeRequestDiff.patch are derived from MergeRequestDiffFile.diff). The
// compiler refuses to select it (UNSUPPORTED_FEATURE), so the schemas say so.
func unsupported(entity string, p ontology.Property) bool {
	return p.Virtual && !p.Stored && !compiler.Derived(entity, p.Name)
}

// traversalPathNote describes the traversal_path column every namespaced entity has: the
// compiler lets a query select it and filter it by prefix (compiler/catalog.go tpProp).
const traversalPathNote = "Namespace path of the row, e.g. 1/22/333/; selectable (\"*\" includes it), filterable by prefix inside your scopes, not sortable."

func firstSentence(s string) string {
	s = oneLine(s)
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// injectEnums returns the DSL JSON Schema with $defs.EntityType and
// $defs.RelationshipTypeName restricted to the ontology's names.
func injectEnums(schema []byte, o *ontology.Ontology) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(schema))
	d.UseNumber()
	var doc map[string]any
	if err := d.Decode(&doc); err != nil {
		return nil, fmt.Errorf("pipeline: decode the DSL schema: %w", err)
	}
	defs, ok := doc["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("pipeline: the DSL schema has no $defs")
	}
	defs["EntityType"] = map[string]any{"type": "string", "enum": entityNames(o)}
	defs["RelationshipTypeName"] = map[string]any{"type": "string", "enum": relationshipNames(o)}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("pipeline: encode the DSL schema: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// dslReference is the compact DSL reference for agents, with the
// ontology's names.
func dslReference(o *ontology.Ontology, version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `graphwire query DSL v%s (JSON; Orbit v12 compatible). One object:
query_type: traversal | aggregation | path_finding | neighbors
nodes: [1-5] {id: alias, entity: Entity, columns?: [prop,...] | "*", filters?: {prop: value | {op: value}}, node_ids?: [id,...≤500], id_range?: {start, end}}
  filter ops: eq in gt gte lt lte contains starts_with ends_with is_null is_not_null token_match all_tokens any_tokens (a bare value means eq; up to 10 filters, ANDed; token ops on text-indexed props, split on non-alphanumerics)
  columns may name traversal_path on namespaced entities (not User, Runner): the node's group/project path
relationships (traversal): [≤5] {type: TYPE | [TYPE,...] | "*", from: alias, to: alias, direction?: outgoing|incoming|both, hops?: [min,max] (1-3)}
aggregation: aggregations: [{count|sum|avg|min|max|collect: "alias" or "alias.prop", as?: name}], group_by?: ["alias.prop" | {key, truncate?: minute|hour|day|week|month|quarter|year, as?}], aggregation_sort?: "[-]name"
path_finding: path: {type: "shortest", from: alias, to: alias, max_depth: 1-3, rel_types?: [TYPE,...] | "*"}
neighbors: neighbors: {direction?: outgoing|incoming|both, rel_types?: [TYPE,...]} (first node is the centre)
limit?: 1-1000 (default 30); order_by?: "[-]alias.prop"; cursor?: {page_size: 1-1000, after?: token}; options?: {dynamic_columns: "*"|"default"}
Relationship direction follows the schema's From>To. Values are bound as parameters; unknown names fail with a JSON Pointer and a did-you-mean.
Examples:
{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"username":"alice"}}]}
{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"g","entity":"Group"}],"relationships":[{"type":"MEMBER_OF","from":"u","to":"g"}]}
{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest"}],"group_by":["mr.state"],"aggregations":[{"count":"mr","as":"n"}]}
{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]}],"neighbors":{"direction":"both"}}
`, version)
	b.WriteString("Entity: ")
	b.WriteString(strings.Join(entityNames(o), " "))
	b.WriteString("\nTYPE: ")
	b.WriteString(strings.Join(relationshipNames(o), " "))
	b.WriteString("\n")
	return b.String()
}

// didYouMean suggests the closest of names to s.
func didYouMean(s string, names []string) string {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	for _, n := range names {
		d := editdist.Levenshtein(ls, strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" || bestD > max(2, len(s)/3) {
		return ""
	}
	return " (did you mean " + strconv.Quote(best) + "?)"
}

// The JSON shape of the full graph schema: what a client needs to write
// queries. Descriptions are kept: agents need them.
type schemaEntity struct {
	Name        string           `json:"name"`
	Description string           `json:"description,omitempty"`
	Scope       string           `json:"scope"`
	Properties  []schemaProperty `json:"properties"`
}

type schemaProperty struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Nullable    bool     `json:"nullable"`
	Filterable  bool     `json:"filterable"`
	Default     bool     `json:"default"`
	Enum        []string `json:"enum,omitempty"`
	Description string   `json:"description,omitempty"`
	// AdminOnly marks what only administrators may read, filter, sort or
	// aggregate on: anyone else filtering, sorting or aggregating on it gets
	// ADMIN_ONLY_PROPERTY, and naming it in columns leaves it out of the
	// answer, as the compact schema's "admin-only" flag says.
	AdminOnly bool `json:"admin_only,omitempty"`
	// Unsupported marks a property graphwire never serves (virtual, its
	// value fetched by Orbit from the repository service): naming it gets
	// UNSUPPORTED_FEATURE, as the compact schema's "unsupported" flag says.
	Unsupported bool `json:"unsupported,omitempty"`
	// FilterableWithNodeIDs marks virtual content (File.content, …): filterable (eq,
	// contains, starts_with, ends_with, is_null, is_not_null) only on a node that has
	// node_ids, as the compact schema's "filter-with-node_ids" flag says; elsewhere
	// NOT_SELECTIVE.
	FilterableWithNodeIDs bool `json:"filterable_with_node_ids,omitempty"`
}

type schemaRelationship struct {
	Name        string       `json:"name"`
	Description string       `json:"description,omitempty"`
	Pairs       []schemaPair `json:"pairs"`
	// EdgeProperties are the edge columns a relationship filter may name besides
	// traversal_path, source_id and target_id (ontology edge_properties).
	EdgeProperties []string `json:"edge_properties,omitempty"`
}

type schemaPair struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type schemaDocument struct {
	Version       int                  `json:"ontology_version"`
	Entities      []schemaEntity       `json:"entities"`
	Relationships []schemaRelationship `json:"relationships"`
}

func schemaDoc(o *ontology.Ontology) schemaDocument {
	d := schemaDocument{Version: o.Version}
	for _, e := range o.Entities {
		se := schemaEntity{Name: e.Name, Description: e.Description, Scope: e.Scope, Properties: []schemaProperty{}}
		for _, p := range e.Properties {
			if p.Name == "" {
				continue
			}
			se.Properties = append(se.Properties, schemaProperty{p.Name, p.Type, p.Nullable, p.Filterable, p.Default, p.Enum, p.Description, p.AdminOnly, unsupported(e.Name, p), p.Virtual && p.Stored})
		}
		if e.Namespaced() {
			se.Properties = append(se.Properties, schemaProperty{Name: "traversal_path", Type: "String", Filterable: true, Description: traversalPathNote})
		}
		d.Entities = append(d.Entities, se)
	}
	for _, r := range o.Relationships {
		sr := schemaRelationship{Name: r.Name, Description: r.Description, Pairs: []schemaPair{}, EdgeProperties: r.EdgeProperties}
		for _, p := range r.Pairs {
			sr.Pairs = append(sr.Pairs, schemaPair{p.From, p.To})
		}
		d.Relationships = append(d.Relationships, sr)
	}
	return d
}
