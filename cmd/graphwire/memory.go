package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// byteSize is a flag value of bytes with an optional unit: 2GiB, 512MiB, 1.5GB, 4096.
type byteSize struct {
	n   int64
	set bool
}

var byteUnits = []struct {
	suffix string
	mult   float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"T", 1 << 40},
	{"B", 1},
}

func (b *byteSize) String() string {
	if b == nil || !b.set {
		return ""
	}
	return strconv.FormatInt(b.n, 10)
}

func (b *byteSize) Type() string { return "SIZE" }

func (b *byteSize) Set(s string) error {
	n, err := parseByteSize(s)
	if err != nil {
		return err
	}
	b.n, b.set = n, true
	return nil
}

// parseByteSize parses a non-negative size: a number followed by an optional unit (B, K/KiB,
// M/MiB, G/GiB, T/TiB in powers of 1024; KB, MB, GB, TB in powers of 1000).
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range byteUnits {
		if len(t) > len(u.suffix) && strings.EqualFold(t[len(t)-len(u.suffix):], u.suffix) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("invalid size %q (want bytes, e.g. 2GiB, 512MiB or 1073741824)", s)
	}
	return int64(f * mult), nil
}

// defaultMemoryBudget is half of the memory this process may use: the smaller of the
// machine's physical memory and the cgroup limit. It is 0 (the engine's own default) when
// neither can be read.
func defaultMemoryBudget() int64 {
	total := physicalMemory()
	if lim := cgroupMemoryLimit(); lim > 0 && (total == 0 || lim < total) {
		total = lim
	}
	return total / 2
}

// physicalMemory reads MemTotal from /proc/meminfo; 0 when unknown.
func physicalMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupMemoryLimit reads the cgroup v2 (memory.max) or v1 (memory.limit_in_bytes) limit;
// 0 when there is none.
func cgroupMemoryLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 { // "max", or v1's "unlimited" near MaxInt64
			return 0
		}
		return n
	}
	return 0
}
