package pipeline

import (
	"strconv"
	"testing"
	"time"

	"github.com/graphwire/graphwire/gcf"
)

// graphOf returns a distinct graph (root r) whose estimated size does not
// depend on r's value beyond its length.
func graphOf(r int) *gcf.Graph {
	return &gcf.Graph{PackRoot: "sha256:" + strconv.Itoa(100000+r),
		Symbols: []gcf.Symbol{{Kind: "project", Name: "p" + strconv.Itoa(100000+r)}}}
}

// TestSnapshotsPerCallerShare: one caller storing graph after graph keeps
// at most its share (in count and in bytes), so another caller's snapshot
// stays; a graph over a caller's byte share is not kept; the totals still
// hold across many callers.
func TestSnapshotsPerCallerShare(t *testing.T) {
	size := graphBytes(graphOf(0))
	unbounded := 1 << 40
	tests := []struct {
		name string
		lim  snapshotLimits
	}{
		{"count", snapshotLimits{max: 8, maxBytes: unbounded, perCaller: 2, perCallerBytes: unbounded}},
		{"bytes", snapshotLimits{max: 1000, maxBytes: 8 * size, perCaller: 1000, perCallerBytes: 2 * size}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSnapshots(tt.lim, time.Hour)
			s.put("2", "authz-b", graphOf(0))
			for i := 1; i <= 50; i++ {
				s.put("1", "authz-a", graphOf(i))
			}
			if s.get("authz-b", graphOf(0).PackRoot) == nil {
				t.Error("the other caller's snapshot was pushed out")
			}
			for i := 1; i <= 50; i++ {
				kept := s.get("authz-a", graphOf(i).PackRoot) != nil
				if want := i > 48; kept != want {
					t.Errorf("flooding caller's graph %d kept %v, want %v (only its 2 latest)", i, kept, want)
				}
			}
			if c := s.callers["1"]; c == nil || c.order.Len() != 2 || c.bytes != 2*size {
				t.Errorf("flooding caller holds %+v, want 2 graphs of %d bytes", c, size)
			}
		})
	}
	t.Run("over a caller's byte share", func(t *testing.T) {
		s := newSnapshots(snapshotLimits{max: 10, maxBytes: 10 * size, perCaller: 10, perCallerBytes: size - 1}, time.Hour)
		s.put("1", "authz-a", graphOf(1))
		if s.get("authz-a", graphOf(1).PackRoot) != nil || s.bytes != 0 || len(s.callers) != 0 {
			t.Errorf("a graph over the caller's byte share was kept (%d bytes held)", s.bytes)
		}
	})
	t.Run("totals", func(t *testing.T) {
		s := newSnapshots(snapshotLimits{max: 4, maxBytes: 3 * size, perCaller: 2, perCallerBytes: 2 * size}, time.Hour)
		for i := range 10 {
			s.put(strconv.Itoa(i), "authz-"+strconv.Itoa(i), graphOf(i))
		}
		if len(s.items) != 3 || s.bytes != 3*size || s.order.Len() != 3 || len(s.callers) != 3 {
			t.Errorf("%d graphs, %d bytes, %d callers held; want the 3 latest (%d bytes)", len(s.items), s.bytes, len(s.callers), 3*size)
		}
		for i := 7; i < 10; i++ {
			if s.get("authz-"+strconv.Itoa(i), graphOf(i).PackRoot) == nil {
				t.Errorf("caller %d's latest graph is gone", i)
			}
		}
	})
}
