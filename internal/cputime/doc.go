// Package cputime reads the CPU time the process has used, for benchmarks and
// measurements that want a figure other work on a shared machine does not
// inflate the way it inflates wall time.
//
// The figure counts every thread of the process, an engine loaded into it
// (chDB) included, so the difference of two readings around a piece of work
// is the CPU that work took when nothing else in the process runs meanwhile:
//
//	before, ok := cputime.Process()
//	work()
//	after, _ := cputime.Process()
//	if ok {
//		fmt.Println("cpu:", after-before)
//	}
package cputime
