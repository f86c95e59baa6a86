// Package netlimit bounds the connections a server holds open, so that peers cannot take
// every file descriptor of the process. A [Limiter] is one budget shared by every listener it
// wraps: a total, a share per client IP address, and a smaller share for connections that
// have not yet shown a valid credential. The server tells it which connections have
// ([Limiter.Authenticated]); the rest are the ones a stranger can open.
//
//	lim, _ := netlimit.New(netlimit.Options{MaxConns: 1000, MaxPerIP: 250, MaxUnauthenticated: 250})
//	ln, _ := net.Listen("tcp", "127.0.0.1:7447")
//	grpcServer.Serve(lim.Listener(ln))
//	// in the auth check, once a token verifies:
//	lim.Authenticated(localAddr, remoteAddr)
//
// When a new connection would break a bound, the oldest unauthenticated connection that
// counts against it is closed to make room (of the same IP for the per-IP bound, of any IP
// otherwise); only when there is none is the new connection closed instead. So a stranger
// holding idle sockets loses its oldest ones to every newcomer, a client that authenticates
// promptly is not pushed out, and connections that have authenticated are never closed
// here (timeouts and the server's own limits bound them).
//
// Accept errors that a retry can cure (too many open files, a connection aborted before it
// was accepted) are retried with a growing pause, up to a second, instead of being returned
// to the server, and logged at most once per Options.LogEvery with a count of those left out.
package netlimit
