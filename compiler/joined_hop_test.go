package compiler

import (
	"fmt"
	"strings"
	"testing"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// seededBy reports whether some arm of a CTE of stmt named hop or hop's steps (hop + "s1",
// …) looks up the CTE set (an IN sub-query reading it in its PREWHERE or WHERE).
func seededBy(stmt *selectStmt, hop, set string) bool {
	found := false
	for _, c := range stmt.with {
		if c.name != hop && !strings.HasPrefix(c.name, hop+"s") {
			continue
		}
		walk(c.body, func(n sqlNode) {
			if x, ok := n.(*inSub); ok {
				if r, ok := x.sub.from.(*cteRef); ok && r.name == set {
					found = true
				}
			}
		})
	}
	return found
}

// cteReads counts the reads of the CTE name anywhere in stmt.
func cteReads(stmt *selectStmt, name string) int {
	n := 0
	walk(stmt, func(x sqlNode) {
		if r, ok := x.(*cteRef); ok && r.name == name {
			n++
		}
	})
	return n
}

// TestJoinedHopOnlyWhereTheSeedIsCoarse: a single hop from a root that names no ids and has
// only coarse filters (an enum value or set, a Bool, none), to a far node read whole, reads
// its edges unseeded, bound by the final join alone, so that the root is read once (no array)
// and the three scans overlap (joinedHop). Any filter that may keep a handful of rows, a walk,
// or a far node narrowed to the hop's ends keeps the seed; and each statement passes the check.
func TestJoinedHopOnlyWhereTheSeedIsCoarse(t *testing.T) {
	plain, sized := newTestCompiler(t), sizedCompiler(t, smallSizes{})
	const agg = `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline"%s},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"%s}],"group_by":["p"],"aggregations":[{"count":"pl"}]}`
	sprintf := func(filters, rel string) string {
		if filters != "" {
			filters = `,"filters":` + filters
		}
		return fmt.Sprintf(agg, filters, rel)
	}
	tests := []struct {
		name       string
		dsl        string
		c          *Compiler
		wantJoined bool
	}{
		{"enum value", sprintf(`{"status":"failed"}`, ""), sized, true},
		{"enum values", sprintf(`{"status":["failed","canceled"]}`, ""), sized, true},
		{"bool", sprintf(`{"tag":true}`, ""), sized, true},
		{"two enum filters", sprintf(`{"status":"failed","source":"push"}`, ""), sized, true},
		{"root at the to side", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"opened"}},{"id":"u","entity":"User"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"group_by":["u"],"aggregations":[{"count":"mr"}]}`, sized, true},
		{"traversal", `{"query_type":"traversal","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"}],"limit":10}`, sized, true},
		{"a free-text value", sprintf(`{"ref":"main"}`, ""), sized, false},
		{"an enum and a free-text value", sprintf(`{"status":"failed","ref":"main"}`, ""), sized, false},
		{"an id property", sprintf(`{"project_id":7}`, ""), sized, false},
		{"a date range", sprintf(`{"status":"failed","created_at":{"gt":"2025-01-01T00:00:00Z"}}`, ""), sized, false},
		{"a null enum", sprintf(`{"failure_reason":{"is_null":true}}`, ""), sized, false},
		{"a walk", sprintf(`{"status":"failed"}`, `,"hops":[1,2]`), sized, false},
		{"far node narrowed (no sizes)", sprintf(`{"status":"failed"}`, ""), plain, false},
		{"far node with a hop of its own", `{"query_type":"aggregation","nodes":[{"id":"pl","entity":"Pipeline","filters":{"status":"failed"}},{"id":"p","entity":"Project"},{"id":"mr","entity":"MergeRequest"}],"relationships":[{"type":"IN_PROJECT","from":"pl","to":"p"},{"type":"IN_PROJECT","from":"mr","to":"p"}],"group_by":["p"],"aggregations":[{"count":"pl"}]}`, sized, false},
	}
	for _, tt := range tests {
		for ci, caller := range append([]*Caller{{Admin: true}}, checkCallers...) {
			stmt, _, err := tt.c.lower([]byte(tt.dsl), caller)
			if err != nil {
				t.Fatalf("%s: lower: %v", tt.name, err)
			}
			if err := check(stmt, tt.c.cat, caller); err != nil {
				t.Errorf("%s, caller %d: fails the check: %v", tt.name, ci, err)
			}
			joined := !seededBy(stmt, "h0", "n0")
			if joined != tt.wantJoined {
				t.Errorf("%s, caller %d: edge scan joined = %v, want %v", tt.name, ci, joined, tt.wantJoined)
			}
			if tt.wantJoined && cteReads(stmt, "n0") != 1 {
				t.Errorf("%s, caller %d: root read %d times, want once (no array)", tt.name, ci, cteReads(stmt, "n0"))
			}
		}
	}
}

// sizedCompiler is a compiler that knows table sizes, with the default walk cost, so that
// the size-dependent lowerings (joinedHop, shared walk steps) run.
func sizedCompiler(t *testing.T, sizes TableSizes) *Compiler {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(ont, Options{Sizes: sizes})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
