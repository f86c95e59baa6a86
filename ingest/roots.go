package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutsideRoots is the cause of [Roots.Resolve]'s error for a path that is not under any
// allowed root once its symbolic links are resolved.
var ErrOutsideRoots = errors.New("not under an allowed index root")

// ErrNoRoots is the cause of [Roots.Resolve]'s error when no root is allowed at all.
var ErrNoRoots = errors.New("no index root is configured")

// ErrNotRegular is the cause of [Roots.CheckTree]'s error for an entry that is neither a
// directory nor a regular file (a FIFO, a device, a socket), or a link to one.
var ErrNotRegular = errors.New("neither a regular file nor a directory")

// Roots are the directories a server may index on a caller's request, each absolute with
// its symbolic links resolved. The zero value allows nothing.
type Roots struct{ dirs []string }

// NewRoots resolves each of dirs (which must exist and be directories) into [Roots].
func NewRoots(dirs []string) (Roots, error) {
	var r Roots
	for _, d := range dirs {
		abs, err := realDir(d)
		if err != nil {
			return Roots{}, fmt.Errorf("index root %s: %w", d, err)
		}
		r.dirs = append(r.dirs, abs)
	}
	return r, nil
}

// Dirs lists the roots, resolved.
func (r Roots) Dirs() []string { return append([]string(nil), r.dirs...) }

// Resolve returns p, absolute and with its symbolic links resolved, when that is a directory
// under one of the roots (or a root itself); a relative p is taken from the first root. A
// link that leads out of the roots is refused like a path outside them.
func (r Roots) Resolve(p string) (string, error) {
	if len(r.dirs) == 0 {
		return "", ErrNoRoots
	}
	if p == "" {
		return "", errors.New("an empty path")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dirs[0], p)
	}
	real, err := realDir(p)
	if err != nil {
		return "", err
	}
	if r.under(real) {
		return real, nil
	}
	return "", fmt.Errorf("%s: %w", p, ErrOutsideRoots)
}

// CheckTree walks dir (a directory [Roots.Resolve] returned) and refuses it when an entry
// would let an indexer read what the roots do not allow: a symbolic link whose target lies
// outside every root (its content would enter the graph as the file's), or a FIFO, device
// or socket, or a link to one (a reader blocks on it or never reaches its end). A link
// that leads nowhere is left alone: nothing can be read through it.
func (r Roots) CheckTree(dir string) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t.IsDir() || t.IsRegular():
			return nil
		case t&os.ModeSymlink == 0:
			return fmt.Errorf("%s: %w", p, ErrNotRegular)
		}
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if !r.under(real) {
			return fmt.Errorf("%s links to %s: %w", p, real, ErrOutsideRoots)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return err
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			return fmt.Errorf("%s links to %s: %w", p, real, ErrNotRegular)
		}
		return nil
	})
}

// under reports whether real (absolute, links resolved) is a root or lies under one.
func (r Roots) under(real string) bool {
	for _, d := range r.dirs {
		if real == d || strings.HasPrefix(real, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// realDir is p, absolute and with every symbolic link resolved, when it is a directory.
func realDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", p)
	}
	return real, nil
}
