package ingest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/load"
)

// IndexOptions configures [IndexGraph].
type IndexOptions struct {
	// Scope is the project and branch the graph belongs to; Files is set by IndexGraph.
	Scope load.Scope
	// Full loads every file's rows and compares them all with the graph, not only the files
	// whose digest changed since the last index.
	Full bool
	// Dir receives the JSON Lines files handed to the load (one per type). Required.
	Dir string
	// Progress and Logger are [Batch.Progress] and [Batch.Logger].
	Progress func(load.Progress)
	Logger   *slog.Logger
}

// IndexReport is what [IndexGraph] did.
type IndexReport struct {
	// Incremental is set when the digests of an earlier index decided what to load.
	Incremental bool
	// Changed lists the files whose rows changed since the last index (or all, when not
	// Incremental); Gone those of the last index that are no more. Neither holds
	// [codeindex.Global].
	Changed, Gone []string
	// Wrote is set when a load ran; Load is its report.
	Wrote bool
	Load  load.Report
}

// IndexGraph writes the code graph g to t: with the digests of the last index of the scope,
// only the rows of the files whose rows changed (and tombstones for those that are gone),
// then the new digests. g may come from any indexer that fills a [codeindex.Graph].
func IndexGraph(ctx context.Context, t Target, g *codeindex.Graph, opts IndexOptions) (IndexReport, error) {
	var rep IndexReport
	if opts.Dir == "" {
		return rep, fmt.Errorf("ingest: index: a directory for the load files is required")
	}
	scope := opts.Scope
	digests := g.Digests()
	var prev map[string]string
	if !opts.Full {
		var err error
		if prev, err = t.IndexState(ctx, scope); err != nil {
			return rep, err
		}
	}
	// With the digests of the last index, only the files whose rows changed (and those that
	// are gone) are loaded and replaced; without them, everything.
	record := digests
	if prev != nil {
		rep.Incremental = true
		keep := map[string]bool{}
		record = map[string]string{}
		for owner, d := range digests {
			if prev[owner] != d {
				keep[owner] = true
				record[owner] = d
			}
		}
		for owner := range prev {
			if _, ok := digests[owner]; !ok {
				keep[owner] = true
				record[owner] = ""
			}
		}
		scope.Files = []string{}
		for _, o := range slices.Sorted(maps.Keys(keep)) {
			if o == codeindex.Global {
				continue
			}
			scope.Files = append(scope.Files, o)
			if _, ok := digests[o]; ok {
				rep.Changed = append(rep.Changed, o)
			} else {
				rep.Gone = append(rep.Gone, o)
			}
		}
		g = g.Subset(keep)
	} else {
		for _, f := range g.Files {
			rep.Changed = append(rep.Changed, f.Path)
		}
	}
	var srcs []load.Source
	for _, typ := range g.Types() {
		p := filepath.Join(opts.Dir, typ+".jsonl")
		if err := writeFile(p, func(w io.Writer) error { return g.Encode(typ, w) }); err != nil {
			return rep, fmt.Errorf("ingest: index: %w", err)
		}
		srcs = append(srcs, load.Source{Path: p})
	}
	if len(srcs) == 0 && len(scope.Files) == 0 {
		return rep, nil // nothing changed
	}
	if len(srcs) == 0 {
		// Only deletions: load the branch alone, so that the load has a file.
		p := filepath.Join(opts.Dir, "Branch.jsonl")
		br := &codeindex.Graph{TraversalPath: g.TraversalPath, Branch: g.Branch}
		if err := writeFile(p, func(w io.Writer) error { return br.Encode("Branch", w) }); err != nil {
			return rep, fmt.Errorf("ingest: index: %w", err)
		}
		srcs = append(srcs, load.Source{Path: p})
	}
	lr, err := t.Write(ctx, Batch{Sources: srcs, Source: "index", Replace: &scope, Digests: record, Progress: opts.Progress, Logger: opts.Logger})
	rep.Wrote, rep.Load = true, lr
	return rep, err
}

func writeFile(path string, fill func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fill(fh); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
