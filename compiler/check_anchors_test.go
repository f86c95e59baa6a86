package compiler

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestCheckBoundsEdgesAtLateAnchors: when both path anchors name their ids, the first
// statement of the path plan reads the edges at those ids and the second confirms the
// anchors (pathSteps.anchorsLate). Its edge scans start at no node set, so the plain check
// refuses the statement; checkAnchored accepts it only while every scan keeps to the kind and
// to ids the anchor names. Each mutant — the id bound dropped, the kind bound dropped or
// changed, an id the anchor does not name, the range widened at either end, the bound moved
// to the other end — is refused, for every caller and both compiler set-ups.
func TestCheckBoundsEdgesAtLateAnchors(t *testing.T) {
	queries := []string{
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":["MEMBER_OF","CONTAINS"]},"limit":5}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]},{"id":"p","entity":"Project","node_ids":[4,9]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF","CONTAINS"]}}`,
		`{"query_type":"path_finding","nodes":[{"id":"g","entity":"Group","id_range":{"start":50,"end":59}},{"id":"p","entity":"Project","node_ids":[7],"id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"g","to":"p","max_depth":1,"rel_types":["CONTAINS"]}}`,
		`{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"v","entity":"Vulnerability","id_range":{"start":1,"end":100}}],"path":{"type":"shortest","from":"u","to":"v","max_depth":3,"rel_types":"*"}}`,
	}
	refusal := "does not start at a set of authorised nodes"
	callers := append(slices.Clone(checkCallers), &Caller{Admin: true})
	mutants := 0
	for _, c := range []*Compiler{newTestCompiler(t), compilerWith(t, smallSizes{})} {
		for _, q := range queries {
			for ci, caller := range callers {
				cat := c.catalogFor(caller)
				first := func() (*selectStmt, []anchorEnd) {
					_, plan, err := c.lower([]byte(q), caller)
					if err != nil {
						t.Fatalf("lower %s: %v", q, err)
					}
					if plan.paths == nil || !plan.paths.anchorsLate {
						t.Fatalf("%s: no path plan with the anchors read late", q)
					}
					return plan.paths.first, plan.paths.anchorEnds()
				}
				stmt, ends := first()
				if err := checkAnchored(stmt, cat, caller, ends); err != nil {
					t.Fatalf("caller %d: the unmutated first statement of %s fails: %v", ci, q, err)
				}
				if err := check(stmt, cat, caller); !errors.Is(err, ErrSecurityCheckFailed) || !strings.Contains(err.Error(), refusal) {
					t.Errorf("caller %d: the plain check of the first statement of %s: %v, want a refusal", ci, q, err)
				}
				for _, part := range []string{partF1, partB1} {
					idCol := "source_id"
					if part == partB1 {
						idCol = "target_id"
					}
					if len(stepArms(stmt, part)) == 0 {
						continue // depth 1: no b1
					}
					for name, mutate := range anchorMutations(idCol) {
						stmt, ends := first()
						arm := stepArms(stmt, part)[0]
						if !mutate(arm) {
							continue // nothing of that form in this scan (an IN list, a range)
						}
						mutants++
						err := checkAnchored(stmt, cat, caller, ends)
						where := fmt.Sprintf("caller %d, %s %s, of %.100s", ci, part, name, q)
						if !errors.Is(err, ErrSecurityCheckFailed) {
							t.Errorf("%s: passed the check", where)
						} else if !strings.Contains(err.Error(), refusal) {
							t.Errorf("%s: refused for another reason: %v", where, err)
						}
					}
				}
			}
		}
	}
	if mutants == 0 {
		t.Fatal("no mutant")
	}
	t.Logf("%d mutants refused", mutants)
}

// anchorMutations are the rewrites of an edge scan's bound on its end idCol (and its kind)
// that must not pass; each reports whether the scan had something to rewrite.
func anchorMutations(idCol string) map[string]func(*selectStmt) bool {
	other := "target_id"
	if idCol == "target_id" {
		other = "source_id"
	}
	// each applies f to every conjunct of s on column name with a parameter, and reports
	// whether f changed one.
	each := func(s *selectStmt, name string, f func(b *binOp) expr) bool {
		changed := false
		for _, list := range []*[]expr{&s.prewhere, &s.where} {
			var out []expr
			for _, w := range *list {
				b, ok := w.(*binOp)
				if ok {
					if l, lok := b.l.(*colRef); lok && l.name == name {
						if _, pok := b.r.(*param); pok {
							if n := f(b); n != w {
								changed = true
								if n == nil {
									continue
								}
								w = n
							}
						}
					}
				}
				out = append(out, w)
			}
			*list = out
		}
		return changed
	}
	bump := func(ops map[string]int64) func(b *binOp) expr {
		return func(b *binOp) expr {
			d, ok := ops[b.op]
			if !ok {
				return b
			}
			p := b.r.(*param)
			switch v := p.val.(type) {
			case int64:
				return &binOp{op: b.op, l: b.l, r: prm(v+d, p.typ)}
			case []any:
				vals := append(slices.Clone(v), v[0].(int64)+d)
				return &binOp{op: b.op, l: b.l, r: prm(vals, p.typ)}
			}
			return b
		}
	}
	return map[string]func(*selectStmt) bool{
		"without its id bound": func(s *selectStmt) bool {
			return each(s, idCol, func(*binOp) expr { return nil })
		},
		"without its kind": func(s *selectStmt) bool {
			return each(s, kindCol(idCol), func(b *binOp) expr {
				if b.op == "=" {
					return nil
				}
				return b
			})
		},
		"with another kind": func(s *selectStmt) bool {
			return each(s, kindCol(idCol), func(b *binOp) expr {
				p := b.r.(*param)
				if b.op != "=" {
					return b
				}
				k := "Group"
				if p.val == "Group" {
					k = "Project"
				}
				return &binOp{op: "=", l: b.l, r: prm(k, p.typ)}
			})
		},
		"with an id it does not name": func(s *selectStmt) bool {
			return each(s, idCol, bump(map[string]int64{"=": 1000000, "IN": 1000000}))
		},
		"with its range widened up": func(s *selectStmt) bool {
			return each(s, idCol, bump(map[string]int64{"<=": 1}))
		},
		"with its range widened down": func(s *selectStmt) bool {
			return each(s, idCol, bump(map[string]int64{">=": -1}))
		},
		"with its bound on the other end": func(s *selectStmt) bool {
			moved := each(s, idCol, func(b *binOp) expr {
				return &binOp{op: b.op, l: col(b.l.(*colRef).qual, other), r: b.r}
			})
			return each(s, kindCol(idCol), func(b *binOp) expr {
				return &binOp{op: b.op, l: col(b.l.(*colRef).qual, kindCol(other)), r: b.r}
			}) && moved
		},
	}
}

// TestPathAnchorsLateOnlyWhenNamedByID: the first statement reads only edges, leaving the
// anchors to the second, when both anchors name their ids (node_ids, or an id_range of at
// most 500 ids); an anchor chosen by a filter alone, or by a wider range, is read first and
// seeds its edges, so that no edge of a node outside the 500 it stands for is read.
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
		if got := strings.Contains(cq.Plan.Edges().SQL, "FROM a0"); got == tc.late {
			t.Errorf("%s: the first statement reads a0: %v, want %v", q, got, !tc.late)
		}
	}
}

// TestCheckAnchoredRefusesWideAnchors: checkAnchored trusts nothing the lowering decided, so
// an anchor whose id_range spans more than maxAnchorSpan ids (an id_range wide enough that
// end - start overflows int64, too) bounds no edge scan, even one that keeps within it.
func TestCheckAnchoredRefusesWideAnchors(t *testing.T) {
	c := newTestCompiler(t)
	q := `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[1]},{"id":"p","entity":"Project","id_range":{"start":1,"end":40}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF","CONTAINS"]}}`
	for _, rng := range [][2]int64{{math.MinInt64, math.MaxInt64}, {-9223372036854775000, 9223372036854775000}, {1, 501}} {
		caller := &Caller{Admin: true}
		_, plan, err := c.lower([]byte(q), caller)
		if err != nil {
			t.Fatal(err)
		}
		stmt, ends := plan.paths.first, plan.paths.anchorEnds()
		if err := checkAnchored(stmt, c.catalogFor(caller), caller, ends); err != nil {
			t.Fatalf("unmutated: %v", err)
		}
		ends[1].rng = &rng
		b1 := stepArms(stmt, partB1)[0]
		for _, w := range slices.Concat(b1.prewhere, b1.where) {
			if b, ok := w.(*binOp); ok {
				if l, ok := b.l.(*colRef); ok && l.name == "target_id" {
					switch b.op {
					case ">=":
						b.r = prm(rng[0], typInt64)
					case "<=":
						b.r = prm(rng[1], typInt64)
					}
				}
			}
		}
		if err := checkAnchored(stmt, c.catalogFor(caller), caller, ends); !errors.Is(err, ErrSecurityCheckFailed) {
			t.Errorf("b1 bounded by an anchor range %v: %v, want a refusal", rng, err)
		}
	}
}
