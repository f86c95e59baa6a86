// Package hermetic gives a test binary an environment of its own, so that no test reads or
// writes the user's graphwire data, config or cache through the defaults the CLI falls back on
// ($GRAPHWIRE_DATA, ${XDG_DATA_HOME:-$HOME/.local/share}/graphwire/data, $GRAPHWIRE_CONFIG,
// GRAPHWIRE_<FLAG> variables, $GRAPHWIRE_TOKEN, ...).
//
// A package whose tests run graphwire (its run function or the built binary) sets it up in
// TestMain, passing the cache directory it resolved before the home moves:
//
//	func TestMain(m *testing.M) { os.Exit(hermetic.Main(m.Run, chdb.DefaultCacheDir())) }
//
// Before the tests run, HOME and the XDG base directories point into a fresh temporary
// directory, removed afterwards; every GRAPHWIRE_ variable is unset except the tests' own knobs
// (GRAPHWIRE_CHDB_LIB, GRAPHWIRE_PROP_SEED, GRAPHWIRE_PROP_CASES, the engines' DSNs, ...); and
// GRAPHWIRE_CACHE names the cache directory given, so that libchdb.so and the test tools
// (grpcurl, grpc-health-probe, the MCP Inspector) stay where scripts/install-chdb.sh and
// scripts/install-test-tools.sh put them. The go command keeps its build and module caches and
// its env file, so a test that runs go build does not start from nothing.
package hermetic
