package grpcsvc

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/graphwire/graphwire/auth"
	"github.com/graphwire/graphwire/compiler"
	ontologyfiles "github.com/graphwire/graphwire/config/ontology"
	"github.com/graphwire/graphwire/executor"
	"github.com/graphwire/graphwire/formatter"
	"github.com/graphwire/graphwire/ontology"
)

// graphEngine answers the health check's statements (loadstate.Check) as a complete graph
// does, or fails every statement while broken, and counts them.
type graphEngine struct {
	statements atomic.Int64
	broken     atomic.Bool
}

func (g *graphEngine) Run(_ context.Context, q *compiler.Query) (executor.Rows, error) {
	g.statements.Add(1)
	if g.broken.Load() {
		return nil, errors.New("engine broken")
	}
	if strings.Contains(q.SQL, "system.tables") {
		var rows [][]any
		for _, name := range q.Params[0].Value.([]string) {
			rows = append(rows, []any{name})
		}
		return executor.SliceRows([]executor.Column{{Name: "name", Type: "String"}}, rows, executor.Stats{}), nil
	}
	cols := []executor.Column{{Name: "seq", Type: "UInt64"}, {Name: "status", Type: "String"}, {Name: "source", Type: "String"},
		{Name: "ontology_fingerprint", Type: "String"}, {Name: "version", Type: "UInt64"}, {Name: "nodes", Type: "UInt64"}, {Name: "edges", Type: "UInt64"}}
	return executor.SliceRows(cols, [][]any{{uint64(1), "complete", "seed", "", uint64(2), uint64(0), uint64(0)}}, executor.Stats{}), nil
}

func healthServer(t *testing.T, eng *graphEngine, opts Options) *Server {
	t.Helper()
	ont, err := ontology.Load(ontologyfiles.Files())
	if err != nil {
		t.Fatal(err)
	}
	if opts.Compiler, err = compiler.New(ont, compiler.Options{CursorKeys: compiler.RandomCursorKeys()}); err != nil {
		t.Fatal(err)
	}
	opts.Ontology = ont
	if opts.Verifier, err = auth.NewVerifier(auth.Options{Keys: [][]byte{[]byte("health-test-secret-0123456789abcdef")}}); err != nil {
		t.Fatal(err)
	}
	s, err := New(eng, formatter.Default(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHealthLeavesQuietEngine: with HealthActivity, a tick of WatchHealth runs the engine's
// check only when the last one did not find the graph ready or something ran on the engine
// since it began; ReadyCheck runs on every tick. Without HealthActivity every tick checks.
func TestHealthLeavesQuietEngine(t *testing.T) {
	ctx := t.Context()
	eng := &graphEngine{}
	var activity atomic.Uint64
	var notReady atomic.Pointer[error]
	s := healthServer(t, eng, Options{HealthActivity: activity.Load, ReadyCheck: func() error {
		if err := notReady.Load(); err != nil {
			return *err
		}
		return nil
	}})
	status := func() healthpb.HealthCheckResponse_ServingStatus {
		s.healthMu.Lock()
		defer s.healthMu.Unlock()
		return s.healthLast
	}
	tick := func(step string, wantStatements int64, want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		before := eng.statements.Load()
		s.healthTick(ctx)
		if ran := eng.statements.Load() - before; (ran > 0) != (wantStatements > 0) || (wantStatements > 0 && ran != wantStatements) {
			t.Errorf("%s: %d engine statements, want %d", step, ran, wantStatements)
		}
		if got := status(); got != want {
			t.Errorf("%s: status %v, want %v", step, got, want)
		}
	}
	const check = 2 // loadstate.Check: the tables, then the newest load record
	serving, notServing := healthpb.HealthCheckResponse_SERVING, healthpb.HealthCheckResponse_NOT_SERVING
	tick("first", check, serving)
	tick("quiet", 0, serving)
	tick("still quiet", 0, serving)
	activity.Add(1)
	tick("after a query", check, serving)
	tick("quiet again", 0, serving)

	jwks := errors.New("no JWKS keys")
	notReady.Store(&jwks)
	tick("quiet, ReadyCheck failing", 0, notServing)
	notReady.Store(nil)
	tick("quiet, ReadyCheck passing", 0, serving)

	eng.broken.Store(true)
	activity.Add(1)
	tick("broken engine", 1, notServing)
	tick("broken, quiet", 1, notServing) // a failed check is due again without activity
	eng.broken.Store(false)
	tick("mended, quiet", check, serving)
	tick("mended, quiet again", 0, serving)

	// Without HealthActivity (a shared ClickHouse server) every tick checks the engine.
	plain := healthServer(t, eng, Options{})
	for i := range 3 {
		before := eng.statements.Load()
		plain.healthTick(ctx)
		if ran := eng.statements.Load() - before; ran != check {
			t.Errorf("without HealthActivity, tick %d: %d engine statements, want %d", i, ran, check)
		}
	}
}
