package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// statsElapsedRE matches the time at the end of a --stats line, the one figure that differs
// between runs.
var statsElapsedRE = regexp.MustCompile(`, [0-9.]+[µm]?s\n`)

// TestQueryThroughRunningServer runs `graphwire query --embedded D` while a running
// `graphwire serve` holds D, and the same query locally on a copy of D made before: the
// answers (stdout), exit codes and --stats figures are identical, the caller is the one the
// flags give (a scope sees less than an admin, never more than the local scoped run), and a
// cursor printed through the server continues a local run.
func TestQueryThroughRunningServer(t *testing.T) {
	requireCHDB(t)
	tmp := t.TempDir()
	held, copied := filepath.Join(tmp, "held"), filepath.Join(tmp, "copy")
	if out, err := child(t, "run", "seed", "--embedded", held, "--scale", "0.02").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	mcpHeld := filepath.Join(tmp, "mcp")
	for _, to := range []string{copied, mcpHeld} {
		if out, err := exec.Command("cp", "-a", held, to).CombinedOutput(); err != nil {
			t.Fatalf("copy the data directory: %v\n%s", err, out)
		}
	}
	secret := filepath.Join(tmp, "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	startServer(t, "--embedded", held, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret)

	type result struct {
		stdout, stderr string
		code           int
	}
	run := func(dir string, args ...string) result {
		t.Helper()
		var stdout, stderr bytes.Buffer
		c := child(t, "run", append([]string{"query", "--embedded", dir}, args...)...)
		c.Stdout, c.Stderr = &stdout, &stderr
		err := c.Run()
		var exit *exec.ExitError
		code := 0
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("query %v: %v", args, err)
		}
		return result{stdout.String(), stderr.String(), code}
	}
	via := "graphwire query: the data directory " + held + " is served by a running graphwire; asked it (" + localSocket(held) + ")\n"
	// both runs the query on the held directory (through the server) and on the copy
	// (locally) and checks they agree; it returns the server's.
	both := func(args ...string) result {
		t.Helper()
		srv, loc := run(held, args...), run(copied, args...)
		if srv.stdout != loc.stdout {
			t.Errorf("%v: stdout through the server differs from local:\nserver: %q\nlocal:  %q", args, srv.stdout, loc.stdout)
		}
		if srv.code != loc.code {
			t.Errorf("%v: exit %d through the server, %d local; stderr:\n%s\n%s", args, srv.code, loc.code, srv.stderr, loc.stderr)
		}
		stats := strings.Contains(strings.Join(args, " "), "--stats")
		wantSrv := loc.stderr
		if stats && loc.code == 0 {
			wantSrv = via + loc.stderr
		}
		if norm := func(s string) string { return statsElapsedRE.ReplaceAllString(s, ", T\n") }; norm(srv.stderr) != norm(wantSrv) {
			t.Errorf("%v: stderr through the server:\n%s\nwant (as local):\n%s", args, srv.stderr, wantSrv)
		}
		return srv
	}
	groups := `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group","id_range":{"start":1,"end":100000},"columns":["full_path","traversal_path"]}],"limit":100}`
	mrs := `{"query_type":"traversal","nodes":[{"id":"m","entity":"MergeRequest","id_range":{"start":1,"end":100000}}],"limit":100}`

	admin := both("--admin", "--stats", groups)
	scoped := both("--scope", "1/", "--stats", groups)
	both("--scope", "2/:30", "--format", "goon", "--stats", mrs)
	both("--admin", "--format", "gcf", mrs)
	both("--scope", "1/:30", "--format", "dot", groups)
	both("--scope", "3/", "--format", "gcb1", groups)
	both("--scope", "1/", `{"query_type":"traversal","nodes":[{"id":"g","entity":"Group"}]}`) // refused: exit and message alike

	// The scope is honoured, not escalated to admin: fewer rows, and only its own paths.
	rows := regexp.MustCompile(`, (\d+) rows,`)
	if a, s := rows.FindStringSubmatch(admin.stderr), rows.FindStringSubmatch(scoped.stderr); a == nil || s == nil || len(s[1]) == 0 || s[1] == a[1] {
		t.Errorf("scoped rows %q vs admin rows %q: want fewer", s, a)
	}
	if !strings.Contains(admin.stdout, `"traversal_path":"2/"`) {
		t.Fatalf("the admin answer has no group outside 1/, so the scope test proves nothing:\n%s", admin.stdout)
	}
	if strings.Contains(scoped.stdout, `"traversal_path":"2/`) || strings.Contains(scoped.stdout, `"traversal_path":"3/`) {
		t.Errorf("the scoped answer (1/) has groups of other paths:\n%s", scoped.stdout)
	}

	// Pages: the first page's cursor, printed through the server, continues a local run and
	// a run through the server alike.
	paged := func(after string) string {
		c := map[string]any{"page_size": 4}
		if after != "" {
			c["after"] = after
		}
		q := map[string]any{"query_type": "traversal", "cursor": c,
			"nodes": []any{map[string]any{"id": "g", "entity": "Group", "id_range": map[string]int{"start": 1, "end": 100000}, "columns": []string{"full_path"}}}}
		b, err := json.Marshal(q)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	first := both("--admin", paged(""))
	var page struct {
		Pagination struct {
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal([]byte(first.stdout), &page); err != nil || !page.Pagination.HasMore || page.Pagination.NextCursor == "" {
		t.Fatalf("first page: %v, pagination %+v", err, page.Pagination)
	}
	if second := both("--admin", paged(page.Pagination.NextCursor)); second.code != 0 || second.stdout == first.stdout {
		t.Errorf("second page: exit %d, same as the first: %v", second.code, second.stdout == first.stdout)
	}

	// graphwire mcp --embedded (an agent's server, admin on its stdio) answers the same way.
	m := child(t, "run", "mcp", "--embedded", mcpHeld, "--admin")
	stdin, err := m.StdinPipe() // held open: mcp serves until its stdin ends
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		m.Process.Kill()
		m.Wait()
	})
	for i := 0; !socketAnswers(localSocket(mcpHeld)); i++ {
		if i == 1200 {
			t.Fatal("mcp opened no local socket within two minutes")
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, args := range [][]string{{"--scope", "1/", groups}, {"--scope", "2/:30", "--format", "goon", mrs}} {
		viaMCP, loc := run(mcpHeld, args...), run(copied, args...)
		if viaMCP.code != 0 || viaMCP.stdout != loc.stdout {
			t.Errorf("%v through mcp: exit %d, stdout equal to local: %v; stderr:\n%s", args, viaMCP.code, viaMCP.stdout == loc.stdout, viaMCP.stderr)
		}
	}
}
