package ontology_test

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/ontology"
)

// userWith is userYAML with one extra property appended (indented as a list item).
func userWith(extra string) string { return userYAML + extra }

func TestAdminOnlyAndVirtualErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want ontology.Error
		kind error
	}{
		{
			name: "admin_only default column",
			data: userWith("  - {name: email, type: String, admin_only: true, default: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 60},
			kind: ontology.ErrInvalid,
		},
		{
			name: "admin_only not a boolean",
			data: userWith("  - {name: email, type: String, admin_only: yes please}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 45},
			kind: ontology.ErrSyntax,
		},
		{
			name: "stored without virtual",
			data: userWith("  - {name: bio, type: String, nullable: true, stored: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 55},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual not a String",
			data: userWith("  - {name: size, type: Int64, nullable: true, virtual: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 56},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual not nullable",
			data: userWith("  - {name: content, type: String, virtual: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 44},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual default column",
			data: userWith("  - {name: content, type: String, nullable: true, virtual: true, default: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 75},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual filterable",
			data: userWith("  - {name: content, type: String, nullable: true, virtual: true, filterable: true}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 78},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual indexed",
			data: userWith("  - {name: content, type: String, nullable: true, virtual: true, index: ngram}\n"),
			want: ontology.Error{File: "entities/user.yaml", Line: 9, Column: 73},
			kind: ontology.ErrInvalid,
		},
		{
			name: "admin_only label",
			data: "entity: User\ndescription: A person.\nscope: global\nlabel: email\nproperties:\n  - {name: username, type: String, default: true}\n  - {name: email, type: String, admin_only: true}\n",
			want: ontology.Error{File: "entities/user.yaml", Line: 4, Column: 8},
			kind: ontology.ErrInvalid,
		},
		{
			name: "virtual label",
			data: "entity: User\ndescription: A person.\nscope: global\nlabel: bio\nproperties:\n  - {name: username, type: String, default: true}\n  - {name: bio, type: String, nullable: true, virtual: true}\n",
			want: ontology.Error{File: "entities/user.yaml", Line: 4, Column: 8},
			kind: ontology.ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := validFS()
			fsys["entities/user.yaml"] = &fstest.MapFile{Data: []byte(tt.data)}
			_, err := ontology.Load(fsys)
			var got *ontology.Error
			if !errors.As(err, &got) {
				t.Fatalf("err = %v, want *ontology.Error", err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("err = %v, want it to wrap %v", err, tt.kind)
			}
			if got.File != tt.want.File || got.Line != tt.want.Line || got.Column != tt.want.Column {
				t.Errorf("location = %s:%d:%d, want %s:%d:%d (%v)", got.File, got.Line, got.Column, tt.want.File, tt.want.Line, tt.want.Column, err)
			}
		})
	}
}

func TestAdminOnlyAndVirtualAccessors(t *testing.T) {
	fsys := validFS()
	fsys["entities/user.yaml"] = &fstest.MapFile{Data: []byte(userWith(
		"  - {name: email, type: String, admin_only: true}\n" +
			"  - {name: bio, type: String, nullable: true, virtual: true}\n" +
			"  - {name: is_admin, type: Bool, admin_only: true}\n"))}
	o, err := ontology.Load(fsys)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := o.Entity("User")
	if diff := cmp.Diff([]string{"email", "is_admin"}, u.AdminOnlyProperties()); diff != "" {
		t.Errorf("AdminOnlyProperties (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"bio"}, u.VirtualProperties()); diff != "" {
		t.Errorf("VirtualProperties (-want +got):\n%s", diff)
	}
	names := func(ps []ontology.Property) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if diff := cmp.Diff([]string{"username", "bio"}, names(u.VisibleProperties(false))); diff != "" {
		t.Errorf("VisibleProperties(false) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"username", "email", "bio", "is_admin"}, names(u.VisibleProperties(true))); diff != "" {
		t.Errorf("VisibleProperties(true) (-want +got):\n%s", diff)
	}
	bio, _ := u.Property("bio")
	if bio.Filterable || !bio.Virtual || bio.AdminOnly {
		t.Errorf("bio = %+v, want virtual and not filterable", bio)
	}
	// Virtual properties keep a column, so "*" selections and the seed have a slot for them.
	if diff := cmp.Diff([]string{"id", "username", "email", "bio", "is_admin", "_version", "_deleted"}, u.Columns()); diff != "" {
		t.Errorf("Columns (-want +got):\n%s", diff)
	}
}

// TestCommittedOrbitMarkers pins the admin-only and virtual properties of the committed
// ontology and the access floors of the code graph (docs/orbit-parity.md).
func TestCommittedOrbitMarkers(t *testing.T) {
	o := load(t)
	admin := map[string][]string{}
	virtual := map[string][]string{}
	floors := map[string]int{}
	for _, e := range o.Entities {
		if ps := e.AdminOnlyProperties(); ps != nil {
			admin[e.Name] = ps
		}
		if ps := e.VirtualProperties(); ps != nil {
			virtual[e.Name] = ps
		}
		floors[e.Name] = e.MinAccessLevel
	}
	wantAdmin := map[string][]string{"User": {"email", "first_name", "last_name", "preferred_language", "private_profile", "is_admin", "is_auditor", "is_external", "updated_at"}}
	if diff := cmp.Diff(wantAdmin, admin); diff != "" {
		t.Errorf("admin-only properties (-want +got):\n%s", diff)
	}
	wantVirtual := map[string][]string{
		"Definition": {"content"}, "File": {"content"}, "MergeRequest": {"diff"},
		"MergeRequestDiff": {"patch"}, "MergeRequestDiffFile": {"diff"},
	}
	if diff := cmp.Diff(wantVirtual, virtual); diff != "" {
		t.Errorf("virtual properties (-want +got):\n%s", diff)
	}
	// Orbit's read_code entities need Reporter (20); security_manager entities need 25.
	for name, want := range map[string]int{
		"Branch": 20, "Commit": 20, "Directory": 20, "File": 20, "Definition": 20, "ImportedSymbol": 20,
		"Finding": 25, "SecurityScan": 25, "VulnerabilityOccurrence": 25, "VulnerabilityScanner": 25, "VulnerabilityIdentifier": 25,
		"Runner": 0, "User": 0,
	} {
		if floors[name] != want {
			t.Errorf("%s floor = %d, want %d", name, floors[name], want)
		}
	}
	job, _ := o.Entity("Job")
	if p, ok := job.Property("when"); !ok || len(p.Enum) != 5 {
		t.Errorf("Job.when = %+v, %v; want an enum of five run conditions", p, ok)
	}
	u, _ := o.Entity("User")
	ut, _ := u.Property("user_type")
	for _, label := range []string{"project_bot", "automation_bot", "service_account"} {
		if !contains(ut.Enum, label) {
			t.Errorf("User.user_type lacks %q", label)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
