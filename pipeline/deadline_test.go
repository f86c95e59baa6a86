package pipeline

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	"github.com/graphwire/graphwire/executor"
)

// expiring is a context whose deadline passes when expire is called: no clock is involved.
type expiring struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func newExpiring(parent context.Context) *expiring {
	return &expiring{Context: parent, done: make(chan struct{})}
}

func (c *expiring) expire()                     { c.once.Do(func() { close(c.done) }) }
func (c *expiring) Done() <-chan struct{}       { return c.done }
func (c *expiring) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *expiring) Value(key any) any           { return c.Context.Value(key) }
func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// expireAfterEngine runs statements on its engine, then lets the caller's deadline pass
// before handing back the rows: the engine's part ends in time, and everything after it
// runs with the context expired.
type expireAfterEngine struct{ e executor.Runner }

func (x expireAfterEngine) Run(ctx context.Context, q *compiler.Query) (executor.Rows, error) {
	rows, err := x.e.Run(context.WithoutCancel(ctx), q)
	if err != nil {
		return nil, err
	}
	res, err := executor.Collect(rows)
	if err != nil {
		return nil, err
	}
	ctx.(*expiring).expire()
	return executor.SliceRows(res.Columns, res.Rows, res.Stats), nil
}

// TestDeadlineAfterEngine: a deadline that passes once the engine has answered stops the
// answer with DeadlineExceeded in every format, auto, a token budget and a stream, instead of
// formatting it anyway; and the caller's admission slot is given back.
func TestDeadlineAfterEngine(t *testing.T) {
	p := seededPipeline(t)
	p.exec = expireAfterEngine{p.exec}
	q := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","id_range":{"start":1,"end":50}}],"limit":40}`)
	admin := &auth.Claims{UserID: 1, Admin: true}
	reqs := map[string]Request{}
	for _, f := range []string{"goon", "gcf", "gcf-graph", "gcx", "toon", "json", Auto} {
		reqs[f] = Request{Query: q, Claims: admin, Format: f}
	}
	reqs["goon, max_tokens"] = Request{Query: q, Claims: admin, Format: "goon", MaxTokens: 200}
	for name, req := range reqs {
		for _, stream := range []bool{false, true} {
			ctx := newExpiring(t.Context())
			var err error
			if stream {
				var out bytes.Buffer
				_, err = p.Stream(ctx, req, &out)
				if out.Len() > 0 {
					t.Errorf("%s stream: %d bytes written after the deadline", name, out.Len())
				}
			} else {
				_, err = p.Run(ctx, req)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s (stream %v): err = %v, want DeadlineExceeded", name, stream, err)
			}
		}
	}
	if n := p.Admission().Stats().Running; n != 0 {
		t.Errorf("%d admission slots still held", n)
	}
}
