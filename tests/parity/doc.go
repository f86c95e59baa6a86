// Package parity holds the tests of graphwire's agreement with Orbit's own semantics
// (docs/orbit-parity.md, "Semantics"): behaviours Orbit's data-correctness suite checks,
// each re-stated over a small graph of our own (testdata/graph), loaded through the same
// path as graphwire load and queried through the service's path (executor.Respond).
//
// The suite needs libchdb.so (scripts/install-chdb.sh, or GRAPHWIRE_CHDB_LIB). Without it it
// skips locally and fails when CI=true.
package parity
