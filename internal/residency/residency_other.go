//go:build !linux

package residency

// Release does nothing on this platform: it returns 0 and a nil error.
func Release(path string) (int64, error) { return 0, nil }
