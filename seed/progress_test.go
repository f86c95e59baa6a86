package seed_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/seed"
)

// report is one call of seed.Options.Progress.
type report struct {
	Phase       string
	Done, Total int64
}

// recorder returns a Progress callback that appends every call to *got.
func recorder(got *[]report) func(string, int64, int64) {
	return func(phase string, done, total int64) { *got = append(*got, report{phase, done, total}) }
}

// checkRising reports calls whose done goes down, exceeds total, or that name another phase.
func checkRising(t *testing.T, phase string, got []report) {
	t.Helper()
	var last int64
	for i, r := range got {
		if r.Phase != phase || r.Done < last || r.Done > r.Total {
			t.Errorf("call %d: %+v after done %d, want phase %q, done rising and at most total", i, r, last, phase)
		}
		last = r.Done
	}
}

// TestGenerateProgress: Generate reports the rows it has generated while it generates, about
// once per percent of ExpectedRows, and ends with done = total = the rows of the graph.
func TestGenerateProgress(t *testing.T) {
	o := loadOntology(t)
	for _, scale := range []float64{0.05, 1, 2} { // at 2, the estimate is below the real count
		t.Run(fmt.Sprint(scale), func(t *testing.T) {
			var got []report
			g := generate(t, o, seed.Options{Scale: scale, Progress: recorder(&got)})
			rows := int64(g.Nodes() + g.Edges())
			checkRising(t, "generate", got)
			if len(got) < 50 || len(got) > 130 {
				t.Errorf("%d progress calls for %d rows, want about one per percent", len(got), rows)
			}
			if diff := cmp.Diff(report{"generate", rows, rows}, got[len(got)-1]); diff != "" {
				t.Errorf("last call (-want +got):\n%s", diff)
			}
			// While generating, total is the estimate, and above done: only the last call
			// has done = total.
			if mid := got[len(got)/2]; mid.Total != seed.ExpectedRows(scale) {
				t.Errorf("call %+v: total is not the estimate %d", mid, seed.ExpectedRows(scale))
			}
			for i, r := range got[:len(got)-1] {
				if r.Done >= r.Total {
					t.Errorf("call %d of %d: %+v, want done below total before the last call", i, len(got), r)
				}
			}
		})
	}
}

// TestExpectedRows keeps the estimate behind the generate progress bar within a quarter of the
// rows Generate makes, so that its ETA means something when the generator changes.
func TestExpectedRows(t *testing.T) {
	o := loadOntology(t)
	scales := []float64{0.01, 0.1, 0.5, 2}
	if !testing.Short() {
		scales = append(scales, 10)
	}
	for _, scale := range scales {
		g := generate(t, o, seed.Options{Scale: scale})
		rows, est := float64(g.Nodes()+g.Edges()), float64(seed.ExpectedRows(scale))
		if est < 0.75*rows || est > 1.25*rows {
			t.Errorf("scale %g: ExpectedRows = %.0f, generated %.0f rows; update the estimate", scale, est, rows)
		}
	}
}

// TestLoadProgress: Load reports 0 of all rows before its first batch, then the rows inserted
// after every batch, up to all of them.
func TestLoadProgress(t *testing.T) {
	e := openChDB(t)
	o := loadOntology(t)
	g := generate(t, o, seed.Options{Scale: 0.05})
	var got []report
	st, err := seed.Load(t.Context(), e, o, g, seed.Options{BatchSize: 500, Progress: recorder(&got)})
	if err != nil {
		t.Fatal(err)
	}
	rows := int64(g.Nodes() + g.Edges())
	checkRising(t, "load", got)
	if len(got) != st.Batches+1 {
		t.Errorf("%d progress calls for %d batches, want one before the first batch and one after each", len(got), st.Batches)
	}
	if diff := cmp.Diff([]report{{"load", 0, rows}, {"load", rows, rows}}, []report{got[0], got[len(got)-1]}); diff != "" {
		t.Errorf("first and last call (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if step := got[i].Done - got[i-1].Done; step <= 0 || step > 500 {
			t.Errorf("call %d: %d rows since the last call, want one batch (1 to 500)", i, step)
		}
	}
}
