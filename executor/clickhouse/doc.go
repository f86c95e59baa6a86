// Package clickhouse runs compiled queries on a ClickHouse server over the native protocol,
// through clickhouse-go/v2 (docs/clickhouse.md, "Executors").
//
// Parameters are bound server-side: each {pN:Type} placeholder gets the canonical escaped text of
// its value ([executor.ParamText]), which the driver sends in the query packet's parameter
// section. Per-query settings (max_execution_time, max_memory_usage, readonly, …) travel in the
// same packet. Cancelling the context makes the driver send a cancel packet and drop the
// connection; the pool replaces it. Progress packets are summed into [executor.Stats] and, when
// [Options.Progress] is set, reported as they arrive.
//
// With [Options.Cluster] the graph is sharded over a cluster of the server (docs/cluster.md):
// every statement runs with GLOBAL IN/JOIN and without skipping shards, [Executor.Shards]
// lists the shards and [Executor.OpenShard] reaches one alone (package cluster lays the
// tables out).
//
//	e, err := clickhouse.Open(clickhouse.Options{DSN: "clickhouse://127.0.0.1:9000/graphwire"})
//	rows, err := e.Run(ctx, &compiler.Query{SQL: "SELECT {p0:String}", Params: …})
package clickhouse
