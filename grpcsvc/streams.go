package grpcsvc

import (
	"sync"
	"time"

	"github.com/graphwire/graphwire/admission"
)

// limitStreams names the per-caller bound on open answer streams in the
// SERVER_BUSY status (metadata limit).
const limitStreams admission.Limit = "streams"

// streamRetryAfter is the RetryInfo delay of a stream refused by the
// per-caller stream bound: about how long a client needs to read or
// cancel one of its open streams.
const streamRetryAfter = time.Second

// streamLimit bounds the ExecuteQueryStream calls one caller (a user, as
// in admission) has open. A stream gives its admission slot back once its
// answer is formatted, before the first byte is written, so a slow reader
// never holds a slot; but until the client has read the answer, the
// handler holds the formatted text and a goroutine, blocked in Send by
// HTTP/2 flow control for as long as the client keeps the connection. A
// client that opens streams and never reads them would otherwise pin one
// answer after another in the server's memory, without bound. It is safe
// for concurrent use.
type streamLimit struct {
	max  int
	mu   sync.Mutex
	open map[int64]int // user id → open streams
}

func newStreamLimit(max int) *streamLimit {
	return &streamLimit{max: max, open: map[int64]int{}}
}

// acquire takes a place for one more open stream of user and returns the
// function that gives it back, or a *admission.BusyError when the user
// already has the most allowed.
func (l *streamLimit) acquire(user int64) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[user] >= l.max {
		return nil, &admission.BusyError{Limit: limitStreams, Max: l.max, RetryAfter: streamRetryAfter}
	}
	l.open[user]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[user]--; l.open[user] <= 0 {
				delete(l.open, user)
			}
		})
	}, nil
}
