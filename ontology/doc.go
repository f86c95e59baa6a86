// Package ontology loads and validates the graph ontology and derives the storage DDL from it
// (config/graph.sql); docs/clickhouse.md, "Ontology and DDL", describes both.
//
// The ontology is a directory of YAML files: ontology.yaml with global settings, one file per
// entity under entities/ and one per relationship type under relationships/. Parsing is strict:
// unknown keys, dangling relationship endpoints, duplicate names and every other rule listed
// in docs/clickhouse.md, "Ontology rules", fail [Load] with an [*Error] that names the file
// and line.
//
//	# entities/label.yaml
//	entity: Label
//	description: A label of a project or group.
//	scope: namespaced
//	properties:
//	  - {name: title, type: String, default: true}
//
// becomes an [Entity] named "Label" stored in table gl_label, and [Ontology.DDL] renders
//
//	CREATE TABLE IF NOT EXISTS gl_label
//	(
//	    id Int64,
//	    traversal_path String,
//	    title String,
//	    …
//
// Two property flags carry GitLab Orbit's access and storage markers (docs/orbit-parity.md):
// admin_only (see [Property.AdminOnly]) and virtual (see [Property.Virtual]).
//
// An [*Ontology] is immutable after loading and safe for concurrent use.
package ontology
