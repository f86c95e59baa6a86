// Package load bulk-loads nodes and edges from JSON Lines, CSV and Parquet files into the
// graph tables, and exports them back to the same formats. docs/loading.md describes the
// formats and rules; the ontology is config/ontology/, the tables config/graph.sql.
//
// Each file holds one entity or relationship type:
//
//	Definition.jsonl   {"id": 300, "traversal_path": "1/10/", "name": "A", "fqn": "pkg.A"}
//	CALLS.csv          traversal_path,source_kind,source_id,target_kind,target_id
//	                   1/10/,Definition,300,Definition,301
//
//	rep, err := load.Load(ctx, eng, ont, []load.Source{{Path: "Definition.jsonl"}, {Path: "CALLS.csv"}}, load.Options{})
//	// rep.RowsIn = 2, rep.Written = 2, rep.Queryable = rep.Live = 2
//
// The engine's own readers parse the files into staging tables, where every row is checked
// against the ontology (an invalid row refuses the load with a [*ValidationError] naming file,
// row, line and column); only then are delta tables attached to the graph tables inside a
// load record (package loadstate), so a failed or killed load leaves the previous graph intact.
package load
