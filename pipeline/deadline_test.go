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
	"github.com/graphwire/graphwire/config"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/ontology"
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

// lingering is an engine whose statements fail at the caller's deadline while the engine
// still holds them, until ended is closed.
type lingering struct{ ended chan struct{} }

func (l lingering) Run(ctx context.Context, _ *compiler.Query) (executor.Rows, error) {
	return nil, &executor.Error{Kind: executor.ErrTimeout, Err: context.DeadlineExceeded, Op: "run query", Ended: l.ended}
}

// TestSlotHeldUntilEngineLetsGo: a caller answered at its deadline while the engine still
// holds the statement keeps its admission slot until the engine lets go, so abandoning
// statements never gives a caller more of the engine than its slots.
func TestSlotHeldUntilEngineLetsGo(t *testing.T) {
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	comp, err := compiler.New(ont, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eng := lingering{ended: make(chan struct{})}
	p, err := New(eng, Options{Compiler: comp, Ontology: ont, DSLSchema: config.GraphQuerySchema(), DSLVersion: config.QueryDSLVersion()})
	if err != nil {
		t.Fatal(err)
	}
	q := []byte(`{"query_type":"traversal","nodes":[{"id":"u","entity":"User","node_ids":[1]}]}`)
	if _, err := p.Run(t.Context(), Request{Query: q, Claims: &auth.Claims{UserID: 1, Admin: true}}); !errors.Is(err, executor.ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if n := p.Admission().Stats().Running; n != 1 {
		t.Fatalf("%d slots held while the engine holds the statement, want 1", n)
	}
	close(eng.ended)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for p.Admission().Stats().Running != 0 {
		select {
		case <-t.Context().Done():
			t.Fatal("the slot was never given back")
		case <-tick.C:
		}
	}
}
