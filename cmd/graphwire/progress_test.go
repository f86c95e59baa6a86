package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDrawProgress: bars are drawn on a terminal only, unless GRAPHWIRE_PROGRESS says
// otherwise. /dev/null is a character device but no terminal. (The terminal case is in
// progress_linux_test.go, on a pseudo-terminal.)
func TestDrawProgress(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		name    string
		w       io.Writer
		setting string
		want    bool
	}{
		{"buffer", &bytes.Buffer{}, "", false},
		{"dev null", devNull, "", false},
		{"file", file, "", false},
		{"buffer, forced on", &bytes.Buffer{}, "1", true},
		{"file, forced on", file, "1", true},
		{"buffer, forced off", &bytes.Buffer{}, "0", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := drawProgress(tt.w, tt.setting)
			if err != nil || got != tt.want {
				t.Errorf("drawProgress(%s, %q) = %v, %v; want %v, nil", tt.name, tt.setting, got, err, tt.want)
			}
		})
	}
}

// barRE matches one drawing of a bar: description, percent, bar, count and rate, then the
// elapsed and remaining time, or the elapsed time alone once finished.
var barRE = regexp.MustCompile(`^\r(\w+) +(\d+)% \|[^|]*\| \((\d+)/(\d+), \d+ rows/(?:s|min|hr)\) \[(\w+)(:\w+)?\]\x1b\[0K$`)

// drawing is one parsed drawing of a bar.
type drawing struct {
	phase            string
	pct, done, total int64
	finished, hasETA bool
}

// parseBars splits what a progress wrote into lines and each line into its drawings.
func parseBars(t *testing.T, out string) [][]drawing {
	t.Helper()
	if !strings.HasSuffix(out, "\n") {
		t.Fatalf("output does not end with a newline: %q", out)
	}
	var lines [][]drawing
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var ds []drawing
		for _, d := range strings.SplitAfter(line, "\x1b[0K") {
			if d == "" {
				continue
			}
			m := barRE.FindStringSubmatch(d)
			if m == nil {
				t.Fatalf("not a bar drawing: %q", d)
			}
			n := func(i int) int64 { v, _ := strconv.ParseInt(m[i], 10, 64); return v }
			ds = append(ds, drawing{m[1], n(2), n(3), n(4), m[6] == "" && n(3) == n(4), m[6] != ""})
		}
		lines = append(lines, ds)
	}
	return lines
}

// TestProgressDraws: forced on, a progress draws one line per phase, each a series of
// drawings in place with count, rate and time left, redrawn only when the percent moves,
// ended by the finished bar and a newline.
func TestProgressDraws(t *testing.T) {
	var buf bytes.Buffer
	p, err := newProgress(&buf, "1", unitRows)
	if err != nil {
		t.Fatal(err)
	}
	// Generation: an estimate of 12 000 rows, 10 000 calls, made good at 10 500.
	for done := int64(0); done < 10_000; done++ {
		p.report("generate", done, 12_000)
	}
	p.report("generate", 10_500, 10_500)
	// Loading, in batches of 700 rows, and a bar left unfinished by finish.
	for done := int64(0); done <= 10_500; done += 700 {
		p.report("load", done, 10_500)
	}
	p.report("merge", 1, 4)
	p.finish()
	out := buf.String()
	lines := parseBars(t, out)
	if len(lines) != 3 {
		t.Fatalf("%d lines, want one per phase:\n%q", len(lines), out)
	}
	for i, want := range []struct {
		phase    string
		last     drawing
		max      int
		finished bool
	}{
		{"generate", drawing{"generate", 100, 10_500, 10_500, true, false}, 102, true},
		{"load", drawing{"load", 100, 10_500, 10_500, true, false}, 16, true},
		{"merge", drawing{"merge", 25, 1, 4, false, true}, 1, false},
	} {
		ds := lines[i]
		if len(ds) > want.max {
			t.Errorf("%s: %d drawings, want at most %d (one per percent)", want.phase, len(ds), want.max)
		}
		for j, d := range ds {
			if d.phase != want.phase || d.done > d.total || j > 0 && d.done < ds[j-1].done {
				t.Errorf("%s drawing %d: %+v after %+v", want.phase, j, d, ds[max(j-1, 0)])
			}
			if !d.finished && !d.hasETA {
				t.Errorf("%s drawing %d: %+v shows no time left", want.phase, j, d)
			}
		}
		if diff := cmp.Diff(want.last, ds[len(ds)-1], cmp.AllowUnexported(drawing{})); diff != "" {
			t.Errorf("%s: last drawing (-want +got):\n%s", want.phase, diff)
		}
	}
}

// TestProgressOffWritesNothing: when not drawing, a progress writes nothing at all, however
// it is called.
func TestProgressOffWritesNothing(t *testing.T) {
	for _, setting := range []string{"", "0"} {
		var buf bytes.Buffer
		p, err := newProgress(&buf, setting, unitRows)
		if err != nil {
			t.Fatal(err)
		}
		for done := int64(0); done <= 1000; done += 10 {
			p.report("load", done, 1000)
		}
		p.report("merge", 1, 4)
		p.finish()
		if buf.Len() > 0 {
			t.Errorf("setting %q: wrote %q", setting, buf.String())
		}
	}
}

// TestProgressBadSetting: a GRAPHWIRE_PROGRESS that is not 0, 1 or empty is a usage error of
// the command, said before anything is done.
func TestProgressBadSetting(t *testing.T) {
	t.Setenv(progressEnv, "yes")
	dir := filepath.Join(t.TempDir(), "data")
	got := runCLI("seed", "--embedded", dir, "--scale", "0.01")
	want := result{exitUsage, "", "graphwire seed: GRAPHWIRE_PROGRESS=\"yes\": want 1 (always draw progress bars), 0 (never) or empty (on a terminal only)\n" +
		"Run 'graphwire seed --help' for usage.\n"}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("%s was created (err %v)", dir, err)
	}
}

// seedSummaryRE is the one line seed writes on stderr when it draws no bars.
var seedSummaryRE = regexp.MustCompile(`^seeded embedded \S+: \d+ nodes, \d+ edges \(scale 0\.02, seed 42, version \d+\) in \S+ \(generate \S+\); \d+ rows/s\n$`)

// TestSeedSummaryOnly: when stderr is not a terminal, seed writes exactly one line there, its
// summary, and no carriage return.
func TestSeedSummaryOnly(t *testing.T) {
	requireCHDB(t)
	t.Setenv(progressEnv, "")
	r := runCLI("seed", "--embedded", filepath.Join(t.TempDir(), "data"), "--scale", "0.02", "--batch-size", "500")
	if r.code != exitOK || r.stdout != "" || !seedSummaryRE.MatchString(r.stderr) {
		t.Errorf("seed: exit %d, stdout %q, stderr %q; want exit 0, no stdout and one summary line", r.code, r.stdout, r.stderr)
	}
}

// TestProgressBytes: a bar counting bytes (as load's progress will) shows sizes and a byte
// rate instead of rows.
func TestProgressBytes(t *testing.T) {
	var buf bytes.Buffer
	p, err := newProgress(&buf, "1", unitBytes)
	if err != nil {
		t.Fatal(err)
	}
	for _, done := range []int64{0, 1 << 20, 2 << 20} {
		p.report("load", done, 2<<20)
	}
	p.finish()
	drawings := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\x1b[0K")
	re := regexp.MustCompile(`^\rload +50% \|[^|]*\| \(1\.0/2\.1 MB, [\d.]+ [kMGT]?B/s\) \[\w+:\w+\]$`)
	if len(drawings) != 4 || !re.MatchString(drawings[1]) || drawings[3] != "" {
		t.Errorf("drawings %q; want three, the second at 1.0/2.1 MB with a byte rate, then a newline", drawings)
	}
}

// TestLoadAndIndexDrawOnlyWhenAsked: load and index print their summary and, unless progress
// bars are asked for, nothing else (no carriage returns); with GRAPHWIRE_PROGRESS=1 they draw
// a bar of the bytes loaded and of the files extracted.
func TestLoadAndIndexDrawOnlyWhenAsked(t *testing.T) {
	requireCHDB(t)
	src := filepath.Join("..", "..", "codeindex", "testdata", "fixmod")
	for _, tt := range []struct {
		setting string
		want    []string
	}{
		{"0", nil},
		{"1", []string{"extract ", "files", "load    "}},
	} {
		t.Run("GRAPHWIRE_PROGRESS="+tt.setting, func(t *testing.T) {
			t.Setenv(progressEnv, tt.setting)
			data := t.TempDir()
			r := runCLI("index", "--embedded", data, "--namespace", "1/7/", "--project", "7", src)
			if r.code != exitOK {
				t.Fatalf("index: exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "rows queryable:") {
				t.Errorf("index: no load report in\n%s", r.stderr)
			}
			if got := strings.Contains(r.stderr, "\r"); got != (tt.want != nil) {
				t.Errorf("index: carriage returns %v, want %v\n%q", got, tt.want != nil, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("index: no %q in the progress drawn\n%q", w, r.stderr)
				}
			}
		})
	}
}
