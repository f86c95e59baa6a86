// Package compiler turns a graph query (the JSON DSL of docs/dsl.md, compatible with GitLab
// Orbit's v12) into one parameterized ClickHouse statement, scoped to the caller.
// docs/compiler.md describes the stages, the security rules and the SQL shapes.
//
// A [Compiler] is built once per ontology with [New]; [Compiler.Compile] is pure (no I/O, no
// clock) and safe for concurrent use. Its stages, one file each:
//
//	decode.go     strict JSON: duplicate keys, depth, size, UTF-8, numbers kept as text
//	schema.go     JSON Schema (config/schemas/graph_query.schema.json) with the ontology's
//	              entity and relationship names injected; failures become JSON Pointers
//	request.go    typed request structs
//	validate.go   semantic rules S1–S11 (aliases, properties, shape, relationship
//	filters.go    compatibility, typed filters, aggregations, selectivity, caps)
//	cursor.go     keyset cursor {h, k}: h binds the token to a hash of the query
//	restrict.go   scopes: traversal_path filters, aggregation reachability
//	lower*.go     SQL tree per query type (traversal, aggregation, path_finding, neighbors)
//	check.go      security check: every namespaced or edge scan carries FINAL,
//	              _deleted = false and exactly the caller's scope
//	emit.go       tracked builder: values become {pN:Type} placeholders in emission order
//	hydrate.go    second statement of neighbors and path_finding
//	steps.go      two-step neighbors: the edges first ([Plan.Edges]), then a lookup of only
//	              the kinds and ids they reach ([Compiler.Lookup]), joined in Go
//	              ([Plan.JoinNeighbors])
//	pathsteps.go  path_finding in steps: anchors and their edges first, then the readable
//	              candidates and the edges between them ([Compiler.PathStep]), paths
//	              assembled in Go ([Plan.JoinPaths])
//
// For example, with a caller scoped to "100/" at Developer level,
//
//	{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","filters":{"name":"api"},"columns":["name"]}]}
//
// compiles to
//
//	SELECT t.id AS n0_id, t.name AS n0_name
//	FROM gl_project AS t FINAL
//	PREWHERE startsWith(t.traversal_path, {p0:String})
//	WHERE t._deleted = false AND t.name = {p1:String}
//	ORDER BY t.id ASC
//	LIMIT 31
//	SETTINGS max_execution_time = 30, max_memory_usage = 4294967296, query_plan_direct_read_from_text_index = 0, query_plan_optimize_lazy_materialization = 0
//
// with p0 = "100/" and p1 = "api". The returned [Query] carries a [Plan] whose Build field
// tells graphresponse.Build how to turn the rows into a GraphResponse.
//
// A neighbors query runs in two statements (steps.go), and the second is built from ids the
// first returned. Those ids are never trusted: the second statement is one scoped FINAL scan
// per kind, with _deleted = false and the kind's scope at its floor, and the ids only narrow
// it, so a forged or tampered list can select no node the caller may not read or that is
// deleted, and can name no table outside the plan; a row of the answer needs both an edge the
// first statement read from a readable center and a neighbor the second confirmed
// (docs/compiler.md, "Two-step neighbors").
//
// Errors are [*Error] values with a JSON Pointer into the request and one of the [Reason]
// sentinels (errors.Is(err, compiler.ErrUnknownEntity)).
package compiler
