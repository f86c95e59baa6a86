//go:build !cgo

package seed_test

const cgoEnabled = false
