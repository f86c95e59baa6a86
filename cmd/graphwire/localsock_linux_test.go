//go:build linux

package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// listenAsEnv (not a GRAPHWIRE_ variable, which the tests unset) names the socket TestLocalSocketHelper listens on in a child of another user.
const listenAsEnv = "GWTEST_LISTEN_AS"

// TestLocalSocketHelper is not a test: run by TestLocalSocketOtherUser as another user, it
// listens on $GWTEST_LISTEN_AS until killed.
func TestLocalSocketHelper(t *testing.T) {
	p := os.Getenv(listenAsEnv)
	if p == "" {
		t.Skip("helper of TestLocalSocketOtherUser")
	}
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// TestLocalSocketOtherUser: index and load write through the data directory's socket only
// when the process listening on it is this user's. A long data directory puts the socket
// in the shared temporary directory, where another user can listen first and would be
// sent every file of the write.
func TestLocalSocketOtherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a listener as another user")
	}
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // t.TempDir makes both owner-only
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	own := filepath.Join(dir, "own.sock")
	l, err := net.Listen("unix", own)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if !socketAnswers(own) {
		t.Errorf("socketAnswers(a socket of this user) = false")
	}

	other := filepath.Join(dir, "other.sock")
	// The test binary's own directory is closed to other users: run a copy.
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(dir, "helper")
	if err := os.WriteFile(helper, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(helper, "-test.run=^TestLocalSocketHelper$")
	cmd.Env = append(os.Environ(), listenAsEnv+"="+other)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(other); err == nil {
			break
		} else if !errors.Is(err, os.ErrNotExist) || i == 100 {
			t.Fatalf("the other user's listener did not start: %v\n%s", err, out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if socketAnswers(other) {
		t.Errorf("socketAnswers(a socket of another user) = true, want false: a write would be sent to that user's process")
	}
	if c, err := dialLocal(t.Context(), other); err == nil {
		c.Close()
		t.Errorf("dialLocal(a socket of another user) succeeded")
	}
}
