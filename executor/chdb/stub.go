//go:build !cgo

package chdb

import (
	"context"
	"errors"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// Executor is unavailable in a build without cgo.
type Executor struct{}

// Open always fails with an error matching [executor.ErrUnavailable]: the embedded engine needs
// cgo to load libchdb.so.
func Open(opts Options) (*Executor, error) {
	return nil, executor.New("open chdb", executor.ErrUnavailable, errors.New("built without cgo"))
}

func (e *Executor) unavailable() error {
	return executor.New("chdb", executor.ErrUnavailable, errors.New("built without cgo"))
}

// Run fails with ErrUnavailable.
func (e *Executor) Run(context.Context, *compiler.Query) (executor.Rows, error) {
	return nil, e.unavailable()
}

// Ping fails with ErrUnavailable.
func (e *Executor) Ping(context.Context) error { return e.unavailable() }

// Version fails with ErrUnavailable.
func (e *Executor) Version(context.Context) (string, error) { return "", e.unavailable() }

// Exec fails with ErrUnavailable.
func (e *Executor) Exec(context.Context, string) error { return e.unavailable() }

// Insert fails with ErrUnavailable.
func (e *Executor) Insert(context.Context, string, []string, [][]any) error {
	return e.unavailable()
}

// ReleaseLibraryPages does nothing.
func (e *Executor) ReleaseLibraryPages() (int64, error) { return 0, nil }

// Close does nothing.
func (e *Executor) Close() error { return nil }
