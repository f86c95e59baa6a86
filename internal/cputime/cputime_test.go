package cputime_test

import (
	"runtime"
	"testing"

	"github.com/graphwire/graphwire/internal/cputime"
)

// TestProcessCountsWork: CPU spent between two readings shows in their
// difference, and the figure never goes backwards.
func TestProcessCountsWork(t *testing.T) {
	before, ok := cputime.Process()
	if !ok {
		if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
			t.Fatalf("Process() not readable on %s", runtime.GOOS)
		}
		t.Skipf("Process() is not readable on %s", runtime.GOOS)
	}
	after := before
	x := uint64(1)
	for after == before { // spin until the clock of the process advances
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		after, _ = cputime.Process()
	}
	if after < before {
		t.Fatalf("Process() went backwards: %v then %v", before, after)
	}
	if x == 0 {
		t.Log(x) // keep the loop from being optimised away
	}
}
