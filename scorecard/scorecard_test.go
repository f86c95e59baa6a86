package scorecard_test

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/scorecard"
	"github.com/graphwire/graphwire/scorecard/chart"
)

// confRoot is the conformance root (skips, or fails under CI=true, when the
// shared data is missing).
func confRoot(t *testing.T) string {
	t.Helper()
	conformance.Dir(t, "gcx")
	return filepath.Dir(conformance.Dir(t, "goon"))
}

func formats(t *testing.T) []scorecard.Format {
	t.Helper()
	fs, err := scorecard.Formats(formatter.Default())
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// render measures cases without timings and returns the report and chart.
func render(t *testing.T, cases []scorecard.Case) (report, png []byte) {
	t.Helper()
	res, err := scorecard.Measure(cases, formats(t), scorecard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Session, err = scorecard.Session(); err != nil {
		t.Fatal(err)
	}
	var r, c bytes.Buffer
	if err := scorecard.WriteReport(&r, res, scorecard.ReportOptions{Command: "test", Chart: "scorecard.png"}); err != nil {
		t.Fatal(err)
	}
	if err := chart.Write(&c, res); err != nil {
		t.Fatal(err)
	}
	return r.Bytes(), c.Bytes()
}

// TestDeterministic builds the reduced corpus twice and checks that the
// report (timings off) and the chart are byte-identical.
func TestDeterministic(t *testing.T) {
	root := confRoot(t)
	build := func() []scorecard.Case {
		cases, err := scorecard.Corpus(os.DirFS(root), scorecard.CorpusOptions{Reduced: true})
		if err != nil {
			t.Fatal(err)
		}
		return cases
	}
	r1, c1 := render(t, build())
	r2, c2 := render(t, build())
	if !bytes.Equal(r1, r2) {
		t.Errorf("report differs between runs:\n%s", cmp.Diff(string(r1), string(r2)))
	}
	if !bytes.Equal(c1, c2) {
		t.Error("chart differs between runs")
	}
	for _, want := range []string{"## Summary", "## Session and delta savings (gcf-graph)", "## Per case", "Not measured (`--no-timing`)"} {
		if !bytes.Contains(r1, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !bytes.HasPrefix(c1, []byte("\x89PNG")) {
		t.Error("chart is not a PNG")
	}
}

// TestCorpus checks the full corpus's shape: every GOON input, the 20 GCX
// tool responses with the three {nodes, edges} wrappers as graphs, and the
// four synthetic graphs.
func TestCorpus(t *testing.T) {
	cases, err := scorecard.Corpus(os.DirFS(confRoot(t)), scorecard.CorpusOptions{Synthetic: []scorecard.SyntheticSize{{10, 8}}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var graphs []string
	for _, c := range cases {
		count[c.Group]++
		if c.Group == scorecard.GroupGCX && !c.Generic() {
			graphs = append(graphs, c.Name)
		}
	}
	want := map[string]int{scorecard.GroupGOON: 62, scorecard.GroupGCX: 20, scorecard.GroupSynthetic: 1}
	if diff := cmp.Diff(want, count); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"06_find_usages_small", "12_get_callers_medium", "14_get_dependents_small"}, graphs); diff != "" {
		t.Errorf("GCX cases converted to GraphResponses (-want +got):\n%s", diff)
	}
}

// TestGCXBaselines checks the generic GCX cases against MANIFEST.tsv: the
// compact JSON baseline and the gcx generic fallback must reproduce the
// upstream bytes and o200k_base/cl100k_base counts, which pins both the
// baseline definition and the tokenizer wiring.
func TestGCXBaselines(t *testing.T) {
	root := confRoot(t)
	f, err := os.Open(filepath.Join(root, "gcx", "MANIFEST.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := csv.NewReader(f)
	rd.Comma = '\t'
	recs, err := rd.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(recs[0], name) }
	type counts struct{ Bytes, CL100k, O200k int }
	want := map[string][2]counts{}
	for _, r := range recs[1:] {
		n := func(name string) int { v, _ := strconv.Atoi(r[col(name)]); return v }
		want[r[0]] = [2]counts{
			{n("json_bytes"), n("json_cl100k"), n("json_o200k")},
			{n("generic_bytes"), n("generic_cl100k"), n("generic_o200k")},
		}
	}
	cases, err := scorecard.GCXCases(os.DirFS(root))
	if err != nil {
		t.Fatal(err)
	}
	cases = slices.DeleteFunc(cases, func(c scorecard.Case) bool { return !c.Generic() })
	fs := formats(t)
	res, err := scorecard.Measure(cases, fs, scorecard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	jsonIdx := slices.IndexFunc(fs, func(f scorecard.Format) bool { return f.Name == scorecard.JSONCompact })
	gcxIdx := slices.IndexFunc(fs, func(f scorecard.Format) bool { return f.Name == formatter.GCX })
	for _, row := range res.Rows {
		for k, j := range []int{jsonIdx, gcxIdx} {
			c := row.Cells[j]
			got := counts{c.Bytes, c.CL100k, c.O200k}
			if w := want[row.Case.Name][k]; got != w {
				t.Errorf("%s %s: got %+v, manifest %+v", row.Case.Name, fs[j].Name, got, w)
			}
		}
	}
}

func TestToolGraph(t *testing.T) {
	doc := `{"nodes":[{"id":"a.go::F","kind":"function","name":"F","line":3}],
		"edges":[{"from":"a.go::F","to":"b.go::G","kind":"calls","confidence":0.9}],"truncated":true,"total":2}`
	r, dropped, ok := scorecard.ToolGraph([]byte(doc))
	if !ok {
		t.Fatal("not converted")
	}
	want := `{"format_version":"` + r.FormatVersion + `","query_type":"traversal","nodes":[` +
		`{"type":"Function","id":"1","key":"a.go::F","line":3,"name":"F"},{"type":"Symbol","id":"2","key":"b.go::G"}],` +
		`"edges":[{"from":"Function","from_id":"1","to":"Symbol","to_id":"2","type":"CALLS"}],` +
		`"pagination":{"has_more":false,"truncated":true}}`
	if diff := cmp.Diff(want, string(graphresponse.Marshal(r))); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"edges[].confidence", "total"}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	for _, doc := range []string{`[1,2]`, `{"nodes":[]}`, `{"nodes":[{"id":1,"kind":"x"}],"edges":[]}`, `{"nodes":[{"id":"a","kind":"9x"}],"edges":[]}`} {
		if _, _, ok := scorecard.ToolGraph([]byte(doc)); ok {
			t.Errorf("%s converted, want generic", doc)
		}
	}
}

// TestSession pins the outcomes of the scripted session.
func TestSession(t *testing.T) {
	s, err := scorecard.Session()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range s.Steps {
		got = append(got, st.Outcome)
	}
	if diff := cmp.Diff([]string{"full", "unchanged", "full", "delta", "delta"}, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	j, _, _, sf := s.Totals()
	if sf[0] >= j[0] || sf[1] >= j[1] {
		t.Errorf("session tokens %v not below compact JSON %v", sf, j)
	}
}

// TestRoundTripVerdicts checks the verdict of each format on a synthetic
// graph and a generic document.
func TestRoundTripVerdicts(t *testing.T) {
	cases := scorecard.SyntheticCases([]scorecard.SyntheticSize{{30, 25}})
	cases = append(cases, scorecard.Case{Group: scorecard.GroupGCX, Name: "doc", Tool: "t",
		JSON: []byte(`[{"a":1,"b":"x"},{"a":2.5,"b":"y","c":[1,2]}]`)})
	fs := formats(t)
	res, err := scorecard.Measure(cases, fs, scorecard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, row := range res.Rows {
		for j, c := range row.Cells {
			v := c.RoundTrip
			if c.NA != "" {
				v = "n/a"
			}
			got[row.Case.Name] = append(got[row.Case.Name], fs[j].Name+"="+v)
		}
	}
	want := map[string][]string{
		"graph_30_25": {"json=lossless", "json-pretty=lossless", "goon=stable", "gcf=lossless", "gcf-graph=topology", "gcx=canonical", "toon=lossless"},
		"doc":         {"json=lossless", "json-pretty=lossless", "goon=n/a", "gcf=lossless", "gcf-graph=n/a", "gcx=stable", "toon=lossless"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
}

// TestTiming only checks that timings are recorded and reported; their
// values are never asserted.
func TestTiming(t *testing.T) {
	cases := scorecard.SyntheticCases([]scorecard.SyntheticSize{{10, 8}})
	res, err := scorecard.Measure(cases, formats(t), scorecard.Options{Timing: true, TimingBudget: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for j, c := range res.Rows[0].Cells {
		if c.NA == "" && (c.Encode == nil || c.Decode == nil) {
			t.Errorf("%s: no timing", res.Formats[j].Name)
		}
	}
	var b bytes.Buffer
	if err := scorecard.WriteReport(&b, res, scorecard.ReportOptions{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "### Encode (time/op, allocs/op)") {
		t.Error("report has no encode timing table")
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want float64
		ok   bool
	}{
		{"empty", nil, 0, false},
		{"odd", []float64{3, 1, 2}, 2, true},
		{"even", []float64{4, 1, 3, 2}, 2.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := scorecard.Median(tt.xs)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Median(%v) = %v, %v; want %v, %v", tt.xs, got, ok, tt.want, tt.ok)
			}
		})
	}
}
