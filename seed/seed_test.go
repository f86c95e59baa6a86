package seed_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
	"github.com/graphwire/graphwire/seed"
)

func loadOntology(t testing.TB) *ontology.Ontology {
	t.Helper()
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func generate(t testing.TB, o *ontology.Ontology, opts seed.Options) *seed.Graph {
	t.Helper()
	g, err := seed.Generate(o, opts)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDeterministic(t *testing.T) {
	o := loadOntology(t)
	a := digest(generate(t, o, seed.Options{Scale: 0.5, Seed: 7}))
	b := digest(generate(t, o, seed.Options{Scale: 0.5, Seed: 7}))
	if a != b {
		t.Fatalf("same options, different graphs: %s vs %s", a, b)
	}
	if c := digest(generate(t, o, seed.Options{Scale: 0.5, Seed: 8})); a == c {
		t.Error("seeds 7 and 8 gave the same graph")
	}
}

// digest hashes every table, column and typed value of g. (cmp.Diff is quadratic on tables
// this large.)
func digest(g *seed.Graph) string {
	h := sha256.New()
	for _, tb := range g.Tables {
		fmt.Fprintf(h, "%s %q\n", tb.Name, tb.Columns)
		for _, r := range tb.Rows {
			for _, v := range r {
				fmt.Fprintf(h, "%T:%#v|", v, v)
			}
			h.Write([]byte{'\n'})
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestShape(t *testing.T) {
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 1})
	if n := g.Nodes(); n < 9_000 || n > 15_000 {
		t.Errorf("scale 1 has %d nodes, want about 10 000", n)
	}
	if n := g.Edges(); n < 20_000 || n > 50_000 {
		t.Errorf("scale 1 has %d edges, want about 25 000-40 000", n)
	}
	for _, e := range o.Entities {
		tb := g.Table(e.Table)
		if tb == nil || len(tb.Rows) < 2 {
			t.Errorf("table %s has no rows", e.Table)
			continue
		}
		if diff := cmp.Diff(e.Columns(), tb.Columns); diff != "" {
			t.Errorf("%s columns (-want +got):\n%s", e.Table, diff)
		}
		if last := tb.Rows[len(tb.Rows)-1][0]; last != int64(seed.LargeID) {
			t.Errorf("%s: last id %v, want %d", e.Table, last, seed.LargeID)
		}
	}
	kinds := map[string]int{}
	for _, r := range g.Table("gl_edge").Rows {
		kinds[r[1].(string)]++
	}
	for _, r := range o.Relationships {
		if kinds[r.Name] == 0 {
			t.Errorf("relationship %s has no edges", r.Name)
		}
	}
	// Several top-level namespaces.
	tops := 0
	for _, r := range g.Table("gl_group").Rows {
		if strings.Count(r[1].(string), "/") == 1 && r[0] != int64(seed.LargeID) {
			tops++
		}
	}
	if tops < 3 {
		t.Errorf("%d top-level groups, want at least 3", tops)
	}
}

// TestSpecialContent checks the rows end-to-end tests rely on (docs/clickhouse.md, "Seed data
// and raw SQL").
func TestSpecialContent(t *testing.T) {
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 0.2})
	users := rowsByID(g, o, "User")
	want := map[int64][2]string{1: {"alice", "Alice Admin"}, 2: {"bob", `Bob "the Builder"`}, 3: {"zoe", "Zoë Ångström 🚀"}}
	for id, w := range want {
		got := [2]string{users[id]["username"].(string), users[id]["name"].(string)}
		if got != w {
			t.Errorf("user %d = %q, want %q", id, got, w)
		}
	}
	title := rowsByID(g, o, "MergeRequest")[1]["title"].(string)
	if !strings.Contains(title, "\n") || !strings.Contains(title, `\`) {
		t.Errorf("merge request 1 title %q lacks a newline or a backslash", title)
	}
	notes := rowsByID(g, o, "Note")
	gotBools := [][2]any{}
	for id := int64(1); id <= 3; id++ {
		gotBools = append(gotBools, [2]any{notes[id]["internal"], notes[id]["resolved"]})
	}
	if diff := cmp.Diff([][2]any{{true, nil}, {false, true}, {false, false}}, gotBools); diff != "" {
		t.Errorf("notes 1-3 (internal, resolved) (-want +got):\n%s", diff)
	}
	if n := len(notes[1]["note"].(string)); n != 100_000 {
		t.Errorf("note 1 has %d characters, want 100000", n)
	}
	var all strings.Builder
	for _, r := range g.Table("gl_note").Rows {
		fmt.Fprint(&all, r[2], "\x1e")
	}
	for _, s := range []string{"'", `"`, `\`, "\t", "\n", "\r", "\x00", `\N`, "{p0:String}", "%", "_", "'); DROP TABLE gl_note; --", "🚀"} {
		if !strings.Contains(all.String(), s) {
			t.Errorf("no note contains %q", s)
		}
	}
	groups := 0
	for _, r := range g.Table("gl_group").Rows {
		if r[0] != int64(seed.LargeID) {
			groups++
		}
	}
	if groups == 0 {
		t.Error("no groups")
	}
	var memberOf, authored bool
	for _, r := range g.Table("gl_edge").Rows {
		memberOf = memberOf || r[1] == "MEMBER_OF" && r[3] == int64(1)
		authored = authored || r[1] == "AUTHORED" && r[3] == int64(1)
	}
	if !memberOf || !authored {
		t.Errorf("alice has MEMBER_OF %v, AUTHORED %v; want both", memberOf, authored)
	}
}

func rowsByID(g *seed.Graph, o *ontology.Ontology, entity string) map[int64]map[string]any {
	e, _ := o.Entity(entity)
	tb := g.Table(e.Table)
	out := map[int64]map[string]any{}
	for _, r := range tb.Rows {
		m := map[string]any{}
		for i, c := range tb.Columns {
			m[c] = r[i]
		}
		out[r[0].(int64)] = m
	}
	return out
}

type edgeKey struct {
	kind, from string
	fromID     int64
	to         string
	toID       int64
}

// TestForeignKeysMatchEdges checks the rules of docs/loading.md, "Paths and foreign keys":
// where a pair has an fk, the property and the edge agree both ways, and an edge carries the
// path of its namespaced endpoint.
func TestForeignKeysMatchEdges(t *testing.T) {
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 0.5})
	edges := map[edgeKey]string{}
	for _, r := range g.Table("gl_edge").Rows {
		edges[edgeKey{r[1].(string), r[2].(string), r[3].(int64), r[4].(string), r[5].(int64)}] = r[0].(string)
	}
	rows := map[string]map[int64]map[string]any{}
	for _, e := range o.Entities {
		rows[e.Name] = rowsByID(g, o, e.Name)
	}
	for _, rel := range o.Relationships {
		for _, p := range rel.Pairs {
			if p.FK == "" {
				continue
			}
			side, prop, _ := strings.Cut(p.FK, ".")
			holder, other := p.From, p.To
			if side == "to" {
				holder, other = p.To, p.From
			}
			fromHolder := 0
			for id, r := range rows[holder] {
				if id == seed.LargeID || r[prop] == nil {
					continue
				}
				k := edgeKey{rel.Name, p.From, id, p.To, r[prop].(int64)}
				if side == "to" {
					k = edgeKey{rel.Name, p.From, r[prop].(int64), p.To, id}
				}
				if _, ok := edges[k]; !ok {
					t.Errorf("%s.%s = %v but no edge %+v", holder, prop, r[prop], k)
				}
				fromHolder++
			}
			count := 0
			for k := range edges {
				if k.kind != rel.Name || k.from != p.From || k.to != p.To {
					continue
				}
				count++
				hid, oid := k.fromID, k.toID
				if side == "to" {
					hid, oid = k.toID, k.fromID
				}
				if got := rows[holder][hid][prop]; got != oid {
					t.Errorf("edge %+v but %s %d has %s = %v", k, holder, hid, prop, got)
				}
			}
			if count != fromHolder {
				t.Errorf("%s %s→%s: %d edges, %d rows with %s (other side %s)", rel.Name, p.From, p.To, count, fromHolder, p.FK, other)
			}
		}
	}
	for k, path := range edges {
		from, _ := o.Entity(k.from)
		ent, id := k.from, k.fromID
		if !from.Namespaced() {
			ent, id = k.to, k.toID
		}
		if got := rows[ent][id]["traversal_path"]; got != path {
			t.Fatalf("edge %+v has path %q, its namespaced endpoint %s %d has %q", k, path, ent, id, got)
		}
	}
}

// TestEdgesAreDeclaredPairs checks that every seeded edge's (relationship, source kind,
// target kind) is a pair the ontology declares: the compiler matches single hops and
// neighbors against declared pairs only, so an undeclared stored edge is data no query
// shape reaches consistently.
func TestEdgesAreDeclaredPairs(t *testing.T) {
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 1})
	type pair struct{ kind, from, to string }
	declared := map[pair]bool{}
	for _, rel := range o.Relationships {
		for _, p := range rel.Pairs {
			declared[pair{rel.Name, p.From, p.To}] = true
		}
	}
	undeclared := map[pair]int{}
	for _, r := range g.Table(o.EdgeTable).Rows {
		if p := (pair{r[1].(string), r[2].(string), r[4].(string)}); !declared[p] {
			undeclared[p]++
		}
	}
	var msgs []string
	for p, n := range undeclared {
		msgs = append(msgs, fmt.Sprintf("%d seeded %s edges from %s to %s, a pair the ontology does not declare", n, p.kind, p.from, p.to))
	}
	slices.Sort(msgs)
	for _, m := range msgs {
		t.Error(m)
	}
}
