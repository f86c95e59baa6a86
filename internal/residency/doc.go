// Package residency takes the pages of a mapped file out of the process's resident set once
// the process no longer needs them, so that its resident memory shows what it uses rather
// than what it once touched.
//
// A large shared library (libchdb.so, 566 MB) or a program binary leaves most of its code and
// read-only data resident after start-up: static initializers and the engine's boot touch
// pages that a serving process then never runs again, and the kernel keeps them mapped while
// memory is plentiful. [Release] unmaps the clean, read-only pages of one file from this
// process (madvise MADV_DONTNEED). The file's pages stay in the page cache, shared with any
// other process, and a later access faults a page back in unchanged, so only the next use of
// a released page costs a minor fault:
//
//	n, err := residency.Release("/path/to/libchdb.so")
//	// n bytes of the library were resident and are no longer counted in VmRSS
//
// Mappings that are writable, or that hold private copies of the file's pages (data the
// dynamic loader relocated and then made read-only), are left as they are: dropping those
// would lose the copies. Release works on Linux only; elsewhere it does nothing.
package residency
