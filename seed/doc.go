// Package seed generates a deterministic synthetic SDLC graph and loads it into ClickHouse
// (docs/clickhouse.md, "Seed data and raw SQL").
//
// [Generate] builds every entity table of the ontology plus the edge table in memory: tenants
// (acme, globex, initech, tenant-04, …) with nested subgroups, projects spread over groups by a
// Zipf law, users who mostly belong to one tenant, merge requests, pipelines, jobs, work items,
// vulnerabilities, notes, labels and milestones. Counts are skewed by Zipf laws, as in a real
// instance: a few groups hold most projects, a few projects most merge requests, and a few
// members of a tenant author most of them. Scale 1 is about 14 300 nodes and 46 100 edges
// (`graphwire seed --scale 1`); counts grow linearly with the scale. The same scale and seed
// give the same rows on every machine and Go release: the generator owns its random number
// generator and never ranges over a map.
//
// The graph always contains the rows end-to-end tests rely on: user 1 alice, user 2
// `Bob "the Builder"`, user 3 with a non-ASCII name and an emoji, merge request 1 whose title
// holds a newline and a backslash, notes 1-3 with internal true/false and resolved NULL/true/
// false, hostile strings (quotes, backslashes, TAB, NUL, `\N`, `{p0:String}`, SQL), a
// 100 000-character note, and for each entity an extra row with id [LargeID].
//
// [Load] creates the schema and inserts the graph in batches through an [Engine], between the two
// load records of package loadstate, so that a load cut short is detected by
// loadstate.Check rather than served:
//
//	g, _ := seed.Generate(ont, seed.Options{Scale: 1, Seed: 42})
//	st, err := seed.Load(ctx, engine, ont, g, seed.Options{})
//	// st.Nodes ≈ 14 300, st.Edges ≈ 46 100
//
// Both tell [Options.Progress], when it is set, how far they have come: rows generated against
// [ExpectedRows], then rows inserted against all rows. They draw nothing themselves; the CLI
// turns the calls into a progress bar on a terminal.
//
// [ScopedGrants] fits a scoped caller to a seeded graph, from the traversal paths the SQL
// benchmarks' questions start from ([Interest]), so that tests/sqlbench and bench/duckdb ask
// every scale with a member whose answers are neither empty nor the admin's.
package seed
