package codeindex

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of what [IndexTree] reads; a file past one is skipped with the reason.
const (
	// DefaultMaxFileSize is the size past which a source file is skipped as huge.
	DefaultMaxFileSize = 1 << 20
	// minifiedLineLength is the mean line length past which a file of more than
	// minifiedMinSize bytes is taken as minified.
	minifiedLineLength = 300
	minifiedMinSize    = 4 << 10
)

// Reasons a file is skipped, as [Stats.Skips] counts them.
const (
	SkipBinary      = "binary"
	SkipHuge        = "huge"
	SkipMinified    = "minified"
	SkipGenerated   = "generated"
	SkipSymlinkLoop = "symlink loop"
	SkipSymlinkDir  = "symlink to a directory (not followed)"
	SkipSymlinkOut  = "symlink out of the tree"
	SkipBroken      = "broken symlink"
	SkipUnreadable  = "unreadable"
	SkipDependency  = "dependency directory"
	SkipNoGoModule  = "go file outside a Go module"
	SkipNoCgo       = "built without cgo"
)

// ErrNoSupportedFiles is returned by [IndexTree] for a tree that holds no file of a
// supported language.
var ErrNoSupportedFiles = errors.New("codeindex: no file of a supported language")

// skipDirs are directories never descended into: version control and installed
// dependencies (node_modules), counted as SkipDependency when they are dependencies.
var skipDirs = map[string]string{".git": "", ".hg": "", ".svn": "", "node_modules": SkipDependency,
	"__pycache__": "", ".venv": SkipDependency, ".tox": SkipDependency}

// SupportedLanguages lists the languages [IndexTree] reads, with their file extensions:
// Go through go/types, the rest through tree-sitter (none without cgo).
func SupportedLanguages() map[string][]string {
	out := map[string][]string{"go": {"go"}}
	if treeSitterAvailable {
		for _, l := range languages() {
			out[l.name] = slices.Clone(l.exts)
		}
	}
	return out
}

// IndexTree indexes every file of a supported language under dir: the Go module at dir (if
// dir holds a go.mod or go.work) with [Index], and the files of every other language with
// tree-sitter, parsed in parallel. Files it cannot or should not index are counted in
// [Stats.Skips] and [Stats.Unsupported] and never stop it; a tree without one supported file
// is [ErrNoSupportedFiles].
func IndexTree(ctx context.Context, dir string, opts Options) (*Graph, Stats, error) {
	start := time.Now()
	var st Stats
	if opts.TraversalPath == "" || opts.ProjectID == 0 {
		return nil, st, errors.New("codeindex: a traversal path and a project id are required")
	}
	if opts.Branch == "" {
		opts.Branch = "main"
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, st, fmt.Errorf("codeindex: %w", err)
	}
	st.Languages, st.Unsupported, st.Skips = map[string]int{}, map[string]int{}, map[string]int{}
	byExt := map[string]string{}
	for _, l := range languages() {
		for _, e := range l.exts {
			byExt[e] = l.name
		}
	}
	goModule := len(opts.Patterns) > 0 || exists(filepath.Join(root, "go.mod")) || exists(filepath.Join(root, "go.work"))
	jobs, goFiles, err := walk(ctx, root, byExt, goModule, &st)
	if err != nil {
		return nil, st, err
	}
	if len(jobs) > 0 && !treeSitterAvailable {
		st.Skips[SkipNoCgo] += len(jobs)
		jobs = nil
	}
	if len(jobs) == 0 && goFiles == 0 {
		return nil, st, fmt.Errorf("%w under %s", ErrNoSupportedFiles, dir)
	}
	var g *Graph
	if goFiles > 0 {
		gopts := opts
		if p := opts.Progress; p != nil {
			gopts.Progress = func(pr Progress) {
				pr.TotalFiles += len(jobs)
				pr.Done = pr.Done && len(jobs) == 0
				p(pr)
			}
		}
		var gst Stats
		g, gst, err = Index(ctx, dir, gopts)
		if err != nil {
			return nil, st, err
		}
		st.Packages, st.TypeErrors, st.ParseErrors, st.Skipped, st.InvalidUTF8 = gst.Packages, gst.TypeErrors, gst.ParseErrors, gst.Skipped, gst.InvalidUTF8
		st.Problems, st.MoreProblems = append(st.Problems, gst.Problems...), gst.MoreProblems
		st.Languages["go"] = gst.Files
	}
	if len(jobs) > 0 {
		base := 0
		if g != nil {
			base = len(g.Files)
		}
		tg, err := indexTreeSitter(ctx, root, jobs, opts, &st, start, base)
		if err != nil {
			return nil, st, err
		}
		g = merge(g, tg)
	}
	if len(g.Files) == 0 {
		return nil, st, fmt.Errorf("%w under %s", ErrNoSupportedFiles, dir)
	}
	st.Files, st.Definitions, st.Imports, st.Edges = len(g.Files), len(g.Definitions), len(g.Imports), len(g.Edges)
	return g, st, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// job is one file to parse.
type job struct {
	rel, lang string
}

// walk lists the files of dir to parse with tree-sitter, sorted by path, and counts the Go
// files the Go indexer will read; it counts what it skips in st.
func walk(ctx context.Context, root string, byExt map[string]string, goModule bool, st *Stats) ([]job, int, error) {
	var jobs []job
	goFiles := 0
	// A symlink is followed only to a file inside the tree: its text is stored (File.content),
	// and a link to ~/.ssh/id_rsa must not publish the key to the callers of the namespace.
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == root {
				return err
			}
			st.skip(SkipUnreadable, fmt.Sprintf("%s: %v", rel, unwrapPath(err)))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p == root {
				return nil
			}
			if why, ok := skipDirs[d.Name()]; ok {
				if why != "" {
					st.Skips[why]++
				}
				return fs.SkipDir
			}
			return nil
		}
		ext := strings.TrimPrefix(path.Ext(d.Name()), ".")
		lang, ok := byExt[strings.ToLower(ext)]
		if ext == "go" {
			if !goModule {
				st.Skips[SkipNoGoModule]++
			} else if !strings.HasSuffix(d.Name(), "_test.go") {
				goFiles++
			}
			return nil
		}
		if !ok {
			if goModule && (d.Name() == "go.mod" || d.Name() == "go.sum" || d.Name() == "go.work" || d.Name() == "go.work.sum") {
				return nil // read by the Go indexer
			}
			if ext == "" {
				ext = "(none)"
			}
			st.Unsupported[strings.ToLower(ext)]++
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(p)
			switch {
			case errors.Is(err, syscall.ELOOP):
				st.skip(SkipSymlinkLoop, rel+": symlink loop")
				return nil
			case err != nil:
				st.skip(SkipBroken, fmt.Sprintf("%s: %v", rel, unwrapPath(err)))
				return nil
			case fi.IsDir():
				st.Skips[SkipSymlinkDir]++
				return nil
			case !fi.Mode().IsRegular():
				st.skip(SkipUnreadable, rel+": not a regular file") // a link to a named pipe blocks as the pipe does
				return nil
			}
			if target, err := filepath.EvalSymlinks(p); err != nil || !inside(realRoot, target) {
				st.skip(SkipSymlinkOut, rel+": symlink to a file outside the tree")
				return nil
			}
		} else if !d.Type().IsRegular() {
			st.skip(SkipUnreadable, rel+": not a regular file") // a named pipe would block the reader
			return nil
		}
		jobs = append(jobs, job{rel: rel, lang: lang})
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("codeindex: walk %s: %w", root, err)
	}
	return jobs, goFiles, nil
}

// inside reports whether path p lies under directory root (both absolute and clean).
func inside(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// unwrapPath drops the path a *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// skip counts a file skipped for why, and names it among the problems.
func (st *Stats) skip(why, msg string) {
	st.Skips[why]++
	st.problem(msg)
}

// classify reads a file and says why it should be skipped, "" if it should not.
func classify(src []byte, name string) string {
	head := src[:min(len(src), 8000)]
	if bytes.IndexByte(head, 0) >= 0 {
		return SkipBinary
	}
	lower := strings.ToLower(name)
	for _, suf := range []string{".min.js", ".min.mjs", "-min.js", ".bundle.js", "_pb2.py", "_pb2_grpc.py", ".pb.cc", ".pb.h", ".g.cs", ".designer.cs", ".generated.ts"} {
		if strings.HasSuffix(lower, suf) {
			return SkipGenerated
		}
	}
	first := src[:min(len(src), 1024)]
	if bytes.Contains(first, []byte("@generated")) || bytes.Contains(first, []byte("<auto-generated")) ||
		(bytes.Contains(first, []byte("Code generated")) && bytes.Contains(first, []byte("DO NOT EDIT"))) {
		return SkipGenerated
	}
	if len(src) > minifiedMinSize && len(src)/(bytes.Count(src, []byte("\n"))+1) > minifiedLineLength {
		return SkipMinified
	}
	return ""
}

// indexTreeSitter parses the files of jobs in parallel and resolves their facts into a graph.
func indexTreeSitter(ctx context.Context, root string, jobs []job, opts Options, st *Stats, start time.Time, done0 int) (*Graph, error) {
	specs := languages()
	used := map[string]bool{}
	for _, j := range jobs {
		used[j.lang] = true
	}
	// Compile only the queries of the languages present: compiling all of them takes longer
	// than parsing a small tree.
	langs, err := compile(slices.DeleteFunc(slices.Clone(specs), func(l *language) bool { return !used[l.name] }))
	if err != nil {
		return nil, err
	}
	defer closeCompiled(langs)
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		ff   *fileFacts
		skip string // reason, when skipped
		msg  string
	}
	results := make([]result, len(jobs))
	next := make(chan int)
	done := make(chan int, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newParser(langs)
			defer p.close()
			for i := range next {
				j := jobs[i]
				r := &results[i]
				full := filepath.Join(root, filepath.FromSlash(j.rel))
				if fi, err := os.Stat(full); err != nil {
					r.skip, r.msg = SkipUnreadable, fmt.Sprintf("%s: %v", j.rel, unwrapPath(err))
				} else if !fi.Mode().IsRegular() { // replaced since the walk
					r.skip, r.msg = SkipUnreadable, j.rel+": not a regular file"
				} else if fi.Size() > opts.MaxFileSize {
					r.skip = SkipHuge
				} else if src, err := os.ReadFile(full); err != nil {
					r.skip, r.msg = SkipUnreadable, fmt.Sprintf("%s: %v", j.rel, unwrapPath(err))
				} else if why := classify(src, j.rel); why != "" {
					r.skip = why
				} else if ff, err := safeParse(p, j.lang, j.rel, src); err != nil {
					r.skip, r.msg = SkipUnreadable, err.Error()
				} else {
					nest(ff, langByName(specs, j.lang))
					r.ff = ff
				}
				done <- i
			}
		}()
	}
	go func() {
		defer close(next)
		for i := range jobs {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	prog := Progress{Packages: st.Packages, Files: done0, TotalFiles: done0 + len(jobs)}
	for range done {
		prog.Files++
		if opts.Progress != nil && (prog.Files%64 == 0 || prog.Files == prog.TotalFiles) {
			prog.Elapsed = time.Since(start)
			opts.Progress(prog)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var files []*fileFacts
	for _, r := range results {
		switch {
		case r.ff != nil:
			files = append(files, r.ff)
			st.Languages[r.ff.lang]++
			if r.ff.parseErr != "" {
				st.ParseErrors++
				st.problem(r.ff.parseErr)
			}
			if n := r.ff.leftOut; n > 0 {
				st.problem(fmt.Sprintf("%s: %d definitions left out: nested more than %d deep or named with more than %d bytes", r.ff.rel, n, maxNesting, maxFQN))
			}
		case r.msg != "":
			st.skip(r.skip, r.msg)
		default:
			st.Skips[r.skip]++
		}
	}
	g := resolve(files, specs, opts, root)
	if opts.Progress != nil {
		prog.Done, prog.Elapsed = true, time.Since(start)
		opts.Progress(prog)
	}
	return g, nil
}

// safeParse parses one file, turning a panic into an error that names it, so that one file
// never stops the run.
func safeParse(p *parser, lang, rel string, src []byte) (ff *fileFacts, err error) {
	defer func() {
		if v := recover(); v != nil {
			ff, err = nil, fmt.Errorf("codeindex: %s: parser failed: %v", rel, v)
		}
	}()
	return p.parse(lang, rel, src)
}

func langByName(specs []*language, name string) *language {
	for _, l := range specs {
		if l.name == name {
			return l
		}
	}
	return nil
}

// merge adds the rows of b to a (either may be nil): directories and edges both hold once.
func merge(a, b *Graph) *Graph {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	seen := map[int64]bool{}
	for _, d := range a.Directories {
		seen[d.ID] = true
	}
	for _, d := range b.Directories {
		if !seen[d.ID] {
			a.Directories = append(a.Directories, d)
		}
	}
	slices.SortFunc(a.Directories, func(x, y Directory) int { return cmp.Compare(x.Path, y.Path) })
	a.Files = append(a.Files, b.Files...)
	a.Definitions = append(a.Definitions, b.Definitions...)
	a.Imports = append(a.Imports, b.Imports...)
	a.Edges = append(a.Edges, b.Edges...)
	sortEdges(a.Edges)
	a.Edges = slices.Compact(a.Edges)
	return a
}

func sortEdges(es []Edge) {
	slices.SortFunc(es, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.FromKind, b.FromKind), cmp.Compare(a.From, b.From),
			cmp.Compare(a.ToKind, b.ToKind), cmp.Compare(a.To, b.To))
	})
}

// SkipSummary renders the counts of skipped and unsupported files, one reason or extension
// each, sorted: "binary 2, minified 1; unsupported: md 3, txt 1".
func (st *Stats) SkipSummary() string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(st.Skips)) {
		parts = append(parts, k+" "+strconv.Itoa(st.Skips[k]))
	}
	s := strings.Join(parts, ", ")
	if len(st.Unsupported) > 0 {
		var us []string
		for _, k := range slices.Sorted(maps.Keys(st.Unsupported)) {
			us = append(us, "."+k+" "+strconv.Itoa(st.Unsupported[k]))
		}
		if s != "" {
			s += "; "
		}
		s += "unsupported: " + strings.Join(us, ", ")
	}
	return s
}
