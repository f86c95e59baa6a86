//go:build unix

package sqlbench_test

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the process. The engine runs in the process
// and the statements run one at a time, so the difference around a statement is the CPU it
// took, which other work on a shared machine does not inflate the way it does wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
