//go:build linux

package residency

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// mapping is one mapping of a file in this process, from /proc/self/smaps.
type mapping struct {
	start, end uintptr
	perms      string // "r-xp"
	rss        int64  // bytes resident
	anonymous  int64  // bytes of private copies of the file's pages
	swap       int64  // bytes of private copies swapped out (not counted in anonymous)
}

// Release takes the resident pages of the read-only, unmodified mappings of the file at path
// (symbolic links resolved) out of this process's resident set and returns how many bytes
// were resident in them. See the package documentation.
func Release(path string) (int64, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return 0, fmt.Errorf("release pages of %s: %w", path, err)
	}
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("release pages of %s: %w", path, err)
	}
	maps, err := parseSmaps(data, real)
	if err != nil {
		return 0, fmt.Errorf("release pages of %s: %w", path, err)
	}
	var released int64
	for _, m := range maps {
		if !releasable(m) {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); errno != 0 {
			return released, fmt.Errorf("release pages of %s: madvise %x-%x: %w", path, m.start, m.end, errno)
		}
		released += m.rss
	}
	return released, nil
}

// releasable reports whether dropping m's pages keeps its contents: it can never be written
// and holds no private copy, resident or swapped out (MADV_DONTNEED discards swapped copies
// too), so every page reads back from the file as it is now.
func releasable(m mapping) bool {
	return m.rss > 0 && m.anonymous == 0 && m.swap == 0 && !strings.ContainsAny(m.perms, "ws")
}

// parseSmaps returns the mappings of the file named file in the text of /proc/self/smaps.
func parseSmaps(data []byte, file string) ([]mapping, error) {
	var out []mapping
	in := false // the current mapping is one of file's
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if key, ok := strings.CutSuffix(f[0], ":"); ok {
			// "Rss:   123 kB", a field of the current mapping.
			if !in || len(f) < 2 {
				continue
			}
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				continue // a field that is not a size (VmFlags, THPeligible)
			}
			switch key {
			case "Rss":
				out[len(out)-1].rss = kb << 10
			case "Anonymous":
				out[len(out)-1].anonymous = kb << 10
			case "Swap":
				out[len(out)-1].swap = kb << 10
			}
			continue
		}
		// "start-end perms offset dev inode [path]", the header of a mapping.
		in = false
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok || len(f) < 6 || strings.Join(f[5:], " ") != file {
			continue
		}
		s, err1 := strconv.ParseUint(lo, 16, 64)
		e, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || e < s {
			return nil, fmt.Errorf("parse /proc/self/smaps: bad mapping %q", line)
		}
		out = append(out, mapping{start: uintptr(s), end: uintptr(e), perms: f[1]})
		in = true
	}
	return out, sc.Err()
}
