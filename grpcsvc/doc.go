// Package grpcsvc is the gRPC face of graphwire: graphwire.v1.QueryService
// (proto/graphwire/v1), the standard health service and reflection, with
// authentication, deadlines, admission control, logging and panic recovery
// around every call (shared/specs/query-engine.md §10, §13).
//
// A request runs compile → admission slot → executor.Respond → format:
//
//	srv, _ := grpcsvc.New(engine, formatter.Default(), grpcsvc.Options{Compiler: c, Ontology: o, Verifier: v})
//	g := srv.GRPCServer()
//	g.Serve(lis)
//
// docs/service.md describes the limits, statuses and session state.
package grpcsvc
