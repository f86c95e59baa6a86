package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"google.golang.org/grpc/peer"

	"github.com/graphwire/graphwire/netlimit"
	"github.com/graphwire/graphwire/serveconfig"
)

// connBudget is how serve bounds its connections so that peers cannot take the file
// descriptors the engine needs (a query, and the engine's own query kill, open files,
// pipes and epoll descriptors).
type connBudget struct {
	limit   uint64 // soft RLIMIT_NOFILE after raising it to the hard limit; 0: unknown
	open    int    // descriptors open when the budget was sized (the engine's included)
	reserve int    // descriptors kept free for the engine
	opts    netlimit.Options
	// clamped: --max-connections asked for more than the descriptors allow. low: the
	// limit is so low that the connections eat into the reserve.
	clamped, low bool
}

const (
	// unknownLimitConns is the total bound where the descriptor limit cannot be read.
	unknownLimitConns = 4096
	// countedLimit caps the limit counted (an infinite one is a huge number).
	countedLimit = 1 << 20
	// minConns is the least total bound, even below the reserve.
	minConns = 16
)

// sizeConnections sizes the connection bounds of c for a descriptor limit of limit (0:
// unknown), with open descriptors in use now. The total is what the limit leaves after the
// descriptors in use and the engine's reserve (at most half the limit), or
// --max-connections when that is lower; the per-IP and unauthenticated bounds default to a
// quarter of the total.
func sizeConnections(c serveconfig.Config, limit uint64, open int) connBudget {
	b := connBudget{limit: limit, open: max(open, 0)}
	total := unknownLimitConns
	if limit > 0 {
		l := int(min(limit, countedLimit))
		b.reserve = min(c.EngineFDReserve, l/2)
		total = l - b.open - b.reserve
		if total < minConns {
			total, b.low = minConns, true
		}
	}
	if c.MaxConnections > 0 {
		if c.MaxConnections > total && limit > 0 {
			b.clamped = true
		} else {
			total = c.MaxConnections
		}
	}
	quarter := max(1, total/4)
	b.opts = netlimit.Options{MaxConns: total, MaxPerIP: quarter, MaxUnauthenticated: quarter, MaxPerUser: quarter}
	if c.MaxConnectionsPerIP > 0 {
		b.opts.MaxPerIP = c.MaxConnectionsPerIP
	}
	if c.MaxUnauthenticatedConnections > 0 {
		b.opts.MaxUnauthenticated = c.MaxUnauthenticatedConnections
	}
	return b
}

// log reports the budget once at start, and warns when it could not be what was asked.
func (b connBudget) log(logger *slog.Logger) {
	args := []any{"fd_limit", b.limit, "fd_open", b.open, "fd_engine_reserve", b.reserve,
		"max_connections", b.opts.MaxConns, "max_connections_per_ip", b.opts.MaxPerIP, "max_unauthenticated_connections", b.opts.MaxUnauthenticated,
		"max_connections_per_user", b.opts.MaxPerUser}
	switch {
	case b.low:
		logger.Warn("descriptor limit too low for the engine reserve; raise ulimit -n", args...)
	case b.clamped:
		logger.Warn("max_connections lowered to what the descriptor limit leaves", args...)
	default:
		logger.Info("connection_limits", args...)
	}
}

// connAuthenticated returns the hooks that tell lim a connection has authenticated: a gRPC
// call's (by its peer) and an HTTP request's.
func connAuthenticated(lim *netlimit.Limiter) (grpcCall func(context.Context, int64), httpRequest func(*http.Request, int64)) {
	grpcCall = func(ctx context.Context, user int64) {
		if p, ok := peer.FromContext(ctx); ok && p.Addr != nil && p.LocalAddr != nil {
			lim.Authenticated(p.LocalAddr.String(), p.Addr.String(), strconv.FormatInt(user, 10))
		}
	}
	httpRequest = func(r *http.Request, user int64) {
		if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			lim.Authenticated(la.String(), r.RemoteAddr, strconv.FormatInt(user, 10))
		}
	}
	return grpcCall, httpRequest
}

// newHTTPServer returns an HTTP server of h with c's timeouts. Its own error log (TLS
// handshake failures and the like, one line per stranger) goes to logger at debug level.
func newHTTPServer(c serveconfig.Config, h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: c.ReadHeaderTimeout, ReadTimeout: c.HTTPReadTimeout,
		WriteTimeout: c.HTTPWriteTimeout, IdleTimeout: c.HTTPIdleTimeout,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelDebug)}
}

// splitOrigins splits a comma-separated list of origins, dropping empty entries.
func splitOrigins(s string) []string {
	var out []string
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}
