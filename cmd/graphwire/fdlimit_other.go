//go:build !unix

package main

// raiseFileLimit reports no known limit where there is no RLIMIT_NOFILE.
func raiseFileLimit() uint64 { return 0 }

// openFiles cannot count descriptors here.
func openFiles() int { return -1 }
