package toon

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/internal/conformance"
)

// conformanceSkips lists subtests that are skipped, with the reason. An entry
// that matches no subtest fails the run, and so does an empty reason.
var conformanceSkips = map[string]string{}

// minConformanceRan is the least number of fixture tests that must run.
const minConformanceRan = 500

// wantConformanceLoaded is the number of tests in the vendored snapshot.
const wantConformanceLoaded = 516

type fixtureFile struct {
	Version     string        `json:"version"`
	Category    string        `json:"category"`
	Description string        `json:"description"`
	Tests       []fixtureTest `json:"tests"`
}

type fixtureTest struct {
	Name           string          `json:"name"`
	Input          json.RawMessage `json:"input"`
	Expected       json.RawMessage `json:"expected"`
	ShouldError    bool            `json:"shouldError"`
	Options        *fixtureOptions `json:"options"`
	SpecSection    string          `json:"specSection"`
	Note           string          `json:"note"`
	MinSpecVersion string          `json:"minSpecVersion"`
}

type fixtureOptions struct {
	Delimiter  *string `json:"delimiter"`
	IndentSize *int    `json:"indentSize"`
	Strict     *bool   `json:"strict"`
}

// fixturesDir locates shared/conformance/toon/fixtures beside the module
// root (or under $GRAPHWIRE_CONFORMANCE_DIR). Missing data fails the test.
func fixturesDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(conformance.Dir(t, "toon"), "fixtures")
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("TOON fixtures not found at %s (set %s)", dir, conformance.EnvDir)
	}
	return dir
}

// versionNewer reports whether version a is newer than b ("4.0" style).
func versionNewer(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x > y
		}
	}
	return false
}

type loadedFixture struct {
	category, stem string
	test           fixtureTest
}

func loadFixtures(t testing.TB) []loadedFixture {
	t.Helper()
	dir := fixturesDir(t)
	var out []loadedFixture
	for _, cat := range []string{"encode", "decode"} {
		files, err := filepath.Glob(filepath.Join(dir, cat, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(files)
		if len(files) == 0 {
			t.Fatalf("no fixture files in %s", filepath.Join(dir, cat))
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			var ff fixtureFile
			if err := dec.Decode(&ff); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if ff.Category != cat {
				t.Fatalf("%s: category %q in the %s folder", f, ff.Category, cat)
			}
			if versionNewer(ff.Version, SpecVersion) {
				t.Fatalf("%s: fixture version %s is newer than SpecVersion %s", f, ff.Version, SpecVersion)
			}
			stem := strings.TrimSuffix(filepath.Base(f), ".json")
			for _, tc := range ff.Tests {
				out = append(out, loadedFixture{cat, stem, tc})
			}
		}
	}
	return out
}

func fixtureOpts(t *testing.T, o *fixtureOptions) (Options, bool) {
	t.Helper()
	var opts Options
	strict := true
	if o == nil {
		return opts, strict
	}
	if o.Delimiter != nil {
		switch *o.Delimiter {
		case ",":
			opts.Delimiter = Comma
		case "\t":
			opts.Delimiter = Tab
		case "|":
			opts.Delimiter = Pipe
		default:
			t.Fatalf("unknown delimiter %q", *o.Delimiter)
		}
	}
	if o.IndentSize != nil {
		opts.IndentSize = *o.IndentSize
	}
	if o.Strict != nil {
		strict = *o.Strict
	}
	opts.Lenient = !strict
	return opts, strict
}

func TestConformance(t *testing.T) {
	fixtures := loadFixtures(t)
	type counts struct{ loaded, ran, skipped int }
	stats := map[string]*counts{"encode": {}, "decode": {}}
	used := map[string]bool{}
	for name, reason := range conformanceSkips {
		if reason == "" {
			t.Errorf("skip entry %q has no reason", name)
		}
	}
	for _, fx := range fixtures {
		tc := fx.test
		name := fx.category + "/" + fx.stem + "/" + tc.Name
		st := stats[fx.category]
		st.loaded++
		ran := false
		t.Run(name, func(t *testing.T) {
			if tc.MinSpecVersion != "" && versionNewer(tc.MinSpecVersion, SpecVersion) {
				t.Skip("requires toon-spec " + tc.MinSpecVersion)
			}
			// t.Name() is the full name with spaces turned into underscores;
			// the skip table uses the readable name.
			if reason, ok := conformanceSkips[name]; ok {
				used[name] = true
				t.Skip(reason)
			}
			ran = true
			opts, _ := fixtureOpts(t, tc.Options)
			if fx.category == "encode" {
				runEncodeFixture(t, tc, opts)
			} else {
				runDecodeFixture(t, tc, opts)
			}
		})
		if ran {
			st.ran++
		} else {
			st.skipped++
		}
	}
	for name := range conformanceSkips {
		if !used[name] {
			t.Errorf("stale skip entry %q matches no test", name)
		}
	}
	total := counts{}
	for _, cat := range []string{"encode", "decode"} {
		st := stats[cat]
		t.Logf("%s: loaded %d, ran %d, skipped %d", cat, st.loaded, st.ran, st.skipped)
		total.loaded += st.loaded
		total.ran += st.ran
		total.skipped += st.skipped
		if st.ran+st.skipped != st.loaded {
			t.Errorf("%s: ran %d + skipped %d != loaded %d", cat, st.ran, st.skipped, st.loaded)
		}
	}
	t.Logf("total: loaded %d, ran %d, skipped %d", total.loaded, total.ran, total.skipped)
	if total.ran < minConformanceRan {
		t.Errorf("only %d conformance tests ran, want at least %d", total.ran, minConformanceRan)
	}
	if total.loaded < wantConformanceLoaded {
		t.Errorf("loaded %d conformance tests, want at least %d", total.loaded, wantConformanceLoaded)
	}
}

func runEncodeFixture(t *testing.T, tc fixtureTest, opts Options) {
	in, err := ParseJSON(tc.Input)
	if err != nil {
		t.Fatalf("ParseJSON(input): %v", err)
	}
	got, err := MarshalOptions(in, opts)
	if tc.ShouldError {
		if err == nil {
			t.Fatalf("Marshal succeeded, want an error; output:\n%s", got)
		}
		return
	}
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	var want string
	if err := json.Unmarshal(tc.Expected, &want); err != nil {
		t.Fatalf("expected is not a JSON string: %v", err)
	}
	if string(got) != want {
		t.Errorf("output mismatch\n got: %q\nwant: %q\n--- got ---\n%s\n--- want ---\n%s", got, want, got, want)
	}
}

func runDecodeFixture(t *testing.T, tc fixtureTest, opts Options) {
	var input string
	if err := json.Unmarshal(tc.Input, &input); err != nil {
		t.Fatalf("input is not a JSON string: %v", err)
	}
	got, err := UnmarshalOptions([]byte(input), opts)
	if tc.ShouldError {
		if err == nil {
			t.Fatalf("decode succeeded with %s, want an error; input:\n%s", describe(got), input)
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Fatalf("error %v (%T) is not a *SyntaxError", err, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("decode: %v; input:\n%s", err, input)
	}
	want, err := ParseJSON(tc.Expected)
	if err != nil {
		t.Fatalf("ParseJSON(expected): %v", err)
	}
	if !Equal(got, want) {
		t.Errorf("decoded value mismatch\n got: %s\nwant: %s\ninput:\n%s", describe(got), describe(want), input)
	}
}
