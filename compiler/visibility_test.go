package compiler_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/ontology"
)

var adminCaller = &compiler.Caller{Subject: "1", Admin: true}

// userAdminOnly lists User's admin-only properties as the ontology declares them.
func userAdminOnly(t *testing.T) []string {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	u, ok := ont.Entity("User")
	if !ok {
		t.Fatal("no User entity")
	}
	names := u.AdminOnlyProperties()
	if len(names) == 0 {
		t.Fatal("User has no admin-only properties; the test would prove nothing")
	}
	return names
}

// TestAdminOnlyPropertyRefused: a caller who is not an administrator naming an admin-only
// property anywhere a property can be named gets ADMIN_ONLY_PROPERTY at that place; an
// administrator's identical query compiles.
func TestAdminOnlyPropertyRefused(t *testing.T) {
	c := newCompiler(t)
	const mrUser = `"nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1]},{"id":"u","entity":"User"}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}]`
	tests := []struct {
		name, query, wantPath string
	}{
		{"filter value", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"is_admin":true}}]}`, "/nodes/0/filters/is_admin"},
		{"filter operator", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","filters":{"email":{"ends_with":"@example.com"}}}]}`, "/nodes/0/filters/email"},
		{"filter on a later node", `{"query_type":"traversal",` + strings.Replace(mrUser, `"entity":"User"`, `"entity":"User","filters":{"is_auditor":false}`, 1) + `}`, "/nodes/1/filters/is_auditor"},
		{"order_by", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2]}],"order_by":"-u.last_name"}`, "/order_by"},
		{"group_by key", `{"query_type":"aggregation",` + mrUser + `,"group_by":["u.is_external"],"aggregations":[{"count":"mr"}]}`, "/group_by/0"},
		{"group_by object", `{"query_type":"aggregation",` + mrUser + `,"group_by":[{"key":"u.updated_at","truncate":"day"}],"aggregations":[{"count":"mr"}]}`, "/group_by/0/key"},
		{"aggregation max", `{"query_type":"aggregation",` + mrUser + `,"aggregations":[{"max":"u.updated_at"}]}`, "/aggregations/0/max"},
		{"aggregation count of a property", `{"query_type":"aggregation",` + mrUser + `,"aggregations":[{"count":"mr"},{"count":"u.email"}]}`, "/aggregations/1/count"},
		{"neighbors order_by", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1]}],"neighbors":{},"order_by":"u.first_name"}`, "/order_by"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := c.Compile([]byte(tt.query), specCaller)
			var ce *compiler.Error
			if !errors.As(err, &ce) || !errors.Is(err, compiler.ErrAdminOnlyProperty) {
				t.Fatalf("non-admin: err = %v, want ADMIN_ONLY_PROPERTY (query compiled: %v)", err, q != nil)
			}
			if ce.Path != tt.wantPath || ce.Kind() != compiler.KindPermissionDenied || ce.Reason() != "ADMIN_ONLY_PROPERTY" {
				t.Errorf("non-admin: path, kind, reason = %q, %s, %s; want %q, permission_denied, ADMIN_ONLY_PROPERTY", ce.Path, ce.Kind(), ce.Reason(), tt.wantPath)
			}
			if _, err := c.Compile([]byte(tt.query), adminCaller); err != nil {
				t.Errorf("admin: %v", err)
			}
		})
	}
}

// TestAdminOnlyColumnStripped: a caller who is not an administrator naming an admin-only
// property in columns gets the answer without it, as in Orbit, in every query type; an
// administrator gets it.
func TestAdminOnlyColumnStripped(t *testing.T) {
	c := newCompiler(t)
	tests := []struct {
		name, query string
		node        int
		want        []string
	}{
		{"traversal", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username","email"]}]}`, 0, []string{"username"}},
		{"only admin-only columns", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["email","is_admin"]}]}`, 0, nil},
		{"neighbors center", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["preferred_language","name"]}],"neighbors":{}}`, 0, []string{"name"}},
		{"path endpoint", `{"query_type":"path_finding","nodes":[{"id":"p","entity":"Project","node_ids":[1]},{"id":"u","entity":"User","node_ids":[1],"columns":["private_profile"]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF"]}}`, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := c.Compile([]byte(tt.query), specCaller)
			if err != nil {
				t.Fatalf("non-admin: %v", err)
			}
			if got := planColumnNames(q.Plan.Build.Nodes[tt.node].Columns); !slices.Equal(got, tt.want) {
				t.Errorf("non-admin columns %v, want %v", got, tt.want)
			}
			q, err = c.Compile([]byte(tt.query), adminCaller)
			if err != nil {
				t.Fatalf("admin: %v", err)
			}
			if got := planColumnNames(q.Plan.Build.Nodes[tt.node].Columns); len(got) <= len(tt.want) {
				t.Errorf("admin columns %v, want the admin-only ones too", got)
			}
		})
	}
}

// planColumnNames lists the names of a plan node's columns.
func planColumnNames(cs []graphresponse.PlanColumn) []string {
	var out []string
	for _, pc := range cs {
		out = append(out, pc.Name)
	}
	return out
}

// TestAdminOnlyOmittedFromSelections: "*", the default columns and the dynamic columns of
// neighbors and paths select no admin-only property for a caller who is not an
// administrator (and every one of them for an administrator), in the base statement, the
// builder plan and the hydration statement.
func TestAdminOnlyOmittedFromSelections(t *testing.T) {
	c := newCompiler(t)
	hidden := userAdminOnly(t)
	queries := []struct{ name, query string }{
		{"traversal star", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2],"columns":"*"}]}`},
		{"traversal defaults", `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1,2]}]}`},
		{"neighbors dynamic star", `{"query_type":"neighbors","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1],"columns":"*"}],"neighbors":{"direction":"incoming","rel_types":["AUTHORED"]},"options":{"dynamic_columns":"*"}}`},
		{"path star", `{"query_type":"path_finding","nodes":[{"id":"p","entity":"Project","node_ids":[1]},{"id":"u","entity":"User","node_ids":[1],"columns":"*"}],"path":{"type":"shortest","from":"u","to":"p","max_depth":3,"rel_types":"*"},"options":{"dynamic_columns":"*"}}`},
	}
	for _, qq := range queries {
		for _, caller := range []*compiler.Caller{specCaller, adminCaller} {
			t.Run(qq.name+map[bool]string{true: "/admin", false: "/scoped"}[caller.Admin], func(t *testing.T) {
				q, err := c.Compile([]byte(qq.query), caller)
				if err != nil {
					t.Fatal(err)
				}
				var selected []string // User columns anywhere in the plan
				for _, n := range q.Plan.Build.Nodes {
					if n.Entity == "User" {
						selected = append(selected, planColumnNames(n.Columns)...)
					}
				}
				for _, k := range q.Plan.Build.Hydration {
					if k.Entity == "User" {
						selected = append(selected, planColumnNames(k.Columns)...)
						selected = append(selected, k.Dynamic...)
					}
				}
				sqls := []string{q.SQL}
				if q.Plan.NeedsHydration() {
					hq, err := c.Hydrate(q, []graphresponse.NodeRef{{Kind: "User", ID: 1}})
					if err != nil {
						t.Fatal(err)
					}
					sqls = append(sqls, hq.SQL)
				}
				star := strings.Contains(qq.query, `"*"`)
				for _, h := range hidden {
					got := slices.Contains(selected, h)
					inSQL := false
					for _, s := range sqls {
						inSQL = inSQL || strings.Contains(s, "t."+h+" ") || strings.Contains(s, "t."+h+")")
					}
					switch {
					case !caller.Admin && (got || inSQL):
						t.Errorf("scoped caller selects admin-only %s (plan %v, SQL %v)", h, got, inSQL)
					case caller.Admin && star && !got:
						t.Errorf("admin's \"*\" lacks %s", h)
					}
				}
			})
		}
	}
}

// TestVirtualProperties: a virtual property whose value graphwire holds (File.content,
// Definition.content, MergeRequestDiffFile.diff) is selectable; one it derives from the diff
// files (MergeRequest.diff, MergeRequestDiff.patch) is selectable when named, is planned as
// derived (a second statement reads it), and "*" leaves it out, as Orbit's "*" leaves out
// virtual columns.
func TestVirtualProperties(t *testing.T) {
	c := newCompiler(t)
	search := func(entity, cols string) string {
		return `{"query_type":"traversal","nodes":[{"id":"n","entity":"` + entity + `","node_ids":[1],"columns":` + cols + `}]}`
	}
	for _, caller := range []*compiler.Caller{specCaller, adminCaller} {
		for _, served := range []struct{ entity, prop string }{{"File", "content"}, {"Definition", "content"}, {"MergeRequestDiffFile", "diff"}} {
			q, err := c.Compile([]byte(search(served.entity, `["`+served.prop+`"]`)), caller)
			if err != nil {
				t.Errorf("%s.%s: %v", served.entity, served.prop, err)
				continue
			}
			if got := planColumnNames(q.Plan.Build.Nodes[0].Columns); !slices.Equal(got, []string{served.prop}) {
				t.Errorf("%s.%s: columns %v", served.entity, served.prop, got)
			}
			if len(q.Plan.Build.Derived) != 0 {
				t.Errorf("%s.%s: derived %v, want none", served.entity, served.prop, q.Plan.Build.Derived)
			}
		}
		for _, derived := range []struct{ entity, prop string }{{"MergeRequest", "diff"}, {"MergeRequestDiff", "patch"}} {
			q, err := c.Compile([]byte(search(derived.entity, `["id","`+derived.prop+`"]`)), caller)
			if err != nil {
				t.Errorf("%s.%s: %v", derived.entity, derived.prop, err)
				continue
			}
			want := []graphresponse.PlanDerived{{Entity: derived.entity, Property: derived.prop}}
			if !slices.Equal(q.Plan.Build.Derived, want) {
				t.Errorf("%s.%s: derived %v, want %v", derived.entity, derived.prop, q.Plan.Build.Derived, want)
			}
			q, err = c.Compile([]byte(search(derived.entity, `"*"`)), caller)
			if err != nil {
				t.Fatal(err)
			}
			if got := planColumnNames(q.Plan.Build.Nodes[0].Columns); slices.Contains(got, derived.prop) || len(got) < 3 || len(q.Plan.Build.Derived) != 0 {
				t.Errorf("%s \"*\" = %v (derived %v), want every column but %s", derived.entity, got, q.Plan.Build.Derived, derived.prop)
			}
		}
	}
}

// TestOrbitLeniency covers queries Orbit answers that graphwire used to refuse: eq, in,
// order_by and group keys on the titles of merge requests, work items and vulnerabilities
// (plain strings in Orbit, long text here before), order_by on long text without a
// cursor, and neighbors whose relationship types cannot touch the center (no rows, not an
// error).
func TestOrbitLeniency(t *testing.T) {
	c := newCompiler(t)
	tests := []struct{ name, query string }{
		{"eq on MergeRequest.title", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"title":"Fix login"}}]}`},
		{"in on WorkItem.title", `{"query_type":"traversal","nodes":[{"id":"w","entity":"WorkItem","filters":{"title":["a","b"]}}]}`},
		{"order_by Vulnerability.title", `{"query_type":"traversal","nodes":[{"id":"v","entity":"Vulnerability","node_ids":[1,2]}],"order_by":"-v.title","cursor":{"page_size":5}}`},
		{"group by MergeRequest.title", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"group_by":["mr.title"],"aggregations":[{"count":"mr"}]}`},
		{"min of MergeRequest.title", `{"query_type":"aggregation","nodes":[{"id":"mr","entity":"MergeRequest","filters":{"state":"merged"}}],"aggregations":[{"min":"mr.title"}]}`},
		{"order_by long text without cursor", `{"query_type":"traversal","nodes":[{"id":"mr","entity":"MergeRequest","node_ids":[1,2]}],"order_by":"mr.description"}`},
		{"neighbors over a type that never touches the center", `{"query_type":"neighbors","nodes":[{"id":"u","entity":"User","node_ids":[1]}],"neighbors":{"direction":"incoming","rel_types":["AUTHORED"]}}`},
		{"neighbors with no type in that direction", `{"query_type":"neighbors","nodes":[{"id":"p","entity":"Project","node_ids":[1]}],"neighbors":{"direction":"outgoing"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := c.Compile([]byte(tt.query), specCaller); err != nil {
				t.Errorf("Compile: %v", err)
			}
		})
	}
}
