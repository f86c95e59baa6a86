package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/codeindex"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
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
	dir       string
	patterns  []string
}

var namespaceRE = regexp.MustCompile(`^([0-9]+/)+$`)

func newIndexCmd(s streams) *cobra.Command {
	var f indexFlags
	cmd := &cobra.Command{
		Use:   "index [flags] PATH [PATTERN...]",
		Short: "index a Go module or workspace into the code graph",
		Long:  "Index the Go packages PATTERN (default ./...) of the module or workspace at PATH into the code\ngraph (docs/loading.md). Re-indexing writes only what changed.",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.dir, f.patterns = args[0], args[1:]
			if !namespaceRE.MatchString(f.namespace) {
				return usageErrorf("--namespace %q is not a path of ids such as 1/22/", f.namespace)
			}
			if f.project <= 0 {
				return usageErrorf("--project must be positive")
			}
			if err := f.engine.check(); err != nil {
				return &usageError{err}
			}
			return indexCode(cmd.Context(), f, s.stderr)
		},
	}
	fs := cmd.Flags()
	f.engine.register(fs)
	fs.StringVar(&f.namespace, "namespace", "1/", "traversal path the code belongs to, e.g. 1/22/; callers need a scope on it")
	fs.Int64Var(&f.project, "project", 1, "project id of the code")
	fs.StringVar(&f.branch, "branch", "", "branch name (default: git's current branch, else main)")
	fs.StringVar(&f.commit, "commit", "", "commit SHA (default: git's HEAD, if any)")
	fs.StringVar(&f.keep, "keep", "", "also keep the JSON Lines files handed to the loader in this directory")
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
	start := time.Now()
	g, st, err := codeindex.Index(ctx, f.dir, codeindex.Options{Patterns: f.patterns, TraversalPath: f.namespace,
		ProjectID: f.project, Branch: branch, Commit: commit})
	if err != nil {
		return err
	}
	indexed := time.Since(start)
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
	eng, err := f.engine.openWritable(stderr)
	if err != nil {
		return err
	}
	defer eng.Close()
	lstart := time.Now()
	rep, err := load.Load(ctx, eng, ont, srcs, load.Options{Source: "index", Progress: terminal(stderr),
		Replace: &load.Scope{TraversalPath: f.namespace, ProjectID: f.project, Branch: branch}})
	if err != nil {
		return err
	}
	loaded := time.Since(lstart)
	total := time.Since(start)
	if st.TypeErrors > 0 {
		fmt.Fprintf(stderr, "warning: %d packages have type errors; they are indexed as far as they type-check\n", st.TypeErrors)
	}
	fmt.Fprintf(stderr, "indexed %s (branch %s, commit %s) into %s under %s, project %d: %d packages, %d files, %d definitions, %d imports, %d edges\n",
		f.dir, branch, short(commit), f.engine.describe(), f.namespace, f.project, st.Packages, st.Files, st.Definitions, st.Imports, st.Edges)
	fmt.Fprintf(stderr, "time %s (type-check and extract %s, write %s, load %s); %.0f files/s, %.0f edges/s\n",
		total.Round(time.Millisecond), indexed.Round(time.Millisecond), written.Round(time.Millisecond), loaded.Round(time.Millisecond),
		float64(st.Files)/total.Seconds(), float64(st.Edges)/total.Seconds())
	printLoadReport(stderr, f.engine.describe(), rep, loaded)
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
