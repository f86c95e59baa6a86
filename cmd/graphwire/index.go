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
	"github.com/graphwire/graphwire/ingest"
	"github.com/graphwire/graphwire/internal/xdg"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// indexFlags are the parsed flags of graphwire index.
type indexFlags struct {
	engine    engineFlags
	write     writeFlags
	watch     bool
	debounce  time.Duration
	noCache   bool
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
		Short: "index a source tree (Go, Python, TypeScript, JavaScript, Java, Kotlin, Scala, C#, PHP, Rust, C, C++, Ruby, Lua, Zig, Bash, HCL) into the code graph",
		Long:  "Index the source files under PATH into the code graph (docs/codegraph.md): the Go packages PATTERN\n(default ./...) of the module or workspace at PATH, type-checked, and the files of every other\nsupported language, parsed with tree-sitter. Re-indexing writes only what changed.",
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
			if err := f.write.check(&f.engine); err != nil {
				return &usageError{err}
			}
			if f.debounce <= 0 {
				return usageErrorf("--debounce must be positive")
			}
			// As for load: a blocked index still ends on SIGINT or SIGTERM.
			return untilInterrupted(cmd.Context(), interruptGrace, func() error { return indexCode(cmd.Context(), f, s.stderr) })
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	f.write.register(fs)
	fs.BoolVar(&f.watch, "watch", false, "after the first index, keep watching PATH and index again whenever files change (Ctrl-C stops)")
	fs.BoolVar(&f.noCache, "no-cache", false, "type-check and extract every package, ignoring the per-package cache in $GRAPHWIRE_CACHE/index (default ${XDG_CACHE_HOME:-~/.cache}/graphwire/index)")
	fs.DurationVar(&f.debounce, "debounce", 300*time.Millisecond, "with --watch, wait this long after the last change before indexing again")
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
	run := &indexRun{f: f, stderr: stderr}
	if _, err := newProgress(stderr, os.Getenv(progressEnv), unitFiles); err != nil {
		return &usageError{err}
	}
	g, err := run.graph(ctx)
	if errors.Is(err, codeindex.ErrNoSupportedFiles) || (err == nil && run.st.Files == 0) {
		// Nothing to write: say so before the data directory is opened (or created).
		msg := fmt.Sprintf("no source file of a supported language under %s (Go test files are not indexed; languages: %s)",
			f.dir, strings.Join(slices.Sorted(maps.Keys(codeindex.SupportedLanguages())), ", "))
		if sum := run.st.SkipSummary(); sum != "" {
			msg += "; skipped: " + sum
		}
		return &classError{code: exitNoSource, msg: msg, err: codeindex.ErrNoSupportedFiles}
	}
	if err != nil {
		return err
	}
	t, err := openTarget(f.write, &f.engine, ont, stderr)
	if err != nil {
		return err
	}
	defer t.close()
	run.t = t
	if err := run.write(ctx, g); err != nil {
		return err
	}
	if f.watch {
		return run.watch(ctx)
	}
	return nil
}

// indexRun is one graphwire index: the flags, where it writes, and what the last graph
// found.
type indexRun struct {
	f              indexFlags
	stderr         io.Writer
	t              *target
	branch, commit string
	st             codeindex.Stats
	start          time.Time
	indexed        time.Duration
}

// graph indexes the tree into its code graph, with a progress bar.
func (r *indexRun) graph(ctx context.Context) (*codeindex.Graph, error) {
	f := r.f
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
	r.branch, r.commit = branch, commit
	bar, _ := newProgress(r.stderr, os.Getenv(progressEnv), unitFiles) // the setting was checked at the start
	defer bar.finish()
	r.start = time.Now()
	g, st, err := codeindex.IndexTree(ctx, f.dir, codeindex.Options{Patterns: f.patterns, TraversalPath: f.namespace,
		ProjectID: f.project, Branch: branch, Commit: commit, Progress: bar.indexReport, CacheDir: indexCacheDir(f.noCache)})
	r.st = st
	r.indexed = time.Since(r.start)
	return g, err
}

// write writes g to the target, only the files whose rows changed, and reports it.
func (r *indexRun) write(ctx context.Context, g *codeindex.Graph) error {
	f, stderr, st := r.f, r.stderr, r.st
	loadBar, _ := newProgress(stderr, os.Getenv(progressEnv), unitBytes) // the setting was checked at the start
	defer loadBar.finish()
	dir := f.keep
	var err error
	if dir == "" {
		if dir, err = os.MkdirTemp("", "graphwire-index-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	opts := ingest.IndexOptions{Scope: load.Scope{TraversalPath: f.namespace, ProjectID: f.project, Branch: r.branch},
		Full: f.full, Dir: dir, Progress: loadBar.loadReport}
	if f.trace {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	lstart := time.Now()
	rep, err := ingest.IndexGraph(ctx, r.t, g, opts)
	if err != nil {
		return err
	}
	loaded := time.Since(lstart)
	total := time.Since(r.start)
	loadBar.finish()
	if st.TypeErrors > 0 {
		fmt.Fprintf(stderr, "warning: %d packages have type errors; they are indexed as far as they type-check\n", st.TypeErrors)
	}
	if st.ParseErrors > 0 || st.InvalidUTF8 > 0 || len(st.Problems) > 0 {
		fmt.Fprintf(stderr, "warning: %d files do not parse (%d of them skipped: no syntax tree), %d hold bytes that are not UTF-8; the rest of each is indexed as far as it parses; problems:\n",
			st.ParseErrors, st.Skipped, st.InvalidUTF8)
		for _, p := range st.Problems {
			fmt.Fprintf(stderr, "  %s\n", p)
		}
		if n := st.MoreProblems; n > 0 {
			fmt.Fprintf(stderr, "  … and %d more\n", n)
		}
	}
	if sum := st.SkipSummary(); sum != "" {
		fmt.Fprintf(stderr, "skipped: %s\n", sum)
	}
	fmt.Fprintf(stderr, "indexed %s (branch %s, commit %s) into %s under %s, project %d: %d packages, %d files (%s), %d definitions, %d imports, %d edges\n",
		f.dir, r.branch, short(r.commit), r.t.where, f.namespace, f.project, st.Packages, st.Files, languageCounts(st.Languages), st.Definitions, st.Imports, st.Edges)
	fmt.Fprintf(stderr, "time %s (type-check and extract %s, %d of %d packages from the cache; compare digests and load %s); %.0f files/s, %.0f edges/s\n",
		total.Round(time.Millisecond), r.indexed.Round(time.Millisecond), st.Cached, st.Packages, loaded.Round(time.Millisecond),
		float64(st.Files)/total.Seconds(), float64(st.Edges)/total.Seconds())
	if rep.Incremental {
		now := map[string]string{}
		for _, c := range rep.Changed {
			now[c] = c
		}
		fmt.Fprintf(stderr, "%s\n", changeSummary(append(rep.Changed, rep.Gone...), now, st.Files))
	}
	printLoadReport(stderr, r.t.where, rep.Load, loaded) // all zero when nothing changed
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

// languageCounts renders files per language, sorted: "go 3, python 12".
func languageCounts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func short(sha string) string {
	if sha == "" {
		return "none"
	}
	return sha[:min(len(sha), 12)]
}

// indexCacheDir is where index keeps its per-package cache (codeindex.Options.CacheDir):
// $GRAPHWIRE_INDEX_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/graphwire/index; "" with off.
// Not under $GRAPHWIRE_CACHE, which test suites point at the shared library cache.
func indexCacheDir(off bool) string {
	if off {
		return ""
	}
	if d := os.Getenv("GRAPHWIRE_INDEX_CACHE"); d != "" {
		return d
	}
	return filepath.Join(xdg.Dir("XDG_CACHE_HOME", ".cache"), "graphwire", "index")
}
