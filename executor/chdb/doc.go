// Package chdb runs compiled queries on embedded ClickHouse: chDB's libchdb.so, loaded at run
// time with dlopen through cgo, so a binary that never opens it needs neither the library nor a
// link-time dependency (docs/clickhouse.md, "Executors"). A build without cgo compiles to a stub
// whose Open fails with [executor.ErrUnavailable].
//
// scripts/install-chdb.sh installs the pinned library ([LibraryVersion]) at
// [CachedLibrary](cacheDir). The engine is process-wide: one data directory per process, any
// number of connections to it. [Executor] keeps a pool of read-only query connections and one
// writable connection for [Executor.Exec] and [Executor.Insert].
//
// Queries are sent with chdb_stream_query_with_params_n: the SQL keeps its {pN:Type}
// placeholders and the canonical parameter texts travel separately, so values are never pasted
// into SQL. Results stream back chunk by chunk as RowBinaryWithNamesAndTypes and are decoded
// one row at a time, so a query holds one chunk of raw output, not the whole result.
//
// # Settings, cancellation and limits
//
// A statement is one call: the settings it needs are merged into its own trailing SETTINGS
// clause, which stays authoritative (the executor only adds keys it lacks and lowers
// max_execution_time to the context deadline and max_memory_usage to [Options].QueryMemory).
// When the context ends, the statement is stopped in the engine with KILL QUERY from a control
// connection, found by the log_comment marker it carries. A pool connection that saw an engine
// error, a kill or an abandoned stream is closed and replaced, because chDB can hand what such a
// statement left behind to the next statement on that connection. [Options].MemoryBudget
// becomes the engine's server-wide memory limit, so heavy concurrent statements fail with
// [executor.ErrResourceExhausted] instead of the process being killed. docs/clickhouse.md has
// the details.
//
// Example:
//
//	e, err := chdb.Open(chdb.Options{Library: chdb.CachedLibrary(cache), Path: dir})
//	rows, err := e.Run(ctx, &compiler.Query{
//		SQL:    "SELECT {p0:String} AS s",
//		Params: []compiler.Param{{Name: "p0", Type: "String", Value: "it's\tfine"}},
//	})
//	// rows.Columns() = [{s String}], one row: []any{"it's\tfine"}
package chdb
