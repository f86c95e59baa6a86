package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/goon"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// TestGoonTruncations checks the demo's count of shortened values against
// GOON's own output: over every GOON conformance input without
// aggregation rows, each value it reports is followed by its key_len
// breadcrumb with the same length, and GOON prints no other breadcrumb.
func TestGoonTruncations(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(conformance.Dir(t, "goon"), "*.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	breadcrumb := regexp.MustCompile(` [A-Za-z0-9_]+_len=[0-9]+`)
	found := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r, err := graphresponse.Unmarshal(data)
		if err != nil {
			t.Fatal(err)
		}
		if r.Rows != nil {
			continue // rows carry no breadcrumb
		}
		out, err := goon.Marshal(r, goon.Options{Version: config.GOONVersion()})
		if err != nil {
			t.Fatal(err)
		}
		got := goonTruncations(r)
		found += len(got)
		if n := len(breadcrumb.FindAll(out, -1)); n != len(got) {
			t.Errorf("%s: %d truncations found, goon printed %d breadcrumbs:\n%s", filepath.Base(p), len(got), n, out)
		}
		for _, tr := range got {
			if want := " " + tr.Key + "_len=" + strconv.Itoa(tr.Len); !strings.Contains(string(out), want) {
				t.Errorf("%s: goon output lacks %q", filepath.Base(p), want)
			}
		}
	}
	if found == 0 {
		t.Error("no conformance input has a truncated value; the test checks nothing")
	}
}

// TestGoonTruncationsRows: aggregation cells and the properties of nodes
// lifted from them are shortened too (without a breadcrumb).
func TestGoonTruncationsRows(t *testing.T) {
	long := strings.Repeat("x", 1001)
	r := &graphresponse.Response{QueryType: graphresponse.QueryAggregation, Rows: []graphresponse.Row{{
		{Key: "g", Value: graphresponse.Object(
			graphresponse.Member{Key: "type", Value: graphresponse.String("Project")},
			graphresponse.Member{Key: "id", Value: graphresponse.String("7")},
			graphresponse.Member{Key: "properties", Value: graphresponse.Object(graphresponse.Member{Key: "name", Value: graphresponse.String(long[:201])})})},
		{Key: "collect_mr", Value: graphresponse.String(long)},
		{Key: "short", Value: graphresponse.String(long[:1000])},
	}}}
	got := goonTruncations(r)
	want := []goonTruncation{{"name", 201, 200}, {"collect_mr", 1001, 1000}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("goonTruncations = %+v, want %+v", got, want)
	}
}

func TestGoonTruncationNotice(t *testing.T) {
	if got := goonTruncationNotice(nil); got != "" {
		t.Errorf("notice without truncation = %q, want empty", got)
	}
	got := goonTruncationNotice([]goonTruncation{{"title", 250, 200}, {"body", 100000, 200}})
	want := "note: goon truncated 2 values over its length limit (the longest: body, 100000 characters, cut to 200); " +
		"the json result below, or --format json, has the full text"
	if got != want {
		t.Errorf("notice = %q, want %q", got, want)
	}
}

// TestDemoSamplesTruncationNotice: demo --samples says when GOON shortened
// values of a sample, and only then.
func TestDemoSamplesTruncationNotice(t *testing.T) {
	src := conformance.Dir(t, "goon")
	for _, tt := range []struct {
		name string
		want bool
	}{{"extra_long_text", true}, {"snapshot_search", false}} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data, err := os.ReadFile(filepath.Join(src, tt.name+".input.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, tt.name+".input.json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			if code := run([]string{"demo", "--samples", dir}, nil, &stdout, &stderr); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if got := strings.Contains(stdout.String(), "note: goon truncated"); got != tt.want {
				t.Errorf("notice printed: %v, want %v\n%s", got, tt.want, stdout.String())
			}
		})
	}
}
