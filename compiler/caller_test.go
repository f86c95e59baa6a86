package compiler_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
)

// TestPathsAtLeast: scopes below the floor are dropped, duplicates merged and a path covered
// by a shorter kept path removed, per floor (a shorter path at a lower level covers nothing).
func TestPathsAtLeast(t *testing.T) {
	c := &compiler.Caller{Scopes: []compiler.Scope{
		{Path: "1/", Level: 20}, {Path: "1/2/", Level: 30}, {Path: "1/2/", Level: 30}, {Path: "3/", Level: 10},
		{Path: "3/4/", Level: 40}, {Path: "12/", Level: 30}, {Path: "1/20/", Level: 30}, {Path: "1/2/5/", Level: 50},
		{Path: "bad", Level: 50},
	}}
	tests := []struct {
		floor int
		want  []string
	}{
		{10, []string{"1/", "12/", "3/"}},
		{20, []string{"1/", "12/", "3/4/"}},
		{25, []string{"1/2/", "1/20/", "12/", "3/4/"}},
		{40, []string{"1/2/5/", "3/4/"}},
		{50, []string{"1/2/5/"}},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.floor), func(t *testing.T) {
			if diff := cmp.Diff(tt.want, c.PathsAtLeast(tt.floor)); diff != "" {
				t.Errorf("PathsAtLeast(%d) (-want +got):\n%s", tt.floor, diff)
			}
		})
	}
}

// TestPathsAtLeastDefinition compares PathsAtLeast with its definition, applied pairwise,
// on random scope lists with many nested and repeated paths.
func TestPathsAtLeastDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	levels := []int{5, 10, 15, 20, 25, 30, 40, 50}
	for range 200 {
		c := &compiler.Caller{}
		for range r.IntN(60) {
			var p strings.Builder
			for range r.IntN(3) + 1 {
				p.WriteString(strconv.Itoa(r.IntN(12) + 1))
				p.WriteByte('/')
			}
			c.Scopes = append(c.Scopes, compiler.Scope{Path: p.String(), Level: levels[r.IntN(len(levels))]})
		}
		for _, floor := range levels {
			var want []string
			for _, s := range c.Scopes {
				covered := s.Level < floor
				for _, o := range c.Scopes {
					if o.Level >= floor && o.Path != s.Path && strings.HasPrefix(s.Path, o.Path) {
						covered = true
					}
				}
				if !covered && !slices.Contains(want, s.Path) {
					want = append(want, s.Path)
				}
			}
			slices.Sort(want)
			if diff := cmp.Diff(want, c.PathsAtLeast(floor), cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })); diff != "" {
				t.Fatalf("floor %d, scopes %v (-want +got):\n%s", floor, c.Scopes, diff)
			}
		}
	}
}
