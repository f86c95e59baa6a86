package hermetic_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/internal/hermetic"
)

// TestSetup: the home and the XDG directories move into a new temporary directory, the
// graphwire variables the CLI reads are gone, the tests' knobs stay, GRAPHWIRE_CACHE names the
// cache given, and cleanup removes the home.
func TestSetup(t *testing.T) {
	user := t.TempDir()
	for k, v := range map[string]string{
		"HOME":                   user,
		"XDG_DATA_HOME":          filepath.Join(user, "data"),
		"XDG_CONFIG_HOME":        filepath.Join(user, "config"),
		"XDG_CACHE_HOME":         filepath.Join(user, "cache"),
		"XDG_STATE_HOME":         filepath.Join(user, "state"),
		"GRAPHWIRE_DATA":         filepath.Join(user, "gwdata"),
		"GRAPHWIRE_CONFIG":       filepath.Join(user, "serve.yaml"),
		"GRAPHWIRE_TOKEN":        "tok",
		"GRAPHWIRE_LOG_FORMAT":   "json",
		"GRAPHWIRE_CACHE":        filepath.Join(user, "cache", "graphwire"),
		"GRAPHWIRE_CHDB_LIB":     "/lib/libchdb.so",
		"GRAPHWIRE_PROP_CASES":   "7",
		"GRAPHWIRE_INSPECTOR":    "/bin/inspector",
		"GRAPHWIRE_TEST_CHILD":   "",
		"UNRELATED_TEST_SETTING": "kept",
	} {
		t.Setenv(k, v) // restored when the test ends, whatever Setup does to them
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		t.Setenv(k, os.Getenv(k))
	}
	cleanup, err := hermetic.Setup("rel-cache")
	if err != nil {
		t.Fatal(err)
	}
	home := os.Getenv("HOME")
	if home == user || !strings.HasPrefix(filepath.Base(home), "graphwire-test-home-") {
		t.Errorf("HOME = %q, want a new temporary home", home)
	}
	for k, want := range map[string]string{
		"XDG_DATA_HOME":          filepath.Join(home, ".local", "share"),
		"XDG_CONFIG_HOME":        filepath.Join(home, ".config"),
		"XDG_CACHE_HOME":         filepath.Join(home, ".cache"),
		"XDG_STATE_HOME":         filepath.Join(home, ".local", "state"),
		"GRAPHWIRE_CACHE":        mustAbs(t, "rel-cache"),
		"GRAPHWIRE_CHDB_LIB":     "/lib/libchdb.so",
		"GRAPHWIRE_PROP_CASES":   "7",
		"GRAPHWIRE_INSPECTOR":    "/bin/inspector",
		"UNRELATED_TEST_SETTING": "kept",
	} {
		if got := os.Getenv(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for _, k := range []string{"GRAPHWIRE_DATA", "GRAPHWIRE_CONFIG", "GRAPHWIRE_TOKEN", "GRAPHWIRE_LOG_FORMAT"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s = %q survived, want it unset", k, v)
		}
	}
	if gocache := os.Getenv("GOCACHE"); gocache == "" || strings.HasPrefix(gocache, home) {
		t.Errorf("GOCACHE = %q, want the go command's cache from before the move", gocache)
	}
	cleanup()
	if _, err := os.Stat(home); !os.IsNotExist(err) {
		t.Errorf("home %s after cleanup: %v, want it removed", home, err)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
