// Package orbit holds Orbit-shaped example queries as tests: for each query type, a table of
// queries in the style of Orbit's query-language examples over the code graph, CI, security
// and merge request diff entities of the Orbit 0.105.1 ontology, run on the embedded engine
// (chDB) over the seeded graph, each compared with the answer computed independently in
// plain SQL.
//
// The suite needs libchdb.so (scripts/install-chdb.sh, or GRAPHWIRE_CHDB_LIB). Without it it
// skips locally and fails when CI=true.
package orbit
