package compilertest_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/graphresponse"
)

// userProps collects the property keys of every User node of r: the nodes of traversal,
// neighbors and path responses and the User buckets of aggregation rows.
func userProps(r *graphresponse.Response) []map[string]bool {
	var out []map[string]bool
	for _, n := range r.Nodes {
		if n.Type == "User" {
			keys := map[string]bool{}
			for _, m := range n.Props {
				keys[m.Key] = true
			}
			out = append(out, keys)
		}
	}
	for _, row := range r.Rows {
		for _, cell := range row {
			typ, _ := cell.Value.Get("type")
			props, ok := cell.Value.Get("properties")
			if typ.Str() != "User" || !ok {
				continue
			}
			keys := map[string]bool{}
			for _, m := range props.Members() {
				keys[m.Key] = true
			}
			out = append(out, keys)
		}
	}
	return out
}

// TestAdminOnlyNeverReachesScopedCaller runs every query type, each asking for all columns
// ("*", dynamic_columns "*", node group keys) of User nodes, on the seeded graph as a
// Developer on every top-level group (who reads every namespaced row) and as an
// administrator. The scoped caller's User nodes carry no admin-only property; the
// administrator's carry all of them, so the queries do reach those columns.
func TestAdminOnlyNeverReachesScopedCaller(t *testing.T) {
	w := loadWorld(t)
	u, _ := env.ont.Entity("User")
	hidden := u.AdminOnlyProperties()
	if len(hidden) == 0 {
		t.Fatal("User has no admin-only properties")
	}
	var scopes []scopeSpec
	for _, p := range topLevel(w) {
		scopes = append(scopes, scopeSpec{p, 30})
	}
	scoped := callerWith(scopes...)
	authors := plain(t, "SELECT author_id FROM gl_merge_request "+live+" AND id = 1")
	if len(authors) != 1 {
		t.Fatalf("merge request 1 has %d author rows", len(authors))
	}
	author := strconv.FormatInt(authors[0][0].(int64), 10)
	queries := []struct{ name, query string }{
		{"search", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":200},"columns":"*"}],"limit":50}`},
		{"traversal", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":50}},{"id":"u","entity":"User","columns":"*"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"limit":50}`},
		{"aggregation", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","id_range":{"start":1,"end":50}},{"id":"u","entity":"User","columns":"*"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"group_by":["u"],"aggregations":[{"count":"mr"}]}`},
		{"neighbors", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2,3,4,5]}],"neighbors":{"direction":"incoming"},"options":{"dynamic_columns":"*"},"limit":200}`},
		{"path_finding", `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[` + author + `],"columns":"*"},{"id":"p","entity":"Project","id_range":{"start":1,"end":400}}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["AUTHORED","IN_PROJECT"]},"options":{"dynamic_columns":"*"}}`},
	}
	for _, qq := range queries {
		t.Run(qq.name, func(t *testing.T) {
			for _, caller := range []*compiler.Caller{scoped, admin} {
				users := userProps(run(t, qq.query, caller))
				if len(users) == 0 {
					t.Fatalf("admin %v: no User node in the response; the query proves nothing", caller.Admin)
				}
				for _, keys := range users {
					for _, h := range hidden {
						if keys[h] == caller.Admin {
							continue
						}
						if caller.Admin {
							t.Errorf("admin: a User node lacks %s", h)
						} else {
							t.Errorf("scoped caller received admin-only User.%s", h)
						}
					}
				}
			}
		})
	}
	// Naming one leaves it out of the scoped caller's answer (as Orbit strips it); the
	// administrator gets it.
	for _, h := range hidden {
		q := `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":200},"columns":["username","` + h + `"]}]}`
		for _, caller := range []*compiler.Caller{scoped, admin} {
			users := userProps(run(t, q, caller))
			if len(users) == 0 {
				t.Fatalf("column %s: no User node in the response", h)
			}
			for _, keys := range users {
				if keys[h] != caller.Admin || !keys["username"] {
					t.Errorf("column %s, admin %v: properties %v", h, caller.Admin, keys)
					break
				}
			}
		}
	}
	if slices.Contains(hidden, "username") {
		t.Fatal("username is admin-only; the check above is wrong")
	}
}

// TestNeighborsWithoutPossibleEdges: a neighbors query whose relationship types cannot link
// the center in the requested direction answers with no edges and no neighbor nodes (as
// Orbit does) instead of failing, for a named type and for the whole ontology.
func TestNeighborsWithoutPossibleEdges(t *testing.T) {
	engine(t)
	for _, q := range []string{
		`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]}],"neighbors":{"direction":"incoming","rel_types":["AUTHORED"]}}`,
		`{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1,2,3]}],"neighbors":{"direction":"incoming"}}`,
		`{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1,2,3]}],"neighbors":{"direction":"outgoing"}}`,
	} {
		for _, caller := range []*compiler.Caller{admin, callerWith(scopeSpec{"1/", 50})} {
			got := run(t, q, caller)
			if len(got.Edges) != 0 {
				t.Errorf("%s: %d edges, want none", q, len(got.Edges))
			}
			for _, n := range got.Nodes {
				if n.Type != "User" && n.Type != "Project" {
					t.Errorf("%s: neighbor node %s %d", q, n.Type, n.ID)
				}
			}
		}
	}
	// The same center does have neighbors the other way, so the queries above could match.
	if got := run(t, `{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1,2,3]}],"neighbors":{"direction":"incoming"}}`, admin); len(got.Edges) == 0 {
		t.Error("projects 1-3 have no incoming edges; the test proves nothing")
	}
}
