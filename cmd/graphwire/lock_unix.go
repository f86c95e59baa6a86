//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// dirLocked reports whether another process holds the data directory open. The embedded engine
// takes an exclusive flock on DIR/status while it runs (and deletes the file when it stops), so
// a lock we cannot take means a live engine in another process; a status file left by a crash
// is not locked. Call it only after this process failed to open dir, so that the probe never
// competes with an engine that is starting.
func dirLocked(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "status"))
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}
