// Package semver parses and orders semantic versions (semver.org 2.0.0):
// MAJOR.MINOR.PATCH with optional -prerelease and +build parts, no leading
// zeros in numeric identifiers. Format versions, the format-version lock
// and the GOON encoder's version option all go through it.
package semver

import (
	"cmp"
	"strconv"
	"strings"
)

// Version is a parsed semantic version. Build metadata is dropped: it does
// not take part in precedence.
type Version struct {
	Core [3]uint64
	Pre  []string // prerelease identifiers; nil for a release
}

// Parse parses s strictly.
func Parse(s string) (Version, bool) {
	var v Version
	s, build, hasBuild := strings.Cut(s, "+")
	if hasBuild && !idents(build, false) {
		return v, false
	}
	core, pre, hasPre := strings.Cut(s, "-")
	if hasPre {
		if !idents(pre, true) {
			return v, false
		}
		v.Pre = strings.Split(pre, ".")
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		if !numeric(p) || len(p) > 1 && p[0] == '0' {
			return v, false
		}
		n, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return v, false
		}
		v.Core[i] = n
	}
	return v, true
}

// Valid reports whether s is a semantic version.
func Valid(s string) bool {
	_, ok := Parse(s)
	return ok
}

// Compare orders a and b by semver precedence: -1, 0 or +1. Both must be
// valid ([Parse]); an invalid version sorts after every valid one, and two
// invalid ones compare as strings, so the order stays total.
func Compare(a, b string) int {
	va, oka := Parse(a)
	vb, okb := Parse(b)
	switch {
	case !oka && !okb:
		return cmp.Compare(a, b)
	case !oka:
		return 1
	case !okb:
		return -1
	}
	for i := range va.Core {
		if c := cmp.Compare(va.Core[i], vb.Core[i]); c != 0 {
			return c
		}
	}
	switch {
	case va.Pre == nil && vb.Pre == nil:
		return 0
	case va.Pre == nil:
		return 1 // a release outranks its prereleases
	case vb.Pre == nil:
		return -1
	}
	for i := 0; i < len(va.Pre) && i < len(vb.Pre); i++ {
		x, y := va.Pre[i], vb.Pre[i]
		nx, ny := numeric(x), numeric(y)
		var c int
		switch {
		case nx && ny:
			c = cmp.Compare(len(x), len(y)) // no leading zeros: longer is larger
			if c == 0 {
				c = cmp.Compare(x, y)
			}
		case nx:
			c = -1
		case ny:
			c = 1
		default:
			c = cmp.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(va.Pre), len(vb.Pre))
}

func numeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// idents validates the dot-separated identifiers of a prerelease (numeric
// ones without leading zeros) or build part.
func idents(s string, prerelease bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-') {
				return false
			}
		}
		if prerelease && numeric(id) && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}
