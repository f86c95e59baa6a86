//go:build !cgo

package executortest_test

const cgoEnabled = false
