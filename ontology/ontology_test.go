package ontology_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/ontology"
)

func load(t *testing.T) *ontology.Ontology {
	t.Helper()
	o, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatalf("load the committed ontology: %v", err)
	}
	return o
}

func TestCommittedOntology(t *testing.T) {
	o := load(t)
	var ents, rels []string
	for _, e := range o.Entities {
		ents = append(ents, e.Name)
	}
	for _, r := range o.Relationships {
		rels = append(rels, r.Name)
	}
	// Orbit 0.105.1's 32 entities and 59 relationship types (docs/orbit-parity.md).
	wantEnts := []string{"Branch", "Commit", "ContainerRepository", "Definition", "Dependency", "Deployment", "Directory",
		"Environment", "File", "Finding", "Group", "ImportedSymbol", "Job", "Label", "MergeRequest", "MergeRequestDiff",
		"MergeRequestDiffFile", "Milestone", "Note", "Package", "PackageFile", "Pipeline", "Project", "Runner",
		"SecurityScan", "Stage", "User", "Vulnerability", "VulnerabilityIdentifier", "VulnerabilityOccurrence",
		"VulnerabilityScanner", "WorkItem"}
	wantRels := []string{"APPROVED", "ASSIGNED", "AUTHORED", "AUTO_CANCELED_BY", "BUILT_BY", "CALLS", "CHILD_OF", "CLOSED",
		"CLOSES", "CONFIRMED_BY", "CONTAINS", "CREATED_FOR_MR", "CREATOR", "DECLARES_DEPENDENCY", "DEFINES", "DEPLOYED_BY",
		"DEPLOYED_TO", "DETECTED_BY", "DETECTED_IN", "DISMISSED_BY", "EXTENDS", "FIXES", "HAS_DIFF", "HAS_FILE",
		"HAS_FINDING", "HAS_HEAD_PIPELINE", "HAS_IDENTIFIER", "HAS_JOB", "HAS_LABEL", "HAS_LATEST_DIFF", "HAS_NOTE",
		"HAS_PACKAGE_FILE", "HAS_STAGE", "IMPORTS", "IN_ENVIRONMENT", "IN_GROUP", "IN_MILESTONE", "IN_PIPELINE",
		"IN_PROJECT", "LAST_EDITED_BY", "MEMBER_OF", "MERGED", "MERGED_AT_COMMIT", "OCCURRENCE_OF", "ON_BRANCH", "OWNER",
		"RAN_BY", "RELATED_TO", "RESOLVED_BY", "REVIEWER", "RUNS_FOR_GROUP", "RUNS_FOR_PROJECT", "RUNS_ON", "SCANS",
		"SOURCE_PROJECT", "TRIGGERED", "TRIGGERED_BY_PIPELINE", "TRIGGERS_PIPELINE", "UPDATED_BY"}
	if len(wantEnts) != 32 || len(wantRels) != 59 {
		t.Fatalf("want lists have %d entities and %d relationships, want 32 and 59", len(wantEnts), len(wantRels))
	}
	if diff := cmp.Diff(wantEnts, ents); diff != "" {
		t.Errorf("entities (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantRels, rels); diff != "" {
		t.Errorf("relationships (-want +got):\n%s", diff)
	}
	mr, ok := o.Entity("MergeRequest")
	if !ok {
		t.Fatal("no MergeRequest")
	}
	if mr.Table != "gl_merge_request" || mr.MinAccessLevel != 20 || mr.Label != "title" || !mr.Namespaced() {
		t.Errorf("MergeRequest = %+v", mr)
	}
	u, _ := o.Entity("User")
	if u.Namespaced() || u.MinAccessLevel != 0 {
		t.Errorf("User scope = %s, floor %d", u.Scope, u.MinAccessLevel)
	}
}

// TestGraphSQLIsFresh regenerates config/graph.sql in memory and fails on any difference.
func TestGraphSQLIsFresh(t *testing.T) {
	o := load(t)
	path := filepath.Join("..", "config", "graph.sql")
	got := o.DDL()
	if os.Getenv("UPDATE_GRAPH_SQL") == "1" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (regenerate: UPDATE_GRAPH_SQL=1 go test ./ontology -run TestGraphSQLIsFresh)", path, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("config/graph.sql is stale; regenerate it with UPDATE_GRAPH_SQL=1 go test ./ontology -run TestGraphSQLIsFresh\n%s",
			cmp.Diff(string(want), string(got)))
	}
}

func TestFingerprintIgnoresComments(t *testing.T) {
	base := validFS()
	a, err := ontology.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	commented := validFS()
	commented["ontology.yaml"] = &fstest.MapFile{Data: append([]byte("# a comment\n"), base["ontology.yaml"].Data...)}
	b, err := ontology.Load(commented)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint != b.Fingerprint {
		t.Errorf("fingerprint changed with a comment: %s vs %s", a.Fingerprint, b.Fingerprint)
	}
	changed := validFS()
	changed["entities/user.yaml"] = &fstest.MapFile{Data: bytes.Replace(base["entities/user.yaml"].Data, []byte("A person."), []byte("A human."), 1)}
	c, err := ontology.Load(changed)
	if err != nil {
		t.Fatal(err)
	}
	if a.Fingerprint == c.Fingerprint {
		t.Error("fingerprint did not change with the content")
	}
}

const globalYAML = `format: 1
version: 1
table_prefix: gl_
edge_table: gl_edge
edge_table_by_target: gl_edge_by_target
default_min_access_level: 20
`

const userYAML = `entity: User
description: A person.
scope: global
label: username
properties:
  - name: username
    type: String
    default: true
`

const groupYAML = `entity: Group
description: A group.
scope: namespaced
min_access_level: 10
properties:
  - {name: name, type: String, default: true}
  - {name: parent_id, type: Int64, nullable: true}
`

const memberYAML = `relationship: MEMBER_OF
description: Membership.
pairs:
  - {from: User, to: Group}
`

func validFS() fstest.MapFS {
	return fstest.MapFS{
		"ontology.yaml":                  {Data: []byte(globalYAML)},
		"entities/user.yaml":             {Data: []byte(userYAML)},
		"entities/group.yaml":            {Data: []byte(groupYAML)},
		"relationships/member_of.yaml":   {Data: []byte(memberYAML)},
		"relationships/contains.yaml":    {Data: []byte("relationship: CONTAINS\ndescription: Nesting.\npairs:\n  - {from: Group, to: Group, fk: to.parent_id}\n")},
		"entities/README.txt":            {Data: []byte("ignored")},
		"relationships/.keep":            {Data: nil},
		"entities/subdir/ignored.yaml/x": {Data: nil},
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		data string
		want *ontology.Error
		kind error
	}{
		{
			name: "unknown field in entity",
			file: "entities/user.yaml",
			data: userYAML + "    colour: red\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 5},
			kind: ontology.ErrUnknownField,
		},
		{
			name: "unknown top-level field",
			file: "ontology.yaml",
			data: globalYAML + "extra: 1\n",
			want: &ontology.Error{File: "ontology.yaml", Line: 7, Column: 1},
			kind: ontology.ErrUnknownField,
		},
		{
			name: "dangling endpoint",
			file: "relationships/member_of.yaml",
			data: memberYAML + "  - {from: User, to: Projekt}\n",
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 5, Column: 22},
			kind: ontology.ErrDangling,
		},
		{
			name: "duplicate property",
			file: "entities/group.yaml",
			data: groupYAML + "  - {name: name, type: String}\n",
			want: &ontology.Error{File: "entities/group.yaml", Line: 8, Column: 5},
			kind: ontology.ErrDuplicate,
		},
		{
			name: "same_namespace with a global end",
			file: "relationships/member_of.yaml",
			data: strings.Replace(memberYAML, "pairs:", "same_namespace: true\npairs:", 1),
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 5, Column: 5},
			kind: ontology.ErrInvalid,
		},
		{
			name: "same_namespace not a boolean",
			file: "relationships/member_of.yaml",
			data: strings.Replace(memberYAML, "pairs:", "same_namespace: yes please\npairs:", 1),
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 3, Column: 17},
			kind: ontology.ErrSyntax,
		},
		{
			name: "edge property not an edge column",
			file: "relationships/member_of.yaml",
			data: strings.Replace(memberYAML, "pairs:", "edge_properties: [project_id, access_level]\npairs:", 1),
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 3, Column: 31},
			kind: ontology.ErrInvalid,
		},
		{
			name: "edge property twice",
			file: "relationships/member_of.yaml",
			data: strings.Replace(memberYAML, "pairs:", "edge_properties: [branch, branch]\npairs:", 1),
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 3, Column: 27},
			kind: ontology.ErrDuplicate,
		},
		{
			name: "edge properties not a list",
			file: "relationships/member_of.yaml",
			data: strings.Replace(memberYAML, "pairs:", "edge_properties: branch\npairs:", 1),
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 3, Column: 18},
			kind: ontology.ErrInvalid,
		},
		{
			name: "duplicate pair",
			file: "relationships/member_of.yaml",
			data: memberYAML + "  - {from: User, to: Group}\n",
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 5, Column: 5},
			kind: ontology.ErrDuplicate,
		},
		{
			name: "duplicate key",
			file: "entities/user.yaml",
			data: "scope: global\n" + userYAML,
			want: &ontology.Error{File: "entities/user.yaml", Line: 4, Column: 1},
			kind: ontology.ErrDuplicate,
		},
		{
			name: "two global endpoints",
			file: "relationships/member_of.yaml",
			data: memberYAML + "  - {from: User, to: User}\n",
			want: &ontology.Error{File: "relationships/member_of.yaml", Line: 5, Column: 5},
			kind: ontology.ErrInvalid,
		},
		{
			name: "fk to missing property",
			file: "relationships/contains.yaml",
			data: "relationship: CONTAINS\ndescription: Nesting.\npairs:\n  - {from: Group, to: Group, fk: to.parent}\n",
			want: &ontology.Error{File: "relationships/contains.yaml", Line: 4, Column: 34},
			kind: ontology.ErrDangling,
		},
		{
			name: "enum on a String",
			file: "entities/user.yaml",
			data: userYAML + "    enum: [a, b]\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 11},
			kind: ontology.ErrInvalid,
		},
		{
			name: "reserved property name",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: select, type: String}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 12},
			kind: ontology.ErrInvalid,
		},
		{
			name: "floor on a global entity",
			file: "entities/user.yaml",
			data: "min_access_level: 10\n" + userYAML,
			want: &ontology.Error{File: "entities/user.yaml", Line: 1, Column: 19},
			kind: ontology.ErrInvalid,
		},
		{
			name: "file name does not match",
			file: "entities/user.yaml",
			data: "entity: Person\ndescription: x\nscope: global\nproperties:\n  - {name: n, type: String, default: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 1, Column: 9},
			kind: ontology.ErrInvalid,
		},
		// Orbit's admin_only and virtual markers, and tokens (docs/orbit-parity.md).
		{
			name: "admin_only default column",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: email, type: String, admin_only: true, default: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 60},
			kind: ontology.ErrInvalid,
		},
		{
			name: "admin_only not a boolean",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: email, type: String, admin_only: yes please}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 45},
			kind: ontology.ErrSyntax,
		},
		{
			name: "stored without virtual",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: bio, type: String, nullable: true, stored: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 55},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual not a String",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: size, type: Int64, nullable: true, virtual: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 56},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual not nullable",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: content, type: String, virtual: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 44},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual default column",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: content, type: String, nullable: true, virtual: true, default: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 75},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual filterable",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: content, type: String, nullable: true, virtual: true, filterable: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 78},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual indexed",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: content, type: String, nullable: true, virtual: true, index: ngram}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 73},
			kind: ontology.ErrInvalid,
		},
		{
			name: "admin_only label",
			file: "entities/user.yaml",
			data: "entity: User\ndescription: A person.\nscope: global\nlabel: email\nproperties:\n  - {name: username, type: String, default: true}\n  - {name: email, type: String, admin_only: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 4, Column: 8},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual label",
			file: "entities/user.yaml",
			data: "entity: User\ndescription: A person.\nscope: global\nlabel: bio\nproperties:\n  - {name: username, type: String, default: true}\n  - {name: bio, type: String, nullable: true, virtual: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 4, Column: 8},
			kind: ontology.ErrInvalid,
		},
		{
			name: "tokens on an Int64",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: size, type: Int64, nullable: true, tokens: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 55},
			kind: ontology.ErrInvalid,
		},
		{
			name: "tokens with an enum",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: state, type: LowCardinality(String), enum: [a, b], tokens: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 71},
			kind: ontology.ErrInvalid,
		},
		{
			name: "tokens on a virtual property",
			file: "entities/user.yaml",
			data: userYAML + "  - {name: content, type: String, nullable: true, virtual: true, tokens: true}\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 9, Column: 74},
			kind: ontology.ErrInvalid,
		},
		{
			name: "bad YAML",
			file: "entities/user.yaml",
			data: "entity: [User\n",
			want: &ontology.Error{File: "entities/user.yaml", Line: 1},
			kind: ontology.ErrSyntax,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := validFS()
			fsys[tt.file] = &fstest.MapFile{Data: []byte(tt.data)}
			_, err := ontology.Load(fsys)
			var got *ontology.Error
			if !errors.As(err, &got) {
				t.Fatalf("err = %v, want *ontology.Error", err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.kind)
			}
			if got.File != tt.want.File || got.Line != tt.want.Line || (tt.want.Column != 0 && got.Column != tt.want.Column) {
				t.Errorf("location = %s:%d:%d, want %s:%d:%d (%v)", got.File, got.Line, got.Column, tt.want.File, tt.want.Line, tt.want.Column, err)
			}
		})
	}
}

func TestDuplicateEntityAcrossFiles(t *testing.T) {
	fsys := validFS()
	fsys["entities/group.yaml"] = &fstest.MapFile{Data: []byte(groupYAML)}
	fsys["entities/user2.yaml"] = &fstest.MapFile{Data: []byte(userYAML)}
	_, err := ontology.Load(fsys)
	if !errors.Is(err, ontology.ErrInvalid) { // user2.yaml must be called user.yaml
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}
