package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/mcpsvc"
)

// treeIndexer is the MCP tool index_repository of serve and mcp: it indexes directories under
// the allowed roots into the graph through the process's writer, one at a time.
type treeIndexer struct {
	roots ingest.Roots
	t     ingest.Target
	log   *slog.Logger
	sem   chan struct{}
}

// newTreeIndexer returns the indexer of the directories under roots (each must exist).
func newTreeIndexer(roots []string, t ingest.Target, logger *slog.Logger) (*treeIndexer, error) {
	r, err := ingest.NewRoots(roots)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--index-root: %w", err)}
	}
	return &treeIndexer{roots: r, t: t, log: logger, sem: make(chan struct{}, 1)}, nil
}

// Index implements mcpsvc.Indexer.
func (x *treeIndexer) Index(ctx context.Context, req mcpsvc.IndexRequest) (mcpsvc.IndexSummary, error) {
	var sum mcpsvc.IndexSummary
	dir, err := x.roots.Resolve(req.Path)
	if err != nil {
		return sum, &mcpsvc.IndexError{Reason: "PATH_REFUSED", Err: fmt.Errorf("%s: %w (allowed: %v)", req.Path, err, x.roots.Dirs())}
	}
	if err := x.roots.CheckTree(dir); err != nil {
		return sum, &mcpsvc.IndexError{Reason: "PATH_REFUSED", Err: fmt.Errorf("%s: %w", req.Path, err)}
	}
	ns, project := req.Namespace, req.Project
	if ns == "" {
		ns = "1/"
	}
	if project == 0 {
		project = 1
	}
	if !compiler.ValidPath(ns) {
		return sum, &mcpsvc.IndexError{Reason: "INVALID_ARGUMENTS", Err: fmt.Errorf("namespace %q is not a traversal path such as 1/22/", ns)}
	}
	select {
	case x.sem <- struct{}{}:
		defer func() { <-x.sem }()
	case <-ctx.Done():
		return sum, ctx.Err()
	}
	branch, commit := gitInfo(ctx, dir)
	if branch == "" {
		branch = "main"
	}
	g, st, err := codeindex.Index(ctx, dir, codeindex.Options{TraversalPath: ns, ProjectID: project, Branch: branch, Commit: commit,
		CacheDir: indexCacheDir(false)})
	if err != nil {
		if ctx.Err() != nil {
			return sum, ctx.Err()
		}
		return sum, &mcpsvc.IndexError{Reason: "INDEX_FAILED", Err: err}
	}
	if st.Files == 0 {
		return sum, &mcpsvc.IndexError{Reason: "NO_FILES", Err: fmt.Errorf("no files to index under %s", dir)}
	}
	tmp, err := os.MkdirTemp("", "graphwire-index-")
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp)
	rep, err := ingest.IndexGraph(ctx, x.t, g, ingest.IndexOptions{Scope: load.Scope{TraversalPath: ns, ProjectID: project, Branch: branch}, Dir: tmp})
	if err != nil {
		var ve *load.ValidationError
		if errors.As(err, &ve) {
			return sum, &mcpsvc.IndexError{Reason: "INDEX_FAILED", Err: err}
		}
		return sum, err
	}
	sum = mcpsvc.IndexSummary{Path: dir, Files: st.Files, Definitions: st.Definitions, Imports: st.Imports, Edges: st.Edges,
		Changed: len(rep.Changed), Gone: len(rep.Gone), Incremental: rep.Incremental,
		Written: rep.Load.Written, Tombstoned: rep.Load.Tombstoned, Version: rep.Load.Version}
	if st.TypeErrors > 0 {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("%d packages have type errors; indexed as far as they type-check", st.TypeErrors))
	}
	sum.Warnings = append(sum.Warnings, st.Problems...)
	x.log.Info("index_repository", "files", st.Files, "changed", len(rep.Changed), "gone", len(rep.Gone), "written", rep.Load.Written)
	return sum, nil
}
