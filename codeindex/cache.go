package codeindex

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"go/types"
	"hash"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"time"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// cacheVersion changes whenever what a cache entry holds, or how the rows of a package are
// derived, changes: entries of another version are never read.
const cacheVersion = "codeindex-cache-2"

// pkgCache keeps, per package, what an index derived from it: the package's types as export
// data, the digest of its declarations, and its rows. An entry's key covers the package's
// files, the options that shape its rows, and the declarations digest of each package it
// imports, so an edit that leaves a package's declarations as they were (a function body, a
// comment) re-checks that package alone: its importers' entries still match.
type pkgCache struct{ dir string }

// cacheEntry is one package's entry.
type cacheEntry struct {
	Export  []byte // gcexportdata of the package
	API     string // apiDigest of the package
	Files   []File
	Defs    []Definition
	Imports []ImportedSymbol
	Edges   []Edge
	Keys    map[string]int64 // object key → Definition id, for the importers' calls
	// Named and Ifaces are the package's types that take part in interface satisfaction:
	// the named non-interface types and the interfaces, with their method sets.
	Named, Ifaces []methodSet
}

// apiDigest is a digest of the declarations of p: every package-level object with its type,
// and every method of its named types, without positions or bodies. What an importer's rows
// can depend on is in it.
func apiDigest(p *types.Package) string {
	h := sha256.New()
	qual := func(q *types.Package) string { return q.Path() }
	scope := p.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		fmt.Fprintln(h, types.ObjectString(obj, qual))
		if tn, ok := obj.(*types.TypeName); ok {
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok {
				for i := range n.NumMethods() {
					fmt.Fprintln(h, types.ObjectString(n.Method(i), qual))
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// keyer builds the key of one package's entry.
type keyer struct{ h hash.Hash }

func newKeyer(opts Options, root string, p *packages.Package) *keyer {
	k := &keyer{h: sha256.New()}
	k.add(cacheVersion, runtime.Version(), root, opts.TraversalPath, strconv.FormatInt(opts.ProjectID, 10), opts.Branch, p.ID, p.PkgPath)
	if p.Module != nil {
		k.add("go", p.Module.GoVersion)
	}
	return k
}

func (k *keyer) add(parts ...string) {
	for _, s := range parts {
		fmt.Fprintf(k.h, "%d:%s\n", len(s), s)
	}
}

func (k *keyer) sum() string { return hex.EncodeToString(k.h.Sum(nil)) }

func (c *pkgCache) path(key string) string { return filepath.Join(c.dir, key[:2], key+".gob") }

// get returns the entry of key, nil when there is none or it does not decode.
func (c *pkgCache) get(key string) *cacheEntry {
	if c == nil {
		return nil
	}
	b, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if gob.NewDecoder(bytes.NewReader(b)).Decode(&e) != nil {
		return nil
	}
	now := time.Now()
	os.Chtimes(c.path(key), now, now) // used: pruned last
	return &e
}

// put stores e under key, best effort: a cache that cannot be written is no cache.
func (c *pkgCache) put(key string, e *cacheEntry) {
	if c == nil {
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(e) != nil {
		return
	}
	p := c.path(key)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp := p + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, buf.Bytes(), 0o644) != nil {
		os.Remove(tmp)
		return
	}
	os.Rename(tmp, p)
}

// maxCacheEntries bounds the entries a cache keeps; past it, prune removes the least
// recently used until half remain.
const maxCacheEntries = 4096

// prune bounds the cache.
func (c *pkgCache) prune() {
	if c == nil {
		return
	}
	names, _ := filepath.Glob(filepath.Join(c.dir, "*", "*.gob"))
	if len(names) <= maxCacheEntries {
		return
	}
	type aged struct {
		name string
		t    time.Time
	}
	var all []aged
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil {
			all = append(all, aged{n, fi.ModTime()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return a.t.Compare(b.t) })
	for _, a := range all[:len(all)-maxCacheEntries/2] {
		os.Remove(a.name)
	}
}

// exportData is p's types as export data.
func exportData(p *packages.Package) ([]byte, error) {
	var buf bytes.Buffer
	if err := gcexportdata.Write(&buf, p.Fset, p.Types); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// restore adds the rows of package p from its cache entry e, as extracting it would have.
func (x *indexer) restore(p *packages.Package, e *cacheEntry) {
	commit := x.opts.Commit
	for _, f := range e.Files {
		f.CommitSHA = commit
		x.g.Files = append(x.g.Files, f)
		x.edge("CONTAINS", "Directory", x.dir(path.Dir(f.Path)), "File", f.ID)
	}
	for _, d := range e.Defs {
		d.CommitSHA = commit
		x.g.Definitions = append(x.g.Definitions, d)
	}
	for _, i := range e.Imports {
		i.CommitSHA = commit
		x.g.Imports = append(x.g.Imports, i)
	}
	for k, id := range e.Keys {
		x.defs[k] = id
	}
	for _, ed := range e.Edges {
		x.edges[ed] = true
	}
	x.named = append(x.named, e.Named...)
	x.ifaces = append(x.ifaces, e.Ifaces...)
}

// store writes the entry of every package extracted now that may be cached: one without
// errors, whose files are all valid UTF-8. It runs before interface satisfaction, whose edges
// depend on every package and are derived again on every run.
func (x *indexer) store(c *pkgCache, pkgs []*packages.Package, units []unit, keys map[string]string, clean map[string]bool) {
	files := map[string]map[string]bool{} // package ID → its files' paths
	for _, u := range units {
		if files[u.pkg.ID] == nil {
			files[u.pkg.ID] = map[string]bool{}
		}
		files[u.pkg.ID][u.rel] = true
	}
	fileOf := map[string]string{} // file path → package ID
	for id, fs := range files {
		for f := range fs {
			fileOf[f] = id
		}
	}
	entries := map[string]*cacheEntry{}
	for _, p := range pkgs {
		if keys[p.ID] != "" && clean[p.ID] && p.Types != nil && p.TypesInfo != nil {
			entries[p.ID] = &cacheEntry{Keys: map[string]int64{}}
		}
	}
	blank := func(c *Common) { c.CommitSHA = "" }
	for _, f := range x.g.Files {
		if e := entries[fileOf[f.Path]]; e != nil {
			blank(&f.Common)
			e.Files = append(e.Files, f)
		}
	}
	ids := map[int64]string{} // Definition id → package ID, for the keys
	for _, d := range x.g.Definitions {
		if e := entries[fileOf[d.FilePath]]; e != nil {
			ids[d.ID] = fileOf[d.FilePath]
			blank(&d.Common)
			e.Defs = append(e.Defs, d)
		}
	}
	for _, i := range x.g.Imports {
		if e := entries[fileOf[i.FilePath]]; e != nil {
			blank(&i.Common)
			e.Imports = append(e.Imports, i)
		}
	}
	for k, id := range x.defs {
		if e := entries[ids[id]]; e != nil {
			e.Keys[k] = id
		}
	}
	own := x.g.nodeOwners()
	for ed := range x.edges {
		if e := entries[fileOf[own[nodeKey{ed.FromKind, ed.From}]]]; e != nil {
			e.Edges = append(e.Edges, ed)
		}
	}
	for _, ms := range x.named {
		if e := entries[ids[x.defs[ms.Key]]]; e != nil {
			e.Named = append(e.Named, ms)
		}
	}
	for _, ms := range x.ifaces {
		if e := entries[ids[x.defs[ms.Key]]]; e != nil {
			e.Ifaces = append(e.Ifaces, ms)
		}
	}
	for _, p := range pkgs {
		e := entries[p.ID]
		if e == nil {
			continue
		}
		exp, err := exportData(p)
		if err != nil {
			continue
		}
		e.Export, e.API = exp, apiDigest(p.Types)
		c.put(keys[p.ID], e)
	}
	c.prune()
}
