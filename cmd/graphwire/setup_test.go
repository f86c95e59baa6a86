package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// setupEnv gives graphwire setup a home, XDG directories and a working directory of the test's
// own, and returns the home and the working directory.
func setupEnv(t *testing.T) (home, wd string) {
	t.Helper()
	root := t.TempDir()
	home, wd = filepath.Join(root, "home"), filepath.Join(root, "project")
	for _, d := range []string{home, wd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	t.Setenv("GRAPHWIRE_DATA", "")
	t.Setenv("CODEX_HOME", "")
	// The engine's library where a client's minimal environment finds it too (under $HOME), so
	// setup writes no env (TestSetupEngineEnv covers the other case).
	t.Setenv("GRAPHWIRE_CHDB_LIB", "")
	t.Setenv("GRAPHWIRE_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Chdir(wd)
	return home, wd
}

// setupExe is the command setup must write: this binary, symlinks resolved.
func setupExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

// jsonServer reads the server name of a JSON client configuration.
func jsonServer(t *testing.T, path, key, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, data)
	}
	e, ok := cfg[key][name]
	if !ok {
		t.Fatalf("%s has no %s.%s:\n%s", path, key, name, data)
	}
	return e
}

func anyStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestSetupClients: each client's file is written where the client reads it, parses, and holds
// this binary's absolute path and graphwire mcp's arguments with an absolute data directory;
// a second run changes nothing and says so.
func TestSetupClients(t *testing.T) {
	for _, tt := range []struct {
		client string
		flags  []string
		path   func(home, wd string) string
		key    string // "" for codex's TOML
	}{
		{"claude-code", nil, func(_, wd string) string { return filepath.Join(wd, ".mcp.json") }, "mcpServers"},
		{"claude-desktop", nil, func(home, _ string) string {
			return filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
		}, "mcpServers"},
		{"cursor", nil, func(home, _ string) string { return filepath.Join(home, ".cursor", "mcp.json") }, "mcpServers"},
		{"cursor", []string{"--project"}, func(_, wd string) string { return filepath.Join(wd, ".cursor", "mcp.json") }, "mcpServers"},
		{"vscode", nil, func(_, wd string) string { return filepath.Join(wd, ".vscode", "mcp.json") }, "servers"},
		{"codex", nil, func(home, _ string) string { return filepath.Join(home, ".codex", "config.toml") }, ""},
	} {
		t.Run(strings.Join(append([]string{tt.client}, tt.flags...), " "), func(t *testing.T) {
			home, wd := setupEnv(t)
			args := append([]string{"setup", tt.client, "--scope", "1/", "--scope", "1/22/:30"}, tt.flags...)
			r := runCLI(args...)
			path := tt.path(home, wd)
			if r.code != 0 || !strings.Contains(r.stdout, "added in "+path) {
				t.Fatalf("setup: exit %d, stdout %q, stderr %q; want 0 and \"added in %s\"", r.code, r.stdout, r.stderr, path)
			}
			data := filepath.Join(home, ".local", "share", "graphwire", "data")
			wantArgs := []string{"mcp", "--embedded", data, "--scope", "1/", "--scope", "1/22/:30"}
			if tt.key == "" {
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				want := "[mcp_servers.graphwire]\ncommand = " + tomlString(setupExe(t)) +
					"\nargs = [\"mcp\", \"--embedded\", " + tomlString(data) + ", \"--scope\", \"1/\", \"--scope\", \"1/22/:30\"]\n"
				if string(got) != want {
					t.Fatalf("%s:\n%s\nwant:\n%s", path, got, want)
				}
			} else {
				e := jsonServer(t, path, tt.key, "graphwire")
				if e["command"] != setupExe(t) || !slices.Equal(anyStrings(e["args"]), wantArgs) {
					t.Fatalf("entry %v; want command %s, args %q", e, setupExe(t), wantArgs)
				}
				if tt.client == "vscode" && e["type"] != "stdio" {
					t.Fatalf("vscode entry %v has no \"type\": \"stdio\"", e)
				}
			}
			before, _ := os.ReadFile(path)
			r = runCLI(args...)
			after, _ := os.ReadFile(path)
			if r.code != 0 || !strings.Contains(r.stdout, "unchanged in "+path) || string(before) != string(after) {
				t.Fatalf("second setup: exit %d, stdout %q, file changed %v; want unchanged", r.code, r.stdout, string(before) != string(after))
			}
			if backups, _ := filepath.Glob(path + ".bak-*"); len(backups) != 0 {
				t.Fatalf("backups %v of a file setup made and never changed", backups)
			}
		})
	}
}

// TestSetupPreserves: an existing configuration keeps its other servers and keys, in their
// order and with 2-space indentation; the replaced file is backed up first with its permissions;
// --name, --admin and --embedded reach the entry, which keeps its own extra keys.
func TestSetupPreserves(t *testing.T) {
	home, _ := setupEnv(t)
	path := filepath.Join(home, ".config", "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	old := `{
    "zeta": {"keep": [1, 2]},
    "mcpServers": {
        "other": {"command": "other-server", "args": ["--x"]},
        "gw": {"command": "/old/graphwire", "args": ["mcp"], "env": {"A": "1"}}
    },
    "alpha": true
}`
	if err := os.WriteFile(path, []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "graph")
	r := runCLI("setup", "claude-desktop", "--admin", "--name", "gw", "--embedded", data)
	if r.code != 0 || !strings.Contains(r.stdout, `"gw" updated in `+path) {
		t.Fatalf("setup: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "zeta": {
    "keep": [
      1,
      2
    ]
  },
  "mcpServers": {
    "other": {
      "command": "other-server",
      "args": [
        "--x"
      ]
    },
    "gw": {
      "command": ` + string(setupJSON(setupExe(t))) + `,
      "args": [
        "mcp",
        "--embedded",
        ` + string(setupJSON(data)) + `,
        "--admin"
      ],
      "env": {
        "A": "1"
      }
    }
  },
  "alpha": true
}
`
	if string(got) != want {
		t.Fatalf("%s:\n%s\nwant:\n%s", path, got, want)
	}
	backups, _ := filepath.Glob(path + ".bak-*")
	if len(backups) != 1 || !strings.Contains(r.stdout, backups[0]) {
		t.Fatalf("backups %v, stdout %q; want one, named on stdout", backups, r.stdout)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != old {
		t.Fatalf("backup holds %q, want the old file", b)
	}
	for _, p := range []string{path, backups[0]} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o640 {
			t.Fatalf("%s: %v, mode %v; want 0640 as before", p, err, st.Mode().Perm())
		}
	}
	if r := runCLI("setup", "claude-desktop", "--admin", "--name", "gw", "--embedded", data); r.code != 0 || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("second setup: exit %d, stdout %q", r.code, r.stdout)
	}
	if again, _ := filepath.Glob(path + ".bak-*"); len(again) != 1 {
		t.Fatalf("backups after an unchanged run: %v", again)
	}
}

// TestSetupPrint: --print shows the entry and writes nothing.
func TestSetupPrint(t *testing.T) {
	_, wd := setupEnv(t)
	r := runCLI("setup", "claude-code", "--admin", "--print")
	if r.code != 0 {
		t.Fatalf("setup --print: exit %d, stderr %q", r.code, r.stderr)
	}
	var cfg map[string]map[string]map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &cfg); err != nil {
		t.Fatalf("--print output does not parse: %v\n%s", err, r.stdout)
	}
	if e := cfg["mcpServers"]["graphwire"]; e["command"] != setupExe(t) || !slices.Contains(anyStrings(e["args"]), "--admin") {
		t.Fatalf("--print entry %v", e)
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 0 {
		t.Fatalf("--print wrote %v", entries)
	}
}

// TestSetupInvalidJSON: a configuration that is not JSON is refused with file:line:column and
// left as it is, without a backup.
func TestSetupInvalidJSON(t *testing.T) {
	_, wd := setupEnv(t)
	path := filepath.Join(wd, ".mcp.json")
	bad := "{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\"},\n  }\n}\n"
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI("setup", "claude-code", "--admin")
	if r.code != exitInvalid || !strings.Contains(r.stderr, path+":4:3: not valid JSON") {
		t.Fatalf("exit %d, stderr %q; want %d and %s:4:3", r.code, r.stderr, exitInvalid, path)
	}
	if got, _ := os.ReadFile(path); string(got) != bad {
		t.Fatalf("the invalid file was changed to %q", got)
	}
	if entries, _ := os.ReadDir(wd); len(entries) != 1 {
		t.Fatalf("files beside the invalid one: %v", entries)
	}
	if err := os.WriteFile(path, []byte(`{"mcpServers": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("setup", "claude-code", "--admin"); r.code != exitInvalid || !strings.Contains(r.stderr, "/mcpServers is not a JSON object") {
		t.Fatalf("mcpServers an array: exit %d, stderr %q", r.code, r.stderr)
	}
	// A server name with "/" or "~" is one JSON Pointer token, escaped as RFC 6901 says.
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"team/gw~1": 5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("setup", "claude-code", "--admin", "--name", "team/gw~1"); r.code != exitInvalid || !strings.Contains(r.stderr, "/mcpServers/team~1gw~01 is not a JSON object") {
		t.Fatalf("entry a number: exit %d, stderr %q; want the pointer /mcpServers/team~1gw~01", r.code, r.stderr)
	}
}

// TestSetupCodexTOML: the table [mcp_servers.graphwire] of a Codex config.toml gets command and
// args; its other keys, the other tables and comments stay byte for byte.
func TestSetupCodexTOML(t *testing.T) {
	home, _ := setupEnv(t)
	path := filepath.Join(home, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	old := "model = \"o3\" # default\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n\n" +
		"[mcp_servers.graphwire]\ncommand = \"/old\"\nargs = [\n  \"mcp\", # [old]\n  \"--admin\",\n]\nstartup_timeout_sec = 20\n\n" +
		"[mcp_servers.graphwire.env]\nA = \"1\"\n\n[profiles.x]\nmodel = \"y\"\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI("setup", "codex", "--scope", "1/")
	if r.code != 0 || !strings.Contains(r.stdout, "updated in "+path) {
		t.Fatalf("setup: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	data := filepath.Join(home, ".local", "share", "graphwire", "data")
	want := "model = \"o3\" # default\n\n[mcp_servers.other]\ncommand = \"npx\"\nargs = [\"-y\", \"x\"]\n\n" +
		"[mcp_servers.graphwire]\ncommand = " + tomlString(setupExe(t)) + "\nargs = [\"mcp\", \"--embedded\", " + tomlString(data) + ", \"--scope\", \"1/\"]\n" +
		"startup_timeout_sec = 20\n\n[mcp_servers.graphwire.env]\nA = \"1\"\n\n[profiles.x]\nmodel = \"y\"\n"
	if got, _ := os.ReadFile(path); string(got) != want {
		t.Fatalf("%s:\n%s\nwant:\n%s", path, got, want)
	}
	if backups, _ := filepath.Glob(path + ".bak-*"); len(backups) != 1 {
		t.Fatalf("backups %v, want one", backups)
	}
	if r := runCLI("setup", "codex", "--scope", "1/"); r.code != 0 || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("second setup: exit %d, stdout %q", r.code, r.stdout)
	}
	// A new server is appended after the last table, the rest untouched.
	r = runCLI("setup", "codex", "--admin", "--name", "gw admin")
	got, _ := os.ReadFile(path)
	if r.code != 0 || !strings.HasPrefix(string(got), want+"\n[mcp_servers.\"gw admin\"]\ncommand = ") {
		t.Fatalf("second server: exit %d, stderr %q, file:\n%s", r.code, r.stderr, got)
	}
}

// TestSetupUsage: the caller and the client are checked before anything is read or written.
func TestSetupUsage(t *testing.T) {
	setupEnv(t)
	for _, args := range [][]string{
		{"setup", "claude-code"},
		{"setup", "claude-code", "--admin", "--scope", "1/"},
		{"setup", "emacs", "--admin"},
		{"setup", "vscode", "--admin", "--project"},
		{"setup", "vscode", "--scope", "nope"},
	} {
		if r := runCLI(args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, stderr %q; want %d", args, r.code, r.stderr, exitUsage)
		}
	}
}

// TestSetupCodexForeignForms: an entry of the same name written as an inline table or with
// dotted keys is refused with nothing written, instead of being defined a second time (which
// made the file unreadable); a file that is not TOML is refused with its line and column.
func TestSetupCodexForeignForms(t *testing.T) {
	home, _ := setupEnv(t)
	path := filepath.Join(home, ".codex", "config.toml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, text, want string }{
		{"inline table", "[mcp_servers]\ngraphwire = { command = \"old\", args = [] }\n", "defined in a form setup does not rewrite"},
		{"dotted keys", "mcp_servers.graphwire.command = \"old\"\n", "defined in a form setup does not rewrite"},
		{"quoted first part", "[\"mcp_servers\".graphwire]\ncommand = \"old\"\n", "defined in a form setup does not rewrite"},
		{"not TOML", "model = \n[x\n", path + ":1:"},
	} {
		if err := os.WriteFile(path, []byte(tt.text), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runCLI("setup", "codex", "--admin")
		got, _ := os.ReadFile(path)
		if r.code == 0 || !strings.Contains(r.stderr, tt.want) || string(got) != tt.text {
			t.Errorf("%s: exit %d, stderr %q, file now %q; want a refusal naming %q and the file unchanged", tt.name, r.code, r.stderr, got, tt.want)
		}
		if backups, _ := filepath.Glob(path + ".bak-*"); len(backups) != 0 {
			t.Errorf("%s: backups %v, want none", tt.name, backups)
		}
	}
}

// TestSetupEngineEnv: when the engine's library is found through variables a client's minimal
// environment lacks (here GRAPHWIRE_CHDB_LIB), setup writes GRAPHWIRE_CHDB_LIB into the entry's
// env, beside the variables it has, idempotently; Codex gets env = { ... }, or a note when its
// table has an env of its own. At its default under $HOME nothing is written, and a missing
// library is reported.
func TestSetupEngineEnv(t *testing.T) {
	home, wd := setupEnv(t)
	lib := filepath.Join(t.TempDir(), "engine", "libchdb.so")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, []byte("not really"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GRAPHWIRE_CHDB_LIB", lib)

	path := filepath.Join(wd, ".mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"graphwire": {"command": "x", "env": {"TZ": "UTC"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCLI("setup", "claude-code", "--admin")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("setup: exit %d, stderr %q", r.code, r.stderr)
	}
	env, _ := jsonServer(t, path, "mcpServers", "graphwire")["env"].(map[string]any)
	if env["GRAPHWIRE_CHDB_LIB"] != lib || env["TZ"] != "UTC" {
		t.Fatalf("env %v: want GRAPHWIRE_CHDB_LIB=%s beside TZ", env, lib)
	}
	if r := runCLI("setup", "claude-code", "--admin"); r.code != 0 || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("second setup: exit %d, stdout %q", r.code, r.stdout)
	}

	codex := filepath.Join(home, ".codex", "config.toml")
	if r := runCLI("setup", "codex", "--admin"); r.code != 0 {
		t.Fatalf("setup codex: exit %d, stderr %q", r.code, r.stderr)
	}
	got, err := os.ReadFile(codex)
	if err != nil {
		t.Fatal(err)
	}
	if want := "env = { GRAPHWIRE_CHDB_LIB = " + tomlString(lib) + " }\n"; !strings.Contains(string(got), want) {
		t.Fatalf("%s:\n%s\nwant a line %q", codex, got, want)
	}
	if r := runCLI("setup", "codex", "--admin"); r.code != 0 || !strings.Contains(r.stdout, "unchanged") {
		t.Fatalf("second setup codex: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	own := "[mcp_servers.graphwire]\ncommand = \"x\"\n\n[mcp_servers.graphwire.env]\nTZ = \"UTC\"\n"
	if err := os.WriteFile(codex, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	r = runCLI("setup", "codex", "--admin")
	if want := "add GRAPHWIRE_CHDB_LIB = " + tomlString(lib) + " to the env of mcp_servers.graphwire by hand"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Fatalf("setup codex with its own env table: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}

	// At the default under $HOME: no env; and a library that is not there is reported.
	t.Setenv("GRAPHWIRE_CHDB_LIB", "")
	r = runCLI("setup", "cursor", "--admin")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	if e := jsonServer(t, cursor, "mcpServers", "graphwire"); r.code != 0 || e["env"] != nil {
		t.Fatalf("setup cursor with the default library: exit %d, entry %v; want no env", r.code, e)
	}
	if !strings.Contains(r.stderr, "the embedded engine is not at "+filepath.Join(home, ".cache", "graphwire")) {
		t.Errorf("stderr %q: want the missing library reported", r.stderr)
	}
}
