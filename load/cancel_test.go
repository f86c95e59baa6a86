package load_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/loadstate"
)

// TestCancelDuringCommit: a load whose context ends while its deltas attach (a client of
// the WriteService that goes away at that moment) must not leave the graph half-applied:
// either the load finishes, or what it staged is left for the next load to finish. Once
// the first table had attached, the clean-up used to drop the manifest and the other
// deltas, and the graph kept some tables of the new load and the others of the old one.
func TestCancelDuringCommit(t *testing.T) {
	o := ont(t)
	second := secondLoad(t)
	var srcs []load.Source
	for _, f := range second {
		srcs = append(srcs, load.Source{Path: f})
	}
	ref := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), ref, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := load.Load(t.Context(), ref, o, srcs, load.Options{}); err != nil {
		t.Fatal(err)
	}
	after := graphDump(t, ref)
	ref.Close() // one engine per process at a time

	e := openAt(t, t.TempDir(), "")
	if _, err := load.Load(t.Context(), e, o, fixture(t), load.Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	attaches := 0
	stop := func(step string) {
		if len(step) > 7 && step[:7] == "attach " {
			if attaches++; attaches == 2 {
				cancel() // after the first table attached
			}
		}
	}
	_, err := load.Load(ctx, e, o, srcs, load.Options{Checkpoint: stop})
	if attaches < 2 {
		t.Fatalf("the load attached %d tables; the test needs two (err %v)", attaches, err)
	}
	t.Logf("load cancelled during its commit: %v", err)
	if err := load.Recover(t.Context(), e, o, load.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := loadstate.Check(t.Context(), e, o); err != nil {
		t.Errorf("after recovery: %v", err)
	}
	if diff := cmp.Diff(after, graphDump(t, e)); diff != "" {
		t.Errorf("graph (-want the whole new load +got):\n%s", diff)
	}
}
