// Package ingest applies writes to a graph while it is being queried: the loads of package
// load and the code indexes of package codeindex (or any indexer that produces a
// [codeindex.Graph]), one at a time, through the process that owns the engine.
//
// The embedded engine allows one process per data directory, so the process that serves
// (graphwire serve, graphwire mcp) owns a [Writer], and graphwire index and graphwire load
// reach it over gRPC (grpcsvc's WriteService); a process that owns its engine alone uses a
// Writer directly. Both are a [Target]:
//
//	w := ingest.NewWriter(eng, ont, ingest.Options{})
//	pipe, _ := pipeline.New(w.Reader(eng), …)           // queries hold the read side of w's gate
//	rep, _ := ingest.IndexGraph(ctx, w, g, ingest.IndexOptions{Scope: sc, Dir: tmp})
//	// rep.Changed = ["sub/a.go"]: only the rows of the files whose digest changed were loaded
//
// A query sees a file's old rows or its new ones, never half of them: a load attaches its
// deltas while holding the write side of the gate ([load.Options.Exclusive]), and every
// statement a [Writer.Reader] runs holds the read side until its rows are closed.
package ingest
