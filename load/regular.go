package load

import (
	"errors"
	"fmt"
	"io/fs"
)

// ErrNotRegular marks an input path that is not a regular file: a directory, a named pipe,
// a device or a socket.
var ErrNotRegular = errors.New("not a regular file")

// regularFile refuses an input that is not a regular file, from its stat alone: opening a
// named pipe without a writer blocks, and the engine would block on it inside a call no
// signal interrupts.
func regularFile(path string, fi fs.FileInfo) error {
	m := fi.Mode()
	if m.IsRegular() {
		return nil
	}
	kind := "a special file"
	switch {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeCharDevice != 0:
		kind = "a character device"
	case m&fs.ModeDevice != 0:
		kind = "a block device"
	}
	return fmt.Errorf("load: %s is %s: %w (load reads files; copy the data to one first)", path, kind, ErrNotRegular)
}
