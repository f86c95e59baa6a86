package netlimit

import (
	"container/list"
	"errors"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"
)

// Options configures a [Limiter]. MaxConns is required; every other zero field means its
// documented default.
type Options struct {
	// MaxConns bounds the connections open at once over every listener of the Limiter.
	MaxConns int
	// MaxPerIP bounds the connections open at once from one client IP address; 0 means
	// MaxConns.
	MaxPerIP int
	// MaxUnauthenticated bounds the connections open at once that have not authenticated;
	// 0 means MaxConns.
	MaxUnauthenticated int
	// MaxPerUser bounds the authenticated connections of one user: a connection of a user
	// who already holds that many stays counted as unauthenticated, so it may be closed to
	// make room for another peer, and one token cannot hold every slot. 0 means MaxPerIP.
	MaxPerUser int
	// LogEvery is the least time between two log lines of one kind (accept errors, shed
	// connections); 0 means 10 s.
	LogEvery time.Duration
	// Logger receives those lines; nil discards.
	Logger *slog.Logger
}

// Stats counts a Limiter's connections.
type Stats struct {
	Open, Unauthenticated int
	// Refused counts new connections closed at once because a bound was reached and no
	// unauthenticated connection could make room; Evicted counts unauthenticated
	// connections closed to make room for a new one.
	Refused, Evicted uint64
}

// Limiter is a connection budget shared by the listeners it wraps. It is safe for
// concurrent use.
type Limiter struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	open   int
	perIP  map[netip.Addr]int
	users  map[string]int   // user → authenticated connections
	unauth *list.List       // of *conn, oldest first
	byAddr map[string]*conn // local and remote address → open connection
	stats  Stats
	notes  map[string]*note // rate-limited log lines by kind
}

// New returns a Limiter with opts.
func New(opts Options) (*Limiter, error) {
	if opts.MaxConns <= 0 || opts.MaxPerIP < 0 || opts.MaxUnauthenticated < 0 || opts.MaxPerUser < 0 {
		return nil, errors.New("netlimit: MaxConns must be positive and the other bounds not negative")
	}
	if opts.MaxPerIP == 0 {
		opts.MaxPerIP = opts.MaxConns
	}
	if opts.MaxUnauthenticated == 0 {
		opts.MaxUnauthenticated = opts.MaxConns
	}
	if opts.MaxPerUser == 0 {
		opts.MaxPerUser = opts.MaxPerIP
	}
	if opts.LogEvery == 0 {
		opts.LogEvery = 10 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Limiter{opts: opts, log: log, perIP: map[netip.Addr]int{}, users: map[string]int{}, unauth: list.New(),
		byAddr: map[string]*conn{}, notes: map[string]*note{}}, nil
}

// Options returns the Limiter's options with their defaults filled in.
func (l *Limiter) Options() Options { return l.opts }

// Stats returns the current counts.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Open, s.Unauthenticated = l.open, l.unauth.Len()
	return s
}

// Listener wraps inner: its connections count against the Limiter's bounds.
func (l *Limiter) Listener(inner net.Listener) net.Listener {
	return &listener{Listener: inner, lim: l, done: make(chan struct{})}
}

// Authenticated marks the open connection between the addresses local and remote (as
// their String methods write them) as authenticated by user: it leaves the unauthenticated
// budget and is never closed to make room, unless user already holds MaxPerUser such
// connections, when it stays as it was. An unknown pair, or one already marked, is ignored.
func (l *Limiter) Authenticated(local, remote, user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.byAddr[addrKey(local, remote)]
	if c == nil || c.elem == nil {
		return
	}
	if l.users[user] >= l.opts.MaxPerUser {
		l.noteLocked("connection_over_user_bound", "reason", "the user holds its bound of authenticated connections; this one may be closed to make room", "max_per_user", l.opts.MaxPerUser)
		return
	}
	l.unauth.Remove(c.elem)
	c.elem = nil
	c.user, c.authed = user, true
	l.users[user]++
}

func addrKey(local, remote string) string { return local + "|" + remote }

// admit counts c in, closing the connection that makes room for it or c itself. It
// returns the connection to hand to the server, or nil when c was refused.
func (l *Limiter) admit(c net.Conn) net.Conn {
	ip := ipOf(c.RemoteAddr())
	l.mu.Lock()
	var victim *conn
	full := false
	switch {
	case l.perIP[ip] >= l.opts.MaxPerIP:
		victim, full = l.oldestUnauthenticated(ip, true), true
	case l.unauth.Len() >= l.opts.MaxUnauthenticated, l.open >= l.opts.MaxConns:
		victim, full = l.oldestUnauthenticated(ip, false), true
	}
	if full && victim == nil {
		l.stats.Refused++
		l.noteLocked("connection_refused", "reason", "bound reached by authenticated connections", "open", l.open, "from", ip.String())
		l.mu.Unlock()
		c.Close()
		return nil
	}
	if victim != nil {
		l.releaseLocked(victim)
		l.stats.Evicted++
		l.noteLocked("connection_shed", "reason", "oldest unauthenticated connection closed for a new one", "open", l.open)
	}
	wc := &conn{Conn: c, lim: l, ip: ip, key: addrKey(c.LocalAddr().String(), c.RemoteAddr().String())}
	l.open++
	l.perIP[ip]++
	wc.elem = l.unauth.PushBack(wc)
	l.byAddr[wc.key] = wc
	l.mu.Unlock()
	if victim != nil {
		victim.Conn.Close()
	}
	return wc
}

// oldestUnauthenticated returns the oldest unauthenticated connection, from ip only when
// sameIP is set; nil when there is none.
func (l *Limiter) oldestUnauthenticated(ip netip.Addr, sameIP bool) *conn {
	for e := l.unauth.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*conn); !sameIP || c.ip == ip {
			return c
		}
	}
	return nil
}

// releaseLocked takes c out of the counts, once. Called with mu held.
func (l *Limiter) releaseLocked(c *conn) {
	if c.released {
		return
	}
	c.released = true
	l.open--
	if l.perIP[c.ip]--; l.perIP[c.ip] <= 0 {
		delete(l.perIP, c.ip)
	}
	if c.elem != nil {
		l.unauth.Remove(c.elem)
		c.elem = nil
	}
	if c.authed {
		if l.users[c.user]--; l.users[c.user] <= 0 {
			delete(l.users, c.user)
		}
	}
	if l.byAddr[c.key] == c {
		delete(l.byAddr, c.key)
	}
}

// ipOf returns the IP address of a, the zero Addr for an address without one (a Unix
// socket), which then shares one per-IP count.
func ipOf(a net.Addr) netip.Addr {
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(ta.IP)
		return ip.Unmap()
	}
	if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// note is the rate-limit state of one kind of log line.
type note struct {
	last    time.Time
	skipped int
}

// noteLocked logs msg with args unless a line of its kind went out less than LogEvery
// ago; the next line that goes out says how many were left out. Called with mu held.
func (l *Limiter) noteLocked(msg string, args ...any) {
	n := l.notes[msg]
	if n == nil {
		n = &note{}
		l.notes[msg] = n
	}
	now := time.Now()
	if !n.last.IsZero() && now.Sub(n.last) < l.opts.LogEvery {
		n.skipped++
		return
	}
	l.log.Warn(msg, append(args, "suppressed", n.skipped)...)
	n.last, n.skipped = now, 0
}

// conn is an admitted connection.
type conn struct {
	net.Conn
	lim *Limiter
	ip  netip.Addr
	key string
	// elem is its place in lim.unauth while it is unauthenticated, and released is set
	// once it left the counts; both are guarded by lim.mu.
	elem     *list.Element
	released bool
	// user is who authenticated it, when authed: it counts against that user's bound.
	user   string
	authed bool
}

// Close closes the connection and gives its place back.
func (c *conn) Close() error {
	c.lim.mu.Lock()
	c.lim.releaseLocked(c)
	c.lim.mu.Unlock()
	return c.Conn.Close()
}

// NetConn returns the wrapped connection.
func (c *conn) NetConn() net.Conn { return c.Conn }

// listener is a net.Listener whose connections count against lim.
type listener struct {
	net.Listener
	lim       *Limiter
	done      chan struct{}
	closeOnce sync.Once
}

// maxRetryPause is the longest pause between two tries of a failing accept.
const maxRetryPause = time.Second

// Accept returns the next admitted connection. A temporary accept error is retried after
// a pause that doubles from 5 ms up to a second; it is logged, rate-limited, but not
// returned, so the server neither spins nor floods its log.
func (ln *listener) Accept() (net.Conn, error) {
	var pause time.Duration
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			if !retryable(err) {
				return nil, err
			}
			pause = min(max(2*pause, 5*time.Millisecond), maxRetryPause)
			ln.lim.mu.Lock()
			ln.lim.noteLocked("accept_failed", "err", err.Error(), "retry_ms", pause.Milliseconds())
			ln.lim.mu.Unlock()
			t := time.NewTimer(pause)
			select {
			case <-t.C:
			case <-ln.done:
				t.Stop()
				return nil, net.ErrClosed
			}
			continue
		}
		pause = 0
		if wc := ln.lim.admit(c); wc != nil {
			return wc, nil
		}
	}
}

// Close closes the listener; an Accept waiting to retry returns at once.
func (ln *listener) Close() error {
	ln.closeOnce.Do(func() { close(ln.done) })
	return ln.Listener.Close()
}

// retryable reports whether a later accept may succeed where this one failed: the
// process or system is out of descriptors or buffers for the moment, or the peer gave up
// before the connection was accepted.
func retryable(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.ECONNRESET} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
