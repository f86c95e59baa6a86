//go:build !unix

package load

import "time"

// processCPU reports that the process's CPU time cannot be read on this platform.
func processCPU() (time.Duration, bool) { return 0, false }
