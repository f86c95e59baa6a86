// Package chdb runs compiled queries on embedded ClickHouse: chDB's libchdb.so, loaded at run
// time with dlopen through cgo, so a binary that never opens it needs neither the library nor a
// link-time dependency (specs/query-engine.md §10.4). A build without cgo compiles to a stub
// whose Open fails with [executor.ErrUnavailable].
//
// scripts/install-chdb.sh installs the pinned library ([LibraryVersion]) at
// [CachedLibrary](cacheDir). The engine is process-wide: one data directory per process, any
// number of connections to it. [Executor] keeps a pool of read-only query connections and one
// writable connection for [Executor.Exec] and [Executor.Insert].
//
// Queries are sent with chdb_query_with_params_n: the SQL keeps its {pN:Type} placeholders and
// the canonical parameter texts travel separately, so values are never pasted into SQL. Results
// come back as RowBinaryWithNamesAndTypes and are decoded one row at a time:
//
//	e, err := chdb.Open(chdb.Options{Library: chdb.CachedLibrary(cache), Path: dir})
//	rows, err := e.Run(ctx, &compiler.Query{
//		SQL:    "SELECT {p0:String} AS s",
//		Params: []compiler.Param{{Name: "p0", Type: "String", Value: "it's\tfine"}},
//	})
//	// rows.Columns() = [{s String}], one row: []any{"it's\tfine"}
package chdb
