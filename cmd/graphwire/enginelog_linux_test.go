package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// engineLineRE matches a line of the engine's own log ("… <Fatal> ThreadStatus: …") once
// colour escapes are removed, and the line the engine prints when it opens a log file.
var (
	engineLineRE = regexp.MustCompile(`<(Fatal|Critical|Error|Warning|Notice|Information|Debug|Trace)>|Logging \w+ to `)
	ansiRE       = regexp.MustCompile("\x1b\\[[0-9;]*[A-Za-z]")
	// finishedBarRE matches the seed's load bar at 100%, as progress draws it.
	finishedBarRE = regexp.MustCompile(`\rload +100% \|[^|]*\| \(\d+/\d+, \d+ rows/s\) \[\w+\]\r?\n`)
)

// TestSeedKeepsEngineLogOffTheTerminal runs `graphwire seed` in a subprocess whose standard
// error is a terminal (a pseudo-terminal), where chDB on its own writes its log in colour into
// the progress bar. Nothing of the engine's log may appear there; with --engine-log it goes to
// that file instead.
func TestSeedKeepsEngineLogOffTheTerminal(t *testing.T) {
	requireCHDB(t)
	for _, tt := range []struct {
		name    string
		withLog bool
	}{
		{"default", false},
		{"engine log to a file", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"seed", "--embedded", filepath.Join(dir, "data"), "--scale", "0.05"}
			logFile := filepath.Join(dir, "engine.log")
			if tt.withLog {
				args = append(args, "--engine-log", logFile)
			}
			var stdout bytes.Buffer
			c := child(t, "run", args...)
			c.Env = append(c.Env, progressEnv+"=") // draw because stderr is a terminal
			term := runOnTerminal(t, c, &stdout)
			plain := ansiRE.ReplaceAllString(term, "")
			if !finishedBarRE.MatchString(plain) {
				t.Fatalf("the terminal shows no finished load bar, so the capture is broken:\n%q", term)
			}
			if m := engineLineRE.FindString(plain); m != "" {
				t.Errorf("engine log on the terminal (%q):\n%s", m, plain)
			}
			if m := engineLineRE.FindString(stdout.String()); m != "" {
				t.Errorf("engine log on stdout (%q):\n%s", m, stdout.String())
			}
			data, err := os.ReadFile(logFile)
			switch {
			case !tt.withLog && !errors.Is(err, os.ErrNotExist):
				t.Errorf("without --engine-log, %s exists (err %v)", logFile, err)
			case tt.withLog && err != nil:
				t.Errorf("engine log: %v", err)
			case tt.withLog && !engineLineRE.Match(data):
				t.Errorf("engine log %s has no engine line:\n%s", logFile, data)
			}
		})
	}
}

// runOnTerminal runs cmd with a pseudo-terminal as its standard error and stdout as its
// standard output, and returns what it wrote to the terminal. The command must succeed.
func runOnTerminal(t *testing.T, c *exec.Cmd, stdout io.Writer) string {
	t.Helper()
	master, slave := openPTY(t)
	c.Stderr = slave
	c.Stdout = stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds its own copy; reads end (EIO) once it exits
	read := make(chan []byte, 1)
	go func() {
		var buf bytes.Buffer
		_, _ = io.Copy(&buf, master) // ends with EIO when the last slave closes
		read <- buf.Bytes()
	}()
	err := c.Wait()
	term := string(<-read)
	master.Close()
	if err != nil {
		t.Fatalf("%v: %v; terminal:\n%s", c.Args, err, term)
	}
	return term
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pseudo-terminal: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Fatalf("unlock pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Fatalf("pseudo-terminal number: %v", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatalf("open pseudo-terminal %d: %v", n, err)
	}
	return master, slave
}

// TestLockedDataDirectoryIsOneLine: when another process (a running serve) has the data
// directory open, query says so in one line, suggests --server and exits with exitUnavailable;
// the engine's own complaint does not reach stderr on its own line.
func TestLockedDataDirectoryIsOneLine(t *testing.T) {
	requireCHDB(t)
	dir := filepath.Join(t.TempDir(), "data")
	if out, err := child(t, "run", "seed", "--embedded", dir, "--scale", "0.02").CombinedOutput(); err != nil {
		t.Fatalf("seed: %v\n%s", err, out)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, bytes.Repeat([]byte("s"), 32), 0o600); err != nil {
		t.Fatal(err)
	}
	startServer(t, "--embedded", dir, "--listen", "127.0.0.1:0", "--jwt-secret-file", secret) // holds the directory
	// Without its local socket (as a graphwire that opens none): query cannot ask it.
	if err := os.Remove(localSocket(dir)); err != nil {
		t.Fatal(err)
	}

	var stdout, stderr bytes.Buffer
	q := child(t, "run", "query", "--embedded", dir, "--admin", userQuery)
	q.Stdout, q.Stderr = &stdout, &stderr
	err := q.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitUnavailable {
		t.Fatalf("query on a locked directory: %v, want exit %d; stderr:\n%s", err, exitUnavailable, stderr.String())
	}
	want := "graphwire query: the data directory " + dir + " is in use by another process (a running `graphwire serve`?): " +
		"stop it, or send the query to that server with `graphwire query --server ADDR`\n"
	if diff := cmp.Diff(want, stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout not empty: %q", stdout.String())
	}
}
