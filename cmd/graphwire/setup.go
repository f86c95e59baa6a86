package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/cobra"

	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/internal/jsonread"
)

// setupClients are the agents graphwire setup configures, in the order help lists them.
var setupClients = []string{"claude-code", "claude-desktop", "cursor", "codex", "vscode"}

// setupFlags are the flags of "graphwire setup".
type setupFlags struct {
	client   string
	name     string
	config   string
	embedded string
	admin    bool
	scopes   []string
	project  bool
	print    bool
}

// rawScopes is --scope as given, checked by compiler.ParseScope, so the client's command line
// repeats the user's spelling.
type rawScopes []string

func (s *rawScopes) String() string { return strings.Join(*s, ",") }
func (s *rawScopes) Type() string   { return "PATH[:LEVEL]" }
func (s *rawScopes) Set(v string) error {
	if _, err := compiler.ParseScope(v); err != nil {
		return err
	}
	*s = append(*s, v)
	return nil
}

func newSetupCmd(s streams) *cobra.Command {
	var f setupFlags
	cmd := &cobra.Command{
		Use:   "setup CLIENT (--admin | --scope PATH[:LEVEL] ...) [flags]",
		Short: "write an agent's MCP configuration for graphwire mcp",
		Long: "Write the MCP server configuration of an agent (" + strings.Join(setupClients, ", ") + ")\n" +
			"so it starts 'graphwire mcp' with this binary's absolute path, an absolute --embedded data\n" +
			"directory and the caller given here. Other servers and keys in the file are kept, a file\n" +
			"that is replaced is first copied to FILE.bak-TIMESTAMP, and a second run changes nothing\n" +
			"(docs/mcp.md, \"One command setup\").",
		Args:      cobra.ExactArgs(1),
		ValidArgs: setupClients,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.client = args[0]
			if err := f.finish(); err != nil {
				return &usageError{err}
			}
			return runSetup(f, s.stdout, s.stderr)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.name, "name", "graphwire", "name of the server entry in the client's configuration")
	fs.StringVar(&f.config, "config", "", "configuration file to write instead of the client's usual one")
	fs.StringVar(&f.embedded, "embedded", "", "data directory the server reads (default $GRAPHWIRE_DATA, else ${XDG_DATA_HOME:-$HOME/.local/share}/graphwire/data, made absolute now)")
	fs.BoolVar(&f.admin, "admin", false, "the server answers as an admin caller")
	fs.Var((*rawScopes)(&f.scopes), "scope", "the server grants this traversal-path prefix, PATH[:LEVEL]; repeatable")
	fs.BoolVar(&f.project, "project", false, "cursor: write the project's .cursor/mcp.json instead of ~/.cursor/mcp.json")
	fs.BoolVar(&f.print, "print", false, "print the resulting configuration entry instead of writing it")
	return cmd
}

func (f *setupFlags) finish() error {
	if !slices.Contains(setupClients, f.client) {
		return fmt.Errorf("unknown client %q; choose one of %s", f.client, strings.Join(setupClients, ", "))
	}
	if f.admin == (len(f.scopes) > 0) {
		return errors.New("choose the caller with exactly one of --admin or --scope")
	}
	if f.name == "" {
		return errors.New("--name is empty")
	}
	if f.project && f.client != "cursor" {
		return fmt.Errorf("--project is for cursor; %s has one configuration file", f.client)
	}
	return nil
}

// setupCommand is the command line the client runs: this binary, symlinks resolved, and the
// arguments of graphwire mcp with an absolute data directory, because a client starts servers
// with a minimal environment that may not have the variables the default comes from.
func (f setupFlags) setupCommand() (string, []string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("find this binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", nil, fmt.Errorf("find this binary: %w", err)
	}
	ef := engineFlags{embedded: f.embedded}
	dir, err := filepath.Abs(ef.dataDir())
	if err != nil {
		return "", nil, fmt.Errorf("data directory: %w", err)
	}
	args := []string{"mcp", "--embedded", dir}
	if f.admin {
		args = append(args, "--admin")
	}
	for _, s := range f.scopes {
		args = append(args, "--scope", s)
	}
	return exe, args, nil
}

// setupEngineEnv is the environment the client must give the server for it to find the
// embedded engine: GRAPHWIRE_CHDB_LIB, absolute, when the library is found now through variables
// a client's minimal environment may lack (GRAPHWIRE_CHDB_LIB, GRAPHWIRE_CACHE, XDG_CACHE_HOME)
// rather than at its default under $HOME; none otherwise. It warns on stderr when the library is
// not there, since the server cannot start without it.
func setupEngineEnv(stderr io.Writer) (map[string]string, error) {
	lib, err := filepath.Abs(chdb.DefaultLibrary())
	if err != nil {
		return nil, fmt.Errorf("engine library: %w", err)
	}
	if _, err := os.Stat(lib); err != nil {
		fmt.Fprintf(stderr, "graphwire setup: the embedded engine is not at %s (run scripts/install-chdb.sh); the server cannot start without it\n", lib)
	}
	if h, err := os.UserHomeDir(); err == nil && lib == chdb.CachedLibrary(filepath.Join(h, ".cache", "graphwire")) {
		return nil, nil
	}
	return map[string]string{"GRAPHWIRE_CHDB_LIB": lib}, nil
}

// setupPath is the file the client reads its MCP servers from, and the permissions a new one gets.
func (f setupFlags) setupPath() (string, fs.FileMode, error) {
	if f.config != "" {
		p, err := filepath.Abs(f.config)
		return p, 0o600, err
	}
	home := func(elem ...string) (string, fs.FileMode, error) {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", 0, fmt.Errorf("%s configuration: %w", f.client, err)
		}
		return filepath.Join(append([]string{h}, elem...)...), 0o600, nil
	}
	project := func(elem ...string) (string, fs.FileMode, error) {
		p, err := filepath.Abs(filepath.Join(elem...))
		return p, 0o644, err
	}
	switch f.client {
	case "claude-code":
		return project(".mcp.json")
	case "claude-desktop":
		dir, err := os.UserConfigDir()
		if err != nil {
			return "", 0, fmt.Errorf("claude-desktop configuration: %w", err)
		}
		return filepath.Join(dir, "Claude", "claude_desktop_config.json"), 0o600, nil
	case "cursor":
		if f.project {
			return project(".cursor", "mcp.json")
		}
		return home(".cursor", "mcp.json")
	case "vscode":
		return project(".vscode", "mcp.json")
	case "codex":
		if d := os.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "config.toml"), 0o600, nil
		}
		return home(".codex", "config.toml")
	}
	return "", 0, fmt.Errorf("unknown client %q", f.client)
}

// runSetup is the running half of graphwire setup.
func runSetup(f setupFlags, stdout, stderr io.Writer) error {
	exe, args, err := f.setupCommand()
	if err != nil {
		return err
	}
	env, err := setupEngineEnv(stderr)
	if err != nil {
		return err
	}
	path, perm, err := f.setupPath()
	if err != nil {
		return err
	}
	if f.print {
		snippet, err := setupSnippet(f.client, f.name, exe, args, env)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "graphwire setup: %s reads %s; nothing written\n", f.client, path)
		_, err = stdout.Write(snippet)
		return err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // write the file a symlinked configuration points at, keeping the link
	}
	if st, err := os.Stat(path); err == nil && st.Size() > maxSetupConfigBytes {
		return fmt.Errorf("%s: %d bytes, over the %d a client configuration may have for setup to edit it; nothing written", path, st.Size(), maxSetupConfigBytes)
	}
	old, err := os.ReadFile(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s configuration: %w", f.client, err)
	}
	var updated []byte
	var action string
	if f.client == "codex" {
		if updated, action, err = checkedTOMLServer(old, path, f.name, exe, args, env, stderr); err != nil {
			return err
		}
	} else {
		updated, action, err = setJSONServer(old, path, f.client, f.name, exe, args, env)
		if err != nil {
			return err
		}
	}
	if action == "unchanged" {
		fmt.Fprintf(stdout, "%s: server %q unchanged in %s\n", f.client, f.name, path)
		return nil
	}
	backup := ""
	if exists {
		st, err := os.Stat(path)
		if err != nil {
			return fmt.Errorf("read %s configuration: %w", f.client, err)
		}
		perm = st.Mode().Perm()
		backup = path + ".bak-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.WriteFile(backup, old, perm); err != nil {
			return fmt.Errorf("back up %s: %w", path, err)
		}
	}
	if err := writeAtomic(path, updated, perm); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: server %q %s in %s\n", f.client, f.name, action, path)
	if backup != "" {
		fmt.Fprintf(stdout, "%s: the previous file is %s\n", f.client, backup)
	}
	return nil
}

// writeAtomic replaces path with data through a temporary file in its directory and a rename.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// serversKey is the key of the object a JSON client keeps its MCP servers in.
func serversKey(client string) string {
	if client == "vscode" {
		return "servers"
	}
	return "mcpServers"
}

// setupSnippet is what --print shows: the client's configuration holding only this server.
func setupSnippet(client, name, exe string, args []string, env map[string]string) ([]byte, error) {
	if client == "codex" {
		out, _ := setTOMLServer(nil, name, exe, args, env)
		return out, nil
	}
	out, _, err := setJSONServer(nil, "", client, name, exe, args, env)
	return out, err
}

// setJSONServer sets the server entry name in a JSON client configuration, keeping every other
// key and server in their order; an entry's own extra keys (env, cwd) are kept too, and env's
// variables are set in its "env" object beside the ones it has. It reports "added", "updated"
// or "unchanged".
func setJSONServer(old []byte, path, client, name, exe string, args []string, env map[string]string) ([]byte, string, error) {
	root := &jsonObject{}
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if root, err = parseJSONObject(old, path, ""); err != nil {
			return nil, "", err
		}
	}
	key := serversKey(client)
	servers := &jsonObject{}
	if raw, ok := root.get(key); ok {
		var err error
		if servers, err = parseJSONObject(raw, path, "/"+key); err != nil {
			return nil, "", err
		}
	}
	entry := &jsonObject{}
	action := "added"
	if raw, ok := servers.get(name); ok {
		var err error
		if entry, err = parseJSONObject(raw, path, string(jsonread.AppendPointerToken([]byte("/"+key+"/"), name))); err != nil {
			return nil, "", err
		}
		action = "updated"
	}
	before := entry.value()
	if client == "vscode" {
		entry.set("type", setupJSON("stdio"))
	}
	entry.set("command", setupJSON(exe))
	entry.set("args", setupJSON(args))
	if len(env) > 0 {
		vars := &jsonObject{}
		if raw, ok := entry.get("env"); ok {
			var err error
			ptr := string(jsonread.AppendPointerToken([]byte("/"+key+"/"), name)) + "/env"
			if vars, err = parseJSONObject(raw, path, ptr); err != nil {
				return nil, "", err
			}
		}
		for _, k := range slices.Sorted(maps.Keys(env)) {
			vars.set(k, setupJSON(env[k]))
		}
		entry.set("env", vars.encode())
	}
	if action == "updated" && reflect.DeepEqual(before, entry.value()) {
		return old, "unchanged", nil
	}
	servers.set(name, entry.encode())
	root.set(key, servers.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, root.encode(), "", "  "); err != nil {
		return nil, "", fmt.Errorf("encode %s: %w", path, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), action, nil
}

// jsonObject is a JSON object that keeps its keys in order, its values as written.
type jsonObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseJSONObject reads data, which must be one JSON object; ptr is its JSON pointer in the
// file, for errors. A syntax error says file:line:column.
func parseJSONObject(data []byte, path, ptr string) (*jsonObject, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) && ptr == "" {
			line, col := jsonread.Position(data, int(se.Offset)-1) // Offset counts the bad byte
			return nil, &classError{exitInvalid, fmt.Sprintf("%s:%d:%d: not valid JSON: %v; nothing written", path, line, col, se), err}
		}
		return nil, &classError{exitInvalid, fmt.Sprintf("%s: not valid JSON: %v; nothing written", path, err), err}
	}
	if _, ok := probe.(map[string]any); !ok {
		where := ptr
		if where == "" {
			where = "the top level"
		}
		return nil, &classError{exitInvalid, fmt.Sprintf("%s: %s is not a JSON object; nothing written", path, where), nil}
	}
	o := &jsonObject{vals: map[string]json.RawMessage{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		o.set(k, v)
	}
	return o, nil
}

func (o *jsonObject) get(k string) (json.RawMessage, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	if o.vals == nil {
		o.vals = map[string]json.RawMessage{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// value is the object decoded, for comparing entries by meaning rather than spelling.
func (o *jsonObject) value() any {
	var v any
	_ = json.Unmarshal(o.encode(), &v)
	return v
}

func (o *jsonObject) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(setupJSON(k))
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// setupJSON encodes a string or []string without HTML escaping (paths may hold & or <).
func setupJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings and string slices always encode
	return bytes.TrimRight(b.Bytes(), "\n")
}

// setTOMLServer writes the table [mcp_servers.NAME] of a Codex config.toml: command and args are
// (re)written right after the table's header, every other line of the file stays byte for byte,
// other keys of the table (env, startup_timeout_sec) and its subtables included.
// maxSetupConfigBytes bounds the configuration file setup reads: client configurations are a
// few kilobytes, and a huge one is more likely a mistake than a configuration.
const maxSetupConfigBytes = 4 << 20

// checkedTOMLServer is setTOMLServer guarded by a real TOML parser (BurntSushi/toml): the
// file must parse; an entry of that name written in a form the line editor does not rewrite
// (an inline table under [mcp_servers], dotted keys, a quoted first part) is refused rather
// than defined twice; and the edited file must parse and hold exactly the command and args
// written. Nothing is written when any of these fails.
//
// env's variables are written as env = { ... } when the table has no env; when it has one that
// lacks them, stderr says what to add (setup does not rewrite a table it did not write).
func checkedTOMLServer(old []byte, path, name, exe string, args []string, env map[string]string, stderr io.Writer) ([]byte, string, error) {
	var before map[string]any
	md, err := toml.Decode(string(old), &before)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, "", fmt.Errorf("%s:%d:%d: not valid TOML: %s; nothing written", path, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, "", fmt.Errorf("%s: not valid TOML: %w; nothing written", path, err)
	}
	if md.IsDefined("mcp_servers", name, "env") {
		var have struct {
			Servers map[string]struct {
				Env map[string]any `toml:"env"`
			} `toml:"mcp_servers"`
		}
		_, _ = toml.Decode(string(old), &have) // it parsed above
		for _, k := range slices.Sorted(maps.Keys(env)) {
			if have.Servers[name].Env[k] != env[k] {
				fmt.Fprintf(stderr, "graphwire setup: %s: add %s = %s to the env of mcp_servers.%s by hand\n", path, k, tomlString(env[k]), name)
			}
		}
		env = nil
	}
	updated, action := setTOMLServer(old, name, exe, args, env)
	headed := false
	for _, l := range strings.SplitAfter(string(old), "\n") {
		headed = headed || tomlHeaderIs(l, name)
	}
	if md.IsDefined("mcp_servers", name) && !headed {
		return nil, "", fmt.Errorf("%s: mcp_servers.%s is defined in a form setup does not rewrite (an inline table or dotted keys); edit it by hand, or remove it and run setup again; nothing written", path, name)
	}
	var after struct {
		Servers map[string]struct {
			Command string            `toml:"command"`
			Args    []string          `toml:"args"`
			Env     map[string]string `toml:"env"`
		} `toml:"mcp_servers"`
	}
	if _, err := toml.Decode(string(updated), &after); err != nil {
		return nil, "", fmt.Errorf("%s: the edited file would not be valid TOML (%v); nothing written", path, err)
	}
	got, ok := after.Servers[name]
	envOK := true
	for k, v := range env {
		envOK = envOK && got.Env[k] == v
	}
	if !ok || got.Command != exe || !slices.Equal(got.Args, args) || !envOK {
		return nil, "", fmt.Errorf("%s: the edited file would not hold the server as written; edit mcp_servers.%s by hand; nothing written", path, name)
	}
	return updated, action, nil
}

func setTOMLServer(old []byte, name, exe string, args []string, env map[string]string) ([]byte, string) {
	header := "[mcp_servers." + tomlKey(name) + "]"
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = tomlString(a)
	}
	body := "command = " + tomlString(exe) + "\nargs = [" + strings.Join(quoted, ", ") + "]\n"
	if len(env) > 0 { // the caller leaves env out when the table has one
		var vars []string
		for _, k := range slices.Sorted(maps.Keys(env)) {
			vars = append(vars, tomlKey(k)+" = "+tomlString(env[k]))
		}
		body += "env = { " + strings.Join(vars, ", ") + " }\n"
	}
	lines := strings.SplitAfter(string(old), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start := -1
	for i, l := range lines {
		if tomlHeaderIs(l, name) {
			start = i
			break
		}
	}
	if start < 0 {
		var b strings.Builder
		b.Write(old)
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			b.WriteByte('\n')
		}
		if len(bytes.TrimSpace(old)) > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(header + "\n" + body)
		return []byte(b.String()), "added"
	}
	var b strings.Builder
	for _, l := range lines[:start+1] {
		b.WriteString(l)
	}
	if !strings.HasSuffix(lines[start], "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(body)
	for i := start + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "[") {
			for _, rest := range lines[i:] {
				b.WriteString(rest)
			}
			break
		}
		k, v, ok := strings.Cut(l, "=")
		if k = strings.TrimSpace(k); ok && (k == "command" || k == "args") {
			// Skip the old value, an array over several lines included.
			depth := tomlDepth(v)
			for depth > 0 && i+1 < len(lines) {
				i++
				depth += tomlDepth(lines[i])
			}
			continue
		}
		b.WriteString(l)
	}
	out := []byte(b.String())
	if bytes.Equal(out, old) {
		return old, "unchanged"
	}
	return out, "updated"
}

// tomlHeaderIs reports whether line is the header [mcp_servers.NAME], bare or quoted.
func tomlHeaderIs(line, name string) bool {
	l := strings.TrimSpace(line)
	if i := strings.Index(l, "#"); i >= 0 && strings.HasSuffix(strings.TrimSpace(l[:i]), "]") {
		l = strings.TrimSpace(l[:i])
	}
	inner, ok := strings.CutPrefix(l, "[")
	if !ok || strings.HasPrefix(inner, "[") {
		return false
	}
	inner, ok = strings.CutSuffix(inner, "]")
	if !ok {
		return false
	}
	table, key, ok := strings.Cut(inner, ".")
	if !ok || strings.TrimSpace(table) != "mcp_servers" {
		return false
	}
	key = strings.TrimSpace(key)
	return key == name || key == tomlString(name) || key == "'"+name+"'"
}

// tomlDepth is the change in array nesting over s, brackets inside strings and comments ignored.
func tomlDepth(s string) int {
	depth := 0
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			escaped = false
		case quote != 0:
			if r == '\\' && quote == '"' {
				escaped = true
			} else if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#':
			return depth
		case r == '[':
			depth++
		case r == ']':
			depth--
		}
	}
	return depth
}

// tomlKey is name as a TOML key: bare when it can be, else a basic string.
func tomlKey(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return tomlString(name)
		}
	}
	return name
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
