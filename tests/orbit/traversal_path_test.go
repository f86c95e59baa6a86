package orbit_test

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

// tpNodes lists "Type:id:traversal_path" for every node of r that carries traversal_path:
// the nodes, and the nodes of group-by-node buckets of aggregation rows.
func tpNodes(t *testing.T, r *graphresponse.Response) []string {
	t.Helper()
	var out []string
	add := func(typ string, id int64, v graphresponse.Value) {
		if v.Kind() != graphresponse.KindString {
			t.Errorf("%s:%d traversal_path is %s, want a string", typ, id, v.Kind())
			return
		}
		out = append(out, typ+":"+strconv.FormatInt(id, 10)+":"+v.Str())
	}
	for _, n := range r.Nodes {
		if v, ok := n.Prop("traversal_path"); ok {
			add(n.Type, n.ID, v)
		}
	}
	for _, row := range r.Rows {
		for _, m := range row {
			props, ok := m.Value.Get("properties")
			if !ok {
				continue
			}
			typ, _ := m.Value.Get("type")
			idv, _ := m.Value.Get("id")
			id, err := strconv.ParseInt(idv.Str(), 10, 64)
			if err != nil {
				t.Fatalf("bucket id %q: %v", idv.Str(), err)
			}
			if v, ok := props.Get("traversal_path"); ok {
				add(typ.Str(), id, v)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tpOracle reads, with plain SQL, "Type:id:traversal_path" of the live rows behind the nodes
// of r that belong to namespaced entities: what tpNodes must equal.
func tpOracle(t *testing.T, ont *ontology.Ontology, r *graphresponse.Response) []string {
	t.Helper()
	ids := map[string][]string{}
	for _, n := range r.Nodes {
		ids[n.Type] = append(ids[n.Type], strconv.FormatInt(n.ID, 10))
	}
	for _, row := range r.Rows {
		for _, m := range row {
			if _, ok := m.Value.Get("properties"); ok {
				typ, _ := m.Value.Get("type")
				idv, _ := m.Value.Get("id")
				ids[typ.Str()] = append(ids[typ.Str()], idv.Str())
			}
		}
	}
	var out []string
	for _, e := range ont.Entities {
		if len(ids[e.Name]) == 0 || !e.Namespaced() {
			continue
		}
		for _, row := range plain(t, "SELECT concat('"+e.Name+":', toString(id), ':', traversal_path) FROM "+e.Table+" "+live+" AND id IN ("+strings.Join(ids[e.Name], ",")+")") {
			out = append(out, row[0].(string))
		}
	}
	slices.Sort(out)
	return out
}

// TestTraversalPathColumn: traversal_path named in columns, "*" or dynamic "*" comes back as a
// string property equal to the row's column, for an administrator and for a scoped caller
// (whose values all lie under the caller's scope), in every query type that returns nodes;
// global entities never carry it; every output format that prints properties carries the
// values.
func TestTraversalPathColumn(t *testing.T) {
	engine(t)
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	global := map[string]bool{}
	for _, e := range ont.Entities {
		global[e.Name] = !e.Namespaced()
	}
	first := plain(t, "SELECT traversal_path, toString(id) FROM gl_project "+live+" AND id IN (SELECT target_id FROM gl_edge "+live+" AND relationship_kind = 'IN_PROJECT' AND source_kind = 'MergeRequest') ORDER BY id LIMIT 1")
	if len(first) == 0 {
		t.Fatal("no project has merge requests")
	}
	scope, project := first[0][0].(string), first[0][1].(string)
	scoped := &compiler.Caller{Subject: "2", Scopes: []compiler.Scope{{Path: scope, Level: 50}}}
	mrs := plain(t, "SELECT toString(source_id) FROM gl_edge "+live+" AND relationship_kind = 'IN_PROJECT' AND source_kind = 'MergeRequest' AND target_id = "+project+" AND source_id IN "+liveIDs("gl_merge_request")+" ORDER BY source_id LIMIT 1")
	if len(mrs) == 0 {
		t.Fatal("the project has no live merge request")
	}
	mr := mrs[0][0].(string)

	queries := []struct{ name, query string }{
		{"traversal named", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":400},"columns":["title","traversal_path"]},{"id":"p","entity":"Project","columns":["traversal_path"]},{"id":"u","entity":"User","columns":"*"}],
			"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"},{"type":"AUTHORED","from":"u","to":"mr"}],"limit":1000}`},
		{"traversal star", `{"query_type":"traversal","nodes":[{"id":"p","entity":"Project","node_ids":[` + project + `],"columns":"*"}],"limit":10}`},
		{"aggregation group by node", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":400}},{"id":"p","entity":"Project","columns":["name","traversal_path"]}],
			"relationships":[{"type":"IN_PROJECT","from":"mr","to":"p"}],"group_by":["p"],"aggregations":[{"count":"mr","as":"n"}],"limit":1000}`},
		{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[` + project + `],"columns":["traversal_path"]}],"neighbors":{"direction":"both"},"options":{"dynamic_columns":"*"},"limit":1000}`},
		{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[` + mr + `],"columns":["traversal_path"]},{"id":"p","entity":"Project","node_ids":[` + project + `],"columns":["traversal_path"]}],
			"path":{"type":"shortest","from":"mr","to":"p","max_depth":2,"rel_types":"*"},"options":{"dynamic_columns":"*"},"limit":100}`},
	}
	callers := []struct {
		name   string
		caller *compiler.Caller
	}{{"admin", admin}, {"scoped", scoped}}
	formats := formatter.Default()
	for _, q := range queries {
		for _, c := range callers {
			t.Run(q.name+"/"+c.name, func(t *testing.T) {
				r := run(t, q.query, c.caller)
				got := tpNodes(t, r)
				if len(got) == 0 {
					t.Fatal("no node carries traversal_path; the case proves nothing")
				}
				if diff := cmp.Diff(tpOracle(t, ont, r), got); diff != "" {
					t.Errorf("traversal_path values differ from plain SQL (-want +got):\n%s", diff)
				}
				for _, n := range r.Nodes {
					_, has := n.Prop("traversal_path")
					if global[n.Type] && has {
						t.Errorf("global %s:%d carries traversal_path", n.Type, n.ID)
					}
				}
				if c.caller == scoped {
					for _, s := range got {
						if tp := s[strings.LastIndexByte(s[:len(s)-1], ':')+1:]; !strings.HasPrefix(tp, scope) {
							t.Errorf("scoped caller sees %s outside its scope %s", s, scope)
						}
					}
				}
				for _, f := range formats.Formatters() {
					if f.Name() == formatter.GCFGraph {
						continue // topology only: it never prints property values (docs/formats.md)
					}
					var buf bytes.Buffer
					err := f.Format(&buf, r)
					if f.Name() == formatter.GCB1 && r.QueryType == graphresponse.QueryAggregation && errors.Is(err, formatter.ErrUnrepresentable) {
						continue // no topology to carry: refused (docs/formats.md, "GCB1")
					}
					if err != nil {
						t.Fatalf("format %s: %v", f.Name(), err)
					}
					for _, s := range got {
						if tp := s[strings.LastIndexByte(s[:len(s)-1], ':')+1:]; !bytes.Contains(buf.Bytes(), []byte(tp)) {
							t.Errorf("%s output lacks traversal_path %q", f.Name(), tp)
						}
					}
				}
			})
		}
	}
}
