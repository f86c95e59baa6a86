package compiler

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Caller is who runs a query: the verified JWT claims (docs/service.md, "Authentication";
// docs/compiler.md, "API").
// Admin lifts every scope predicate. A non-admin sees namespaced rows only under the path
// prefixes of Scopes whose level reaches the entity's floor.
type Caller struct {
	Subject string  // JWT sub: the user id
	Admin   bool    // JWT admin claim
	Scopes  []Scope // traversal-path prefixes with access levels
}

// Scope grants Level on every traversal path that starts with Path ("100/", "100/101/").
type Scope struct {
	Path  string
	Level int
}

// ParseScope parses the CLI form PATH[:LEVEL] ("100/101/:30"); the level defaults to 50
// (Owner). Path must be one or more positive integer segments, each followed by "/".
func ParseScope(s string) (Scope, error) {
	p, lv, hasLevel := strings.Cut(s, ":")
	sc := Scope{Path: p, Level: 50}
	if hasLevel {
		n, err := strconv.Atoi(lv)
		if err != nil || !validLevel(n) {
			return sc, newErr("", ErrSchemaViolation, "access level "+strconv.Quote(lv)+" is not one of 5, 10, 15, 20, 25, 30, 40, 50")
		}
		sc.Level = n
	}
	if !validPath(p) {
		return sc, newErr("", ErrSchemaViolation, "scope path "+strconv.Quote(p)+" must look like \"100/\" or \"100/101/\"")
	}
	return sc, nil
}

func validLevel(n int) bool {
	switch n {
	case 5, 10, 15, 20, 25, 30, 40, 50:
		return true
	}
	return false
}

// ValidPath reports whether p is a traversal path a scope can name: 1 to 20 segments, each a
// positive int64 without leading zeros followed by "/" ("1/", "100/101/"). Tokens (package
// auth), --scope and the rows graphwire load writes all follow this rule, so a row's path is
// always one some scope covers.
func ValidPath(p string) bool { return validPath(p) }

// validPath reports whether p matches ^([1-9][0-9]{0,18}/){1,20}$ with int64 segments.
func validPath(p string) bool {
	if p == "" || !strings.HasSuffix(p, "/") {
		return false
	}
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	if len(segs) > 20 {
		return false
	}
	for _, s := range segs {
		if s == "" || len(s) > 19 || s[0] == '0' {
			return false
		}
		for _, c := range []byte(s) {
			if c < '0' || c > '9' {
				return false
			}
		}
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			return false
		}
	}
	return true
}

// scopeCache memoizes [Caller.PathsAtLeast] per floor for one compilation.
type scopeCache struct {
	c *Caller
	m map[int][]string
}

func newScopeCache(c *Caller) *scopeCache { return &scopeCache{c: c, m: map[int][]string{}} }

func (s *scopeCache) at(floor int) []string {
	p, ok := s.m[floor]
	if !ok {
		p = s.c.PathsAtLeast(floor)
		s.m[floor] = p
	}
	return p
}

// PathsAtLeast returns the minimal set of path prefixes whose level is at least floor:
// scopes below floor are dropped, the rest sorted, and every path that has a proper prefix
// in the kept set removed.
func (c *Caller) PathsAtLeast(floor int) []string {
	var kept []string
	for _, s := range c.Scopes {
		if s.Level >= floor && validPath(s.Path) {
			kept = append(kept, s.Path)
		}
	}
	slices.SortFunc(kept, cmp.Compare)
	kept = slices.Compact(kept)
	// In sorted order every path between a prefix q and a path p that q covers also starts
	// with q, so a covered path is covered by the last path kept before it: one comparison
	// per path, O(n log n) in all for the 10 000 scopes a token may carry.
	out := kept[:0:0]
	for _, p := range kept {
		if len(out) == 0 || !strings.HasPrefix(p, out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return out
}
