package load_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
)

// TestLoadReportsRecovery kills a load right after its manifest is written, then runs an
// unrelated load: it finishes the interrupted one first and says so in its report, with that
// load's version and rows, apart from its own counts. The next load completed it silently.
func TestLoadReportsRecovery(t *testing.T) {
	lib := library(t)
	o := ont(t)
	var fixtureFiles []string
	for _, s := range fixture(t) {
		fixtureFiles = append(fixtureFiles, s.Path)
	}
	dir := t.TempDir()
	runChild(t, lib, dir, "", fixtureFiles)
	runChild(t, lib, dir, "manifest", secondLoad(t))
	e := openAt(t, dir, "")
	p := write(t, t.TempDir(), "Milestone.jsonl", `{"id": 80, "traversal_path": "1/80/", "title": "unrelated", "state": "active"}`+"\n")
	rep, err := load.Load(t.Context(), e, o, []load.Source{{Path: p}}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// secondLoad: two Milestone rows (an update and a tombstone) and a Definition, one CALLS edge.
	want := []load.Recovered{{Version: 2, Nodes: 3, Edges: 1}}
	if diff := cmp.Diff(want, rep.Recovered, cmpopts.IgnoreFields(load.Recovered{}, "Staging")); diff != "" {
		t.Errorf("recovered (-want +got):\n%s", diff)
	}
	if len(rep.Recovered) == 1 && !strings.HasPrefix(rep.Recovered[0].Staging, "gw_stage_") {
		t.Errorf("recovered staging = %q, want a gw_stage_ name", rep.Recovered[0].Staging)
	}
	if rep.Version != 3 || rep.RowsIn != 1 || rep.Written != 1 {
		t.Errorf("report = %+v, want its own load alone: version 3, 1 row in and written", rep)
	}
	st, err := loadstate.Check(t.Context(), e, o)
	if err != nil || st.Version != 3 {
		t.Errorf("load record = %+v, %v; want version 3, complete", st, err)
	}
	recs := query(t, e, "SELECT source, version, nodes, edges FROM gw_load_state WHERE status = 'complete' AND version = 2")
	if diff := cmp.Diff([][]any{{"load (recovered)", int64(2), int64(3), int64(1)}}, recs); diff != "" {
		t.Errorf("the recovered load's record (-want +got):\n%s", diff)
	}
}
