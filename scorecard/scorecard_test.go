package scorecard_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
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
	res.Agent = agentFixture()
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
		// A realistic case, for the agent-sizes section.
		big := scorecard.SyntheticCases([]scorecard.SyntheticSize{{500, 200}})[0]
		big.Group, big.Realistic = scorecard.GroupSeeded, true
		return append(cases, big)
	}
	r1, c1 := render(t, build())
	r2, c2 := render(t, build())
	if !bytes.Equal(r1, r2) {
		t.Errorf("report differs between runs:\n%s", cmp.Diff(string(r1), string(r2)))
	}
	if !bytes.Equal(c1, c2) {
		t.Error("chart differs between runs")
	}
	for _, want := range []string{"## Summary", "## Seeded answers at agent sizes", "## Session and delta savings (gcf-graph)",
		"## Agent session over MCP", "## Per case", "Not measured (`--no-timing`)"} {
		if !bytes.Contains(r1, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !bytes.HasPrefix(c1, []byte("\x89PNG")) {
		t.Error("chart is not a PNG")
	}
}

// agentFixture is an agent session result as the bench's MCP driver
// fills it (the driver itself runs in cmd/graphwire's TestBench).
func agentFixture() *scorecard.AgentSessionResult {
	calls := []scorecard.AgentCall{
		{Tool: "get_graph_schema", Label: "get_graph_schema", Echo: -1},
		{Tool: "query_graph", Label: "Q1", Query: `{"q":1}`, Echo: -1},
		{Tool: "query_graph", Label: "Q1 again", Query: `{"q":1}`, Echo: 1, AfterEdit: true},
	}
	run := func(format string, q1, q2 int, rt string) scorecard.AgentRun {
		return scorecard.AgentRun{Format: format, Answers: []scorecard.AgentAnswer{
			{Tokens: 100}, {Tokens: q1, Format: format, RoundTrip: rt}, {Tokens: q2, Format: format, RoundTrip: rt}}}
	}
	auto := run("auto", 300, 300, scorecard.RoundTripLossless)
	auto.Answers[1].Format, auto.Answers[2].Format = "toon", "toon"
	return &scorecard.AgentSessionResult{Transport: "test", Edit: "one row changes", Calls: calls, Runs: []scorecard.AgentRun{
		run("goon", 200, 200, scorecard.RoundTripStable), run("toon", 300, 300, scorecard.RoundTripLossless),
		run("json", 500, 500, scorecard.RoundTripLossless), auto}}
}

// TestLossyNotCounted: a format whose round trip loses content is left out
// of the medians and wins, and every table marks its cells †.
func TestLossyNotCounted(t *testing.T) {
	cases := scorecard.SyntheticCases([]scorecard.SyntheticSize{{30, 25}})
	fs := formats(t)
	res, err := scorecard.Measure(cases, fs, scorecard.Options{})
	if err != nil {
		t.Fatal(err)
	}
	goon := slices.IndexFunc(fs, func(f scorecard.Format) bool { return f.Name == formatter.GOON })
	row := res.Rows[0]
	if !row.Cells[goon].Lossy() {
		t.Fatalf("goon on graph_30_25 is %s; the test needs a lossy cell", row.Cells[goon].RoundTrip)
	}
	// goon is smaller than compact JSON here: counting it would read as a saving.
	if row.Cells[goon].O200k >= row.Cells[0].O200k {
		t.Fatalf("goon %d tokens, json %d: the test needs a lossy cell smaller than JSON", row.Cells[goon].O200k, row.Cells[0].O200k)
	}
	s := res.Summaries(nil)[goon]
	if s.Cases != 0 || s.Lossy != 1 || s.Wins != 0 || s.Median[0] != 0 {
		t.Errorf("goon summary %+v: want 0 counted cases, 1 lossy, no wins, no median", s)
	}
	if w := res.Winner(row, scorecard.Tokenizers()[0]); w >= 0 && row.Cells[w].Lossy() {
		t.Errorf("winner %s is lossy", fs[w].Name)
	}
	var b bytes.Buffer
	if err := scorecard.WriteReport(&b, res, scorecard.ReportOptions{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	mark := fmt.Sprintf(" %d (%s)%s |", row.Cells[goon].O200k, pctOf(row.Cells[goon].O200k, row.Cells[0].O200k), scorecard.LossyMark)
	if !strings.Contains(b.String(), mark) {
		t.Errorf("report lacks the marked goon cell %q", mark)
	}
	if !strings.Contains(b.String(), " "+row.Cells[goon].RoundTrip+scorecard.LossyMark+" |") {
		t.Errorf("round-trip table does not mark goon's verdict")
	}
}

func pctOf(n, base int) string {
	s := fmt.Sprintf("%.1f%%", scorecard.Saving(n, base))
	if s == "-0.0%" {
		s = "0.0%"
	}
	return s
}

// TestAgentReport: the agent session table marks lossy answers and totals
// and names the formats auto chose.
func TestAgentReport(t *testing.T) {
	res := &scorecard.Result{Formats: formats(t), Agent: agentFixture()}
	var b bytes.Buffer
	if err := scorecard.WriteReport(&b, res, scorecard.ReportOptions{Command: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| 2 | Q1 | 200† | 300 | 500 | 300 toon |",
		"| | **total** | **500†** | **700** | **1100** | **700** |",
		"| | saving against json | lossy† (2 of 2 answers) | 36.4% | 0.0% | 36.4% |",
		"choosing Q1 toon, Q2 toon.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
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
		"graph_30_25": {"json=lossless", "json-pretty=lossless", "goon=stable", "gcf=lossless", "gcf-graph=topology", "gcx=canonical", "toon=lossless", "xml=lossless", "markdown=no reader", "gcb1=stable"},
		"doc":         {"json=lossless", "json-pretty=lossless", "goon=n/a", "gcf=lossless", "gcf-graph=n/a", "gcx=stable", "toon=lossless", "xml=n/a", "markdown=n/a", "gcb1=n/a"},
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
		if c.NA == "" && (c.Encode == nil || c.Decode == nil && c.RoundTrip != scorecard.RoundTripNone) {
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
