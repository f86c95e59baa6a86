// Package telemetry holds what every face of graphwire reports about the
// requests it serves: Prometheus metrics and request ids. It sits below the
// faces (grpcsvc, mcpsvc) and the pipeline, which record into one
// [Metrics] per process; cmd/graphwire serves it on its own listener.
//
// A request id travels in the request's context ([WithCall]); the faces
// take it from a sane incoming x-request-id or make one ([RequestID]),
// return it to the client, and [NewLogHandler] adds it to every log line
// written with that context:
//
//	m, _ := telemetry.New(telemetry.Options{Admission: ctl})
//	http.Handle("/metrics", m.Handler())
//	ctx = telemetry.WithCall(ctx, &telemetry.Call{ID: telemetry.RequestID(incoming)})
//	logger.InfoContext(ctx, "rpc") // … "request_id":"3f9c…"
//
// docs/service.md lists the series and their labels.
package telemetry
