package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/graphwire/graphwire/executor/chdb"
)

// TestDirsFollowXDG: the library cache and the default data directory follow the XDG base
// directories, the graphwire variables win, scripts/install-chdb.sh installs the library where
// the CLI looks for it, and every script keeps its tools under the same cache directory
// (.ci/run installs the tests' tools through install-test-tools.sh).
func TestDirsFollowXDG(t *testing.T) {
	lib := filepath.Join("chdb", chdb.LibraryVersion, "libchdb.so")
	tests := []struct {
		name      string
		env       map[string]string
		wantCache string
		wantData  string
	}{
		{
			name:      "home only",
			env:       map[string]string{"HOME": "/home/u"},
			wantCache: "/home/u/.cache/graphwire",
			wantData:  "/home/u/.local/share/graphwire/data",
		},
		{
			name:      "XDG homes",
			env:       map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/xdg/cache", "XDG_DATA_HOME": "/xdg/data"},
			wantCache: "/xdg/cache/graphwire",
			wantData:  "/xdg/data/graphwire/data",
		},
		{
			name:      "relative XDG homes are ignored",
			env:       map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "rel/cache", "XDG_DATA_HOME": "rel/data"},
			wantCache: "/home/u/.cache/graphwire",
			wantData:  "/home/u/.local/share/graphwire/data",
		},
		{
			name:      "graphwire variables win",
			env:       map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/xdg/cache", "XDG_DATA_HOME": "/xdg/data", "GRAPHWIRE_CACHE": "/gw/cache", "GRAPHWIRE_DATA": "/gw/data"},
			wantCache: "/gw/cache",
			wantData:  "/gw/data",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "GRAPHWIRE_CACHE", "GRAPHWIRE_DATA", "GRAPHWIRE_CHDB_LIB"} {
				t.Setenv(k, tt.env[k]) // "" counts as unset everywhere these are read
			}
			if got := chdb.DefaultCacheDir(); got != tt.wantCache {
				t.Errorf("DefaultCacheDir() = %q, want %q", got, tt.wantCache)
			}
			wantLib := filepath.Join(tt.wantCache, lib)
			if got := chdb.DefaultLibrary(); got != wantLib {
				t.Errorf("DefaultLibrary() = %q, want %q", got, wantLib)
			}
			var f engineFlags
			if got := f.dataDir(); got != tt.wantData {
				t.Errorf("dataDir() = %q, want %q", got, tt.wantData)
			}
			out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", "install-chdb.sh"), "--where").CombinedOutput()
			if err != nil {
				t.Fatalf("install-chdb.sh --where: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != wantLib {
				t.Errorf("install-chdb.sh --where = %q, want %q (where the CLI looks)", got, wantLib)
			}
			out, err = exec.Command("bash", filepath.Join("..", "..", "scripts", "install-chdb.sh"), "--cache-dir").CombinedOutput()
			if err != nil {
				t.Fatalf("install-chdb.sh --cache-dir: %v\n%s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != tt.wantCache {
				t.Errorf("install-chdb.sh --cache-dir = %q, want %q", got, tt.wantCache)
			}
			// tests/mcp and tests/e2e look for their tools under chdb.DefaultCacheDir().
			out, err = exec.Command("bash", filepath.Join("..", "..", "scripts", "install-test-tools.sh"), "--where").CombinedOutput()
			if err != nil {
				t.Fatalf("install-test-tools.sh --where: %v\n%s", err, out)
			}
			wantTools := "inspector " + filepath.Join(tt.wantCache, "inspector") + "\ntools " + filepath.Join(tt.wantCache, "tools") + "\n"
			if got := string(out); got != wantTools {
				t.Errorf("install-test-tools.sh --where = %q, want %q", got, wantTools)
			}
		})
	}
}
