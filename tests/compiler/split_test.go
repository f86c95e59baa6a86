package compilertest_test

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/graphresponse"
)

// TestLookupInHalvesAnswersTheSame: neighbors (two-step, and on cached edges; the lookup
// hydrating, and not hydrating with the page hydrated after) run with their
// lookup or hydration in two statements at once (docs/compiler.md, "Lookups in two halves")
// and in one; the answers are byte for byte the same, and so are the rows the response was
// built from (a token budget rebuilds from them).
func TestLookupInHalvesAnswersTheSame(t *testing.T) {
	e := engine(t)
	if _, ok := e.(executor.Lender); !ok {
		t.Skip("the engine lends no second connection (a server): nothing splits")
	}
	path := loadWorld(t).nodePath["MergeRequest"][2]
	top := path[:strings.Index(path, "/")+1]
	cases := []struct {
		name, dsl string
		scoped    bool
	}{
		{"neighbors of a merge request", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2]}],"neighbors":{"direction":"both"},"limit":8}`, false},
		{"neighbors of a merge request, scoped", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[2,3,4]}],"neighbors":{"direction":"both"},"limit":200}`, true},
		{"neighbors of groups, many nodes", `{"query_type":"neighbors","nodes":[{"id":"g","entity":"Group","node_ids":[1,2]}],"neighbors":{"direction":"both"},"limit":400}`, false},
		{"neighbors of users", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]}],"neighbors":{"direction":"both"},"limit":50}`, false},
	}
	ctx := context.Background()
	for _, tc := range cases {
		caller := admin
		if tc.scoped {
			caller = callerWith(scopeSpec{top, 20})
		}
		q, err := env.compiler.Compile([]byte(tc.dsl), caller)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for _, cached := range []bool{false, true} {
			var cache *executor.EdgeCache
			if cached {
				cache = newCache(t, 64<<20, func() uint64 { return 0 })
			}
			one, oneEx, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache, SplitKinds: -1})
			if err != nil {
				t.Fatalf("%s (cache %v), one statement: %v", tc.name, cached, err)
			}
			two, twoEx, err := executor.RespondWith(ctx, e, env.compiler, q, executor.RespondOptions{Edges: cache, SplitKinds: 2})
			if err != nil {
				t.Fatalf("%s (cache %v), in halves: %v", tc.name, cached, err)
			}
			if reads(twoEx) <= reads(oneEx) {
				t.Errorf("%s (cache %v): nothing ran in halves (labels %v against %v)", tc.name, cached, statementLabels(twoEx), statementLabels(oneEx))
			}
			if a, b := answerBytes(one), answerBytes(two); !bytes.Equal(a, b) {
				t.Errorf("%s (cache %v): the answer in halves differs:\none:    %s\nhalves: %s", tc.name, cached, a, b)
			}
			if !reflect.DeepEqual(oneEx.Base, twoEx.Base) {
				t.Errorf("%s (cache %v): base rows differ", tc.name, cached)
			}
			// The engine does not keep a UNION ALL's arms in order, so neither does the one
			// statement: compare the rows as a multiset (Build indexes them by node).
			if a, b := rowSet(oneEx.Hydration), rowSet(twoEx.Hydration); !reflect.DeepEqual(a, b) {
				t.Errorf("%s (cache %v): hydration rows differ:\none:    %v\nhalves: %v", tc.name, cached, a, b)
			}
		}
	}
}

// reads counts the statements ex ran other than edge set reads (which a cold cache adds).
func reads(ex executor.Executed) int {
	n := 0
	for _, s := range ex.Statements {
		if s.Label != executor.LabelEdges {
			n++
		}
	}
	return n
}

// rowSet is rows' columns and its rows printed and sorted; nil for nil.
func rowSet(rows *graphresponse.Rows) []string {
	if rows == nil {
		return nil
	}
	out := []string{fmt.Sprint(rows.Columns)}
	for _, r := range rows.Values {
		out = append(out, fmt.Sprintf("%#v", r))
	}
	slices.Sort(out[1:])
	return out
}
