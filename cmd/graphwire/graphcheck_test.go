package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor/chdb"
	"github.com/graphwire/graphwire/internal/hermetic"
	"github.com/graphwire/graphwire/load"
	"github.com/graphwire/graphwire/ontology"
)

// childEnv makes the test binary act as graphwire (run with its arguments) instead of running
// tests, so that tests can kill a real graphwire process.
const childEnv = "GRAPHWIRE_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		// The tests run graphwire, which falls back on the user's data directory, config and
		// GRAPHWIRE_ variables: give them a home of their own. A child inherits it.
		os.Exit(hermetic.Main(m.Run, chdb.DefaultCacheDir()))
	case "run":
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "manifest":
		// Load the files os.Args[2:] into the data directory os.Args[1], stopping right after
		// the load's manifest is written: say "stopped" on stdout and block until killed.
		os.Exit(loadToManifest(os.Args[1], os.Args[2:]))
	case "stall":
		// Like "run", but at the fourth drawing of the seed's load bar (one before the first
		// batch, then one per batch that moves the percent, so after at least three inserted
		// batches) say "stalled" on stdout and block until killed. The parent sets
		// GRAPHWIRE_PROGRESS=1, so the bar is drawn although stderr is not a terminal.
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, &stallWriter{w: os.Stderr, left: 4}))
	}
	fmt.Fprintf(os.Stderr, "unknown %s\n", childEnv)
	os.Exit(exitUsage)
}

// loadToManifest is the "manifest" child: a load of files into dir that stops for good once
// its manifest is written, so that the next load of the directory completes it first.
func loadToManifest(dir string, files []string) int {
	ef := engineFlags{embedded: dir}
	eng, err := ef.openWritable(os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer eng.Close()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var srcs []load.Source
	for _, f := range files {
		srcs = append(srcs, load.Source{Path: f})
	}
	stop := func(step string) {
		if strings.HasPrefix(step, "manifest") {
			fmt.Println("stopped")
			io.Copy(io.Discard, os.Stdin) // the parent never writes or closes it
		}
	}
	if _, err := load.Load(context.Background(), eng, ont, srcs, load.Options{Checkpoint: stop}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintln(os.Stderr, "the load ended without writing a manifest")
	return 1
}

// stallWriter passes writes to w; at the left-th drawing of the load bar it stops the process.
type stallWriter struct {
	w    io.Writer
	left int
}

func (s *stallWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if bytes.HasPrefix(p, []byte("\rload ")) {
		if s.left--; s.left == 0 {
			fmt.Println("stalled")
			io.Copy(io.Discard, os.Stdin) // the parent never writes or closes it
		}
	}
	return n, err
}

// child runs graphwire as a subprocess of the test binary.
func child(t *testing.T, mode string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	return cmd
}

// seedAndKill starts `graphwire seed` on dir in a subprocess, waits (at most two minutes) until
// it has inserted a few batches and kills it with SIGKILL.
func seedAndKill(t *testing.T, dir string) {
	t.Helper()
	cmd := child(t, "stall", "seed", "--embedded", dir, "--scale", "0.1", "--batch-size", "200")
	cmd.Env = append(cmd.Env, progressEnv+"=1")
	killWhenSaid(t, cmd, "stalled", "seed")
}

// killWhenSaid starts cmd, a child that says word on its first line of stdout when it has
// reached the point to be killed at (and then blocks on stdin), waits at most two minutes for
// it and kills it with SIGKILL. what names the child in failures.
func killWhenSaid(t *testing.T, cmd *exec.Cmd, word, what string) {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	said := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Scan()
		said <- sc.Text()
	}()
	select {
	case line := <-said:
		if line != word {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%s ended before saying %s (stdout %q); stderr:\n%s", what, word, line, stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s did not say %s within two minutes; stderr:\n%s", what, word, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("%s exit = %v, want killed by SIGKILL", what, err)
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func runCLI(args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

const userQuery = `{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1],"columns":["username"]}]}`

// TestInterruptedSeed kills `graphwire seed` with SIGKILL part-way, on a fresh data directory
// and over a complete graph. query and serve then refuse the graph until a seed finishes.
func TestInterruptedSeed(t *testing.T) {
	requireCHDB(t)
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		preseed bool
	}{
		{"fresh directory", false},
		{"reseed over a complete graph", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			// Every write before the kill happens in subprocesses: this process opens dir
			// only once the seed has died.
			if tt.preseed {
				cmd := child(t, "run", "seed", "--embedded", dir, "--scale", "0.05")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("first seed: %v\n%s", err, out)
				}
			}
			seedAndKill(t, dir)

			incomplete := "the graph at " + dir + " is incomplete (a seed or load did not finish): run it again\n"
			got := runCLI("query", "--embedded", dir, "--admin", userQuery)
			if diff := cmp.Diff(result{exitUnavailable, "", "graphwire query: " + incomplete}, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("query after the kill (-want +got):\n%s", diff)
			}
			got = runServeOnce(t, "--embedded", dir, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret)
			if diff := cmp.Diff(result{exitUnavailable, "", "graphwire serve: " + incomplete}, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("serve after the kill (-want +got):\n%s", diff)
			}

			if r := runCLI("seed", "--embedded", dir, "--scale", "0.05"); r.code != exitOK {
				t.Fatalf("re-seed: exit %d; stderr:\n%s", r.code, r.stderr)
			}
			r := runCLI("query", "--embedded", dir, "--admin", userQuery)
			if r.code != exitOK || !strings.Contains(r.stdout, `"username":"alice"`) {
				t.Errorf("query after the re-seed: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			r = runServeOnce(t, "--embedded", dir, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret)
			if r.code != exitOK || !strings.Contains(r.stderr, `"msg":"listening"`) {
				t.Errorf("serve after the re-seed: exit %d; stderr:\n%s", r.code, r.stderr)
			}
		})
	}
}

// runServeOnce runs serve in this process and stops it as soon as it logs "listening", so a
// serve that wrongly starts ends too. It returns the exit code and stderr, and fails the test
// when a line of stderr is not JSON (serve's default --log-format).
func runServeOnce(t *testing.T, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := runContext(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, pw)
		pw.Close()
		done <- code
	}()
	var stderr strings.Builder
	loggedCode := -1
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"msg":"listening"`) {
			cancel()
		}
		// serve logs JSON lines (its default --log-format), down to the error it stops with;
		// that one is returned as the plain line the other commands print, to compare.
		var l struct {
			Msg      string
			Err      string
			ExitCode *int `json:"exit_code"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("serve wrote a line that is not JSON: %q", sc.Text())
		}
		if l.Msg == "serve_failed" && l.ExitCode != nil {
			stderr.WriteString("graphwire serve: " + l.Err + "\n")
			loggedCode = *l.ExitCode
			continue
		}
		stderr.WriteString(sc.Text() + "\n")
	}
	io.Copy(io.Discard, pr)
	code := <-done
	if loggedCode >= 0 && loggedCode != code {
		t.Errorf("serve logged exit_code %d and exited %d", loggedCode, code)
	}
	return result{code, "", stderr.String()}
}

// TestNoGraph runs every command that reads the graph on a data directory that is missing or
// empty: each says there is no graph and how to make one, exits with exitNotFound, and creates
// nothing.
func TestNoGraph(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"missing", "empty"} {
		dir := filepath.Join(t.TempDir(), "data")
		if where == "empty" {
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		noGraph := "no graph at " + dir + ": run `graphwire seed` or `graphwire load`\n"
		out := filepath.Join(t.TempDir(), "out")
		tests := []struct {
			name string
			args []string
			want result
		}{
			{"query", []string{"query", "--embedded", dir, "--admin", userQuery}, result{exitNotFound, "", "graphwire query: " + noGraph}},
			{"serve", []string{"serve", "--embedded", dir, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret}, result{exitNotFound, "", "graphwire serve: " + noGraph}},
			{"sql", []string{"sql", "--embedded", dir, "SELECT 1"}, result{exitNotFound, "", "graphwire sql: " + noGraph}},
			{"mcp", []string{"mcp", "--embedded", dir, "--admin"}, result{exitNotFound, "", "graphwire mcp: " + noGraph}},
			{"export", []string{"export", "--embedded", dir, out}, result{exitNotFound, "", "graphwire export: " + noGraph}},
		}
		for _, tt := range tests {
			t.Run(where+"/"+tt.name, func(t *testing.T) {
				var got result
				if tt.name == "serve" {
					got = runServeOnce(t, tt.args[1:]...)
				} else {
					got = runCLI(tt.args...)
				}
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(result{})); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s was created (err %v)", out, err)
				}
				entries, err := os.ReadDir(dir)
				switch {
				case where == "missing" && !errors.Is(err, os.ErrNotExist):
					t.Errorf("%s was created", dir)
				case where == "empty" && (err != nil || len(entries) > 0):
					t.Errorf("%s: %d entries written, err %v", dir, len(entries), err)
				}
			})
		}
	}
}
