// Package executortest is the executor contract suite: one set of checks that every
// [executor.Executor] implementation must pass (docs/clickhouse.md, "Executors" and "Tests").
//
// [RunContract] covers the value model (Int64, UInt64, Float64, String, Bool, Nullable,
// DateTime64, Date, Array, LowCardinality), server-side parameters of each type including
// hostile strings, error kinds, cancellation, deadlines, concurrency, streaming and the
// [executor.Loader]. [RunDriverChecks] is the subset for servers too old for server-side
// parameters (Debian's ClickHouse 18.16): connect, version, a plain query, error mapping and
// cancellation.
//
// The _test files run the suite against every engine this machine offers:
//
//	chDB (libchdb.so)              GRAPHWIRE_CHDB_LIB or the install-chdb.sh cache; required when CI=true
//	any ClickHouse server          GRAPHWIRE_CLICKHOUSE_DSN (full suite) and GRAPHWIRE_CLICKHOUSE_HTTP_DSN
//	                               (the same over HTTP, the DSN schemes, cancellation on the server);
//	                               required when CI=true (.ci/run starts a 26.7 server)
//	Debian clickhouse-server 18.16 GRAPHWIRE_LEGACY_CLICKHOUSE_DSN (driver checks); opt-in, skipped when unset
//	testcontainers ClickHouse      when a Docker engine is reachable, skipped otherwise
package executortest
