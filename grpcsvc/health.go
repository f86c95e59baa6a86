package grpcsvc

import (
	"context"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/graphwire/graphwire/ingest"
	pb "github.com/graphwire/graphwire/proto/graphwire/v1"
)

// DefaultHealthInterval is how often [Server.WatchHealth] checks the
// engine when Options.HealthInterval is 0.
const DefaultHealthInterval = 5 * time.Second

// healthTimeout bounds one readiness check, so a hung engine reads as
// NOT_SERVING rather than as the last answer.
const healthTimeout = 5 * time.Second

// CheckHealth checks once that the engine answers and holds a complete
// graph ([pipeline.Pipeline.Ready]), and Options.ReadyCheck when set, and sets the health status of the
// server ("" and graphwire.v1.QueryService) to SERVING or NOT_SERVING
// accordingly. It returns the check's error. After [Server.Drain] the
// status stays NOT_SERVING whatever the check finds.
func (s *Server) CheckHealth(ctx context.Context) error { return s.checkHealth(ctx, true) }

// checkHealth is [Server.CheckHealth], with the engine's check left out when engine is false
// (the last one found the engine ready and nothing ran on it since).
func (s *Server) checkHealth(ctx context.Context, engine bool) error {
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	var err error
	if engine {
		// Read before the check: a statement that runs meanwhile makes the next one due.
		var seen uint64
		if s.opts.HealthActivity != nil {
			seen = s.opts.HealthActivity()
		}
		// A check is no query: it does not keep the server from merging when idle.
		err = s.pipe.Ready(ingest.Background(ctx))
		s.healthMu.Lock()
		s.engineReady, s.engineSeen = err == nil, seen
		s.healthMu.Unlock()
	}
	if err == nil && s.opts.ReadyCheck != nil {
		err = s.opts.ReadyCheck()
	}
	st := healthpb.HealthCheckResponse_SERVING
	if err != nil {
		st = healthpb.HealthCheckResponse_NOT_SERVING
	}
	s.healthMu.Lock()
	changed := st != s.healthLast
	s.healthLast, s.healthErr = st, err
	s.healthMu.Unlock()
	if changed {
		if err != nil {
			s.log.WarnContext(ctx, "health", "status", st.String(), "err", err)
		} else {
			s.log.InfoContext(ctx, "health", "status", st.String())
		}
	}
	s.health.SetServingStatus("", st)
	s.health.SetServingStatus(pb.QueryService_ServiceDesc.ServiceName, st)
	return err
}

// healthTick is one check of [Server.WatchHealth].
func (s *Server) healthTick(ctx context.Context) { s.checkHealth(ctx, s.engineDue()) }

// engineDue reports whether the next health check must run the engine's: always without
// Options.HealthActivity, else when the last one did not find it ready or something ran on
// the engine since it began.
func (s *Server) engineDue() bool {
	if s.opts.HealthActivity == nil {
		return true
	}
	s.healthMu.Lock()
	ready, seen := s.engineReady, s.engineSeen
	s.healthMu.Unlock()
	return !ready || s.opts.HealthActivity() != seen
}

// WatchHealth runs [Server.CheckHealth] at once and then every
// Options.HealthInterval until ctx ends; with Options.HealthActivity, a check
// leaves the engine out while nothing ran on it since the last one found it ready.
func (s *Server) WatchHealth(ctx context.Context) {
	t := time.NewTicker(s.opts.HealthInterval)
	defer t.Stop()
	for {
		s.healthTick(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Drain sets the health status to NOT_SERVING for good, so load balancers
// stop sending new calls while in-flight ones finish; call it when a
// graceful shutdown starts.
func (s *Server) Drain() {
	s.healthMu.Lock()
	s.drained = true
	s.healthMu.Unlock()
	s.health.Shutdown()
}

// Ready reports what the gRPC health service says, for faces other than gRPC (serve's
// /readyz): whether the last check found the engine answering with a complete graph and
// the server is not draining, and otherwise why not.
func (s *Server) Ready() (ready bool, reason string) {
	s.healthMu.Lock()
	defer s.healthMu.Unlock()
	switch {
	case s.drained:
		return false, "draining: the server is shutting down"
	case s.healthLast != healthpb.HealthCheckResponse_SERVING:
		if s.healthErr != nil {
			return false, s.healthErr.Error()
		}
		return false, "not serving"
	}
	return true, ""
}
