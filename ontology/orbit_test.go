package ontology_test

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/ontology"
)

func TestAdminOnlyAndVirtualAccessors(t *testing.T) {
	fsys := validFS()
	fsys["entities/user.yaml"] = &fstest.MapFile{Data: []byte(userYAML +
		"  - {name: email, type: String, admin_only: true}\n" +
		"  - {name: bio, type: String, nullable: true, virtual: true}\n" +
		"  - {name: is_admin, type: Bool, admin_only: true}\n")}
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
		if !slices.Contains(ut.Enum, label) {
			t.Errorf("User.user_type lacks %q", label)
		}
	}
}
