package codeindex

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// loadPackages lists the packages of patterns and type-checks them from source, reporting
// each package checked to progress (from the calling goroutine). It returns what
// packages.Load returns with NeedTypes, NeedSyntax and NeedTypesInfo, but asks the go
// command for export data of the dependencies outside the patterns only: packages.Load
// would have it build every listed package, so an edit to one file recompiled the export
// data of its package and of every package importing it, none of which the index reads.
//
// With cache set, a package whose entry matches (see [pkgCache]) is not checked: its types
// come from the entry's export data and [checker.hits] holds the entry; [checker.keys] holds
// the key of every other package that may be stored.
func loadPackages(ctx context.Context, cfg *packages.Config, patterns []string, progress func(done, total int), cache *pkgCache, opts Options, root string) ([]*packages.Package, *checker, error) {
	list := *cfg
	list.Mode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule
	roots, err := packages.Load(&list, patterns...)
	if err != nil {
		return nil, nil, err
	}
	isRoot := map[string]bool{}
	for _, p := range roots {
		isRoot[p.ID] = true
	}
	// Every dependency outside the roots, found through the import graph.
	ext := map[string]*packages.Package{}
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		for _, d := range p.Imports {
			if isRoot[d.ID] || ext[d.ID] != nil || d.ID == "unsafe" {
				continue
			}
			ext[d.ID] = d
			visit(d)
		}
	}
	for _, p := range roots {
		visit(p)
	}
	fset := token.NewFileSet()
	exports, err := exportFiles(ctx, cfg, ext)
	if err != nil {
		return nil, nil, err
	}
	c := &checker{fset: fset, exports: exports, imports: map[string]*types.Package{}, checked: map[string]*types.Package{},
		cache: cache, opts: opts, root: root, isRoot: isRoot, api: map[string]string{}, keys: map[string]string{}, hits: map[string]*cacheEntry{}}
	for _, p := range roots {
		p.Fset = fset
	}
	c.checkAll(ctx, roots, progress)
	return roots, c, ctx.Err()
}

// exportFiles returns the export data file of each package of ext, by ID, built (or found
// in the build cache) by the go command.
func exportFiles(ctx context.Context, cfg *packages.Config, ext map[string]*packages.Package) (map[string]string, error) {
	out := map[string]string{}
	if len(ext) == 0 {
		return out, nil
	}
	var paths []string
	for _, p := range ext {
		paths = append(paths, p.PkgPath)
	}
	slices.Sort(paths)
	ex := *cfg
	ex.Context = ctx
	ex.Mode = packages.NeedName | packages.NeedExportFile
	pkgs, err := packages.Load(&ex, paths...)
	if err != nil {
		return nil, fmt.Errorf("export data of the dependencies: %w", err)
	}
	for _, p := range pkgs {
		if p.ExportFile != "" {
			out[p.PkgPath] = p.ExportFile
		}
	}
	return out, nil
}

// checker type-checks root packages from source against export data of the rest.
type checker struct {
	fset    *token.FileSet
	exports map[string]string // package path → export data file
	mu      sync.Mutex        // guards imports, checked and reading export data
	imports map[string]*types.Package
	checked map[string]*types.Package // root ID → its types

	cache  *pkgCache // nil: none
	opts   Options
	root   string
	isRoot map[string]bool
	api    map[string]string      // root ID → apiDigest, once checked or read
	keys   map[string]string      // root ID → the key its entry is stored under
	hits   map[string]*cacheEntry // root ID → the entry it was read from
}

// external returns the types of the package at path from its export data.
func (c *checker) external(path string) (*types.Package, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.imports[path]; p != nil && p.Complete() {
		return p, nil
	}
	file, ok := c.exports[path]
	if !ok {
		return nil, fmt.Errorf("no export data for %s", path)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read export data of %s: %w", path, err)
	}
	return gcexportdata.Read(r, c.fset, c.imports, path)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// checkAll type-checks roots, each once the roots it imports are done, on as many
// goroutines as there are processors.
func (c *checker) checkAll(ctx context.Context, roots []*packages.Package, progress func(done, total int)) {
	byID := map[string]*packages.Package{}
	for _, p := range roots {
		byID[p.ID] = p
	}
	waiting := map[string]int{}         // root ID → root imports not yet checked
	dependents := map[string][]string{} // root ID → the roots that import it
	for _, p := range roots {
		for _, d := range p.Imports {
			if byID[d.ID] != nil && d.ID != p.ID {
				waiting[p.ID]++
				dependents[d.ID] = append(dependents[d.ID], p.ID)
			}
		}
	}
	ready := make(chan *packages.Package, len(roots))
	doneCh := make(chan *packages.Package, len(roots))
	queued := map[string]bool{}
	inflight := 0
	queue := func(p *packages.Package) {
		queued[p.ID] = true
		inflight++
		ready <- p
	}
	for _, p := range roots {
		if waiting[p.ID] == 0 {
			queue(p)
		}
	}
	var wg sync.WaitGroup
	for range max(runtime.GOMAXPROCS(0), 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range ready {
				c.check(ctx, p)
				doneCh <- p
			}
		}()
	}
	for done := 0; done < len(roots); {
		if inflight == 0 {
			// Nothing runs and nothing is ready: the rest wait on an import cycle, which
			// the go command and the type checker report. Check them in any order.
			for _, p := range roots {
				if !queued[p.ID] {
					queue(p)
				}
			}
		}
		p := <-doneCh
		done++
		inflight--
		if progress != nil {
			progress(done, len(roots))
		}
		for _, id := range dependents[p.ID] {
			if waiting[id]--; waiting[id] == 0 && !queued[id] {
				queue(byID[id])
			}
		}
	}
	close(ready)
	wg.Wait()
}

// check parses and type-checks one root package into p.Syntax, p.Types and p.TypesInfo,
// adding its parse and type errors to p.Errors.
func (c *checker) check(ctx context.Context, p *packages.Package) {
	if ctx.Err() != nil {
		return
	}
	srcs := c.fromCache(p)
	if srcs == nil && p.Types != nil {
		return // read from the cache
	}
	for i, name := range p.CompiledGoFiles {
		var src any
		if i < len(srcs) {
			src = srcs[i]
		}
		f, err := goparser.ParseFile(c.fset, name, src, goparser.AllErrors|goparser.ParseComments|goparser.SkipObjectResolution)
		if err != nil {
			if list, ok := err.(scanner.ErrorList); ok {
				for _, e := range list {
					p.Errors = append(p.Errors, packages.Error{Pos: e.Pos.String(), Msg: e.Msg, Kind: packages.ParseError})
				}
			} else {
				p.Errors = append(p.Errors, packages.Error{Pos: name, Msg: err.Error(), Kind: packages.ParseError})
			}
		}
		if f != nil {
			p.Syntax = append(p.Syntax, f)
		}
	}
	p.TypesInfo = &types.Info{
		Types:        map[ast.Expr]types.TypeAndValue{},
		Defs:         map[*ast.Ident]types.Object{},
		Uses:         map[*ast.Ident]types.Object{},
		Implicits:    map[ast.Node]types.Object{},
		Instances:    map[*ast.Ident]types.Instance{},
		Scopes:       map[ast.Node]*types.Scope{},
		Selections:   map[*ast.SelectorExpr]*types.Selection{},
		FileVersions: map[*ast.File]string{},
	}
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			d, ok := p.Imports[path]
			if !ok {
				return nil, fmt.Errorf("%s is not an import of %s", path, p.PkgPath)
			}
			c.mu.Lock()
			t := c.checked[d.ID]
			c.mu.Unlock()
			if t != nil {
				return t, nil
			}
			return c.external(d.PkgPath)
		}),
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				p.Errors = append(p.Errors, packages.Error{Pos: te.Fset.Position(te.Pos).String(), Msg: te.Msg, Kind: packages.TypeError})
			}
		},
		Sizes: types.SizesFor("gc", runtime.GOARCH),
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	p.Types, _ = conf.Check(p.PkgPath, c.fset, p.Syntax, p.TypesInfo)
	api := apiDigest(p.Types)
	c.mu.Lock()
	c.checked[p.ID] = p.Types
	c.imports[p.PkgPath] = p.Types // so that export data read later refers to these objects
	c.api[p.ID] = api
	c.mu.Unlock()
}

// fromCache reads p's types from its cache entry when one matches, setting p.Types and
// leaving p.Syntax and p.TypesInfo nil; otherwise it returns the contents of p's files, read
// for the key (nil without a cache), and notes the key.
func (c *checker) fromCache(p *packages.Package) [][]byte {
	if c.cache == nil {
		return nil
	}
	k := newKeyer(c.opts, c.root, p)
	var srcs [][]byte
	for _, name := range p.CompiledGoFiles {
		b, err := os.ReadFile(name)
		if err != nil {
			return srcs // the parser reports it
		}
		sum := sha256.Sum256(b)
		k.add("file", name, hex.EncodeToString(sum[:]))
		srcs = append(srcs, b)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
		d := p.Imports[path]
		switch {
		case d.ID == "unsafe":
			k.add("unsafe")
		case c.isRoot[d.ID]:
			api, ok := c.api[d.ID]
			if !ok {
				return srcs // an import cycle: not cached
			}
			k.add("root", path, d.ID, api)
		default:
			file, ok := c.exports[d.PkgPath]
			if !ok {
				return srcs
			}
			// Export files are named by their content in the build cache.
			k.add("dep", path, d.ID, file)
		}
	}
	key := k.sum()
	if e := c.cache.get(key); e != nil {
		if t, err := gcexportdata.Read(bytes.NewReader(e.Export), c.fset, c.imports, p.PkgPath); err == nil {
			p.Types = t
			c.checked[p.ID] = t
			c.api[p.ID] = e.API
			c.hits[p.ID] = e
			return nil
		}
	}
	c.keys[p.ID] = key
	return srcs
}
