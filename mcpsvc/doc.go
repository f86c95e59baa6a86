// Package mcpsvc is the MCP face of graphwire (Model Context Protocol,
// official Go SDK): the tools query_graph, get_graph_schema and
// get_query_dsl, the ontology and DSL schema as resources, and a prompt
// that teaches an agent to explore the graph. It owns only the transport
// and the caller's identity; every query runs through the shared
// [pipeline.Pipeline], as gRPC's do, so one code path leads from request to
// formatted bytes.
//
// Two transports:
//
//	srv, _ := mcpsvc.New(mcpsvc.Options{Pipeline: p, Verifier: v})
//	srv.RunStdio(ctx, claims, os.Stdin, os.Stdout) // a local agent; the caller is fixed
//	http.Handle("/mcp", srv.HTTPHandler())          // streamable HTTP; bearer JWT per request
//
// Over HTTP every request carries the same bearer JWTs as gRPC; without a
// valid one the answer is 401 with a WWW-Authenticate header. A session is
// bound to the authorization it started with. Every HTTP response carries
// an X-Request-Id header, and tool results the same id in _meta.request_id.
//
// Tool failures the model can fix (bad DSL, scope violations, limits, a
// budget too small) come back as tool results with isError, the reason
// code, the JSON Pointer and the did-you-mean hint (see errorResult);
// protocol errors are left to the SDK for protocol faults.
//
// docs/mcp.md shows client configuration and a first session.
package mcpsvc
