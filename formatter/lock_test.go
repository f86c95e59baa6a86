package formatter

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/config"
	"github.com/graphwire/graphwire/graphresponse"
	"github.com/graphwire/graphwire/internal/conformance"
)

// fingerprintVersion is the GOON version used for fingerprints, so they
// measure encoder behaviour only, not the version line.
const fingerprintVersion = "0.0.0"

// loadCorpus reads the golden corpus of every GraphResponse format: the GOON
// conformance inputs and goon/testdata.
func loadCorpus(t *testing.T) []corpusItem {
	t.Helper()
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	var items []corpusItem
	add := func(pattern, prefix string) int {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := graphresponse.Unmarshal(data)
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			items = append(items, corpusItem{Path: prefix + filepath.Base(p), Resp: r})
		}
		return len(paths)
	}
	if n := add(filepath.Join(conformance.Dir(t, "goon"), "*.input.json"), "shared/conformance/goon/"); n < 62 {
		t.Fatalf("GOON conformance corpus has %d inputs, want 62", n)
	}
	if n := add(filepath.Join(root, "goon", "testdata", "*.input.json"), "goon/testdata/"); n == 0 {
		t.Fatal("goon/testdata holds no inputs")
	}
	return items
}

// currentEntries fingerprints every default formatter.
func currentEntries(t *testing.T, reg *Registry, corpus []corpusItem) []lockEntry {
	t.Helper()
	var out []lockEntry
	for _, f := range reg.Formatters() {
		fp := f
		if f.Name() == GOON {
			g, err := NewGOON(fingerprintVersion)
			if err != nil {
				t.Fatal(err)
			}
			fp = g
		}
		sum, err := fingerprint(fp, corpus)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lockEntry{Name: f.Name(), Version: f.Version(), Fingerprint: sum})
	}
	return out
}

func TestFormatVersionsLock(t *testing.T) {
	root, err := conformance.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	lockPath := filepath.Join(root, "config", "format-versions.lock")
	current := currentEntries(t, Default(), loadCorpus(t))
	data, err := os.ReadFile(lockPath)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	lock, err := parseLock(data)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_FORMAT_LOCK") == "1" {
		if problems := refuseRefresh(lock, current); len(problems) > 0 {
			t.Fatalf("refusing to refresh the lock:\n%s", strings.Join(problems, "\n"))
		}
		if err := os.WriteFile(lockPath, renderLock(current), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", lockPath)
		return
	}
	if problems := checkLock(lock, current); len(problems) > 0 {
		t.Fatalf("format-version gate:\n%s", strings.Join(problems, "\n"))
	}
}

// appendingFormatter changes another formatter's output by one byte.
type appendingFormatter struct{ Formatter }

func (f appendingFormatter) Format(w io.Writer, r *graphresponse.Response) error {
	if err := f.Formatter.Format(w, r); err != nil {
		return err
	}
	_, err := w.Write([]byte{' '})
	return err
}

func TestLockGateFailsWhenItShould(t *testing.T) {
	corpus := loadCorpus(t)
	reg := Default()
	current := currentEntries(t, reg, corpus)
	lock := cloneEntries(current)
	if p := checkLock(lock, current); len(p) != 0 {
		t.Fatalf("identical lock reported problems: %v", p)
	}

	// An encoder change without a bump: fingerprint a formatter whose output
	// differs by one byte.
	g, _ := NewGOON(fingerprintVersion)
	changed, err := fingerprint(appendingFormatter{g}, corpus)
	if err != nil {
		t.Fatal(err)
	}
	moved := cloneEntries(current)
	for i := range moved {
		if moved[i].Name == GOON {
			moved[i].Fingerprint = changed
		}
	}
	tests := []struct {
		name    string
		lock    []lockEntry
		current []lockEntry
		want    string
	}{
		{"output changed, version not", lock, moved, "goon output changed but config/GOON_OUTPUT_FORMAT_VERSION is still " + config.GOONVersion() + ": bump it"},
		{"line missing", lock[1:], current, "has no line in config/format-versions.lock"},
		{"unknown format", append(cloneEntries(lock), lockEntry{"yaml", "1.0.0", lock[0].Fingerprint}), current, `names unknown format "yaml"`},
		{"version went back", withVersion(lock, GOON, "99.0.0"), current, "versions never go back"},
		{"stale lock", withVersion(lock, GOON, "0.0.1"), current, "the lock is stale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkLock(tt.lock, tt.current)
			if len(problems) != 1 || !strings.Contains(problems[0], tt.want) {
				t.Errorf("problems = %q, want one containing %q", problems, tt.want)
			}
		})
	}
	if p := refuseRefresh(lock, moved); len(p) != 1 {
		t.Errorf("refresh under an unchanged version was not refused: %v", p)
	}
	// A bumped version with the changed output passes after a refresh.
	bumped := withVersion(moved, GOON, "4.0.2")
	if p := refuseRefresh(lock, bumped); len(p) != 0 {
		t.Errorf("refresh after a bump refused: %v", p)
	}
	relocked, err := parseLock(renderLock(bumped))
	if err != nil {
		t.Fatal(err)
	}
	if p := checkLock(relocked, bumped); len(p) != 0 {
		t.Errorf("refreshed lock reported problems: %v", p)
	}
}

func TestLockFileRoundTrip(t *testing.T) {
	entries := []lockEntry{{"json", "5.0.1", "sha256:" + strings.Repeat("a", 64)}, {"goon", "4.0.1", "sha256:" + strings.Repeat("b", 64)}}
	data := renderLock(entries)
	if !bytes.HasPrefix(data, []byte("# ")) || !bytes.Contains(data, []byte("\ngoon 4.0.1 sha256:bbbb")) || bytes.Index(data, []byte("goon")) > bytes.Index(data, []byte("json 5")) {
		t.Errorf("lock rendering:\n%s", data)
	}
	back, err := parseLock(data)
	if err != nil || len(back) != 2 || back[0].Name != "goon" {
		t.Errorf("parseLock = %v, %v", back, err)
	}
	if _, err := parseLock([]byte("goon 4.0.1 md5:abc\n")); err == nil {
		t.Error("malformed line accepted")
	}
}

func cloneEntries(es []lockEntry) []lockEntry { return append([]lockEntry(nil), es...) }

func withVersion(es []lockEntry, name, v string) []lockEntry {
	out := cloneEntries(es)
	for i := range out {
		if out[i].Name == name {
			out[i].Version = v
		}
	}
	return out
}
