package redact_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// authorityBin is the graphwire-redactd binary TestMain built: the tests
// run the real authority as a separate process on loopback.
var authorityBin string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "graphwire-redact-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	authorityBin = filepath.Join(dir, "graphwire-redactd")
	build := exec.Command("go", "build", "-o", authorityBin, "github.com/graphwire/graphwire/cmd/graphwire-redactd")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build graphwire-redactd: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// allowList is graphwire-redactd's allow file.
type allowList struct {
	Users  map[string]map[string][]string `json:"users"`
	Admins string                         `json:"admins,omitempty"`
	Faults map[string]string              `json:"faults,omitempty"`
}

// startAuthority runs graphwire-redactd with al and returns its URL and a
// function that stops it (also run at cleanup).
func startAuthority(t *testing.T, al allowList, args ...string) (string, func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "allow.json")
	data, err := json.Marshal(al)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(authorityBin, append([]string{"--allow", path}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("read the authority's address: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("authority said %q", line)
	}
	return "http://" + addr + "/v1/authorize", stop
}
