// Package loadstate records whether the graph in a ClickHouse database was loaded completely,
// so that a load cut short (SIGKILL, power loss, a failed insert, a cancelled context) is
// detected instead of served.
//
// Every bulk load brackets its writes with [Begin] and [Load.Complete]. Begin appends a
// "loading" row to the table [ontology.LoadStateTable] (created by the graph DDL,
// config/graph.sql) before the first graph row is written; Complete appends a "complete" row
// with the load's version and counts after the last one. Rows are only ever appended, so a load
// that dies in between leaves "loading" as the newest row. seed.Load does this today, and any
// other loader must do the same.
//
// Readers call [Check] before serving:
//
//	st, err := loadstate.Check(ctx, exec, ont)
//	// errors.Is(err, loadstate.ErrNoGraph):    nothing was ever loaded into this database
//	// errors.Is(err, loadstate.ErrIncomplete): the newest load did not finish
//	// otherwise st = State{Seq: 2, Status: "complete", Source: "seed", Version: 4, Nodes: 12034, …}
//
// The log in gw_load_state:
//
//	seq  status    source  version  nodes  edges
//	1    loading   seed    0        0      0
//	1    complete  seed    2        12034  37210
//	2    loading   seed    0        0      0        ← killed here: Check reports ErrIncomplete
package loadstate
