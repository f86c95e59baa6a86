//go:build linux

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// localSocket is the path of the write socket of the process that owns the embedded data
// directory dir: dir/graphwire.sock, or, when that path is too long for a Unix socket, a
// name derived from dir in this user's private directory under the temporary directory
// (privateSocketDir). Both ends compute it the same way. It is "" when that private
// directory is not usable, and then no socket is looked for.
func localSocket(dir string) string {
	p, _ := socketPath(dir, false)
	return p
}

// socketPath is localSocket's path; with create, listenLocal's, it makes the private
// directory a long path needs, and says why it cannot.
func socketPath(dir string, create bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	p := filepath.Join(abs, localSocketName)
	if len(p) < 100 { // sun_path holds 108 bytes with its NUL
		return p, nil
	}
	priv, err := privateSocketDir(create)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256([]byte(abs))
	return filepath.Join(priv, hex.EncodeToString(h[:8])+".sock"), nil
}

// privateSocketDir is graphwire-UID in the temporary directory, a directory of this user's
// that nobody else may enter: the temporary directory is shared, and a socket name there
// could be taken first by another user, who would then keep the server from listening (its
// file cannot be removed under the sticky bit). With create it is made when missing; either
// way it is refused unless it is a real directory (not a link), owned by this user, with no
// permission for others.
func privateSocketDir(create bool) (string, error) {
	d := filepath.Join(os.TempDir(), fmt.Sprintf("graphwire-%d", os.Getuid()))
	if create {
		if err := os.Mkdir(d, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("local socket: %w", err)
		}
	}
	fi, err := os.Lstat(d)
	if err != nil {
		return "", fmt.Errorf("local socket: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("local socket: %s is not a directory private to this user (want owner uid %d, mode 0700; found %v): "+
			"remove it, or give the data directory a shorter path, which keeps the socket inside it", d, os.Getuid(), fi.Mode())
	}
	return d, nil
}

// localSocketName is the write socket's name inside a data directory.
const localSocketName = "graphwire.sock"

// listenLocal opens the write socket of dir, readable and writable by this user only, and
// admits only connections from processes of this user. The caller owns dir's engine, so a
// socket file already there is stale and replaced.
func listenLocal(dir string) (net.Listener, error) {
	p, err := socketPath(dir, true)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	old := syscall.Umask(0o177)
	l, err := net.Listen("unix", p)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("local socket: %w", err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("local socket: %w", err)
	}
	return sameUser{l.(*net.UnixListener)}, nil
}

// sameUser accepts only peers whose user is this process's (SO_PEERCRED); others are
// closed unanswered.
type sameUser struct{ *net.UnixListener }

func (s sameUser) Accept() (net.Conn, error) {
	for {
		c, err := s.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if peerIsUs(c) {
			return c, nil
		}
		c.Close()
	}
}

func peerIsUs(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil || cerr != nil {
		return false
	}
	return int(cred.Uid) == os.Getuid()
}

// dialLocal connects to the write socket p and admits it only when the process listening
// on it runs as this user (SO_PEERCRED): when the data directory's path is long, p is in
// the shared temporary directory, where another user may have put a socket first, and a
// write sends that process the files to load.
func dialLocal(ctx context.Context, p string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", p)
	if err != nil {
		return nil, err
	}
	if uc, ok := c.(*net.UnixConn); !ok || !peerIsUs(uc) {
		c.Close()
		return nil, fmt.Errorf("local socket %s: the process listening on it is not this user's", p)
	}
	return c, nil
}
