//go:build !scorecard

package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestUserBinaryWithoutPlotting: the graphwire binary users build does not link the plotting
// stack; only the scorecard build (-tags scorecard) does.
func TestUserBinaryWithoutPlotting(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the binary's packages: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	pkgs := strings.Fields(string(out))
	if len(pkgs) < 10 || !strings.Contains(string(out), "github.com/graphwire/graphwire/formatter") {
		t.Fatalf("go list -deps gave no dependency list:\n%s", out)
	}
	for _, p := range pkgs {
		if strings.HasPrefix(p, "gonum.org/") || p == "github.com/graphwire/graphwire/scorecard/chart" {
			t.Errorf("graphwire depends on %s", p)
		}
	}
}

// TestBenchNeedsScorecardBuild: graphwire bench in the user binary says how to run the scorecard.
func TestBenchNeedsScorecardBuild(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"bench", "--no-timing"}, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), "make bench") || !strings.Contains(stderr.String(), "-tags scorecard") {
		t.Errorf("stderr does not say how to run the scorecard:\n%s", stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout not empty: %q", stdout.String())
	}
}
