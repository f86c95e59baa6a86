//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestLocalSocketLongPath: a data directory too long for a socket inside it gets one in this
// user's private directory under TMPDIR, made 0700; a directory of that name that others may
// enter, or that another user made first, is refused with a message saying what to do, and
// no socket is looked for there. Before, the socket sat in the shared temporary directory
// itself, where another user could create its name first and keep serve from starting.
func TestLocalSocketLongPath(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.MkdirAll(long, 0o700); err != nil {
		t.Fatal(err)
	}
	priv := filepath.Join(tmp, fmt.Sprintf("graphwire-%d", os.Getuid()))

	l, err := listenLocal(long)
	if err != nil {
		t.Fatalf("listenLocal(long path): %v", err)
	}
	p := localSocket(long)
	if filepath.Dir(p) != priv {
		t.Errorf("socket of a long data directory at %s, want it inside %s", p, priv)
	}
	if !socketAnswers(p) {
		t.Errorf("socketAnswers(%s) = false for this process's own listener", p)
	}
	l.Close()
	if fi, err := os.Stat(priv); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("private directory %s: %v, %v; want mode 0700", priv, fi, err)
	}

	// Others may enter it: refused.
	if err := os.Chmod(priv, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := listenLocal(long); err == nil || !strings.Contains(err.Error(), "not a directory private to this user") {
		t.Errorf("listenLocal with %s at 0755: %v, want a refusal naming it", priv, err)
	}
	if p := localSocket(long); p != "" {
		t.Errorf("localSocket with %s at 0755 = %q, want \"\" (no socket looked for)", priv, p)
	}
	// A link in its place: refused too.
	if err := os.RemoveAll(priv); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(t.TempDir(), priv); err != nil {
		t.Fatal(err)
	}
	if _, err := listenLocal(long); err == nil {
		t.Errorf("listenLocal with %s a symbolic link: nil error, want a refusal", priv)
	}
	if err := os.Remove(priv); err != nil {
		t.Fatal(err)
	}

	if os.Getuid() != 0 {
		t.Log("not root: the case of a directory another user made first is not run")
		return
	}
	// Another user made it first.
	if err := os.Mkdir(priv, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(priv, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := listenLocal(long); err == nil || !strings.Contains(err.Error(), "want owner uid 0") {
		t.Errorf("listenLocal with %s owned by another user: %v, want a refusal", priv, err)
	}
}
