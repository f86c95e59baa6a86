package scorecard_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoPlottingStack: package scorecard does not depend on the plotting stack, so that the
// packages of the user binary that use its measurements do not link gonum/plot; only
// scorecard/chart does.
func TestNoPlottingStack(t *testing.T) {
	for _, tt := range []struct {
		pkg       string
		wantGonum bool
	}{{".", false}, {"./chart", true}} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", tt.pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", tt.pkg, err, out)
		}
		if !strings.Contains(string(out), "github.com/graphwire/graphwire/formatter") {
			t.Fatalf("go list -deps %s gave no dependency list:\n%s", tt.pkg, out)
		}
		if got := strings.Contains(string(out), "gonum.org/"); got != tt.wantGonum {
			t.Errorf("%s depends on gonum.org: %v, want %v", tt.pkg, got, tt.wantGonum)
		}
	}
}
