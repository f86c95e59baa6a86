package codeindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
)

// Global is the owner of the rows no single file derives: the branch, the commit, the
// directories and the edges leaving them.
const Global = ""

// digestVersion changes whenever the rows written for the same graph change (columns added
// to the files [Graph.Encode] writes), so that the next index writes every file again.
const digestVersion = "codeindex-rows-2\n"

// nodeOwners maps each node to the file it was derived from: a File to its path, a
// Definition or ImportedSymbol to its file_path, everything else to [Global].
func (g *Graph) nodeOwners() map[nodeKey]string {
	m := make(map[nodeKey]string, len(g.Files)+len(g.Definitions)+len(g.Imports))
	for _, f := range g.Files {
		m[nodeKey{"File", f.ID}] = f.Path
	}
	for _, d := range g.Definitions {
		m[nodeKey{"Definition", d.ID}] = d.FilePath
	}
	for _, i := range g.Imports {
		m[nodeKey{"ImportedSymbol", i.ID}] = i.FilePath
	}
	return m
}

type nodeKey struct {
	kind string
	id   int64
}

// Digests returns a digest of the rows each file gave, keyed by the file's path, and of the
// rest under [Global]. A file's rows are its File, its Definitions and ImportedSymbols, and
// every edge leaving one of them, whatever file the edge ends in; so the digest of a file
// changes whenever any of its rows does, also when the change came from another file (a
// method declared elsewhere on one of its types, an interface it now satisfies, a callee
// renamed). The digests are of the rows, computed after the whole index, never of the
// source text alone.
func (g *Graph) Digests() map[string]string {
	// Each owner's rows go, as JSON lines, through one encoder straight into its hash.
	type part struct {
		h   hash.Hash
		enc *json.Encoder
	}
	parts := map[string]part{}
	g.each(func(owner string, v any) {
		p, ok := parts[owner]
		if !ok {
			p.h = sha256.New()
			// The digests also cover how the rows are written: since the edges carry the
			// index scope (project_id, branch), every file of a branch indexed before is
			// written again once, so that a migrated graph's code edges get them.
			p.h.Write([]byte(digestVersion))
			p.enc = json.NewEncoder(p.h)
			p.enc.SetEscapeHTML(false)
			parts[owner] = p
		}
		p.enc.Encode(v) // plain structs of strings and numbers into a hash: cannot fail
	})
	out := make(map[string]string, len(parts))
	for owner, p := range parts {
		out[owner] = hex.EncodeToString(p.h.Sum(nil))
	}
	return out
}

// each calls fn with the owner of every row of g, in a fixed order.
func (g *Graph) each(fn func(owner string, row any)) {
	fn(Global, g.Branch)
	if g.Commit != nil {
		fn(Global, g.Commit)
	}
	for _, d := range g.Directories {
		fn(Global, d)
	}
	for _, f := range g.Files {
		fn(f.Path, f)
	}
	for _, d := range g.Definitions {
		fn(d.FilePath, d)
	}
	for _, i := range g.Imports {
		fn(i.FilePath, i)
	}
	own := g.nodeOwners()
	for _, e := range g.Edges {
		fn(own[nodeKey{e.FromKind, e.From}], e) // a missing source is Global
	}
}

// Subset returns the graph of the rows whose owner (a file path, or [Global]) is in keep.
// Branch and Commit go with Global.
func (g *Graph) Subset(keep map[string]bool) *Graph {
	s := &Graph{TraversalPath: g.TraversalPath, Branch: g.Branch, Commit: g.Commit, subset: true}
	if !keep[Global] {
		s.Commit = nil
	}
	own := g.nodeOwners()
	for _, d := range g.Directories {
		if keep[Global] {
			s.Directories = append(s.Directories, d)
		}
	}
	for _, f := range g.Files {
		if keep[f.Path] {
			s.Files = append(s.Files, f)
		}
	}
	for _, d := range g.Definitions {
		if keep[d.FilePath] {
			s.Definitions = append(s.Definitions, d)
		}
	}
	for _, i := range g.Imports {
		if keep[i.FilePath] {
			s.Imports = append(s.Imports, i)
		}
	}
	for _, e := range g.Edges {
		if keep[own[nodeKey{e.FromKind, e.From}]] {
			s.Edges = append(s.Edges, e)
		}
	}
	return s
}
