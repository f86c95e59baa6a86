// Package codeindex builds the code graph of Go packages (Orbit's Directory, File,
// Definition, ImportedSymbol, Branch and Commit entities, with CONTAINS, DEFINES, IMPORTS,
// CALLS, EXTENDS and ON_BRANCH edges) by type-checking them with go/packages and go/types.
// docs/loading.md lists what each entity and edge means.
//
//	g, st, err := codeindex.Index(ctx, ".", codeindex.Options{TraversalPath: "1/", ProjectID: 1})
//	// st = {Packages: 35, Files: 176, Definitions: 2634, …}
//	// g.Edges holds {CALLS Definition (*Server).Serve → Definition (*conn).serve}, …
//	for _, typ := range g.Types() {
//		g.Encode(typ, w) // JSON Lines that package load reads
//	}
package codeindex
