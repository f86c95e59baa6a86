package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/codeindex"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// indexFlags are the parsed flags of graphwire index.
type indexFlags struct {
	engine    engineFlags
	namespace string
	project   int64
	branch    string
	commit    string
	keep      string
	trace     bool
	full      bool
	dir       string
	patterns  []string
}

func newIndexCmd(s streams) *cobra.Command {
	var f indexFlags
	cmd := &cobra.Command{
		Use:   "index [flags] PATH [PATTERN...]",
		Short: "index a Go module or workspace into the code graph",
		Long:  "Index the Go packages PATTERN (default ./...) of the module or workspace at PATH into the code\ngraph (docs/loading.md). Re-indexing writes only what changed.",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dir, f.patterns = args[0], args[1:]
			if !compiler.ValidPath(f.namespace) {
				return usageErrorf("--namespace %q is not a path a scope can name: 1 to 20 positive ids without leading zeros, each followed by / (1/22/)", f.namespace)
			}
			if f.project <= 0 {
				return usageErrorf("--project must be positive")
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			// As for load: a blocked index still ends on SIGINT or SIGTERM.
			return untilInterrupted(cmd.Context(), interruptGrace, func() error { return indexCode(cmd.Context(), f, s.stderr) })
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.StringVar(&f.namespace, "namespace", "1/", "traversal path the code belongs to, e.g. 1/22/; callers need a scope on it")
	fs.Int64Var(&f.project, "project", 1, "project id of the code")
	fs.StringVar(&f.branch, "branch", "", "branch name (default: git's current branch, else main)")
	fs.StringVar(&f.commit, "commit", "", "commit SHA (default: git's HEAD, if any)")
	fs.StringVar(&f.keep, "keep", "", "also keep the JSON Lines files handed to the loader in this directory")
	fs.BoolVar(&f.trace, "trace", false, "print each engine statement of the load with its wall and CPU seconds")
	fs.BoolVar(&f.full, "full", false, "load every file's rows and compare them all with the graph, not only the files whose rows changed since the last index")
	return cmd
}

// gitInfo returns the current branch and HEAD commit of the repository holding dir, empty
// strings outside a repository or without git.
func gitInfo(ctx context.Context, dir string) (branch, commit string) {
	out := func(args ...string) string {
		b, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	branch = out("rev-parse", "--abbrev-ref", "HEAD")
	if branch == "HEAD" { // detached
		branch = ""
	}
	return branch, out("rev-parse", "HEAD")
}

func indexCode(ctx context.Context, f indexFlags, stderr io.Writer) error {
	// The go command runs in PATH: a missing or non-directory PATH would otherwise surface as
	// the go command itself failing to start.
	if fi, err := os.Stat(f.dir); err != nil {
		return err // *fs.PathError: "no such file or directory" is exit 6
	} else if !fi.IsDir() {
		return usageErrorf("%s is not a directory (PATH is a module or workspace directory)", f.dir)
	}
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		return err
	}
	branch, commit := gitInfo(ctx, f.dir)
	if f.branch != "" {
		branch = f.branch
	}
	if branch == "" {
		branch = "main"
	}
	if f.commit != "" {
		commit = f.commit
	}
	bar, err := newProgress(stderr, os.Getenv(progressEnv), unitFiles)
	if err != nil {
		return &usageError{err}
	}
	defer bar.finish()
	loadBar, _ := newProgress(stderr, os.Getenv(progressEnv), unitBytes) // the same setting, checked above
	defer loadBar.finish()
	start := time.Now()
	g, st, err := codeindex.Index(ctx, f.dir, codeindex.Options{Patterns: f.patterns, TraversalPath: f.namespace,
		ProjectID: f.project, Branch: branch, Commit: commit, Progress: bar.indexReport})
	if err != nil {
		return err
	}
	indexed := time.Since(start)
	if st.Files == 0 {
		// Nothing to write: say so before the data directory is opened (or created).
		return &classError{code: exitNotFound, msg: fmt.Sprintf("no Go files found under %s (patterns %s; test files are not indexed)",
			f.dir, strings.Join(patternsOrDefault(f.patterns), " ")), err: errNoGoFiles}
	}
	eng, err := f.engine.openWritable(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	scope := load.Scope{TraversalPath: f.namespace, ProjectID: f.project, Branch: branch}
	digests := g.Digests()
	var prev map[string]string
	if !f.full {
		if prev, err = readDigests(ctx, eng, scope); err != nil {
			return err
		}
	}
	// With the digests of the last index, only the files whose rows changed (and those that
	// are gone) are loaded and replaced; without them, everything.
	var changed []string
	if prev != nil {
		keep := map[string]bool{}
		for owner, d := range digests {
			if prev[owner] != d {
				keep[owner] = true
			}
		}
		for owner := range prev {
			if _, ok := digests[owner]; !ok {
				keep[owner] = true
			}
		}
		changed = slices.Sorted(maps.Keys(keep))
		scope.Files = []string{}
		for _, o := range changed {
			if o != codeindex.Global {
				scope.Files = append(scope.Files, o)
			}
		}
		g = g.Subset(keep)
	}
	dir := f.keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "graphwire-index-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var srcs []load.Source
	for _, typ := range g.Types() {
		p := filepath.Join(dir, typ+".jsonl")
		if err := writeFile(p, func(w io.Writer) error { return g.Encode(typ, w) }); err != nil {
			return err
		}
		srcs = append(srcs, load.Source{Path: p})
	}
	written := time.Since(start) - indexed
	lstart := time.Now()
	var rep load.Report
	if len(srcs) > 0 || len(scope.Files) > 0 {
		bar.finish()
		opts := load.Options{Source: "index", Progress: loadBar.loadReport, Replace: &scope, Shards: clusterWriter(eng, ont)}
		if f.trace {
			opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
		}
		if len(srcs) == 0 {
			// Only deletions: load the branch alone, so the load has a file.
			p := filepath.Join(dir, "Branch.jsonl")
			full := &codeindex.Graph{TraversalPath: g.TraversalPath, Branch: g.Branch}
			if err := writeFile(p, func(w io.Writer) error { return full.Encode("Branch", w) }); err != nil {
				return err
			}
			srcs = append(srcs, load.Source{Path: p})
		}
		if rep, err = load.Load(ctx, eng, ont, srcs, opts); err != nil {
			return err
		}
	}
	if err := writeDigests(ctx, eng, scope, digests, prev, rep.Version); err != nil {
		return err
	}
	loaded := time.Since(lstart)
	total := time.Since(start)
	bar.finish()
	loadBar.finish()
	if st.TypeErrors > 0 {
		fmt.Fprintf(stderr, "warning: %d packages have type errors; they are indexed as far as they type-check\n", st.TypeErrors)
	}
	if st.ParseErrors > 0 || st.InvalidUTF8 > 0 {
		fmt.Fprintf(stderr, "warning: %d files do not parse (%d of them skipped: no syntax tree), %d hold bytes that are not UTF-8; the rest of each is indexed as far as it parses:\n",
			st.ParseErrors, st.Skipped, st.InvalidUTF8)
		for _, p := range st.Problems {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
		if n := st.ParseErrors + st.InvalidUTF8 - len(st.Problems); n > 0 {
			fmt.Fprintf(stderr, "  … and %d more\n", n)
		}
	}
	fmt.Fprintf(stderr, "indexed %s (branch %s, commit %s) into %s under %s, project %d: %d packages, %d files, %d definitions, %d imports, %d edges\n",
		f.dir, branch, short(commit), f.engine.describe(), f.namespace, f.project, st.Packages, st.Files, st.Definitions, st.Imports, st.Edges)
	fmt.Fprintf(stderr, "time %s (type-check and extract %s, open, compare digests and write files %s, load %s); %.0f files/s, %.0f edges/s\n",
		total.Round(time.Millisecond), indexed.Round(time.Millisecond), written.Round(time.Millisecond), loaded.Round(time.Millisecond),
		float64(st.Files)/total.Seconds(), float64(st.Edges)/total.Seconds())
	if prev != nil {
		fmt.Fprintf(stderr, "%s\n", changeSummary(scope.Files, digests, st.Files))
	}
	printLoadReport(stderr, f.engine.describe(), rep, loaded)
	return nil
}

// changeSummary says how many of the files indexed now changed since the last index and how
// many files of the last index are gone; the two are counted apart, so that re-indexing
// another tree into the same project never reads "3 of 1".
func changeSummary(files []string, digests map[string]string, indexed int) string {
	changed, gone := 0, 0
	for _, f := range files {
		if _, ok := digests[f]; ok {
			changed++
		} else {
			gone++
		}
	}
	msg := fmt.Sprintf("files whose rows changed since the last index: %d of %d (the rest neither loaded nor compared)", changed, indexed)
	if gone > 0 {
		msg += fmt.Sprintf("; %d files of the last index are gone, their rows tombstoned", gone)
	}
	return msg
}

// errNoGoFiles is the cause of index's error when PATH holds no Go file to index.
var errNoGoFiles = errors.New("no Go files")

func patternsOrDefault(p []string) []string {
	if len(p) == 0 {
		return []string{"./..."}
	}
	return p
}

// indexState is the table of the digests of each file's rows (codeindex.Graph.Digests) at
// the last index of each project and branch; graphwire index reads it to skip the files
// whose rows did not change.
const indexState = "gw_index_files"

func createIndexState(ctx context.Context, e load.Engine) error {
	return e.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+indexState+" (traversal_path String, project_id Int64, branch String, owner String, digest String, version UInt64)"+
		" ENGINE = ReplacingMergeTree(version) ORDER BY (traversal_path, project_id, branch, owner)")
}

// readDigests returns the digests of the last index of sc, nil when there was none.
func readDigests(ctx context.Context, e load.Engine, sc load.Scope) (map[string]string, error) {
	if err := createIndexState(ctx, e); err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	rows, err := e.Run(ctx, &compiler.Query{
		SQL: "SELECT owner, digest FROM " + indexState + " FINAL WHERE traversal_path = {p0:String} AND project_id = {p1:Int64} AND branch = {p2:String}",
		Params: []compiler.Param{{Name: "p0", Type: "String", Value: sc.TraversalPath}, {Name: "p1", Type: "Int64", Value: sc.ProjectID},
			{Name: "p2", Type: "String", Value: sc.Branch}},
	})
	if err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return nil, fmt.Errorf("index state: %w", err)
	}
	if len(res.Rows) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, r := range res.Rows {
		owner, _ := r[0].(string)
		digest, _ := r[1].(string)
		if digest != "" { // "" marks a file that is gone
			out[owner] = digest
		}
	}
	return out, nil
}

// writeDigests records the digests of this index, after its load: killed in between, the
// next index finds the older digests and loads those files again, which changes nothing.
func writeDigests(ctx context.Context, e load.Engine, sc load.Scope, digests, prev map[string]string, version uint64) error {
	if err := createIndexState(ctx, e); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	var rows [][]any
	for _, owner := range slices.Sorted(maps.Keys(digests)) {
		if prev == nil || prev[owner] != digests[owner] {
			rows = append(rows, []any{sc.TraversalPath, sc.ProjectID, sc.Branch, owner, digests[owner], int64(version)})
		}
	}
	for _, owner := range slices.Sorted(maps.Keys(prev)) {
		if _, ok := digests[owner]; !ok {
			rows = append(rows, []any{sc.TraversalPath, sc.ProjectID, sc.Branch, owner, "", int64(version)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if err := e.Insert(ctx, indexState, []string{"traversal_path", "project_id", "branch", "owner", "digest", "version"}, rows); err != nil {
		return fmt.Errorf("index state: %w", err)
	}
	return nil
}

func short(sha string) string {
	if sha == "" {
		return "none"
	}
	return sha[:min(len(sha), 12)]
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
