// Package compilertest holds the cross-package suites of the query compiler: end-to-end tests
// that compile DSL queries, run them on the embedded engine (chDB) over the seeded synthetic
// graph, build the GraphResponse and compare it with answers computed independently in plain
// SQL, and the authorization property test (random queries × random scopes over the seeded
// data).
//
// The suites need libchdb.so (scripts/install-chdb.sh, or GRAPHWIRE_CHDB_LIB). Without it they
// skip locally and fail when CI=true.
package compilertest
