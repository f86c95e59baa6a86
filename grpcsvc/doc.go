// Package grpcsvc is the gRPC face of graphwire: graphwire.v1.QueryService
// (proto/graphwire/v1), the standard health service and reflection, with
// authentication, deadlines, admission control, logging and panic recovery
// around every call (docs/service.md; "Status codes" lists how errors become
// gRPC statuses).
//
// A request runs through the shared pipeline (package pipeline: compile →
// admission slot → executor.Respond → token budget → format), the same one
// the MCP face and the CLI use; this package owns only gRPC and the caller's
// identity:
//
//	srv, _ := grpcsvc.New(engine, formatter.Default(), grpcsvc.Options{Compiler: c, Ontology: o, Verifier: v})
//	g := srv.GRPCServer()
//	g.Serve(lis)
//
// Every call gets a request id (the caller's sane x-request-id, or a new
// one; see telemetry.RequestID), returned in the x-request-id response
// header and QueryMetadata.request_id and carried by every log line of the
// call; with Options.Metrics set, calls are counted and timed.
//
// docs/service.md describes the limits, statuses, metrics and session state.
package grpcsvc
