//go:build unix

package compiler_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process. Benchmarks report it per
// operation next to wall time, which a shared machine inflates.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
