package netlimit_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graphwire/graphwire/netlimit"
)

// pair is both ends of an admitted connection.
type pair struct{ client, server net.Conn }

// dial connects to ln and returns both ends; the connection must be admitted.
func dial(t *testing.T, ln net.Listener, accepted <-chan net.Conn) pair {
	t.Helper()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return pair{client: c, server: <-accepted}
}

// closedByServer reports whether the server closed c: a read ends with EOF (or a reset)
// rather than its deadline.
func closedByServer(t *testing.T, c net.Conn) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return err != nil
}

// open reports whether c is still open: the server end echoes a byte.
func open(t *testing.T, p pair) bool {
	t.Helper()
	if _, err := p.client.Write([]byte{'x'}); err != nil {
		return false
	}
	b := make([]byte, 1)
	p.server.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.ReadFull(p.server, b)
	return err == nil
}

func serve(t *testing.T, lim *netlimit.Limiter) (net.Listener, <-chan net.Conn) {
	t.Helper()
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := lim.Listener(inner)
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	return ln, accepted
}

// TestOldestUnauthenticatedMakesRoom: beyond a bound, a new connection closes the oldest
// unauthenticated one; an authenticated connection is never closed for room, and when
// only authenticated ones hold the budget a new connection is refused.
func TestOldestUnauthenticatedMakesRoom(t *testing.T) {
	lim, err := netlimit.New(netlimit.Options{MaxConns: 3, MaxPerIP: 3, MaxUnauthenticated: 2})
	if err != nil {
		t.Fatal(err)
	}
	ln, accepted := serve(t, lim)
	a := dial(t, ln, accepted)
	lim.Authenticated(a.server.LocalAddr().String(), a.server.RemoteAddr().String(), "1")
	b := dial(t, ln, accepted)
	c := dial(t, ln, accepted) // two unauthenticated: b and c
	d := dial(t, ln, accepted) // the unauthenticated bound: b, the oldest, makes room
	if !closedByServer(t, b.client) {
		t.Error("the oldest unauthenticated connection stayed open when a new one broke the bound")
	}
	for name, p := range map[string]pair{"authenticated": a, "newer": c, "new": d} {
		if !open(t, p) {
			t.Errorf("the %s connection was closed", name)
		}
	}
	if got := lim.Stats(); got.Open != 3 || got.Unauthenticated != 2 || got.Evicted != 1 {
		t.Errorf("stats %+v, want 3 open, 2 unauthenticated, 1 evicted", got)
	}
	for _, p := range []pair{c, d} {
		lim.Authenticated(p.server.LocalAddr().String(), p.server.RemoteAddr().String(), "1")
	}
	// Three authenticated connections fill the total: the next is refused.
	e, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !closedByServer(t, e) {
		t.Error("a connection beyond a total held by authenticated ones was not refused")
	}
	// Closing one gives its place back.
	a.server.Close()
	f := dial(t, ln, accepted)
	if !open(t, f) {
		t.Error("no room after an authenticated connection closed")
	}
	if got := lim.Stats(); got.Refused != 1 || got.Open != 3 {
		t.Errorf("stats %+v, want 1 refused and 3 open", got)
	}
}

// TestPerIPBoundShedsOwnConnections: at the per-IP bound a new connection from that
// address closes that address's own oldest unauthenticated connection.
func TestPerIPBoundShedsOwnConnections(t *testing.T) {
	lim, err := netlimit.New(netlimit.Options{MaxConns: 10, MaxPerIP: 2})
	if err != nil {
		t.Fatal(err)
	}
	ln, accepted := serve(t, lim)
	var ps []pair
	for range 5 {
		ps = append(ps, dial(t, ln, accepted))
	}
	for i, p := range ps[:3] {
		if !closedByServer(t, p.client) {
			t.Errorf("connection %d stayed open beyond the per-IP bound", i)
		}
	}
	for i, p := range ps[3:] {
		if !open(t, p) {
			t.Errorf("connection %d, within the per-IP bound, was closed", i+3)
		}
	}
}

// flakyListener fails its first accepts with EMFILE.
type flakyListener struct {
	net.Listener
	fails int
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if f.fails > 0 {
		f.fails--
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return f.Listener.Accept()
}

// TestAcceptErrorsRetriedQuietly: "too many open files" from accept is not returned to the
// server (which would log each one and, in net/http, retry on its own) but retried, and
// logged once per LogEvery with the count of lines left out.
func TestAcceptErrorsRetriedQuietly(t *testing.T) {
	var logs bytes.Buffer
	lim, err := netlimit.New(netlimit.Options{MaxConns: 4, LogEvery: time.Hour, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := lim.Listener(&flakyListener{Listener: inner, fails: 6})
	defer ln.Close()
	c, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept returned %v, want the connection after the failures", err)
	}
	s.Close()
	if n := strings.Count(logs.String(), "accept_failed"); n != 1 {
		t.Errorf("%d accept_failed lines for 6 failures within LogEvery, want 1:\n%s", n, logs.String())
	}
}

// TestOneUserCannotHoldEverySlot: a user's authenticated connections beyond MaxPerUser stay
// unauthenticated, so when the total is full they make room for another peer instead of
// locking it out; another user's connections still authenticate, and a closed connection
// gives its user's place back.
func TestOneUserCannotHoldEverySlot(t *testing.T) {
	lim, err := netlimit.New(netlimit.Options{MaxConns: 4, MaxPerIP: 4, MaxUnauthenticated: 4, MaxPerUser: 2})
	if err != nil {
		t.Fatal(err)
	}
	ln, accepted := serve(t, lim)
	auth := func(p pair, user string) {
		lim.Authenticated(p.server.LocalAddr().String(), p.server.RemoteAddr().String(), user)
	}
	var held []pair
	for range 4 {
		p := dial(t, ln, accepted)
		auth(p, "7")
		held = append(held, p)
	}
	if got := lim.Stats(); got.Open != 4 || got.Unauthenticated != 2 {
		t.Fatalf("stats %+v, want 4 open, 2 of them over user 7's bound and so unauthenticated", got)
	}
	other := dial(t, ln, accepted) // the total is full: one of user 7's extra connections makes room
	if !open(t, other) {
		t.Fatal("another peer's connection was refused while one user held every slot")
	}
	if !closedByServer(t, held[2].client) {
		t.Error("user 7's oldest connection over its bound stayed open when the total was full")
	}
	for _, p := range held[:2] {
		if !open(t, p) {
			t.Error("a connection within user 7's bound was closed")
		}
	}
	auth(other, "8")
	if got := lim.Stats(); got.Unauthenticated != 1 {
		t.Errorf("stats %+v, want user 8's connection authenticated and only user 7's last extra left", got)
	}
	held[0].client.Close()
	held[0].server.Close()
	again := dial(t, ln, accepted)
	auth(again, "7")
	if got := lim.Stats(); got.Unauthenticated != 1 || got.Open != 4 {
		t.Errorf("stats %+v, want user 7's new connection to take the place its closed one gave back", got)
	}
}
