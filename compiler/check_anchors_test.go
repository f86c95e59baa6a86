package compiler

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLateAnchorsSeedTheirEdges: when both path anchors name their ids, the first statement
// of the path plan returns only the edges at the anchors and the second returns the anchors
// (pathSteps.anchorsLate); the edge scans still start at the anchor sets a0 and a1, the
// anchors the caller may read and that are live, so that no edge of a named node the caller
// may not read, or of a deleted one, leaves the engine. The plain security check proves it:
// it accepts the statement, and refuses it with the seed of f1 or b1 dropped or moved to the
// other anchor set, for every caller and both compiler set-ups.
func TestLateAnchorsSeedTheirEdges(t *testing.T) {
	queries := []string{
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":5}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"p","entity":"Project","node_ids":[4,9]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
		`{"query_type":"path_finding","nodes":[{"id":"g","entity":"Group","id_range":{"start":50,"end":59}},{"id":"p","entity":"Project","node_ids":[7],"id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"g","to":"p","max_depth":1,"rel_types":["CONTAINS"]}}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"v","entity":"Vulnerability","id_range":{"start":1,"end":100}}],"path":{"type":"shortest","from":"u","to":"v","max_depth":3,"rel_types":"*"}}`,
	}
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for _, q := range queries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				first := func() *selectStmt {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatalf("lower %s: %v", q, err)
					}
					if plan.paths == nil || !plan.paths.anchorsLate {
						t.Fatalf("%s: no path plan with the anchors read late", q)
					}
					return plan.paths.first
				}
				stmt := first()
				if err := check(stmt, cat, caller); err != nil {
					t.Fatalf("caller %d: the first statement of %s fails the check: %v", ci, q, err)
				}
				if n := len(stepArms(stmt, partFrom)) + len(stepArms(stmt, partTo)); n != 0 {
					t.Errorf("caller %d: the first statement of %s returns the anchors (%d arms)", ci, q, n)
				}
				for _, part := range []string{partF1, partB1} {
					idCol, set, other := "source_id", "a0", "a1"
					if part == partB1 {
						idCol, set, other = "target_id", "a1", "a0"
					}
					if len(stepArms(stmt, part)) == 0 {
						continue // depth 1: no b1
					}
					for name, mutate := range map[string]func(*inSub) expr{
						"without its seed":           func(*inSub) expr { return nil },
						"seeded by the other anchor": func(x *inSub) expr { return in(x.l, idsFrom(other, "id")) },
					} {
						stmt := first()
						arm := stepArms(stmt, part)[0]
						seeds := 0
						for _, list := range []*[]expr{&arm.prewhere, &arm.where} {
							var out []expr
							for _, w := range *list {
								if x, ok := w.(*inSub); ok {
									if l, ok := x.l.(*colRef); ok && l.name == idCol {
										if r, ok := x.sub.from.(*cteRef); ok && r.name == set {
											seeds++
											if w = mutate(x); w == nil {
												continue
											}
										}
									}
								}
								out = append(out, w)
							}
							*list = out
						}
						if seeds != 1 {
							t.Fatalf("caller %d, %s of %.100s: %d seeds on %s from %s, want 1", ci, part, q, seeds, idCol, set)
						}
						mutants++
						if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) {
							t.Errorf("caller %d, %s %s, of %.100s: %v, want a refusal", ci, part, name, q, err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d mutants refused", mutants)
}

// TestPathAnchorsLateOnlyWhenNamedByID: the first statement returns only edges, leaving the
// anchors to the second, when both anchors name their ids (node_ids, or an id_range of at
// most 500 ids; an id_range so wide that end - start overflows int64 is no such range); an
// anchor chosen by a filter alone, or by a wider range, is returned by the first statement.
// Either way the anchor set seeds its edges.
func TestPathAnchorsLateOnlyWhenNamedByID(t *testing.T) {
	c := newTestCompiler(t)
	for _, tc := range []struct {
		from, to string
		late     bool
	}{
		{`"node_ids":[1]`, `"id_range":{"start":1,"end":40}`, true},
		{`"node_ids":[1,2]`, `"id_range":{"start":1,"end":500}`, true},
		{`"node_ids":[1]`, `"id_range":{"start":1,"end":501},"filters":{"visibility_level":"public"}`, false},
		{`"node_ids":[1]`, `"filters":{"visibility_level":"public"}`, false},
		{`"filters":{"username":"alice"}`, `"node_ids":[3]`, false},
		// end - start overflows int64 to -1: the range spans every id, not one.
		{`"node_ids":[1]`, `"id_range":{"start":-9223372036854775808,"end":9223372036854775807},"filters":{"visibility_level":"public"}`, false},
		{`"node_ids":[1]`, `"id_range":{"start":-9223372036854775000,"end":9223372036854775000},"filters":{"visibility_level":"public"}`, false},
	} {
		q := `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User",` + tc.from + `},{"id":"p","entity":"Project",` + tc.to + `}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`
		cq, err := c.Compile([]byte(q), &Caller{Admin: true})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if !cq.Plan.Paths() || cq.Plan.paths.anchorsLate != tc.late {
			t.Errorf("%s: anchors late %v, want %v", q, cq.Plan.Paths() && cq.Plan.paths.anchorsLate, tc.late)
		}
		// The first statement returns the anchors unless they come late; either way a0
		// seeds its edges.
		if got := len(stepArms(cq.Plan.paths.first, partFrom)) > 0; got == tc.late {
			t.Errorf("%s: the first statement returns a0: %v, want %v", q, got, !tc.late)
		}
		if !strings.Contains(cq.Plan.Edges().SQL, "FROM a0") {
			t.Errorf("%s: the first statement does not seed f1 by a0:\n%s", q, cq.Plan.Edges().SQL)
		}
	}
}

// TestPathAnchorsNamedByIDUnsorted: an anchor that names at most 500 ids (node_ids, or an
// id_range of at most 500 ids) is read without the ORDER BY id LIMIT 500 that keeps the 500
// lowest, which could cut nothing there, in the one-statement form and in both statements of
// the plan in steps; an anchor chosen by a filter, or a wider range, keeps them everywhere.
func TestPathAnchorsNamedByIDUnsorted(t *testing.T) {
	c := newTestCompiler(t)
	sorted := regexp.MustCompile(`ORDER BY t\.id ASC\s+LIMIT 500\b`)
	for _, tc := range []struct {
		to     string
		sorted bool
	}{
		{`"id_range":{"start":1,"end":40}`, false},
		{`"id_range":{"start":1,"end":500}`, false},
		{`"node_ids":[4,9]`, false},
		{`"id_range":{"start":1,"end":501},"filters":{"visibility_level":"public"}`, true},
		{`"filters":{"visibility_level":"public"}`, true},
	} {
		q := `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project",` + tc.to + `}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]}}`
		cq, err := c.Compile([]byte(q), &Caller{Admin: true})
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		statements := map[string]string{"one statement": cq.SQL, "first": cq.Plan.Edges().SQL}
		if cq.Plan.paths.anchorsLate {
			sq, err := c.PathStep(cq, nil, nil, true)
			if err != nil || sq == nil {
				t.Fatalf("%s: path step %v, %v", q, sq, err)
			}
			statements["second"] = sq.SQL
		}
		for name, sql := range statements {
			if got := sorted.MatchString(sql); got != tc.sorted {
				t.Errorf("%s: %s statement sorts an anchor: %v, want %v:\n%s", q, name, got, tc.sorted, sql)
			}
		}
	}
}
