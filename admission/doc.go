// Package admission decides whether a request may start engine work now:
// it bounds the requests running at once over all callers and per caller,
// lets a request wait a short time for a slot, bounds how many may wait,
// and refuses the rest with a [*BusyError] that says which bound was hit
// and when to retry (docs/service.md, "Admission control": by default a
// request waits up to 1 s for a slot, then RESOURCE_EXHAUSTED / SERVER_BUSY).
//
// It sits below the service faces, so gRPC and MCP share one
// [Controller] per process and a caller is limited across both.
//
//	ctl, _ := admission.New(admission.Options{MaxConcurrent: 8, MaxPerCaller: 4})
//	release, err := ctl.Acquire(ctx, callerID) // err: *BusyError or ctx.Err()
//	if err != nil {
//		return err
//	}
//	defer release() // after the engine work has ended
//
// Memory stays bounded: at most MaxConcurrent requests run and at most
// MaxQueued wait; every further request is refused at once, without
// waiting.
package admission
