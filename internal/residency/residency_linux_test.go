//go:build linux

package residency

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

const pages = 64

// mapFile writes a file of pages pages, each filled with its own byte, and maps it.
func mapFile(t *testing.T, prot int) (path string, want, mem []byte) {
	t.Helper()
	size := pages * os.Getpagesize()
	want = make([]byte, size)
	for i := range want {
		want[i] = byte(i / os.Getpagesize())
	}
	path = filepath.Join(t.TempDir(), "mapped")
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem, err = syscall.Mmap(int(f.Fd()), 0, size, prot, syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	return path, want, mem
}

// resident is the resident size of the mapping that starts at mem, per /proc/self/smaps.
func resident(t *testing.T, path string, mem []byte) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	maps, err := parseSmaps(data, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range maps {
		if m.start == uintptr(unsafe.Pointer(&mem[0])) {
			return m.rss
		}
	}
	t.Fatalf("no mapping of %s at %p in /proc/self/smaps", path, &mem[0])
	return 0
}

func touch(mem []byte) (sum byte) {
	for i := 0; i < len(mem); i += os.Getpagesize() {
		sum += mem[i]
	}
	return sum
}

// TestReleaseReadOnly: the pages of a read-only mapping leave the resident set, and reading
// them again gives the file's bytes.
func TestReleaseReadOnly(t *testing.T) {
	path, want, mem := mapFile(t, syscall.PROT_READ)
	touch(mem)
	before := resident(t, path, mem)
	if before == 0 {
		t.Fatal("touched pages are not resident")
	}
	released, err := Release(path)
	if err != nil {
		t.Fatal(err)
	}
	if released < before {
		t.Errorf("Release reported %d bytes, the mapping had %d resident", released, before)
	}
	if after := resident(t, path, mem); after != 0 {
		t.Errorf("after Release %d bytes are still resident", after)
	}
	if !bytes.Equal(mem, want) {
		t.Error("the mapping reads back other bytes than the file's")
	}
}

// TestReleaseKeepsPrivateCopies: a mapping holding a private copy of a page (written, then
// made read-only, as the dynamic loader does with relocated data) keeps it.
func TestReleaseKeepsPrivateCopies(t *testing.T) {
	path, want, mem := mapFile(t, syscall.PROT_READ|syscall.PROT_WRITE)
	touch(mem)
	mem[0] = 0xee
	if err := syscall.Mprotect(mem, syscall.PROT_READ); err != nil {
		t.Fatal(err)
	}
	if _, err := Release(path); err != nil {
		t.Fatal(err)
	}
	if mem[0] != 0xee {
		t.Fatalf("the private copy was lost: page 0 reads %#x again", mem[0])
	}
	if !bytes.Equal(mem[1:], want[1:]) {
		t.Error("the mapping reads back other bytes than before")
	}
}

func TestReleaseMissingFile(t *testing.T) {
	if _, err := Release(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("Release of a missing file: no error")
	}
}

func TestParseSmaps(t *testing.T) {
	const text = `00400000-00402000 r--p 00000000 fe:00 1 /opt/lib a.so
Size:                  8 kB
Rss:                   8 kB
Anonymous:             0 kB
VmFlags: rd mr mw me
00402000-00404000 r--p 00002000 fe:00 1 /opt/lib a.so
Rss:                   4 kB
Anonymous:             4 kB
00404000-00408000 r--p 00004000 fe:00 1 /opt/lib a.so
Rss:                   4 kB
Anonymous:             0 kB
Swap:                  4 kB
SwapPss:               4 kB
7f0000000000-7f0000001000 rw-p 00000000 00:00 0
Rss:                   4 kB
`
	got, err := parseSmaps([]byte(text), "/opt/lib a.so")
	if err != nil {
		t.Fatal(err)
	}
	want := []mapping{
		{start: 0x400000, end: 0x402000, perms: "r--p", rss: 8 << 10},
		{start: 0x402000, end: 0x404000, perms: "r--p", rss: 4 << 10, anonymous: 4 << 10},
		// A private copy swapped out is not Anonymous (resident) but Swap: MADV_DONTNEED
		// would discard it and the page would read back from the file.
		{start: 0x404000, end: 0x408000, perms: "r--p", rss: 4 << 10, swap: 4 << 10},
	}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("parseSmaps = %+v, want %+v", got, want)
	}
	if !releasable(got[0]) || releasable(got[1]) || releasable(got[2]) {
		t.Errorf("releasable: %v %v %v, want true false false", releasable(got[0]), releasable(got[1]), releasable(got[2]))
	}
	if _, err := parseSmaps([]byte("zz-00400000 r--p 0 0:0 1 /opt/lib a.so\n"), "/opt/lib a.so"); err == nil {
		t.Error("a bad mapping header: no error")
	}
}
