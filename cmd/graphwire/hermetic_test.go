package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestIgnoresUserGraph: a graph in the user's default data directory (the README's "Query your
// own code" step puts one there) changes no test. The test binary runs TestRunQuery's explain
// cases in a child whose HOME holds such a graph; they expect no readable graph, so they pass
// only if the child's TestMain moved the tests off the user's directories.
func TestIgnoresUserGraph(t *testing.T) {
	requireCHDB(t)
	home := t.TempDir()
	userEnv := func(extra ...string) []string {
		var env []string
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			switch name {
			case "HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", childEnv:
				continue
			}
			env = append(env, kv)
		}
		return append(append(env, "HOME="+home), extra...)
	}
	seed := exec.Command(os.Args[0], "seed", "--scale", "0.01", "--seed", "7")
	seed.Env = userEnv(childEnv + "=run")
	if out, err := seed.CombinedOutput(); err != nil {
		t.Fatalf("seed into the user's default data directory: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "share", "graphwire", "data")); err != nil {
		t.Fatalf("the user's default data directory was not made: %v", err)
	}
	// The graph is readable there: graphwire itself, run as the user, finds it.
	explain := exec.Command(os.Args[0], "query", "--admin", "--explain", userQuery)
	explain.Env = userEnv(childEnv + "=run")
	out, err := explain.CombinedOutput()
	if err != nil || strings.Contains(string(out), "no readable graph") {
		t.Fatalf("graphwire query --explain as the user: %v, output:\n%s\nwant an explain with the table sizes of the user's graph", err, out)
	}
	tests := exec.Command(os.Args[0], "-test.run", "^TestRunQuery$/^explain", "-test.count", "1", "-test.v")
	tests.Env = userEnv()
	if out, err := tests.CombinedOutput(); err != nil {
		t.Fatalf("TestRunQuery's explain cases with a graph in the user's default data directory: %v\n%s", err, out)
	}
}
