package ontology

import (
	"fmt"
	"slices"
	"strings"
)

// Columns returns the storage columns of e in DDL order: id, traversal_path (namespaced only),
// the properties, _version and _deleted.
func (e *Entity) Columns() []string {
	cols := []string{"id"}
	if e.Namespaced() {
		cols = append(cols, "traversal_path")
	}
	for _, p := range e.Properties {
		cols = append(cols, p.Name)
	}
	return append(cols, "_version", "_deleted")
}

// EdgeColumns are the columns of both edge tables, in DDL order.
var EdgeColumns = []string{"traversal_path", "relationship_kind", "source_kind", "source_id", "target_kind", "target_id", "project_id", "branch", "_version", "_deleted"}

// EdgeProperties are the edge columns a relationship type may declare (key edge_properties)
// and a relationship filter may then name: the project and the branch of a code-graph edge.
// An edge that does not carry them holds 0 and ”.
var EdgeProperties = []string{"project_id", "branch"}

// edgePropertyDDL are the column definitions of [EdgeProperties], in DDL order, after target_id.
var edgePropertyDDL = []string{"project_id Int64 DEFAULT 0", "branch LowCardinality(String) DEFAULT ''"}

// LoadStateTable is the table in which every bulk load records that it started and that it
// finished (package loadstate reads and writes it). It is part of the schema, so
// [Ontology.DDLStatements] creates it with the graph tables.
const LoadStateTable = "gw_load_state"

// DDLStatements returns the CREATE statements of every table and view, without trailing
// semicolons, in the order of config/graph.sql: entity tables sorted by table name, then the
// edge table, the target-ordered edge table, the view that fills it and [LoadStateTable].
func (o *Ontology) DDLStatements() []string {
	ents := slices.Clone(o.Entities)
	slices.SortFunc(ents, func(a, b *Entity) int { return cmpString(a.Table, b.Table) })
	var stmts []string
	for _, e := range ents {
		stmts = append(stmts, entityDDL(e))
	}
	stmts = append(stmts,
		edgeDDL(o.EdgeTable, o.edgeEnds(o.EdgeTable)),
		edgeDDL(o.EdgeTableByTarget, o.edgeEnds(o.EdgeTableByTarget)),
		o.edgeViewDDL(),
		loadStateDDL,
	)
	return stmts
}

// edgeEnds lists the end columns that follow relationship_kind in the sorting key of edge
// table t: the end it is read from first.
func (o *Ontology) edgeEnds(t string) string {
	if t == o.EdgeTableByTarget {
		return "target_kind, target_id, source_kind, source_id"
	}
	return "source_kind, source_id, target_kind, target_id"
}

// EdgeSortingKey is the sorting key of edge table t (EdgeTable or EdgeTableByTarget) as
// system.tables.sorting_key shows it: a graph whose key differs was created in an earlier
// order and answers the same, with slower reads ([Ontology.EdgeRekey]).
func (o *Ontology) EdgeSortingKey(t string) string {
	return "relationship_kind, " + o.edgeEnds(t) + ", traversal_path"
}

// EdgeRekey returns the statement that creates edge table t anew, in the current sorting
// key, under the name as: what a graph created in an earlier key order copies its edges
// into before the new table takes t's name.
func (o *Ontology) EdgeRekey(t, as string) string { return edgeDDL(as, o.edgeEnds(t)) }

// EdgeViewDDL is the CREATE statement of the view that fills EdgeTableByTarget from
// EdgeTable.
func (o *Ontology) EdgeViewDDL() string { return o.edgeViewDDL() }

func (o *Ontology) edgeViewDDL() string {
	return fmt.Sprintf("CREATE MATERIALIZED VIEW IF NOT EXISTS %s_mv TO %s AS\nSELECT %s\nFROM %s",
		o.EdgeTableByTarget, o.EdgeTableByTarget, strings.Join(EdgeColumns, ", "), o.EdgeTable)
}

// EdgeMigration returns the statements that bring the edge tables of a graph created before
// ontology version 3 to this schema: both edge tables get the [EdgeProperties] columns where
// a fresh graph has them (after target_id; old rows read 0 and ”), and the view between
// them is created again so that it copies the new columns. Run it, when a graph's edge table
// lacks project_id, before writing to it; it runs no statement on a graph's rows.
func (o *Ontology) EdgeMigration() []string {
	var stmts []string
	for _, t := range []string{o.EdgeTable, o.EdgeTableByTarget} {
		stmts = append(stmts, fmt.Sprintf("ALTER TABLE %s ADD COLUMN IF NOT EXISTS %s AFTER target_id, ADD COLUMN IF NOT EXISTS %s AFTER %s",
			t, edgePropertyDDL[0], edgePropertyDDL[1], EdgeProperties[0]))
	}
	return append(stmts, "DROP VIEW IF EXISTS "+o.EdgeTableByTarget+"_mv", o.edgeViewDDL())
}

// loadStateDDL is an append-only log with two rows per load: (seq, 'loading') before the first
// graph row is written and (seq, 'complete') after the last.
const loadStateDDL = "CREATE TABLE IF NOT EXISTS " + LoadStateTable + `
(
    seq UInt64,
    status Enum8('loading' = 1, 'complete' = 2),
    source LowCardinality(String),
    ontology_fingerprint String,
    version UInt64,
    nodes UInt64,
    edges UInt64,
    written_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
ORDER BY (seq, status)`

// DDL renders config/graph.sql: a header naming the generator, the ontology version and
// fingerprint, then every statement of [Ontology.DDLStatements] followed by ";" and a blank line.
func (o *Ontology) DDL() []byte {
	var b strings.Builder
	b.WriteString("-- Code generated by \"UPDATE_GRAPH_SQL=1 go test ./ontology\"; DO NOT EDIT.\n")
	fmt.Fprintf(&b, "-- ontology version: %d\n", o.Version)
	fmt.Fprintf(&b, "-- ontology fingerprint: %s\n", o.Fingerprint)
	for _, s := range o.DDLStatements() {
		b.WriteString("\n")
		b.WriteString(s)
		b.WriteString(";\n")
	}
	return []byte(b.String())
}

func entityDDL(e *Entity) string {
	var lines []string
	lines = append(lines, "id Int64")
	if e.Namespaced() {
		lines = append(lines, "traversal_path String")
	}
	for _, p := range e.Properties {
		l := p.Name + " " + p.ColumnType()
		if p.LongText {
			l += " CODEC(ZSTD(3))"
		}
		lines = append(lines, l)
	}
	lines = append(lines, "_version UInt64", "_deleted Bool DEFAULT false")
	if e.Namespaced() {
		lines = append(lines, "INDEX idx_id id TYPE bloom_filter(0.001) GRANULARITY 1")
	}
	for _, p := range e.Properties {
		switch p.Index {
		case "bloom":
			lines = append(lines, fmt.Sprintf("INDEX idx_%s %s TYPE bloom_filter(0.001) GRANULARITY 1", p.Name, p.Name))
		case "ngram":
			lines = append(lines, fmt.Sprintf("INDEX idx_%s %s TYPE ngrambf_v1(3, 512, 2, 0) GRANULARITY 1", p.Name, p.Name))
		case "set":
			lines = append(lines, fmt.Sprintf("INDEX idx_%s %s TYPE set(64) GRANULARITY 2", p.Name, p.Name))
		}
		if p.Tokens {
			lines = append(lines, fmt.Sprintf("INDEX tok_%s %s TYPE text(tokenizer = 'splitByNonAlpha') GRANULARITY 64", p.Name, p.Name))
		}
	}
	order := "(id)"
	if e.Namespaced() {
		order = "(traversal_path, id)"
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s\n(\n    %s\n)\nENGINE = ReplacingMergeTree(_version, _deleted)\nORDER BY %s\nSETTINGS index_granularity = 1024",
		e.Table, strings.Join(lines, ",\n    "), order)
}

// edgeDDL is the CREATE statement of an edge table sorted by (relationship_kind, ends,
// traversal_path), with the primary key (relationship_kind, ends): ends names the end (kind,
// id) the table is read from, then the other end. Every edge scan the compiler writes fixes
// its relationship types and the kinds of its ends and is seeded by the ids of one end (path
// finding's second step by both), so the primary key narrows each read to the granules of
// those edges, for an admin as for a scoped caller. With traversal_path first, as before, a
// read without a scope prefix (an admin's) could not use the key past it and read half of the
// table through the id bloom filters, whose small ids every kind shares (docs/duckdb.md, "What
// each read costs"). The set of sorting-key columns, and so what FINAL deduplicates, is the
// same in both orders.
func edgeDDL(table, ends string) string {
	lines := []string{
		"traversal_path String",
		"relationship_kind LowCardinality(String)",
		"source_kind LowCardinality(String)",
		"source_id Int64",
		"target_kind LowCardinality(String)",
		"target_id Int64",
		edgePropertyDDL[0],
		edgePropertyDDL[1],
		"_version UInt64",
		"_deleted Bool DEFAULT false",
		"INDEX idx_source_id source_id TYPE bloom_filter(0.001) GRANULARITY 1",
		"INDEX idx_target_id target_id TYPE bloom_filter(0.001) GRANULARITY 1",
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s\n(\n    %s\n)\nENGINE = ReplacingMergeTree(_version, _deleted)\nORDER BY (relationship_kind, %s, traversal_path)\nPRIMARY KEY (relationship_kind, %s)\nSETTINGS index_granularity = 1024",
		table, strings.Join(lines, ",\n    "), ends, ends)
}
