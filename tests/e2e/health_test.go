package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/graphwire/graphwire/grpcsvc"
	"github.com/graphwire/graphwire/loadstate"
)

// healthServer starts the service on a loopback port and returns it with a
// health client.
func healthServer(t *testing.T, mutate func(*grpcsvc.Options)) (*grpcsvc.Server, healthpb.HealthClient) {
	t.Helper()
	srv, addr := serveGRPC(t, engine(t), mutate)
	return srv, healthpb.NewHealthClient(grpcConn(t, addr, insecure.NewCredentials()))
}

// healthStatus returns the status the server reports for itself ("")
// and for the query service, failing when they differ.
func healthStatus(t *testing.T, hc healthpb.HealthClient) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	var got [2]healthpb.HealthCheckResponse_ServingStatus
	for i, svc := range []string{"", "graphwire.v1.QueryService"} {
		r, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil {
			t.Fatalf("health check %q: %v", svc, err)
		}
		got[i] = r.GetStatus()
	}
	if got[0] != got[1] {
		t.Fatalf("the server reports %v, its query service %v", got[0], got[1])
	}
	return got[0]
}

// breakUserTable renames a graph table away, as a half-finished load or an
// operator's mistake would, and returns the repair; the repair also runs
// when the test ends.
func breakUserTable(t *testing.T) func() {
	t.Helper()
	eng := engine(t)
	if err := eng.Exec(t.Context(), "RENAME TABLE gl_user TO gl_user_broken"); err != nil {
		t.Fatalf("break the engine: %v", err)
	}
	repaired := false
	repair := func() {
		if !repaired {
			repaired = true
			if err := eng.Exec(context.Background(), "RENAME TABLE gl_user_broken TO gl_user"); err != nil {
				t.Fatalf("repair the engine: %v", err)
			}
		}
	}
	t.Cleanup(repair)
	return repair
}

// TestHealthFollowsEngine: the standard health service reports
// NOT_SERVING while a graph table is missing and SERVING again once it is
// back, through a direct check.
func TestHealthFollowsEngine(t *testing.T) {
	srv, hc := healthServer(t, nil)
	if err := srv.CheckHealth(t.Context()); err != nil {
		t.Fatalf("check on the seeded engine: %v", err)
	}
	if got := healthStatus(t, hc); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("seeded engine: %v, want SERVING", got)
	}
	repair := breakUserTable(t)
	if err := srv.CheckHealth(t.Context()); !errors.Is(err, loadstate.ErrIncomplete) {
		t.Fatalf("check without gl_user: %v, want %v", err, loadstate.ErrIncomplete)
	}
	if got := healthStatus(t, hc); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("without gl_user: %v, want NOT_SERVING", got)
	}
	// Ready (serve's /readyz) says the same, with the check's reason.
	if ok, reason := srv.Ready(); ok || !strings.Contains(reason, loadstate.ErrIncomplete.Error()) {
		t.Errorf("Ready without gl_user: %v %q, want not ready naming the incomplete graph", ok, reason)
	}
	repair()
	if err := srv.CheckHealth(t.Context()); err != nil {
		t.Fatalf("check after the repair: %v", err)
	}
	if got := healthStatus(t, hc); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("after the repair: %v, want SERVING", got)
	}
}

// TestHealthWatcher: the background watcher notices the engine break and
// recover by itself; the test follows the standard health Watch stream, so
// it waits for status changes, not for time.
func TestHealthWatcher(t *testing.T) {
	srv, hc := healthServer(t, func(o *grpcsvc.Options) { o.HealthInterval = 20 * time.Millisecond })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	watch, err := hc.Watch(ctx, &healthpb.HealthCheckRequest{Service: "graphwire.v1.QueryService"})
	if err != nil {
		t.Fatal(err)
	}
	next := func(want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		for {
			r, err := watch.Recv()
			if err != nil {
				t.Fatalf("waiting for %v: %v", want, err)
			}
			if r.GetStatus() == want {
				return
			}
		}
	}
	next(healthpb.HealthCheckResponse_SERVING)
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { srv.WatchHealth(wctx); close(done) }()
	defer func() { stop(); <-done }()
	repair := breakUserTable(t)
	next(healthpb.HealthCheckResponse_NOT_SERVING)
	repair()
	next(healthpb.HealthCheckResponse_SERVING)
}

// TestHealthDrain: once draining, the server reports NOT_SERVING, and a
// healthy engine check does not turn it back.
func TestHealthDrain(t *testing.T) {
	srv, hc := healthServer(t, nil)
	srv.Drain()
	if got := healthStatus(t, hc); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("draining: %v, want NOT_SERVING", got)
	}
	if err := srv.CheckHealth(t.Context()); err != nil {
		t.Fatalf("check while draining: %v", err)
	}
	if got := healthStatus(t, hc); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("draining after a good check: %v, want NOT_SERVING", got)
	}
	if ok, reason := srv.Ready(); ok || !strings.Contains(reason, "draining") {
		t.Errorf("Ready while draining: %v %q, want not ready, draining", ok, reason)
	}
}
