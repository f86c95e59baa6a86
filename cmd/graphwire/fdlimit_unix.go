//go:build unix

package main

import (
	"os"
	"syscall"
)

// raiseFileLimit raises the soft limit of open files (RLIMIT_NOFILE) to the hard one where
// that is higher, and returns the soft limit in force; 0 when it cannot be read. (Go's
// runtime does the same at start on Linux; this makes it explicit and reads the result.)
func raiseFileLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	if r.Cur < r.Max {
		raised := r
		raised.Cur = r.Max
		// Refused on macOS for an infinite hard limit; the soft limit then stays.
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			r = raised
		}
	}
	return r.Cur
}

// openFiles counts the descriptors this process has open, -1 when it cannot tell.
func openFiles() int {
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if ents, err := os.ReadDir(dir); err == nil {
			return len(ents) - 1 // the directory ReadDir read through
		}
	}
	return -1
}
