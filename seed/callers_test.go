package seed_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/seed"
)

// TestPrefixesAt: each floor admits the paths of the grants whose level reaches it, sorted,
// with a prefix inside another left out.
func TestPrefixesAt(t *testing.T) {
	grants := []compiler.Scope{{Path: "2/", Level: 20}, {Path: "2/10/", Level: 30}, {Path: "1/4/", Level: 20}, {Path: "3/", Level: 10}}
	for f, want := range map[int][]string{10: {"1/4/", "2/", "3/"}, 20: {"1/4/", "2/"}, 25: {"2/10/"}, 30: {"2/10/"}, 40: nil} {
		if got := seed.PrefixesAt(grants, f); !slices.Equal(got, want) {
			t.Errorf("floor %d: got %q, want %q", f, got, want)
		}
	}
}

// TestScopedGrantsAdmitSomeNotAll: on paths spread over several top-level groups, the chosen
// grants admit some but not all of each scoped question's start paths at the floor it reads
// them at (merge requests 20, memberships 10), over several floors; on paths under one
// top-level group only, second-level prefixes still split them.
func TestScopedGrantsAdmitSomeNotAll(t *testing.T) {
	someNotAll := func(t *testing.T, grants []compiler.Scope, f int, what string, paths []string) {
		t.Helper()
		n := 0
		for _, p := range paths {
			if slices.ContainsFunc(seed.PrefixesAt(grants, f), func(x string) bool { return strings.HasPrefix(p, x) }) {
				n++
			}
		}
		if n == 0 || n == len(paths) {
			t.Errorf("%s: %d of %d paths %q admitted at floor %d by %+v", what, n, len(paths), paths, f, grants)
		}
	}
	for name, in := range map[string]seed.Interest{
		"spread": {
			Neighbors:   []string{"12/150/160/", "12/150/161/", "40/400/", "77/700/701/", "77/702/"},
			PathFinding: []string{"3/", "12/150/", "55/", "55/551/", "77/"},
			TwoHop:      []string{"12/150/160/", "40/401/", "40/401/402/", "40/403/", "77/700/"},
			Walk:        []string{"3/", "55/", "90/"},
		},
		"one top": {
			Neighbors:   []string{"1/10/", "1/10/11/", "1/20/"},
			PathFinding: []string{"1/", "1/10/", "1/30/"},
			TwoHop:      []string{"1/10/", "1/20/21/", "1/30/"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			grants := seed.ScopedGrants(in)
			someNotAll(t, grants, 20, "neighbors", in.Neighbors)
			someNotAll(t, grants, 20, "traversal_2hop", in.TwoHop)
			someNotAll(t, grants, 10, "path_finding", in.PathFinding)
			if in.Walk != nil {
				someNotAll(t, grants, 10, "variable_length", in.Walk)
			}
			levels := map[int]bool{}
			for _, g := range grants {
				levels[g.Level] = true
			}
			if len(levels) < 2 {
				t.Errorf("want grants at several levels, got %+v", grants)
			}
			for f, most := range map[int]int{10: 3, 20: 2, 25: 1} {
				if n := len(seed.PrefixesAt(grants, f)); n == 0 || n > most {
					t.Errorf("floor %d: %d prefixes (want 1 to %d) from %+v", f, n, most, grants)
				}
			}
		})
	}
}
