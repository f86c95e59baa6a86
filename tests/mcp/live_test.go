package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
)

// writeRepo writes a small Go module at dir: package repo calling into repo/sub.
func writeRepo(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"go.mod":   "module example.com/repo\n\ngo 1.22\n",
		"a.go":     "package repo\n\nimport \"example.com/repo/sub\"\n\nfunc A() int { return sub.B() }\n",
		"sub/b.go": "package sub\n\nfunc B() int { return 1 }\n",
	}
	for name, text := range files {
		writeText(t, filepath.Join(dir, name), text)
	}
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cli runs the graphwire binary and returns its stderr; the exit code must be want.
func cli(t *testing.T, want int, args ...string) string {
	t.Helper()
	cmd := exec.Command(env.bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != want {
		t.Fatalf("graphwire %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, stderr.String())
	}
	return stderr.String()
}

// defs counts the live definitions called name, as the agent asks for them.
func defs(t *testing.T, s *mcp.ClientSession, name string) int64 {
	t.Helper()
	q := fmt.Sprintf(`{"query_type":"traversal","nodes":[{"id":"d","entity":"Definition","filters":{"name":%q}}],"limit":10}`, name)
	return query(t, s, map[string]any{"query": q, "format": "json"}).Meta.RowCount
}

// TestLiveLoopStdio is the live loop of an agent on graphwire mcp: the code is edited, then
// indexed by the CLI (which finds the data directory owned by the MCP process and writes
// through it) or by the tool index_repository, and the agent's next query_graph sees it.
func TestLiveLoopStdio(t *testing.T) {
	ready(t)
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	writeRepo(t, repo)
	data := filepath.Join(t.TempDir(), "data")
	cli(t, 0, "index", "--embedded", data, repo)
	s := stdioAt(t, []string{"--embedded", data}, "--admin", "--index-root", root)
	if n := defs(t, s, "B"); n != 1 {
		t.Fatalf("B: %d definitions before any edit, want 1", n)
	}
	if n := defs(t, s, "Added"); n != 0 {
		t.Fatalf("Added: %d definitions before it was written, want 0", n)
	}

	writeText(t, filepath.Join(repo, "sub", "added.go"), "package sub\n\nfunc Added() int { return B() }\n")
	out := cli(t, 0, "index", "--embedded", data, repo)
	if !strings.Contains(out, "served by a running graphwire; writing through it") || !strings.Contains(out, "rows changed since the last index: 1 of 3") {
		t.Errorf("index while mcp runs:\n%s", out)
	}
	if n := defs(t, s, "Added"); n != 1 {
		t.Fatalf("Added: %d definitions after the CLI indexed it, want 1", n)
	}

	writeText(t, filepath.Join(repo, "more", "more.go"), "package more\n\nfunc More() {}\n")
	if err := os.Remove(filepath.Join(repo, "sub", "added.go")); err != nil {
		t.Fatal(err)
	}
	r := call(t, s, "index_repository", map[string]any{"path": repo})
	if r.IsError || !strings.Contains(r.Text, "1 files changed since the last index, 1 gone") {
		t.Fatalf("index_repository: %s", r.Text)
	}
	if n := defs(t, s, "More"); n != 1 {
		t.Errorf("More: %d definitions after index_repository, want 1", n)
	}
	if n := defs(t, s, "Added"); n != 0 {
		t.Errorf("Added: %d definitions after its file was deleted and the repository indexed, want 0", n)
	}

	// Paths the tool refuses: outside the roots, out through .., and out through a link.
	outside := t.TempDir()
	writeRepo(t, outside)
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{outside, filepath.Join(root, "..", filepath.Base(outside)), "../" + filepath.Base(outside), filepath.Join(root, "escape"), "/etc"} {
		r := call(t, s, "index_repository", map[string]any{"path": p})
		if !r.IsError || r.Meta.Error.Reason != "PATH_REFUSED" {
			t.Errorf("index_repository %s: %+v %s, want PATH_REFUSED", p, r.Meta.Error, r.Text)
		}
	}
}

// TestIndexToolAdminOnly: a caller that is not an admin cannot index, and a server without
// index roots has no index tool.
func TestIndexToolAdminOnly(t *testing.T) {
	root := t.TempDir()
	writeRepo(t, filepath.Join(root, "repo"))
	s := stdio(t, "--scope", "1/", "--index-root", root)
	r := call(t, s, "index_repository", map[string]any{"path": filepath.Join(root, "repo")})
	if !r.IsError || r.Meta.Error.Reason != "ADMIN_ONLY" {
		t.Errorf("index_repository as a scoped caller: %+v %s, want ADMIN_ONLY", r.Meta.Error, r.Text)
	}
}

// serveGRPC starts graphwire serve on data with gRPC and MCP on loopback ports and returns
// their addresses; the process ends with the test.
func serveGRPC(t *testing.T, data string) (grpcAddr, mcpURL string, merged <-chan string) {
	t.Helper()
	ready(t)
	cmd := exec.Command(env.bin, "serve", "--embedded", data, "--jwt-secret-file", env.secretFile,
		"--listen", "127.0.0.1:0", "--mcp-listen", "127.0.0.1:0", "--shutdown-grace", "2s")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		var line struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			continue
		}
		switch line.Msg {
		case "listening":
			grpcAddr = line.Addr
		case "mcp_listening":
			mcpURL = "http://" + line.Addr + "/mcp"
		}
		if grpcAddr != "" && mcpURL != "" {
			// The tables serve merges after writes (its "merge" log lines), as they come.
			tables := make(chan string, 100)
			go func() {
				for sc.Scan() {
					var m struct {
						Msg   string `json:"msg"`
						Table string `json:"table"`
					}
					if json.Unmarshal(sc.Bytes(), &m) == nil && m.Msg == "merge" {
						select {
						case tables <- m.Table:
						default:
						}
					}
				}
			}()
			return grpcAddr, mcpURL, tables
		}
	}
	t.Fatalf("serve exited before listening: %v", sc.Err())
	return "", "", nil
}

// TestLiveLoopServer is the live loop against graphwire serve: index and load --server
// (gRPC, an admin token) write while an agent stays connected over MCP, and its next query
// sees them; callers without an admin token are refused.
func TestLiveLoopServer(t *testing.T) {
	ready(t)
	repo := filepath.Join(t.TempDir(), "repo")
	writeRepo(t, repo)
	data := filepath.Join(t.TempDir(), "data")
	cli(t, 0, "index", "--embedded", data, repo)
	addr, url, merged := serveGRPC(t, data)
	s := overHTTP(t, url, auth.Claims{UserID: 1, Admin: true})
	admin := token(t, auth.Claims{UserID: 1, Admin: true})

	writeText(t, filepath.Join(repo, "c.go"), "package repo\n\nfunc C() int { return A() }\n")
	out := cli(t, 0, "index", "--server", addr, "--token", admin, repo)
	if !strings.Contains(out, "into server "+addr) || !strings.Contains(out, "rows changed since the last index: 1 of 3") {
		t.Errorf("index --server:\n%s", out)
	}
	if n := defs(t, s, "C"); n != 1 {
		t.Fatalf("C: %d definitions after index --server, want 1", n)
	}

	// Without --server, the data directory in use is found and written through.
	writeText(t, filepath.Join(repo, "d.go"), "package repo\n\nfunc D() int { return C() }\n")
	if out := cli(t, 0, "index", "--embedded", data, repo); !strings.Contains(out, "writing through it") {
		t.Errorf("index --embedded while serve runs:\n%s", out)
	}
	if n := defs(t, s, "D"); n != 1 {
		t.Fatalf("D: %d definitions after index --embedded through the server, want 1", n)
	}
	// The writes left gl_definition in several parts (the first index's, then each
	// write's); serve merged it after a write, as graphwire load does with the engine of
	// its own (docs/loading.md, "Merging after a write").
	deadline := time.After(time.Minute) // the writes have returned; this bounds reading the log
	for tb := ""; tb != "gl_definition"; {
		select {
		case tb = <-merged:
		case <-deadline:
			t.Fatal("serve logged no merge of gl_definition after the writes")
		}
	}

	rows := filepath.Join(t.TempDir(), "Definition.jsonl")
	writeText(t, rows, `{"id": 9000001, "traversal_path": "1/", "name": "Loaded", "fqn": "x.Loaded", "definition_type": "Function", "file_path": "x.go"}`+"\n")
	if out := cli(t, 0, "load", "--server", addr, "--token", admin, rows); !strings.Contains(out, "1 written") {
		t.Errorf("load --server:\n%s", out)
	}
	if n := defs(t, s, "Loaded"); n != 1 {
		t.Errorf("Loaded: %d definitions after load --server, want 1", n)
	}
	// path_finding walks serve's edge cache (docs/compiler.md, "Path finding on cached
	// edges"): a write through serve moves the cache's generation, so the next answer sees it.
	pathRows := func(want int64, to string) {
		t.Helper()
		q := `{"query_type":"path_finding","nodes":[{"id":"u","entity":"User","node_ids":[9100001]},{"id":"p","entity":"Project","node_ids":[9100002,9100003]}],"path":{"type":"shortest","from":"u","to":"p","max_depth":2,"rel_types":["MEMBER_OF"]}}`
		for range 2 { // the second on a warm cache
			r := query(t, s, map[string]any{"query": q, "format": "json"})
			if r.Meta.RowCount != want || !strings.Contains(r.Text, to) {
				t.Fatalf("path_finding: %d paths, want %d, to %s:\n%s", r.Meta.RowCount, want, to, r.Text)
			}
		}
	}
	sdlc := t.TempDir()
	writeText(t, filepath.Join(sdlc, "User.jsonl"), `{"id": 9100001, "username": "walker"}`+"\n")
	writeText(t, filepath.Join(sdlc, "Project.jsonl"), `{"id": 9100002, "traversal_path": "1/9100002/", "name": "p2"}`+"\n"+`{"id": 9100003, "traversal_path": "1/9100003/", "name": "p3"}`+"\n")
	member := func(project int64, version int, deleted bool) string {
		return fmt.Sprintf(`{"traversal_path": "1/%d/", "source_kind": "User", "source_id": 9100001, "target_kind": "Project", "target_id": %d, "_version": %d, "_deleted": %v}`, project, project, version, deleted) + "\n"
	}
	writeText(t, filepath.Join(sdlc, "MEMBER_OF.jsonl"), member(9100002, 1, false))
	cli(t, 0, "load", "--server", addr, "--token", admin, filepath.Join(sdlc, "User.jsonl"), filepath.Join(sdlc, "Project.jsonl"), filepath.Join(sdlc, "MEMBER_OF.jsonl"))
	pathRows(1, "9100002")
	writeText(t, filepath.Join(sdlc, "MEMBER_OF.jsonl"), member(9100002, 2, true)+member(9100003, 1, false))
	cli(t, 0, "load", "--server", addr, "--token", admin, filepath.Join(sdlc, "MEMBER_OF.jsonl"))
	pathRows(1, "9100003")
	writeText(t, filepath.Join(sdlc, "MEMBER_OF.jsonl"), member(9100003, 2, true))
	cli(t, 0, "load", "--server", addr, "--token", admin, filepath.Join(sdlc, "MEMBER_OF.jsonl"))
	pathRows(0, "")

	bad := filepath.Join(t.TempDir(), "Definition.jsonl")
	writeText(t, bad, `{"id": "x", "traversal_path": "1/"}`+"\n")
	if out := cli(t, 3, "load", "--server", addr, "--token", admin, bad); !strings.Contains(out, "Definition.jsonl:1") {
		t.Errorf("load --server of an invalid row: the error names no file and line:\n%s", out)
	}

	// Refusals: a scoped caller (not admin), a token that does not verify, no token.
	scoped := token(t, auth.Claims{UserID: 2, Scopes: []auth.Scope{{Path: "1/", Level: 50}}})
	cli(t, 5, "index", "--server", addr, "--token", scoped, repo)
	cli(t, 5, "load", "--server", addr, "--token", scoped, rows)
	cli(t, 4, "index", "--server", addr, "--token", "not-a-token", repo)
	t.Setenv("GRAPHWIRE_TOKEN", "")
	cli(t, 2, "index", "--server", addr, repo)
}

// TestWatch: graphwire index --watch, writing through the MCP process that owns the data
// directory, indexes a new directory's file, a renamed directory and a deletion, and the
// agent's next query sees each; Ctrl-C stops it cleanly.
func TestWatch(t *testing.T) {
	ready(t)
	repo := filepath.Join(t.TempDir(), "repo")
	writeRepo(t, repo)
	data := filepath.Join(t.TempDir(), "data")
	cli(t, 0, "index", "--embedded", data, repo)
	s := stdioAt(t, []string{"--embedded", data}, "--admin")

	cmd := exec.Command(env.bin, "index", "--watch", "--debounce", "200ms", "--embedded", data, repo)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := false
	t.Cleanup(func() {
		if !exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var log strings.Builder
	// await reads the watcher's stderr up to a line holding want.
	await := func(want string) {
		t.Helper()
		timeout := time.After(3 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("index --watch ended before %q:\n%s", want, log.String())
				}
				log.WriteString(l + "\n")
				if strings.Contains(l, want) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q from index --watch within 3 minutes:\n%s", want, log.String())
			}
		}
	}
	await("for changes; Ctrl-C stops")
	writeText(t, filepath.Join(repo, "newpkg", "deeper", "n.go"), "package deeper\n\nfunc Watched() {}\n")
	await("rows changed since the last index")
	if n := defs(t, s, "Watched"); n != 1 {
		t.Fatalf("Watched: %d definitions after the watcher indexed a new directory, want 1\n%s", n, log.String())
	}
	// A renamed directory: the old file's rows go, the new one's come, one definition still.
	if err := os.Rename(filepath.Join(repo, "newpkg"), filepath.Join(repo, "renamed")); err != nil {
		t.Fatal(err)
	}
	await("rows changed since the last index")
	if n := defs(t, s, "Watched"); n != 1 {
		t.Fatalf("Watched: %d definitions after its directory was renamed, want 1\n%s", n, log.String())
	}
	if err := os.RemoveAll(filepath.Join(repo, "renamed")); err != nil {
		t.Fatal(err)
	}
	await("rows changed since the last index")
	if n := defs(t, s, "Watched"); n != 0 {
		t.Fatalf("Watched: %d definitions after its directory was deleted, want 0\n%s", n, log.String())
	}
	cmd.Process.Signal(os.Interrupt)
	await("stopped watching")
	err = cmd.Wait()
	exited = true
	if err != nil {
		t.Errorf("index --watch after Ctrl-C: %v, want exit 0\n%s", err, log.String())
	}
}
