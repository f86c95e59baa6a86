package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// globChars are the characters the engine's file() table function expands in a path (*, **,
// ?, {a,b}, {1..3}), and the brackets some glob dialects add. file() has no escape for them.
const globChars = "*?{}[]"

// literalPaths makes every target's path one the engine reads literally. A path holding a
// glob character is handed over as a symbolic link with a plain name ("0.jsonl") in a new
// private directory, which the returned function removes; every other path goes as it is.
// A link keeps the bytes where they are (no copy of a large file) and names exactly one file,
// so the engine neither expands the name nor walks a directory (where a symlink loop made it
// fail). The embedded engine runs in this process and sees the link; a ClickHouse server
// reads paths on its own host, so there such a file must be given a plain name.
func literalPaths(ts []*target) (cleanup func(), err error) {
	cleanup = func() {}
	var dir string
	for i, t := range ts {
		t.enginePath = t.src.Path
		if !strings.ContainsAny(t.src.Path, globChars) {
			continue
		}
		if dir == "" {
			dir, err = os.MkdirTemp("", "graphwire-load-")
			if err != nil {
				return cleanup, fmt.Errorf("load: link %s to a plain name: %w", t.src.Path, err)
			}
			if strings.ContainsAny(dir, globChars) {
				os.RemoveAll(dir)
				return cleanup, fmt.Errorf("load: %s: the temporary directory %s holds a glob character too (set TMPDIR)", t.src.Path, dir)
			}
			cleanup = func() { os.RemoveAll(dir) }
		}
		link := filepath.Join(dir, strconv.Itoa(i)+"."+string(t.src.Format))
		if err := os.Symlink(t.src.Path, link); err != nil {
			return cleanup, fmt.Errorf("load: link %s to a plain name: %w", t.src.Path, err)
		}
		t.enginePath = link
	}
	return cleanup, nil
}
