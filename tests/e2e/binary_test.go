package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/graphwire/graphwire/tests/serverdb"
)

// built is the graphwire binary and a small seeded data directory of its
// own, made once for the tests that run "graphwire serve" as a process.
var built struct {
	once sync.Once
	bin  string
	args []string // the flags that select its graph: --embedded DIR or --clickhouse DSN
	drop func()   // removes the graph's server database (TestMain calls it)
	err  error
}

// binary returns the built graphwire and the flags that select its seeded graph (a data
// directory, or with GRAPHWIRE_TEST_ENGINE=server a database of its own on the server).
func binary(t *testing.T) (bin string, graph []string) {
	t.Helper()
	engine(t) // the same prerequisite: libchdb
	built.once.Do(func() {
		built.bin = filepath.Join(env.dir, "graphwire")
		out, err := exec.Command("go", "build", "-o", built.bin, "github.com/graphwire/graphwire/cmd/graphwire").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("build: %v\n%s", err, out)
			return
		}
		built.args, built.drop, built.err = serverdb.GraphArgs(filepath.Join(env.dir, "serve-data"), "gw_e2e_serve")
		if built.err != nil {
			return
		}
		out, err = exec.Command(built.bin, slices.Concat([]string{"seed"}, built.args, []string{"--scale", "0.05", "--seed", "42"})...).CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("seed: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin, built.args
}

// served is a running "graphwire serve" process.
type served struct {
	cmd                *exec.Cmd
	grpc, mcp, metrics string // listening addresses ("" when not asked for)
	lines              chan logLine
	mu                 sync.Mutex
	log                []string // every stderr line so far
	stopOnce           sync.Once
	done               chan struct{}
	read               chan struct{} // closed when stderr has been read to its end
}

// logLine is one JSON log line of the server, with the raw text.
type logLine struct {
	raw    string
	fields map[string]any
}

// startServe runs "graphwire serve GRAPH --listen 127.0.0.1:0" (GRAPH: the flags of binary)
// with args and the extra environment variables, waits for it to listen
// and stops it (SIGINT) when the test ends.
func startServe(t *testing.T, environ []string, args ...string) *served {
	t.Helper()
	return startServeWrapped(t, nil, environ, args...)
}

// startServeWrapped is startServe with the command run by wrap (a program and its first
// arguments, e.g. a shell that lowers a limit and execs the rest); nil runs it directly.
func startServeWrapped(t *testing.T, wrap []string, environ []string, args ...string) *served {
	t.Helper()
	bin, graph := binary(t)
	argv := slices.Concat(wrap, []string{bin, "serve"}, graph, []string{"--listen", "127.0.0.1:0", "--shutdown-grace", "2s"}, args)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), environ...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, lines: make(chan logLine, 4096), done: make(chan struct{}), read: make(chan struct{})}
	go func() {
		defer close(s.read)
		defer close(s.lines)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			l := logLine{raw: sc.Text()}
			json.Unmarshal(sc.Bytes(), &l.fields)
			s.mu.Lock()
			s.log = append(s.log, l.raw)
			s.mu.Unlock()
			select {
			case s.lines <- l:
			default: // nobody waits for this many lines
			}
		}
	}()
	t.Cleanup(s.stop)
	for {
		l := s.next(t)
		switch l.fields["msg"] {
		case "mcp_listening":
			s.mcp, _ = l.fields["addr"].(string)
		case "metrics_listening":
			s.metrics, _ = l.fields["addr"].(string)
		case "listening":
			s.grpc, _ = l.fields["addr"].(string)
			return s
		}
	}
}

// next returns the next log line, failing the test when the process ended
// first or a minute passes.
func (s *served) next(t *testing.T) logLine {
	t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.stop()
			t.Fatalf("serve ended: %v\n%s", s.cmd.ProcessState, s.output())
		}
		return l
	case <-time.After(time.Minute):
		t.Fatalf("serve said nothing for a minute\n%s", s.output())
	}
	return logLine{}
}

// waitFor returns the next log line whose msg is msg.
func (s *served) waitFor(t *testing.T, msg string) logLine {
	t.Helper()
	for {
		if l := s.next(t); l.fields["msg"] == msg {
			return l
		}
	}
}

// stop interrupts the process and waits for it to end.
func (s *served) stop() {
	s.stopOnce.Do(func() {
		s.cmd.Process.Signal(os.Interrupt)
		// Wait closes the stderr pipe: it may run only once every line has been read, or
		// the last lines (the "stopped" line) are lost now and then.
		<-s.read
		s.cmd.Wait()
		close(s.done)
	})
}

// output returns everything the process wrote to stderr so far.
func (s *served) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.log, "\n")
}

// runBinary runs graphwire with args and returns its exit code, stdout and
// stderr.
func runBinary(t *testing.T, environ []string, args ...string) (int, string, string) {
	t.Helper()
	bin, _ := binary(t)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), environ...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}
