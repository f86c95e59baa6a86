package compiler_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

// uniformSizes is a graph of 1,000 rows per table and 100 edges per relationship type and
// pair of entities; tableOnly hides the edge counts.
type uniformSizes struct{}

func (uniformSizes) Rows(string) (int64, bool)                     { return 1000, true }
func (uniformSizes) EdgeRows(string, string, string) (int64, bool) { return 100, true }

// sparseSizes is a graph of 100,000 rows per table and one edge per relationship type and
// pair of entities: a walk from a whole table stays within the limit.
type sparseSizes struct{}

func (sparseSizes) Rows(string) (int64, bool)                     { return 100000, true }
func (sparseSizes) EdgeRows(string, string, string) (int64, bool) { return 1, true }

type tableOnly struct{}

func (tableOnly) Rows(string) (int64, bool) { return 1000, true }

func costCompiler(t *testing.T, opts compiler.Options) *compiler.Compiler {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	c, err := compiler.New(ont, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestWalkCost: a walk over any relationship type, both directions, three hops (issue 23's
// three merge requests to their projects) is refused before it runs with
// QUERY_TOO_EXPENSIVE at its relationship, naming the estimate, the limit and the steps;
// the same walk of one hop, a typed walk of three hops, a graph whose edge counts are
// unknown and a negative limit are not.
func TestWalkCost(t *testing.T) {
	walk := func(types string, hops, dir string) []byte {
		return []byte(`{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3]},{"id":"p","entity":"Project"}],` +
			`"relationships":[{"type":` + types + `,"from":"mr","to":"p","direction":"` + dir + `","hops":` + hops + `}]}`)
	}
	heavy := walk(`"*"`, `[1,3]`, "both")
	c := costCompiler(t, compiler.Options{Sizes: uniformSizes{}})
	_, err := c.Compile(heavy, adminCaller)
	var ce *compiler.Error
	if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrQueryTooExpensive) {
		t.Fatalf("heavy walk: err = %v, want QUERY_TOO_EXPENSIVE", err)
	}
	if ce.Path != "/relationships/0" || ce.Kind() != compiler.KindResourceExhausted {
		t.Errorf("heavy walk: path %q kind %q, want /relationships/0 resource_exhausted", ce.Path, ce.Kind())
	}
	for _, want := range []string{"query too expensive", "up to 3 hops", "any relationship type", "direction both", "over the limit of 1e+10", "steps 2 to 3"} {
		if !strings.Contains(ce.Message, want) {
			t.Errorf("message %q lacks %q", ce.Message, want)
		}
	}
	// An aggregation over such a walk (one direction: aggregations take no "both") is
	// refused too.
	agg := strings.Replace(string(walk(`"*"`, `[1,3]`, "outgoing")), `"query_type":"traversal"`, `"query_type":"aggregation"`, 1)
	agg = strings.TrimSuffix(agg, "}") + `,"aggregations":[{"count":"p"}]}`
	if _, err := c.Compile([]byte(agg), adminCaller); !errors.Is(err, compiler.ErrQueryTooExpensive) {
		t.Errorf("aggregation over the heavy walk: err = %v, want QUERY_TOO_EXPENSIVE", err)
	}
	fine := []struct {
		name string
		c    *compiler.Compiler
		q    []byte
	}{
		{"one hop", c, walk(`"*"`, `[1,1]`, "both")},
		{"typed walk", c, []byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[2]},{"id":"p","entity":"Project"}],"relationships":[{"type":"CONTAINS","from":"g","to":"p","hops":[1,3]}]}`)},
		{"edge counts unknown", costCompiler(t, compiler.Options{Sizes: tableOnly{}}), heavy},
		{"no sizes", costCompiler(t, compiler.Options{}), heavy},
		{"no limit", costCompiler(t, compiler.Options{Sizes: uniformSizes{}, MaxWalkCost: -1}), heavy},
	}
	for _, tt := range fine {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := tt.c.Compile(tt.q, adminCaller); err != nil {
				t.Errorf("err = %v, want none", err)
			}
		})
	}
	// A higher limit lets the heavy walk through.
	if _, err := costCompiler(t, compiler.Options{Sizes: uniformSizes{}, MaxWalkCost: 1e20}).Compile(heavy, adminCaller); err != nil {
		t.Errorf("limit 1e20: err = %v, want none", err)
	}
}

// TestWalkCostOverThePattern: the adversarial pass's split walk — merge requests to projects
// to merge requests to projects to users, four relationships of any type, both directions,
// up to two hops each — is refused as a whole, though each of its walks alone is within the
// limit; a pattern of two typed walks from one group is not.
func TestWalkCostOverThePattern(t *testing.T) {
	c := costCompiler(t, compiler.Options{Sizes: sparseSizes{}})
	rel := func(from, to string) string {
		return `{"type":"*","from":"` + from + `","to":"` + to + `","direction":"both","hops":[1,2]}`
	}
	split := []byte(`{"query_type":"traversal","nodes":[{"id":"a","entity":"MergeRequest","node_ids":[1,2,3]},{"id":"b","entity":"Project"},` +
		`{"id":"c","entity":"MergeRequest"},{"id":"d","entity":"Project"},{"id":"e","entity":"User"}],"relationships":[` +
		rel("a", "b") + `,` + rel("b", "c") + `,` + rel("c", "d") + `,` + rel("d", "e") + `]}`)
	_, err := c.Compile(split, adminCaller)
	var ce *compiler.Error
	if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrQueryTooExpensive) || !strings.Contains(ce.Message, "variable-length relationships of this pattern") {
		t.Fatalf("split walk: err = %v, want QUERY_TOO_EXPENSIVE over the pattern", err)
	}
	for i, pair := range [][2]string{{"MergeRequest", "Project"}, {"Project", "MergeRequest"}, {"MergeRequest", "Project"}, {"Project", "User"}} {
		one := []byte(`{"query_type":"traversal","nodes":[{"id":"a","entity":"` + pair[0] + `","id_range":{"start":1,"end":100000}},{"id":"b","entity":"` + pair[1] + `"}],"relationships":[` + rel("a", "b") + `]}`)
		if _, err := c.Compile(one, adminCaller); err != nil {
			t.Fatalf("walk %d alone, from a whole table: %v, want it within the limit (else the test proves nothing)", i, err)
		}
	}
	typed := []byte(`{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","node_ids":[2]},{"id":"s","entity":"Group"},{"id":"p","entity":"Project"}],` +
		`"relationships":[{"type":"CONTAINS","from":"g","to":"s","hops":[1,2]},{"type":"CONTAINS","from":"s","to":"p","hops":[1,2]}]}`)
	if _, err := c.Compile(typed, adminCaller); err != nil {
		t.Errorf("two typed walks from one group: %v, want none", err)
	}
}
