//go:build scorecard

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"help", []string{"--help"}, exitOK},
		{"unknown flag", []string{"--nope"}, exitUsage},
		{"extra argument", []string{"x"}, exitUsage},
		{"bad scale", []string{"--scale", "0"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := run(append([]string{"bench"}, tt.args...), nil, &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tt.want, stderr.String())
			}
			// Help goes to stdout, and nothing else does.
			if isHelp := tt.want == exitOK; isHelp != strings.Contains(stdout.String(), "Usage:") {
				t.Errorf("stdout: %q", stdout.String())
			}
		})
	}
}

// TestBench runs the whole command on the reduced corpus, with the seeded
// embedded graph at the default scale and timings off, and checks what it
// wrote: the seeded cases, the agent-sized answers (each in the target
// token range), and the agent session over MCP in every format and auto. It is the only test of this package that opens chDB (one data
// directory per process).
func TestBench(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	out, chart := filepath.Join(dir, "docs", "scorecard.md"), filepath.Join(dir, "docs", "scorecard.png")
	var stdout, stderr bytes.Buffer
	args := []string{"--reduced", "--no-timing", "--scale", "0.2", "--out", out, "--chart", chart}
	if code := run(append([]string{"bench"}, args...), nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	report, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`graphwire bench --scale 0.2 --reduced`", "![o200k_base tokens per format and case group](scorecard.png)",
		"| seeded/search |", "| seeded/traversal |", "| seeded/aggregation |", "| seeded/path_finding |", "| seeded/neighbors |",
		"| seeded/users_100_all_columns |", "| seeded/merge_requests_200 |", "| seeded/authored_200_edges |",
		"## Agent session over MCP", "| call | tool / query | goon | gcf | gcf-graph | gcx | toon | json | auto |",
		"| 1 | get_graph_schema |", "(after the edit)",
	} {
		if !bytes.Contains(report, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The three agent-sized answers land in the target range.
	if n := strings.Count(stdout.String(), " (in 12000–15000)"); n != 3 {
		t.Errorf("%d agent-sized answers in range, want 3:\n%s", n, stdout.String())
	}
	// gcf-graph echoes its pack_root after the edit and gets deltas.
	if n := strings.Count(string(report), "† delta |"); n != 2 {
		t.Errorf("%d gcf-graph delta answers in the agent session, want 2", n)
	}
	png, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Error("chart is not a PNG")
	}
	if !strings.Contains(stdout.String(), "median token saving against compact JSON") {
		t.Errorf("stdout lacks the headline:\n%s", stdout.String())
	}
}
