package hermetic

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// kept reports whether the variable name survives [Setup]: every name that does not start with
// GRAPHWIRE_, and the graphwire variables that steer the tests themselves (the library path,
// property seeds and case counts, seed scales, engines to test against, the conformance root
// and tool overrides), none of which the CLI reads.
func kept(name string) bool {
	if !strings.HasPrefix(name, "GRAPHWIRE_") {
		return true
	}
	switch name {
	case "GRAPHWIRE_CHDB_LIB", "GRAPHWIRE_CONFORMANCE_DIR", "GRAPHWIRE_INSPECTOR",
		"GRAPHWIRE_PROP_SEED", "GRAPHWIRE_PROPERTY_SEED", "GRAPHWIRE_PROP_CASES",
		"GRAPHWIRE_SEED_SCALE", "GRAPHWIRE_BENCH_SCALE", "GRAPHWIRE_SQLBENCH_DOC",
		"GRAPHWIRE_CLICKHOUSE_DSN", "GRAPHWIRE_CLICKHOUSE_HTTP_DSN", "GRAPHWIRE_TEST_ENGINE",
		"GRAPHWIRE_LEGACY_CLICKHOUSE_DSN",
		"GRAPHWIRE_LEGACY_CLICKHOUSE_PORT", "GRAPHWIRE_LEGACY_CLICKHOUSE_DIR",
		"GRAPHWIRE_TEST_CHILD":
		return true
	}
	return false
}

// Setup moves the process into a temporary home (see the package comment) and returns a
// function that removes it. cacheDir is graphwire's cache directory, resolved by the caller
// before Setup; it is made absolute and exported as GRAPHWIRE_CACHE. Setup changes the
// process environment, so it belongs in TestMain, before any test runs.
func Setup(cacheDir string) (cleanup func(), err error) {
	cache, err := filepath.Abs(cacheDir)
	if err != nil {
		return nil, fmt.Errorf("hermetic: cache directory: %w", err)
	}
	goEnv, err := goSettings()
	if err != nil {
		return nil, err
	}
	home, err := os.MkdirTemp("", "graphwire-test-home-")
	if err != nil {
		return nil, fmt.Errorf("hermetic: %w", err)
	}
	cleanup = func() { os.RemoveAll(home) }
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !kept(name) {
			os.Unsetenv(name)
		}
	}
	set := map[string]string{
		"HOME":            home,
		"GRAPHWIRE_CACHE": cache,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_DATA_HOME":   filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":  filepath.Join(home, ".cache"),
	}
	for k, v := range goEnv {
		set[k] = v
	}
	for k, v := range set {
		if err := os.Setenv(k, v); err != nil {
			cleanup()
			return nil, fmt.Errorf("hermetic: set %s: %w", k, err)
		}
	}
	return cleanup, nil
}

// goSettings returns the go command's cache, module cache, GOPATH and env file as go env
// reports them, so that HOME moving does not move them; none when go is not on PATH (the
// tests then cannot run go either).
func goSettings() (map[string]string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return nil, nil
	}
	names := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"}
	out, err := exec.Command(goTool, append([]string{"env", "-json"}, names...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("hermetic: go env: %w", err)
	}
	var got map[string]string
	if err := json.Unmarshal(out, &got); err != nil {
		return nil, fmt.Errorf("hermetic: go env: %w", err)
	}
	set := make(map[string]string, len(got))
	for _, k := range names {
		if v := got[k]; v != "" {
			set[k] = v
		}
	}
	return set, nil
}

// Main runs run (m.Run, or a TestMain's own setup around it) inside [Setup]'s temporary home
// and returns its exit code, or 1 (after saying why on stderr) when the home cannot be set up.
func Main(run func() int, cacheDir string) int {
	cleanup, err := Setup(cacheDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer cleanup()
	return run()
}
