package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/gcb1"
)

// statsRE is the line query --stats prints, locally and from a server alike.
var statsRE = regexp.MustCompile(`^graphwire query: (goon 4\.\d+\.\d+|json 5\.\d+\.\d+), [1-9]\d* rows, [1-9]\d* tokens \(o200k_base\), [1-9]\d* bytes, ([1-9]\d* altered values, )?[0-9.]+(ms|s|µs)\n$`)

// TestLocalAndServerAgree runs the same queries on the embedded engine and through a real
// graphwire server on loopback: errors print the same line (kind, reason code, JSON pointer,
// message) and exit with the same code, answers are the same bytes and end in a newline, and
// --stats prints the same kind of line.
func TestLocalAndServerAgree(t *testing.T) {
	requireCHDB(t)
	tmp := t.TempDir()
	dir, served := filepath.Join(tmp, "data"), filepath.Join(tmp, "served")
	if out, err := child(t, "run", "seed", "--embedded", dir, "--scale", "0.02").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	// A milestone whose description alone is over gRPC's default 4 MiB message: the raw
	// answer reaches the client whole, as in local mode. Its case asks for a longer deadline
	// than the server's default 30 s: under -race on a busy machine, formatting 5 MiB took
	// longer than that (exit 8).
	big := filepath.Join(tmp, "Milestone.jsonl")
	if err := os.WriteFile(big, []byte(`{"id":900000,"traversal_path":"1/10/","iid":900000,"title":"big","description":"`+strings.Repeat("d", 5<<20)+`","state":"active","created_at":"2024-01-02 03:04:05"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI("load", "--embedded", dir, big); r.code != exitOK {
		t.Fatalf("load the big milestone: %+v", r.stderr)
	}
	// chDB opens one data directory per process and locks it: the server gets a copy.
	if out, err := exec.Command("cp", "-a", dir, served).CombinedOutput(); err != nil {
		t.Fatalf("copy the graph: %v\n%s", err, out)
	}
	secret := bytes.Repeat([]byte("k"), 32)
	secretFile := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	addr := startServer(t, "--embedded", served, "--listen", "127.0.0.1:0", "--jwt-secret-file", secretFile)
	token := func(c auth.Claims) string {
		tok, err := auth.Mint(secret, c, auth.MintOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	scoped := token(auth.Claims{UserID: 1, Scopes: []auth.Scope{{Path: "1/", Level: 30}}})
	admin := token(auth.Claims{UserID: 1, Admin: true})

	const mrs = `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username"]},` +
		`{"id":"mr","entity":"MergeRequest","columns":["title"]}],"relationships":[{"type":"AUTHORED","from":"u","to":"mr"}],"limit":3}`
	tests := []struct {
		name     string
		local    []string // flags for local mode (the caller)
		token    string   // the caller in server mode
		args     []string
		wantCode int
		wantErr  string // the stderr line, the same in both modes
		binary   bool   // stdout is a GCB1 payload: no final newline
	}{
		{name: "answer", local: []string{"--admin"}, token: admin, args: []string{mrs}},
		{name: "llm answer", local: []string{"--scope", "1/:30"}, token: scoped, args: []string{"--format", "goon", mrs}},
		{name: "dot", local: []string{"--admin"}, token: admin, args: []string{"--format", "dot", mrs}},
		{name: "mermaid", local: []string{"--admin"}, token: admin, args: []string{"--format", "mermaid", mrs}},
		// The server answers in formatted_bytes; the client writes them as they are.
		{name: "gcb1", local: []string{"--admin"}, token: admin, args: []string{"--format", "gcb1", mrs}, binary: true},
		{
			name: "unknown entity", local: []string{"--admin"}, token: admin,
			args:     []string{`{"query_type":"traversal","nodes":[{"id":"x","entity":"Usr","node_ids":[1]}]}`},
			wantCode: exitInvalid,
			wantErr:  "graphwire query: invalid_query UNKNOWN_ENTITY /nodes/0/entity: unknown entity \"Usr\" (did you mean \"User\"?); valid options: ",
		},
		{
			name: "scope violation", local: []string{"--scope", "1/:30"}, token: scoped,
			args:     []string{`{"query_type":"traversal","nodes":[{"id":"x","entity":"Project","filters":{"traversal_path":"2/"}}]}`},
			wantCode: exitPermission,
			wantErr:  "graphwire query: permission_denied SCOPE_VIOLATION /nodes/0/filters/traversal_path: traversal_path filter lies outside the caller's scopes\n",
		},
		{
			name: "malformed", local: []string{"--admin"}, token: admin, args: []string{`{"query_type":`},
			wantCode: exitInvalid,
			wantErr:  "graphwire query: invalid_query PARSE_ERROR /: malformed JSON at line 1, column 15: unexpected end of input, expected a value\n",
		},
		{
			// A protobuf string cannot carry it: the client refuses it as local mode does,
			// not with gRPC's marshaling error (INTERNAL, exit 1).
			name: "invalid UTF-8", local: []string{"--admin"}, token: admin,
			args:     []string{"{\"query_type\":\"search\",\"node\":{\"id\":\"u\",\"entity\":\"User\",\"filters\":{\"username\":\"al\xffice\"}}}"},
			wantCode: exitInvalid,
			wantErr:  "graphwire query: invalid_query PARSE_ERROR /node/filters/username: invalid UTF-8 (byte 0xff) at line 1, column 82: the query must be UTF-8 text\n",
		},
		{name: "answer over 4 MiB", local: []string{"--admin"}, token: admin, args: []string{"--timeout", "4m", `{"query_type":"traversal","nodes":[{"id":"m","entity":"Milestone","node_ids":[900000],"columns":["description"]}]}`}},
		{name: "timeout", local: []string{"--admin"}, token: admin, args: []string{"--timeout", "1ns", mrs}, wantCode: exitTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := runCLI(append(append([]string{"query", "--embedded", dir}, tt.local...), tt.args...)...)
			rem := runCLI(append([]string{"query", "--server", addr, "--token", tt.token}, tt.args...)...)
			for _, r := range []result{loc, rem} {
				if r.code != tt.wantCode {
					t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
				}
				if !strings.HasPrefix(r.stderr, tt.wantErr) || strings.Count(r.stderr, "\n") > 1 {
					t.Errorf("stderr %q, want one line starting %q", r.stderr, tt.wantErr)
				}
				switch {
				case tt.binary:
					if _, err := gcb1.Unmarshal([]byte(r.stdout), gcb1.Options{}); err != nil {
						t.Errorf("stdout is not one GCB1 payload: %v", err)
					}
				case tt.wantCode == exitOK && !strings.HasSuffix(r.stdout, "\n"):
					t.Errorf("stdout does not end with a newline: %q", r.stdout)
				}
			}
			if tt.wantCode == exitTimeout {
				return // the two modes word a deadline differently; the class is what counts
			}
			if diff := cmp.Diff(loc, rem, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("local and server differ (-local +server):\n%s", diff)
			}
		})
	}

	// --stats counts the rows printed, locally and from a server: a page with more rows after
	// it (has_more) is read with one probe row more, which the server's row_count includes.
	const morePages = `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":1000},"columns":["username"]}],"limit":5}`
	for _, q := range []struct{ name, query, rows string }{{"stats", mrs, ""}, {"stats with has_more", morePages, ", 5 rows, "}} {
		t.Run(q.name, func(t *testing.T) {
			loc := runCLI("query", "--embedded", dir, "--admin", "--stats", "--format", "goon", q.query)
			rem := runCLI("query", "--server", addr, "--token", admin, "--stats", "--format", "goon", q.query)
			for _, r := range []result{loc, rem} {
				if r.code != exitOK || !statsRE.MatchString(r.stderr) || !strings.Contains(r.stderr, q.rows) {
					t.Errorf("exit %d, stderr %q, want a --stats line with %q", r.code, r.stderr, q.rows)
				}
			}
			strip := func(s string) string { return regexp.MustCompile(`, [0-9.]+(ms|s|µs)\n$`).ReplaceAllString(s, "") }
			if strip(loc.stderr) != strip(rem.stderr) || loc.stdout != rem.stdout {
				t.Errorf("--stats differs:\nlocal  %q\nserver %q", loc.stderr, rem.stderr)
			}
		})
	}

	// Every format name and auto go to --format, locally and over --server (where the request
	// carries the name as FORMAT_NAME_*); the old spellings give the same answer with one line
	// saying what to write instead.
	t.Run("format spellings", func(t *testing.T) {
		deprecated := func(old, name string) string {
			return "graphwire query: " + old + " is deprecated and will be removed; use --format " + name + "\n"
		}
		tests := []struct {
			args       []string
			name       string // the format the --stats line names
			wantNotice string
		}{
			{args: []string{"--format", "json"}, name: "json"},
			{args: []string{"--format", "goon"}, name: "goon"},
			{args: []string{"--format", "gcf"}, name: "gcf"},
			{args: []string{"--format", "gcf-graph"}, name: "gcf-graph"},
			{args: []string{"--format", "gcx"}, name: "gcx"},
			{args: []string{"--format", "toon"}, name: "toon"},
			{args: []string{"--format", "markdown"}, name: "markdown"},
			{args: []string{"--format", "xml"}, name: "xml"},
			{args: []string{"--format", "TOON"}, name: "toon"},
			{args: []string{"--format", "raw"}, name: "json", wantNotice: deprecated("--format raw", "json")},
			{args: []string{"--format", "llm"}, name: "goon", wantNotice: deprecated("--format llm", "goon")},
			{args: []string{"--format", "llm", "--llm-format", "toon"}, name: "toon", wantNotice: deprecated("--format llm --llm-format toon", "toon")},
			{args: []string{"--llm-format", "gcx"}, name: "gcx", wantNotice: deprecated("--llm-format gcx", "gcx")},
		}
		statsName := regexp.MustCompile(`^graphwire query: ([a-z-]+) `)
		for _, tt := range tests {
			t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
				args := append(append([]string{}, tt.args...), "--stats", mrs)
				loc := runCLI(append([]string{"query", "--embedded", dir, "--admin"}, args...)...)
				rem := runCLI(append([]string{"query", "--server", addr, "--token", admin}, args...)...)
				want := runCLI("query", "--embedded", dir, "--admin", "--format", tt.name, mrs)
				for _, r := range []result{loc, rem} {
					if r.code != exitOK {
						t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
					}
					notice, stats, _ := strings.Cut(r.stderr, "graphwire query: "+tt.name+" ")
					if notice != tt.wantNotice || stats == "" {
						t.Errorf("stderr %q, want %q then the --stats line of %s", r.stderr, tt.wantNotice, tt.name)
					}
					if r.stdout != want.stdout {
						t.Errorf("stdout differs from --format %s:\n%s", tt.name, r.stdout)
					}
				}
			})
		}
		// auto picks the same format (the fewest tokens) locally and on the server.
		loc := runCLI("query", "--embedded", dir, "--admin", "--format", "auto", "--stats", mrs)
		rem := runCLI("query", "--server", addr, "--token", admin, "--format", "auto", "--stats", mrs)
		for _, r := range []result{loc, rem} {
			m := statsName.FindStringSubmatch(r.stderr)
			if r.code != exitOK || m == nil || m[1] == "auto" {
				t.Fatalf("--format auto: exit %d, stderr %q, want the chosen format's --stats line", r.code, r.stderr)
			}
		}
		if loc.stdout != rem.stdout || statsName.FindString(loc.stderr) != statsName.FindString(rem.stderr) {
			t.Errorf("--format auto differs:\nlocal  %q %q\nserver %q %q", loc.stderr, loc.stdout, rem.stderr, rem.stdout)
		}
		// --llm-format with a --format other than llm is refused, as before.
		for _, mode := range [][]string{{"--embedded", dir, "--admin"}, {"--server", addr, "--token", admin}} {
			r := runCLI(append(append([]string{"query"}, mode...), "--format", "json", "--llm-format", "toon", mrs)...)
			if r.code != exitUsage || !strings.HasPrefix(r.stderr, "graphwire query: --llm-format goes with --format llm (deprecated); use --format toon alone\n") {
				t.Errorf("exit %d, stderr %q", r.code, r.stderr)
			}
		}
	})

	t.Run("bad token", func(t *testing.T) {
		r := runCLI("query", "--server", addr, "--token", "not-a-jwt", mrs)
		if diff := cmp.Diff(result{exitAuth, "", "graphwire query: unauthenticated: invalid or missing token\n"}, r, cmp.AllowUnexported(result{})); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// startServer runs graphwire serve in a child process until the test ends and returns the
// address it listens on.
func startServer(t *testing.T, args ...string) string {
	t.Helper()
	cmd := child(t, "run", append([]string{"serve"}, args...)...)
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	addrRE := regexp.MustCompile(`"msg":"listening","addr":"([^"]+)"`)
	sc := bufio.NewScanner(logs)
	for sc.Scan() {
		if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
			go io.Copy(io.Discard, logs)
			return m[1]
		}
	}
	t.Fatalf("serve ended before listening: %v", sc.Err())
	return ""
}
