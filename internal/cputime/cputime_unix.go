//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the user and system CPU time the process has used, all
// threads, and whether it could be read. It is safe for concurrent use.
func Process() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
