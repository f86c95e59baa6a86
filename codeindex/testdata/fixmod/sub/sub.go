// Package sub is a second package of the fixture.
package sub

// Twice doubles.
func Twice(n int) int { return n * 2 }
