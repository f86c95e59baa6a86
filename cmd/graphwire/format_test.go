package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
	"github.com/graphwire/graphwire/internal/tokens"
	"github.com/graphwire/graphwire/scorecard"
)

// TestFormatGOONConformance runs every non-quirk GOON conformance case
// through the CLI and compares bytes.
func TestFormatGOONConformance(t *testing.T) {
	dir := conformance.Dir(t, "goon")
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.json"))
	passed := 0
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".input.json")
		var meta struct {
			GoonVersion string `json:"goon_version"`
			Quirk       bool   `json:"quirk"`
		}
		b, err := os.ReadFile(filepath.Join(dir, name+".meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Quirk {
			continue // reference quirk, see goon.TestConformance
		}
		want, err := os.ReadFile(filepath.Join(dir, name+".expected.goon"))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"format", "--from", "json", "--to", "goon", "--goon-version", meta.GoonVersion, in}, nil, &stdout, &stderr)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", name, code, stderr.String())
			continue
		}
		if !bytes.Equal(stdout.Bytes(), want) {
			t.Errorf("%s: CLI output differs from expected.goon", name)
			continue
		}
		passed++
	}
	if passed < 60 {
		t.Fatalf("%d GOON cases byte-exact through the CLI, want 60", passed)
	}
}

func TestFormatStdinAndRoundTrip(t *testing.T) {
	in, err := os.ReadFile("../../goon/testdata/traversal_multi_hop.input.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw, stderr bytes.Buffer
	if code := run([]string{"format", "--to", "json"}, bytes.NewReader(in), &raw, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var goonOut bytes.Buffer
	if code := run([]string{"format", "--to", "goon"}, bytes.NewReader(raw.Bytes()), &goonOut, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(goonOut.String(), "goon_version:"+config.GOONVersion()+"\n") {
		t.Errorf("default GOON version not printed:\n%s", goonOut.String())
	}
	var back bytes.Buffer
	if code := run([]string{"format", "--from", "goon", "--to", "goon"}, bytes.NewReader(goonOut.Bytes()), &back, &stderr); code != 0 {
		t.Fatalf("goon → goon exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(back.String(), "@nodes\n") {
		t.Errorf("goon → goon output:\n%s", back.String())
	}
}

func TestFormatList(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"format", "--list"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"goon       " + config.GOONVersion(), "json       " + config.RawVersion(),
		"markdown   " + config.MarkdownVersion() + "    text/markdown", "xml        " + config.XMLVersion() + "    application/xml",
		"gcb1       " + config.GCB1Version() + "    application/x-gcb1"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("--list output lacks %q:\n%s", want, stdout.String())
		}
	}
}

// TestFormatMarkdownXML: json → xml → json is exact, json → markdown
// renders tables, and markdown cannot be read back, with an error that
// says which formats can.
func TestFormatMarkdownXML(t *testing.T) {
	in := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","score":2.0,"username":"a|b"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"3","type":"MEMBER_OF","depth":1}],"pagination":{"has_more":true,"truncated":false,"next_cursor":""}}`
	var xmlOut, back, md, stderr bytes.Buffer
	if code := run([]string{"format", "--to", "xml"}, strings.NewReader(in), &xmlOut, &stderr); code != 0 {
		t.Fatalf("json → xml exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"format", "--from", "xml", "--to", "json"}, bytes.NewReader(xmlOut.Bytes()), &back, &stderr); code != 0 {
		t.Fatalf("xml → json exit %d: %s", code, stderr.String())
	}
	if strings.TrimSuffix(back.String(), "\n") != in {
		t.Errorf("json → xml → json:\n got %s\nwant %s", back.String(), in)
	}
	if code := run([]string{"format", "--to", "markdown"}, strings.NewReader(in), &md, &stderr); code != 0 {
		t.Fatalf("json → markdown exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(md.String(), "| 1 | 2.0 | a\\|b |\n") {
		t.Errorf("markdown output:\n%s", md.String())
	}
	stderr.Reset()
	if code := run([]string{"format", "--from", "markdown", "--to", "json"}, strings.NewReader(md.String()), &back, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), `format "markdown" cannot be read back`) {
		t.Errorf("--from markdown: exit %d, stderr %q", code, stderr.String())
	}
}

func TestFormatErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		stdin    string
		code     int
		wantLine string
	}{
		{"bad id", []string{"format", "--to", "goon"}, `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"T","id":"1x"}],"edges":[]}`, 1,
			"graphwire format: stdin: graphresponse: line 1, column 78: /nodes/0/id: invalid id: \"1x\" is not a decimal int64\n"},
		{"unknown format", []string{"format", "--to", "yaml"}, `{}`, 1, "graphwire format: formatter: unknown format \"yaml\" (known: " + strings.Join(formatter.Default().Names(), ", ") + ")\n"},
		{"bad goon", []string{"format", "--from", "goon", "--to", "json"}, "@header\nquery_type:x\n@nodes\nUser(1):\nabc\n", 1,
			"graphwire format: stdin: goon: line 5, column 1: invalid id\n"},
		{"bad version", []string{"format", "--to", "goon", "--goon-version", "4.0"}, `{}`, 1,
			"graphwire format: --goon-version \"4.0\": goon: Options.Version must be a semantic version\n"},
		{"missing --to", []string{"format"}, ``, 2, ""},
		{"unknown command", []string{"frobnicate"}, ``, 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if tt.wantLine != "" && stderr.String() != tt.wantLine {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantLine)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout not empty on error: %q", stdout.String())
			}
		})
	}
}

// TestFormatAuto: format --to auto writes the response in the lossless format with the fewest
// o200k tokens, as query --format auto does, and names it with each lossless format's count
// on stderr; the output is that format's, and reads back to the same response.
func TestFormatAuto(t *testing.T) {
	in := "../../goon/testdata/traversal_multi_hop.input.json"
	got := runCLI("format", "--to", "auto", in)
	m := regexp.MustCompile(`^graphwire format: auto chose ([a-z-]+) \(o200k tokens of the lossless formats: (.*)\)\n$`).FindStringSubmatch(got.stderr)
	if got.code != exitOK || m == nil {
		t.Fatalf("exit %d, stderr %q", got.code, got.stderr)
	}
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := graphresponse.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	counter := tokens.New()
	best, bestN := "", 0
	for _, c := range strings.Split(m[2], ", ") {
		name, n, _ := strings.Cut(c, " ")
		f, err := formatter.Default().Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var text bytes.Buffer
		if err := f.Format(&text, resp); err != nil {
			t.Fatal(err)
		}
		want, err := counter.Count(tokens.O200k, text.String())
		if err != nil {
			t.Fatal(err)
		}
		if strconv.Itoa(want) != n {
			t.Errorf("%s: %s tokens on stderr, %d counted", name, n, want)
		}
		if best == "" || want < bestN {
			best, bestN = name, want
		}
	}
	if m[1] != best || !strings.Contains(m[2], "json ") {
		t.Errorf("auto chose %s among %s, want %s (json always among them)", m[1], m[2], best)
	}
	if want := runCLI("format", "--to", best, in); got.stdout != want.stdout {
		t.Errorf("auto output differs from --to %s:\n%s", best, got.stdout)
	}
	back := runCLIStdin(got.stdout, "format", "--from", best, "--to", "json")
	backResp, err := graphresponse.Unmarshal([]byte(back.stdout))
	if back.code != exitOK || err != nil || !scorecard.Lossless(resp, backResp) {
		t.Errorf("read back from %s: exit %d, %v, %s", best, back.code, err, back.stdout)
	}
	if r := runCLI("format", "--to", "auto", "--goon-version", "4.0.1", in); r.code != exitUsage && r.code != exitFailure || !strings.Contains(r.stderr, "--goon-version applies only to --to goon") {
		t.Errorf("--to auto --goon-version: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestFormatGCB1: json → gcb1 writes the payload without a final newline,
// and gcb1 → json reads back what GCB1 keeps (no depth, no pagination).
func TestFormatGCB1(t *testing.T) {
	in := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"a"},{"type":"Group","id":"3"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"3","type":"MEMBER_OF","depth":1}],"pagination":{"has_more":true,"truncated":false,"next_cursor":""}}`
	want := `{"format_version":"5.0.1","query_type":"traversal","nodes":[{"type":"User","id":"1","username":"a"},{"type":"Group","id":"3"}],"edges":[{"from":"User","from_id":"1","to":"Group","to_id":"3","type":"MEMBER_OF"}]}`
	var bin, back, stderr bytes.Buffer
	if code := run([]string{"format", "--to", "gcb1"}, strings.NewReader(in), &bin, &stderr); code != 0 {
		t.Fatalf("json → gcb1 exit %d: %s", code, stderr.String())
	}
	if b := bin.Bytes(); !bytes.HasPrefix(b, []byte("GCB1\x01")) || b[len(b)-1] == '\n' {
		t.Fatalf("gcb1 output % x", b)
	}
	if code := run([]string{"format", "--from", "gcb1", "--to", "json"}, bytes.NewReader(bin.Bytes()), &back, &stderr); code != 0 {
		t.Fatalf("gcb1 → json exit %d: %s", code, stderr.String())
	}
	if got := strings.TrimSuffix(back.String(), "\n"); got != want {
		t.Errorf("json → gcb1 → json:\n got %s\nwant %s", got, want)
	}
}
