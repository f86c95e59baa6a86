//go:build !unix

package cputime

import "time"

// Process reports that the process's CPU time cannot be read on this
// platform: it returns 0 and false.
func Process() (time.Duration, bool) { return 0, false }
