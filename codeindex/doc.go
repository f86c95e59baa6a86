// Package codeindex builds the code graph of a source tree (Orbit's Directory, File,
// Definition, ImportedSymbol, Branch and Commit entities, with CONTAINS, DEFINES, IMPORTS,
// CALLS, EXTENDS and ON_BRANCH edges): [Index] type-checks Go packages with go/packages and
// go/types; [IndexTree] indexes a whole tree, its Go module with [Index] and the files of
// Python, TypeScript, JavaScript, Java, Kotlin, Scala, C#, PHP, Rust, C, C++, Ruby, Lua, Zig,
// Bash and HCL with tree-sitter (one query per language in lang.go, one resolver for their scope and import
// rules in resolve.go; cgo only, see parse.go). docs/loading.md and docs/codegraph.md list
// what each entity and edge means.
//
//	g, st, err := codeindex.Index(ctx, ".", codeindex.Options{TraversalPath: "1/", ProjectID: 1})
//	// st = {Packages: 35, Files: 176, Definitions: 2634, …}
//	// g.Edges holds {CALLS Definition (*Server).Serve → Definition (*conn).serve}, …
//	for _, typ := range g.Types() {
//		g.Encode(typ, w) // JSON Lines that package load reads
//	}
//
//	g, st, err := codeindex.IndexTree(ctx, "/usr/lib/python3/dist-packages/jwt", codeindex.Options{TraversalPath: "1/", ProjectID: 1})
//	// st.Languages = {python: 11}; g.Edges holds {CALLS api_jwt.PyJWT.decode → api_jwt.PyJWT.decode_complete}, …
package codeindex
