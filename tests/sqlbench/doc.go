// Package sqlbench measures the compiled SQL against the best hand-written SQL for the same
// question: for each query type (search, traversal of one and two hops, a variable-length hop
// of 1..3, aggregation, path finding, neighbors) and for an admin and a scoped caller, it runs
// the compiler's base statement and a reference statement from testdata/ on the same embedded
// engine (chDB) over the same seeded graph, and checks that both return the same rows.
//
// The reference statements are the yardstick "best SQL a person would write": they apply the
// same rules as the compiler (latest version of every row by _version, tombstones excluded,
// the caller's traversal-path prefixes at each entity's access floor, every node of a walk
// readable), but in the cheapest form found by hand (PREWHERE on sorting-key columns ahead of
// FINAL, one scan per edge table, intermediates computed once). Their parameters are ClickHouse
// placeholders ({name:Type}) bound server-side, like the compiler's.
//
// TestReferenceSQLMatchesCompiled runs in make test on a scale-1 graph and requires equal
// results for every case (SHA-256 over the canonical encoding of the sorted rows, plus the
// column names and types). BenchmarkReferenceSQL runs the pairs interleaved and reports the
// median times, their ratio and the rows and bytes the engine read; make bench-sql runs it on
// the scale-10 graph and writes the table of docs/sql-bench.md.
// BenchmarkSQLVariants runs candidate statements for one case (SQLBENCH_CASE, SQLBENCH_VARIANTS)
// next to its compiled and reference statements, to measure a SQL shape before the compiler
// emits it (docs/sql-bench.md, "Trying a variant").
//
// The suites need libchdb.so (scripts/install-chdb.sh, or GRAPHWIRE_CHDB_LIB). Without it they
// skip locally and fail when CI=true.
package sqlbench
