package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// maxWatchedDirs bounds the directories index --watch watches (each costs an inotify watch,
// of which a user has a limited number); past it, the rest are left unwatched, with a warning.
const maxWatchedDirs = 20000

// watch keeps indexing the tree whenever its files change, once they have been quiet for
// the debounce time, until ctx ends (Ctrl-C): a clean stop, exit 0. Every re-index writes
// only the files whose rows changed. A re-index that fails is reported and the watch goes on.
func (r *indexRun) watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", r.f.dir, err)
	}
	defer w.Close()
	root, err := filepath.Abs(r.f.dir)
	if err != nil {
		return err
	}
	ws := &watchSet{w: w, stderr: r.stderr}
	ws.addTree(root)
	fmt.Fprintf(r.stderr, "watching %s (%d directories) for changes; Ctrl-C stops\n", r.f.dir, ws.n)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	pending := 0
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintf(r.stderr, "stopped watching %s\n", r.f.dir)
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() && !skipDir(filepath.Base(ev.Name)) {
					ws.addTree(ev.Name) // a new directory, maybe with files already in it
				}
			}
			if !relevant(ev.Name) || ev.Op == fsnotify.Chmod {
				continue
			}
			pending++
			timer.Reset(r.f.debounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			// An overflowed queue lost events: index again to catch up.
			fmt.Fprintf(r.stderr, "watch: %s; indexing again\n", oneLine(err))
			pending++
			timer.Reset(r.f.debounce)
		case <-timer.C:
			if pending == 0 {
				continue
			}
			fmt.Fprintf(r.stderr, "%d changes; indexing %s again\n", pending, r.f.dir)
			pending = 0
			if err := r.again(ctx); err != nil {
				if ctx.Err() != nil {
					fmt.Fprintf(r.stderr, "stopped watching %s\n", r.f.dir)
					return nil
				}
				fmt.Fprintf(r.stderr, "index failed: %s; still watching\n", oneLine(err))
			}
		}
	}
}

// again indexes the tree and writes what changed.
func (r *indexRun) again(ctx context.Context) error {
	g, err := r.graph(ctx)
	if err != nil {
		return err
	}
	return r.write(ctx, g)
}

// watchSet adds directories to a watcher, up to maxWatchedDirs.
type watchSet struct {
	w      *fsnotify.Watcher
	stderr interface{ Write([]byte) (int, error) }
	n      int
	full   bool
}

// addTree watches dir and every directory under it that the go command would look into.
func (ws *watchSet) addTree(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // unreadable: skipped; files are covered by their directory's watch
		}
		if p != dir && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		if ws.n >= maxWatchedDirs {
			if !ws.full {
				ws.full = true
				fmt.Fprintf(ws.stderr, "watch: more than %d directories; the rest are not watched\n", maxWatchedDirs)
			}
			return filepath.SkipAll
		}
		if err := ws.w.Add(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir // gone already
			}
			fmt.Fprintf(ws.stderr, "watch: %s: %s\n", p, oneLine(err))
			return filepath.SkipDir
		}
		ws.n++
		return nil
	})
}

// skipDir reports whether a directory is one the go command ignores in patterns (., _ and
// testdata) or a dependency tree no index reads.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules"
}

// relevant reports whether a change to the path may change the index: not an editor's
// backup, swap or lock file, nor anything hidden.
func relevant(p string) bool {
	b := filepath.Base(p)
	return !strings.HasPrefix(b, ".") && !strings.HasSuffix(b, "~") && !strings.HasSuffix(b, ".swp") &&
		!strings.HasSuffix(b, ".swx") && !strings.HasPrefix(b, "#")
}
