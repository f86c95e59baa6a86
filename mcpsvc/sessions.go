package mcpsvc

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graphwire/graphwire/auth"
)

// Defaults of the session bounds in [Options].
const (
	DefaultMaxSessions          = 1024
	DefaultMaxSessionsPerCaller = 16
)

// sessionHeader is the streamable-HTTP header that names a session.
const sessionHeader = "Mcp-Session-Id"

// sessionLimit bounds the live streamable-HTTP sessions, per caller (a user, as in
// admission) and in all. A session costs memory and a goroutine until the client deletes it
// or it stays idle for SessionTimeout, and opening one runs no query, so admission never
// sees it: without a bound, one caller opening sessions in a loop grows the server without
// limit. A request that would open a session beyond a bound is refused with 429 and
// Retry-After. It is safe for concurrent use.
type sessionLimit struct {
	srv        *mcp.Server
	max, per   int
	retryAfter time.Duration

	mu      sync.Mutex
	owner   map[string]string // session id → caller
	pending map[string]int    // caller → session-opening requests in flight
}

func newSessionLimit(srv *mcp.Server, max, per int, retryAfter time.Duration) *sessionLimit {
	return &sessionLimit{srv: srv, max: max, per: per, retryAfter: retryAfter,
		owner: map[string]string{}, pending: map[string]int{}}
}

// callerOf is the admission key of a verified request: the user id.
func callerOf(r *http.Request) (string, bool) {
	ti := sdkauth.TokenInfoFromContext(r.Context())
	if ti == nil {
		return "", false
	}
	c, ok := ti.Extra["claims"].(*auth.Claims)
	if !ok {
		return "", false
	}
	return strconv.FormatInt(c.UserID, 10), true
}

// reserve takes a place for a session caller may open, or reports that a bound is reached.
func (l *sessionLimit) reserve(caller string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pruneLocked()
	mine, all := l.pending[caller], 0
	for _, p := range l.pending {
		all += p
	}
	for _, o := range l.owner {
		all++
		if o == caller {
			mine++
		}
	}
	if mine >= l.per || all >= l.max {
		return false
	}
	l.pending[caller]++
	return true
}

// settle ends a reservation; id is the session the request opened, "" for none.
func (l *sessionLimit) settle(caller, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending[caller]--; l.pending[caller] <= 0 {
		delete(l.pending, caller)
	}
	if id != "" {
		l.owner[id] = caller
	}
}

// pruneLocked forgets the sessions that have ended (deleted by the client or closed when
// idle). Called with mu held; it costs one pass over the live sessions, at most max.
func (l *sessionLimit) pruneLocked() {
	live := make(map[string]bool, len(l.owner))
	for ss := range l.srv.Sessions() {
		live[ss.ID()] = true
	}
	for id := range l.owner {
		if !live[id] {
			delete(l.owner, id)
		}
	}
}

// wrap bounds the sessions next opens. A request without a session id is the only kind
// that can open one (an initialize); the id of the session it opened comes back in the
// response header.
func (l *sessionLimit) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		caller, ok := callerOf(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if !l.reserve(caller) {
			w.Header().Set("Retry-After", strconv.Itoa(max(1, int(l.retryAfter.Seconds()))))
			http.Error(w, "too many open MCP sessions for this caller or this server: close idle sessions (HTTP DELETE) or retry later", http.StatusTooManyRequests)
			return
		}
		id := ""
		defer func() { l.settle(caller, id) }()
		next.ServeHTTP(w, r)
		id = w.Header().Get(sessionHeader)
	})
}
