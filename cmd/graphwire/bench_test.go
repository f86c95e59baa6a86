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
			if got := runBench(t.Context(), tt.args, nil, &stdout, &stderr); got != tt.want {
				t.Errorf("exit %d, want %d; stderr:\n%s", got, tt.want, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("stdout not empty: %q", stdout.String())
			}
		})
	}
}

// TestBench runs the whole command on the reduced corpus, with the seeded
// embedded graph at a small scale and timings off, and checks what it
// wrote. It is the only test of this package that opens chDB (one data
// directory per process).
func TestBench(t *testing.T) {
	requireCHDB(t)
	dir := t.TempDir()
	out, chart := filepath.Join(dir, "docs", "scorecard.md"), filepath.Join(dir, "docs", "scorecard.png")
	var stdout, stderr bytes.Buffer
	args := []string{"--reduced", "--no-timing", "--scale", "0.05", "--out", out, "--chart", chart}
	if code := runBench(t.Context(), args, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	report, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"`graphwire bench --scale 0.05 --reduced`", "![o200k_base tokens per format and case group](scorecard.png)",
		"| seeded/search |", "| seeded/traversal |", "| seeded/aggregation |", "| seeded/path_finding |", "| seeded/neighbors |",
	} {
		if !bytes.Contains(report, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
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
