package compiler_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/graphwire/graphwire/compiler"
)

// TestWalkCostWideIDRange: a walk of two hops over any type in both directions from an
// id_range as wide as int64 allows (start -2^63, end 2^63-1: end - start wraps to -1 in
// int64) is refused as QUERY_TOO_EXPENSIVE, as the same walk from a range half as wide is;
// the estimate took the wrapped width for a range of no ids and passed it.
func TestWalkCostWideIDRange(t *testing.T) {
	c := costCompiler(t, compiler.Options{Sizes: uniformSizes{}})
	for _, rg := range [][2]int64{{0, math.MaxInt64}, {math.MinInt64, math.MaxInt64}, {math.MinInt64, 1}} {
		q := fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":%d,"end":%d}},{"id":"p","entity":"Project","filters":{"full_path":"x"}}],`+
			`"relationships":[{"type":"*","from":"mr","to":"p","direction":"both","hops":[1,2]}]}`, rg[0], rg[1])
		if _, err := c.Compile([]byte(q), adminCaller); !errors.Is(err, compiler.ErrQueryTooExpensive) {
			t.Errorf("range %v: err = %v, want QUERY_TOO_EXPENSIVE", rg, err)
		}
	}
}
